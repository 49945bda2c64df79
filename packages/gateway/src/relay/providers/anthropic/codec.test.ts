import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError } from '../../../platform/errors.ts';
import {
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  createStreamDecoder,
  createStreamEncoder,
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  usageFromResponse,
  usageFromStreamEvent,
} from '../index.ts';
import type { Usage } from '../index.ts';
import { fixture, sseFixture, sseJson } from '../fixtures/load.ts';

test('anthropic request decodes system blocks, images, thinking, tool use and tool results', () => {
  const req = decodeRequest('anthropic', fixture('anthropic-request.json'));
  assert.equal(req.model, 'claude-sonnet-4-5');
  assert.equal(req.maxTokens, 2048);
  assert.deepEqual(
    req.messages.map((m) => m.role),
    ['system', 'user', 'assistant', 'tool', 'user'],
  );
  assert.deepEqual(req.messages[0].parts, [{ type: 'text', text: 'You are a careful assistant.', cacheControl: { type: 'ephemeral' } }]);
  assert.deepEqual(req.messages[1].parts.slice(0, 2), [
    { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/4AAQSkZJRg==' } },
    { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.png' } },
  ]);
  const a = req.messages[2];
  assert.ok(a.role === 'assistant');
  assert.deepEqual(a.parts[0], {
    type: 'thinking',
    text: 'The user wants breed info.',
    signature: 'EqQBCkYIBxgCKkBsig==',
    from: 'anthropic',
  });
  assert.deepEqual(a.toolCalls, [{ id: 'toolu_01A09q90qw90lq917835lq9', name: 'lookup_breed', arguments: '{"query":"tabby"}' }]);
  const t = req.messages[3];
  assert.ok(t.role === 'tool');
  assert.equal(t.toolCallId, 'toolu_01A09q90qw90lq917835lq9');
  assert.equal(t.name, 'lookup_breed');
  assert.equal(req.toolChoice, 'auto');
  assert.equal(req.parallelToolCalls, false);
  assert.deepEqual(req.stop, ['\n\nHuman:']);
  assert.equal(req.topK, 40);
  assert.equal(req.user, 'u-7');
  assert.equal(req.reasoning?.budgetTokens, 1024);
  assert.deepEqual(req.extra, { service_tier: 'auto' });
  assert.equal(req.tools?.[1].native?.format, 'anthropic');
});

test('anthropic → anthropic re-encodes the same body', () => {
  const src = fixture('anthropic-request.json');
  const body = encodeRequest('anthropic', decodeRequest('anthropic', src), 'claude-sonnet-4-5-20250929');
  assert.equal(body.model, 'claude-sonnet-4-5-20250929');
  const expected = { ...src, model: 'claude-sonnet-4-5-20250929' };
  delete expected.stream;
  // single-text tool_result content is written as a string
  expected.messages = structuredClone(src.messages);
  expected.messages[2].content[0].content = 'Tabby is a coat pattern.';
  assert.deepEqual(body, expected);
});

test('anthropic input: system entries inside messages become system messages in place', () => {
  const req = decodeRequest('anthropic', {
    model: 'c',
    max_tokens: 10,
    system: 'top',
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'system', content: [{ type: 'text', text: 'agents: a, b' }] },
    ],
  });
  assert.deepEqual(
    req.messages.map((m) => m.role),
    ['system', 'user', 'system'],
  );
  assert.deepEqual(req.messages[2].parts, [{ type: 'text', text: 'agents: a, b' }]);
});

test('anthropic input requires max_tokens, messages and valid roles', () => {
  const cases: [unknown, RegExp][] = [
    [{ model: 'c', messages: [{ role: 'user', content: 'x' }] }, /max_tokens is required/],
    [{ model: 'c', max_tokens: 10 }, /messages is required/],
    [{ model: 'c', max_tokens: 10, messages: {} }, /messages must be an array/],
    [{ model: 'c', max_tokens: 10, messages: [{ role: 'tool', content: 'x' }] }, /messages\[0\]\.role/],
    [
      { model: 'c', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'tool_result' }] }] },
      /messages\[0\]\.content\[0\]\.tool_use_id/,
    ],
    [{ model: 'c', max_tokens: 10, messages: [], tool_choice: { type: 'sometimes' } }, /tool_choice\.type/],
  ];
  for (const [body, re] of cases) {
    assert.throws(
      () => decodeRequest('anthropic', body),
      (e: unknown) => e instanceof GatewayError && e.status === 400 && re.test(e.message),
      String(re),
    );
  }
});

