import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeRequest, encodeRequest } from '../index.ts';

test('a JSON schema of any caller reaches Bedrock as outputConfig.textFormat, the schema as JSON text', () => {
  const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false };
  const req = decodeRequest('responses', {
    model: 'm',
    input: 'count',
    text: { format: { type: 'json_schema', name: 'a count!', schema, strict: true } },
  });
  const body = encodeRequest('bedrock', req, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0') as any;
  assert.deepEqual(body.outputConfig, {
    textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: JSON.stringify(schema), name: 'a_count_' } } },
  });
  assert.equal(body.toolConfig, undefined);
  assert.deepEqual(req.dropped, []);
});

test('bare JSON reaches Bedrock as a forced answer tool', () => {
  const req = decodeRequest('openai', {
    model: 'gpt',
    messages: [{ role: 'user', content: 'hi' }],
    response_format: { type: 'json_object' },
  });
  const body = encodeRequest('bedrock', req, 'amazon.nova-pro-v1:0') as any;
  assert.equal(body.outputConfig, undefined);
  assert.equal(req.outputTool, 'json_response');
  assert.deepEqual(body.toolConfig.toolChoice, { tool: { name: 'json_response' } });
  assert.deepEqual(body.toolConfig.tools[0].toolSpec.inputSchema, { json: { type: 'object' } });
  assert.ok(!req.dropped.includes('response_format'));
});
