import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStreamDecoder, decodeResponse, type CanonicalStreamEvent } from './index.ts';
import { unwrapOutputTool, unwrapOutputToolStream } from './structured-output.ts';

test("a whole answer: the answer tool's call becomes the text and the finish reason stop; other calls stay", () => {
  const r = decodeResponse('anthropic', {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'json_response', input: { city: 'Paris' } }],
    stop_reason: 'tool_use',
    usage: { input_tokens: 3, output_tokens: 4 },
  });
  unwrapOutputTool(r, 'json_response');
  assert.deepEqual(r.choices[0].parts, [{ type: 'text', text: '{"city":"Paris"}' }]);
  assert.deepEqual(r.choices[0].toolCalls, []);
  assert.equal(r.choices[0].finishReason, 'stop');

  const both = decodeResponse('anthropic', {
    id: 'msg_2',
    type: 'message',
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Paris' } }],
    stop_reason: 'tool_use',
    usage: { input_tokens: 3, output_tokens: 4 },
  });
  unwrapOutputTool(both, 'json_response');
  assert.equal(both.choices[0].toolCalls[0].name, 'get_weather', "a call of the caller's own tool is left as it is");
  assert.equal(both.choices[0].finishReason, 'tool_calls');
});

test("a stream: the answer tool's input_json deltas become text deltas, later calls keep consecutive indexes", () => {
  const ev = (type: string, data: Record<string, unknown>) => ({ event: type, data: JSON.stringify({ type, ...data }) });
  const d = unwrapOutputToolStream(createStreamDecoder('anthropic'), 'json_response');
  const out: CanonicalStreamEvent[] = [];
  for (const e of [
    ev('message_start', { message: { id: 'm', model: 'c', usage: { input_tokens: 5, output_tokens: 1 } } }),
    ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'json_response', input: {} } }),
    ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"city":' } }),
    ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } }),
    ev('content_block_stop', { index: 0 }),
    ev('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }),
  ])
    out.push(...d.push(e));
  out.push(...d.end());
  assert.deepEqual(
    out.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text),
    ['{"city":', '"Paris"}'],
  );
  assert.ok(!out.some((e) => e.type === 'tool_call_start' || e.type === 'tool_call_args'));
  assert.deepEqual(
    out.find((e) => e.type === 'finish'),
    { type: 'finish', index: 0, reason: 'stop' },
  );

  const mixed = unwrapOutputToolStream(createStreamDecoder('anthropic'), 'json_response');
  const evs = [
    ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'a', name: 'json_response', input: {} } }),
    ev('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'b', name: 'get_weather', input: {} } }),
    ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{}' } }),
    ev('message_delta', { delta: { stop_reason: 'tool_use' } }),
  ].flatMap((e) => mixed.push(e));
  assert.deepEqual(
    evs.filter((e) => e.type === 'tool_call_start' || e.type === 'tool_call_args').map((e) => (e as { toolIndex: number }).toolIndex),
    [0, 0],
  );
  assert.equal((evs.find((e) => e.type === 'finish') as { reason: string }).reason, 'tool_calls');
});
