import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError } from '../../../platform/errors.ts';
import { decodeRequest, encodeRequest, type CanonicalRequest } from '../index.ts';

const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'array', items: { type: 'object', properties: { t: { type: 'number' } } } } },
  required: ['city'],
};
const messages = [{ role: 'user', content: 'weather?' }];
const copy = (r: CanonicalRequest): CanonicalRequest => ({ ...r, dropped: [...r.dropped] });

test('output_config.format from an Anthropic caller reaches OpenAI, Gemini and Bedrock in their forms', () => {
  const req = decodeRequest('anthropic', {
    model: 'c',
    max_tokens: 100,
    messages,
    output_config: { format: { type: 'json_schema', schema }, effort: 'low' },
  });
  assert.deepEqual(req.responseFormat, { type: 'json_schema', schema });
  assert.equal(req.reasoning?.effort, 'low', 'the effort beside the format is still read');

  const oa = copy(req);
  const ob = encodeRequest('openai', oa, 'gpt');
  assert.deepEqual(ob.response_format, { type: 'json_schema', json_schema: { name: 'response', schema } });
  assert.deepEqual(oa.dropped, [], 'nothing of output_config is recorded as left out');

  const gb = encodeRequest('gemini', copy(req), 'gem') as any;
  assert.equal(gb.generationConfig.responseMimeType, 'application/json');
  assert.deepEqual(gb.generationConfig.responseJsonSchema, schema);

  const bb = encodeRequest('bedrock', copy(req), 'amazon.nova-pro-v1:0') as any;
  assert.equal(bb.outputConfig.textFormat.type, 'json_schema');
  assert.equal(bb.outputConfig.textFormat.structure.jsonSchema.name, 'response');
  const sent = JSON.parse(bb.outputConfig.textFormat.structure.jsonSchema.schema);
  assert.equal(sent.additionalProperties, false, 'Bedrock gets closed objects');
  assert.equal(sent.properties.days.items.additionalProperties, false);
});

test('the earlier beta output_format is read too; keys of output_config the gateway does not know are kept for the log', () => {
  const req = decodeRequest('anthropic', {
    model: 'c',
    max_tokens: 100,
    messages,
    output_format: { type: 'json_schema', schema },
  });
  assert.deepEqual(req.responseFormat, { type: 'json_schema', schema });
  assert.equal(req.extra.output_format, undefined);
  const other = decodeRequest('anthropic', { model: 'c', max_tokens: 100, messages, output_config: { task_budget: 5, effort: 'high' } });
  assert.deepEqual(other.extra.output_config, { task_budget: 5 });
  encodeRequest('openai', other, 'gpt');
  assert.deepEqual(other.dropped, ['output_config']);
});

test('a bad output_config.format is a 400 naming the field', () => {
  for (const [format, field] of [
    [{ type: 'xml' }, 'output_config.format.type'],
    [{ type: 'json_schema' }, 'output_config.format.schema'],
    ['json', 'output_config.format'],
  ] as const) {
    assert.throws(
      () => decodeRequest('anthropic', { model: 'c', max_tokens: 10, messages, output_config: { format } }),
      (e: unknown) => e instanceof GatewayError && e.status === 400 && e.message.includes(field),
    );
  }
});

test('a JSON schema of another format reaches Anthropic as output_config.format with closed objects', () => {
  const req = decodeRequest('openai', {
    model: 'gpt',
    messages,
    response_format: { type: 'json_schema', json_schema: { name: 'weather', schema, strict: true } },
  });
  const body = encodeRequest('anthropic', req, 'claude') as any;
  assert.deepEqual(body.output_config, {
    format: {
      type: 'json_schema',
      schema: {
        type: 'object',
        properties: {
          city: { type: 'string' },
          days: { type: 'array', items: { type: 'object', properties: { t: { type: 'number' } }, additionalProperties: false } },
        },
        required: ['city'],
        additionalProperties: false,
      },
    },
  });
  assert.equal(body.tools, undefined);
  assert.equal(req.outputTool, undefined);
  assert.ok(!req.dropped.includes('response_format'));
  // Responses text.format too.
  const r = decodeRequest('responses', { model: 'm', input: 'hi', text: { format: { type: 'json_schema', name: 'w', schema } } });
  assert.equal((encodeRequest('anthropic', r, 'claude') as any).output_config.format.type, 'json_schema');
});

test('bare JSON (json_object) reaches Anthropic as a forced answer tool; thinking is then left out', () => {
  const req = decodeRequest('openai', {
    model: 'gpt',
    messages,
    response_format: { type: 'json_object' },
    reasoning_effort: 'high',
  });
  const body = encodeRequest('anthropic', req, 'claude') as any;
  assert.equal(req.outputTool, 'json_response');
  assert.deepEqual(body.tools, [
    {
      name: 'json_response',
      description: "Give the answer as this tool's input: the JSON object the request asks for.",
      input_schema: { type: 'object' },
    },
  ]);
  assert.deepEqual(body.tool_choice, { type: 'tool', name: 'json_response' });
  assert.equal(body.thinking, undefined);
  assert.equal(body.output_config, undefined);
  assert.ok(req.dropped.some((d) => d.startsWith('reasoning')));
});

test("beside the caller's own tools the answer tool is one more choice: the model must call one of them", () => {
  const req = decodeRequest('gemini', {
    contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
    tools: [{ functionDeclarations: [{ name: 'json_response', parameters: { type: 'OBJECT', properties: {} } }] }],
    generationConfig: { responseMimeType: 'application/json' },
  });
  const body = encodeRequest('anthropic', req, 'claude') as any;
  assert.deepEqual(
    body.tools.map((t: any) => t.name),
    ['json_response', 'json_response_2'],
    "a caller's tool of the same name keeps it",
  );
  assert.equal(req.outputTool, 'json_response_2');
  assert.deepEqual(body.tool_choice, { type: 'any' });
});
