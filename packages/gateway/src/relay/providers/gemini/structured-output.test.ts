import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeRequest, encodeRequest } from '../index.ts';
import { openApiToJsonSchema } from './structured-output.ts';

/** Gemini's OpenAPI 3.0 subset, as the Google SDKs write it (`Type.OBJECT` …). */
const openApi = {
  type: 'OBJECT',
  properties: {
    name: { type: 'STRING', description: 'who' },
    age: { type: 'INTEGER', nullable: true, minimum: 0 },
    mood: { type: 'STRING', format: 'enum', enum: ['calm', 'busy'] },
    tags: { type: 'ARRAY', items: { type: 'STRING' }, maxItems: 3 },
    pet: { type: 'OBJECT', nullable: true, properties: { kind: { type: 'STRING' } } },
  },
  required: ['name', 'mood'],
  propertyOrdering: ['name', 'age', 'mood', 'tags', 'pet'],
};
const jsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'who' },
    age: { type: ['integer', 'null'], minimum: 0 },
    mood: { type: 'string', enum: ['calm', 'busy'] },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
    pet: { type: ['object', 'null'], properties: { kind: { type: 'string' } } },
  },
  required: ['name', 'mood'],
};

test("Gemini's upper-case OpenAPI schema becomes JSON Schema: lower-case types, nullable as a null type, Gemini's own keywords left out", () => {
  assert.deepEqual(openApiToJsonSchema(openApi), jsonSchema);
  assert.deepEqual(openApiToJsonSchema({ anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }], nullable: true }), {
    anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }],
  });
  assert.deepEqual(openApiToJsonSchema(jsonSchema), jsonSchema, 'JSON Schema stays as it is');
});

test('responseSchema reaches OpenAI and Anthropic as JSON Schema; JSON Schema of other callers reaches Gemini as responseJsonSchema', () => {
  const req = decodeRequest('gemini', {
    contents: [{ role: 'user', parts: [{ text: 'who?' }] }],
    generationConfig: { responseMimeType: 'application/json', responseSchema: openApi },
  });
  assert.deepEqual(req.responseFormat, { type: 'json_schema', name: 'response', schema: jsonSchema });
  const oa = encodeRequest('openai', { ...req, dropped: [] }, 'gpt') as any;
  assert.deepEqual(oa.response_format, { type: 'json_schema', json_schema: { name: 'response', schema: jsonSchema } });
  const an = encodeRequest('anthropic', { ...req, dropped: [] }, 'claude') as any;
  assert.equal(an.output_config.format.schema.properties.pet.additionalProperties, false);
  assert.deepEqual(req.dropped, [], 'the schema is not recorded as left out');

  const js = decodeRequest('gemini', {
    contents: [{ role: 'user', parts: [{ text: 'who?' }] }],
    generationConfig: { responseMimeType: 'application/json', responseJsonSchema: jsonSchema },
  });
  assert.deepEqual(js.responseFormat, { type: 'json_schema', name: 'response', schema: jsonSchema });

  const fromChat = decodeRequest('openai', {
    model: 'gpt',
    messages: [{ role: 'user', content: 'who?' }],
    response_format: { type: 'json_schema', json_schema: { name: 'p', schema: jsonSchema } },
  });
  const g = encodeRequest('gemini', fromChat, 'gem') as any;
  assert.deepEqual(g.generationConfig, { responseMimeType: 'application/json', responseJsonSchema: jsonSchema });
  const bare = decodeRequest('openai', {
    model: 'gpt',
    messages: [{ role: 'user', content: 'x' }],
    response_format: { type: 'json_object' },
  });
  assert.deepEqual((encodeRequest('gemini', bare, 'gem') as any).generationConfig, { responseMimeType: 'application/json' });
});

test('a response schema that is not an object is a 400 naming the field', () => {
  assert.throws(
    () =>
      decodeRequest('gemini', {
        contents: [{ role: 'user', parts: [{ text: 'x' }] }],
        generationConfig: { responseMimeType: 'application/json', responseSchema: 'OBJECT' },
      }),
    /generationConfig\.responseSchema/,
  );
});
