import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError } from '../../../platform/errors.ts';
import {
  createStreamDecoder,
  createStreamEncoder,
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  usageFromResponse,
  usageFromStreamEvent,
} from '../index.ts';
import type { CanonicalStreamEvent } from '../index.ts';
import { fixture, parseSse, sseFixture, sseJson } from '../fixtures/load.ts';

test('openai request decodes into the canonical model', () => {
  const req = decodeRequest('openai', fixture('openai-request-tools.json'));
  assert.equal(req.model, 'gpt-4o');
  assert.deepEqual(
    req.messages.map((m) => m.role),
    ['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'user'],
  );
  const user = req.messages[1];
  assert.deepEqual(user.parts[1], {
    type: 'image',
    source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUg==' },
    detail: 'low',
  });
  const asst = req.messages[2];
  assert.ok(asst.role === 'assistant');
  assert.deepEqual(
    asst.toolCalls.map((c) => [c.id, c.name, c.arguments]),
    [
      ['call_paris01', 'get_weather', '{"city":"Paris","unit":"c"}'],
      ['call_berlin02', 'get_weather', '{"city":"Berlin"}'],
    ],
  );
  const tool = req.messages[3];
  assert.ok(tool.role === 'tool');
  assert.equal(tool.toolCallId, 'call_paris01');
  assert.equal(req.maxTokens, 512);
  assert.deepEqual(req.stop, ['END']);
  assert.equal(req.stream, true);
  assert.equal(req.includeUsage, true);
  assert.equal(req.toolChoice, 'auto');
  assert.deepEqual(req.reasoning, { effort: 'low', budgetTokens: 2048 });
  assert.deepEqual(req.extra, { logprobs: true });
});

test('openai → openai keeps unknown fields and the max-tokens field name', () => {
  const src = fixture('openai-request-tools.json');
  const body = encodeRequest('openai', decodeRequest('openai', src), 'gpt-4o-2024-08-06');
  assert.equal(body.model, 'gpt-4o-2024-08-06');
  assert.equal(body.logprobs, true);
  assert.equal(body.max_completion_tokens, 512);
  assert.equal(body.max_tokens, undefined);
  assert.deepEqual(body.stream_options, { include_usage: true });
  assert.deepEqual(body.messages, src.messages);
  assert.deepEqual(body.tools, src.tools);
  assert.equal(body.reasoning_effort, 'low');
});

test('openai upstream always gets include_usage when streaming, even if the client did not ask', () => {
  const req = decodeRequest('openai', { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
  assert.equal(req.includeUsage, false);
  assert.deepEqual(encodeRequest('openai', req, 'm').stream_options, { include_usage: true });
});

test('invalid openai requests are rejected with 400 naming the field', () => {
  const cases: [unknown, RegExp][] = [
    [{ model: 'm' }, /messages is required/],
    [{ model: 'm', messages: 'hi' }, /messages must be an array/],
    [{ model: 'm', messages: [{ role: 'wizard', content: 'x' }] }, /messages\[0\]\.role/],
    [{ messages: [] }, /model is required/],
    [{ model: 'm', messages: [{ role: 'user', content: [{ type: 'video', video: {} }] }] }, /messages\[0\]\.content\[0\]\.type/],
    [{ model: 'm', messages: [{ role: 'tool', content: 'x' }] }, /messages\[0\]\.tool_call_id/],
    [{ model: 'm', messages: [], temperature: 'hot' }, /temperature must be a number/],
    [{ model: 'm', messages: [], tool_choice: 'sometimes' }, /tool_choice/],
  ];
  for (const [body, re] of cases) {
    assert.throws(
      () => decodeRequest('openai', body),
      (e: unknown) => e instanceof GatewayError && e.status === 400 && re.test(e.message),
      String(re),
    );
  }
});

test('openai response decodes choices, tool calls and usage; logprobs noted as dropped', () => {
  const body = fixture('openai-response.json');
  const res = decodeResponse('openai', body);
  assert.equal(res.choices.length, 2);
  assert.equal(res.choices[0].finishReason, 'tool_calls');
  assert.deepEqual(res.choices[0].toolCalls, [{ id: 'call_abc', name: 'get_weather', arguments: '{"city":"Paris"}' }]);
  assert.equal(res.choices[1].finishReason, 'length');
  assert.deepEqual(res.usage, { inputTokens: 1117, outputTokens: 46, cachedInputTokens: 1024, cacheWriteTokens: 0, reasoningTokens: 12 });
  assert.deepEqual(usageFromResponse('openai', body), res.usage);
  assert.ok(res.dropped?.includes('logprobs'));
  const out = encodeResponse('openai', res, 'my-model', 'req1') as any;
  assert.equal(out.model, 'my-model');
  assert.equal(out.object, 'chat.completion');
  assert.equal(out.choices[0].message.content, "I'll check both cities.");
  assert.deepEqual(out.choices[0].message.tool_calls, body.choices[0].message.tool_calls);
  assert.deepEqual(out.usage, {
    prompt_tokens: 1117,
    completion_tokens: 46,
    total_tokens: 1163,
    prompt_tokens_details: { cached_tokens: 1024 },
    completion_tokens_details: { reasoning_tokens: 12 },
  });
});

test('openai stream decodes text, tool call argument deltas and the final usage chunk', () => {
  const dec = createStreamDecoder('openai');
  const events = sseFixture('openai-stream-tool.sse').flatMap((e) => dec.push(e));
  assert.deepEqual(
    events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text),
    ['Checking', ' now.'],
  );
  assert.deepEqual(
    events.filter((e) => e.type === 'tool_call_start').map((e) => [(e as any).toolIndex, (e as any).id]),
    [
      [0, 'call_DdmO9pD3xa9XTPNJ32zg2hcA'],
      [1, 'call_second'],
    ],
  );
  const args0 = events
    .filter((e) => e.type === 'tool_call_args' && e.toolIndex === 0)
    .map((e) => (e as any).delta)
    .join('');
  assert.equal(args0, '{"city": "Paris"}');
  assert.deepEqual(
    events.find((e) => e.type === 'finish'),
    { type: 'finish', index: 0, reason: 'tool_calls' },
  );
  const usage = events.filter((e) => e.type === 'usage').pop() as Extract<CanonicalStreamEvent, { type: 'usage' }>;
  assert.deepEqual(usage.usage, { inputTokens: 82, outputTokens: 40, cachedInputTokens: 64, cacheWriteTokens: 0, reasoningTokens: 0 });
  const passUsage = sseFixture('openai-stream-tool.sse')
    .map((e) => usageFromStreamEvent('openai', e))
    .filter(Boolean);
  assert.deepEqual(passUsage, [usage.usage]);
});

test('openai stream with n=2 keeps choices apart through decode and encode', () => {
  const dec = createStreamDecoder('openai');
  const enc = createStreamEncoder('openai', { model: 'client-model', requestId: 'r1', includeUsage: false, created: 1 });
  let text = '';
  for (const e of sseFixture('openai-stream-n2.sse')) for (const c of dec.push(e)) text += enc.push(c);
  text += enc.end();
  assert.ok(text.endsWith('data: [DONE]\n\n'));
  const chunks = sseJson(text);
  const content = (i: number) =>
    chunks
      .flatMap((c) => c.choices)
      .filter((c: any) => c.index === i)
      .map((c: any) => c.delta.content ?? '')
      .join('');
  assert.equal(content(0), 'Hello');
  assert.equal(content(1), 'Hi');
  const finishes = chunks
    .flatMap((c) => c.choices)
    .filter((c: any) => c.finish_reason)
    .map((c: any) => [c.index, c.finish_reason]);
  assert.deepEqual(finishes, [
    [0, 'stop'],
    [1, 'length'],
  ]);
  assert.ok(chunks.every((c) => c.model === 'client-model' && c.id === 'chatcmpl-r1' && !('usage' in c)));
  assert.equal(chunks.filter((c) => c.choices.some((x: any) => x.delta.role === 'assistant')).length, 2);
});

test('openai stream encoder sends the usage chunk only when asked, before [DONE]', () => {
  const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 2, cacheWriteTokens: 0, reasoningTokens: 1 };
  for (const includeUsage of [true, false]) {
    const enc = createStreamEncoder('openai', { model: 'm', requestId: 'r', includeUsage });
    let s =
      enc.push({ type: 'start' }) +
      enc.push({ type: 'text', index: 0, text: 'hi' }) +
      enc.push({ type: 'finish', index: 0, reason: 'stop' });
    s += enc.push({ type: 'usage', usage }) + enc.end();
    const events = parseSse(s);
    assert.equal(events[events.length - 1].data, '[DONE]');
    const last = JSON.parse(events[events.length - 2].data);
    if (includeUsage) {
      assert.deepEqual(last.choices, []);
      assert.equal(last.usage.prompt_tokens, 10);
      assert.equal(last.usage.completion_tokens_details.reasoning_tokens, 1);
    } else {
      assert.equal(last.usage, undefined);
      assert.equal(last.choices[0].finish_reason, 'stop');
    }
  }
});