test('openai → anthropic request: system, max_tokens default, tool results grouped, data URL images, dropped fields noted', () => {
  const req = decodeRequest('openai', fixture('openai-request-tools.json'));
  delete req.maxTokens;
  req.reasoning = undefined;
  const body = encodeRequest('anthropic', req, 'claude-x') as any;
  assert.equal(body.max_tokens, DEFAULT_ANTHROPIC_MAX_TOKENS);
  assert.equal(encodeRequest('anthropic', { ...req, dropped: [] }, 'claude-x', { defaultMaxTokens: 1000 }).max_tokens, 1000);
  assert.equal(body.system, 'You are a weather bot.');
  assert.deepEqual(
    body.messages.map((m: any) => m.role),
    ['user', 'assistant', 'user', 'assistant', 'user'],
  );
  assert.deepEqual(body.messages[0].content[1], {
    type: 'image',
    source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUg==' },
  });
  assert.deepEqual(body.messages[1].content, [
    { type: 'tool_use', id: 'call_paris01', name: 'get_weather', input: { city: 'Paris', unit: 'c' } },
    { type: 'tool_use', id: 'call_berlin02', name: 'get_weather', input: { city: 'Berlin' } },
  ]);
  assert.deepEqual(body.messages[2].content, [
    { type: 'tool_result', tool_use_id: 'call_paris01', content: '{"temp":21,"sky":"sunny"}' },
    { type: 'tool_result', tool_use_id: 'call_berlin02', content: 'Rain, 14C' },
  ]);
  assert.deepEqual(body.stop_sequences, ['END']);
  assert.deepEqual(body.tool_choice, { type: 'auto' });
  assert.equal(body.tools[0].input_schema.required[0], 'city');
  assert.equal(body.metadata.user_id, 'user-42');
  assert.equal(body.logprobs, undefined);
  assert.ok(req.dropped.includes('logprobs'));
});

test('reasoning effort becomes a thinking budget below max_tokens', () => {
  const req = decodeRequest('openai', {
    model: 'm',
    messages: [{ role: 'user', content: 'hi' }],
    reasoning_effort: 'medium',
    max_tokens: 20000,
    temperature: 0.2,
  });
  const body = encodeRequest('anthropic', req, 'claude') as any;
  assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 8192 });
  assert.equal(body.temperature, undefined);
  assert.ok(req.dropped.some((d) => d.startsWith('temperature')));
  const small = decodeRequest('openai', { model: 'm', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'high' });
  const b2 = encodeRequest('anthropic', small, 'claude') as any;
  assert.ok(b2.thinking.budget_tokens < b2.max_tokens);
});

test('anthropic usage counts cache read and cache creation into input exactly once', () => {
  const body = fixture('anthropic-response.json');
  const expected: Usage = { inputTokens: 1250, outputTokens: 85, cachedInputTokens: 1000, cacheWriteTokens: 200, reasoningTokens: 0 };
  assert.deepEqual(usageFromResponse('anthropic', body), expected);
  const res = decodeResponse('anthropic', body);
  assert.deepEqual(res.usage, expected);
  // back to Anthropic: input_tokens excludes the cache again
  const back = encodeResponse('anthropic', res, 'claude', 'r') as any;
  assert.deepEqual(back.usage, body.usage);
  // to OpenAI: prompt_tokens includes the cache once
  const oa = encodeResponse('openai', res, 'claude', 'r') as any;
  assert.equal(oa.usage.prompt_tokens, 1250);
  assert.equal(oa.usage.prompt_tokens_details.cached_tokens, 1000);
  // and decoding that OpenAI body does not add it again
  assert.deepEqual(decodeResponse('openai', oa).usage, { ...expected, cacheWriteTokens: 0 });
});

test('anthropic response → openai response: text, reasoning, tool calls, finish reason', () => {
  const res = decodeResponse('anthropic', fixture('anthropic-response.json'));
  const oa = encodeResponse('openai', res, 'claude-client', 'r9') as any;
  const m = oa.choices[0].message;
  assert.equal(m.content, 'Let me check the weather.');
  assert.equal(m.reasoning_content, 'Need the weather tool.');
  assert.deepEqual(m.tool_calls, [
    {
      id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
      type: 'function',
      function: { name: 'get_weather', arguments: '{"city":"San Francisco","unit":"c"}' },
    },
  ]);
  assert.equal(oa.choices[0].finish_reason, 'tool_calls');
  const back = encodeResponse('anthropic', res, 'claude-client', 'r9') as any;
  assert.equal(back.id, 'msg_013Zva2CMHLNnXjNJJKqJ2EF');
  assert.equal(back.stop_reason, 'tool_use');
  assert.deepEqual(back.content, fixture('anthropic-response.json').content);
});

test('anthropic stream transcript → openai chunks: reasoning, text, tool argument deltas, usage at the end', () => {
  const dec = createStreamDecoder('anthropic');
  const enc = createStreamEncoder('openai', { model: 'claude-client', requestId: 'r2', includeUsage: true, created: 5 });
  let out = '';
  for (const e of sseFixture('anthropic-stream-tool.sse')) for (const c of dec.push(e)) out += enc.push(c);
  out += enc.end();
  assert.ok(out.endsWith('data: [DONE]\n\n'));
  const chunks = sseJson(out);
  const deltas = chunks.flatMap((c) => c.choices.map((x: any) => x.delta));
  assert.equal(deltas.map((d: any) => d.reasoning_content ?? '').join(''), 'I should call the weather tool.');
  assert.equal(deltas.map((d: any) => d.content ?? '').join(''), "Okay, let's check the weather for San Francisco:");
  const tc = deltas.flatMap((d: any) => d.tool_calls ?? []);
  assert.equal(tc[0].id, 'toolu_01T1x1fJ34qAmk2tNTrN7Up6');
  assert.equal(tc[0].function.name, 'get_weather');
  assert.equal(tc.map((t: any) => t.function.arguments ?? '').join(''), '{"location": "San Francisco, CA"}');
  assert.ok(tc.every((t: any) => t.index === 0));
  assert.equal(chunks.flatMap((c) => c.choices).find((x: any) => x.finish_reason)?.finish_reason, 'tool_calls');
  const last = chunks[chunks.length - 1];
  assert.deepEqual(last.choices, []);
  assert.equal(last.usage.prompt_tokens, 472 + 100 + 2000);
  assert.equal(last.usage.completion_tokens, 89);
  assert.equal(last.usage.prompt_tokens_details.cached_tokens, 2000);
});

test('anthropic pass-through usage from stream events', () => {
  const parts = sseFixture('anthropic-stream-tool.sse')
    .map((e) => usageFromStreamEvent('anthropic', e))
    .filter(Boolean);
  assert.deepEqual(parts, [{ inputTokens: 2572, cachedInputTokens: 2000, cacheWriteTokens: 100, outputTokens: 2 }, { outputTokens: 89 }]);
  const merged = Object.assign({}, ...parts);
  assert.equal(merged.inputTokens, 2572);
  assert.equal(merged.outputTokens, 89);
});

test('openai stream transcript → anthropic SSE events', () => {
  const dec = createStreamDecoder('openai');
  const enc = createStreamEncoder('anthropic', { model: 'claude-client', requestId: 'r3', includeUsage: true });
  let out = '';
  for (const e of sseFixture('openai-stream-tool.sse')) for (const c of dec.push(e)) out += enc.push(c);
  out += enc.end();
  const events = sseJson(out);
  assert.deepEqual(
    events.map((e) => e.type),
    [
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ],
  );
  assert.equal(events[0].message.model, 'claude-client');
  assert.deepEqual(events[1], { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  assert.deepEqual(events[5].content_block, { type: 'tool_use', id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', input: {} });
  assert.equal(events[6].index, 1);
  assert.equal(events[6].delta.type, 'input_json_delta');
  assert.equal(events[6].delta.partial_json + events[7].delta.partial_json, '{"city": "Paris"}');
  assert.equal(events[9].index, 2);
  assert.equal(events[10].delta.partial_json, '{"city": "Rome"}');
  assert.deepEqual(events[12].delta, { stop_reason: 'tool_use', stop_sequence: null });
  assert.deepEqual(events[12].usage, { input_tokens: 18, output_tokens: 40, cache_creation_input_tokens: 0, cache_read_input_tokens: 64 });
  // the SSE event name matches the payload type
  assert.ok(out.includes('event: message_delta\ndata: {"type":"message_delta"'));
});

test('anthropic SSE round trip keeps thinking signatures', () => {
  const dec = createStreamDecoder('anthropic');
  const enc = createStreamEncoder('anthropic', { model: 'c', requestId: 'r4', includeUsage: true });
  let out = '';
  for (const e of sseFixture('anthropic-stream-tool.sse')) for (const c of dec.push(e)) out += enc.push(c);
  out += enc.end();
  const events = sseJson(out);
  const sig = events.find((e) => e.delta?.type === 'signature_delta');
  assert.equal(sig.delta.signature, 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds');
  assert.deepEqual(events[0].message.usage, {
    input_tokens: 472,
    output_tokens: 2,
    cache_creation_input_tokens: 100,
    cache_read_input_tokens: 2000,
  });
  assert.deepEqual(events.find((e) => e.type === 'message_delta').usage, {
    input_tokens: 472,
    output_tokens: 89,
    cache_creation_input_tokens: 100,
    cache_read_input_tokens: 2000,
  });
});

test('anthropic stream error event becomes a canonical error', () => {
  const dec = createStreamDecoder('anthropic');
  const ev = dec.push({ event: 'error', data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' });
  assert.deepEqual(ev, [{ type: 'error', message: 'Overloaded', code: 'overloaded_error' }]);
  const enc = createStreamEncoder('openai', { model: 'm', requestId: 'r', includeUsage: false });
  assert.match(enc.push(ev[0]), /"message":"Overloaded"/);
});
