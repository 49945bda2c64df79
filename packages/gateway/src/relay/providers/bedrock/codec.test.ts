import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createStreamDecoder,
  createStreamEncoder,
  decodeRequest,
  decodeResponse,
  encodeRequest,
  upstreamErrorMessage,
  usageFromResponse,
} from '../index.ts';
import { isBedrockAnthropic, toolUseId } from './codec.ts';
import type { CanonicalStreamEvent } from '../canonical.ts';

const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

test('Anthropic models on Bedrock are recognised with and without a cross-region prefix', () => {
  for (const m of [
    CLAUDE,
    'anthropic.claude-3-haiku-20240307-v1:0',
    'global.anthropic.claude-opus-4-1-20250805-v1:0',
    'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-v2',
  ]) {
    assert.ok(isBedrockAnthropic(m), m);
  }
  for (const m of ['amazon.nova-pro-v1:0', 'meta.llama3-70b-instruct-v1:0', 'claude-sonnet-4-5']) assert.ok(!isBedrockAnthropic(m), m);
});

test('an OpenAI request becomes a Converse body: system, alternating turns, tool calls and results, images, inference config', () => {
  const req = decodeRequest('openai', {
    model: 'm',
    max_tokens: 300,
    temperature: 0.5,
    top_p: 0.9,
    stop: ['END'],
    seed: 3,
    messages: [
      { role: 'system', content: 'be brief' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      { role: 'user', content: 'thanks' },
    ],
    tools: [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
    ],
    tool_choice: { type: 'function', function: { name: 'get_weather' } },
  });
  const b = encodeRequest('bedrock', req, 'amazon.nova-pro-v1:0') as any;
  assert.deepEqual(b.system, [{ text: 'be brief' }]);
  assert.deepEqual(b.messages, [
    { role: 'user', content: [{ text: 'look' }, { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } }] },
    { role: 'assistant', content: [{ toolUse: { toolUseId: 'call_1', name: 'get_weather', input: { city: 'Paris' } } }] },
    { role: 'user', content: [{ toolResult: { toolUseId: 'call_1', content: [{ text: 'sunny' }] } }, { text: 'thanks' }] },
  ]);
  assert.deepEqual(b.inferenceConfig, { maxTokens: 300, temperature: 0.5, topP: 0.9, stopSequences: ['END'] });
  assert.deepEqual(b.toolConfig.toolChoice, { tool: { name: 'get_weather' } });
  assert.equal(b.additionalModelRequestFields, undefined);
  assert.ok(req.dropped.includes('seed'));
  assert.ok(req.dropped.some((d) => d.includes('image URL')));
  assert.ok(!('model' in b) && !('stream' in b));
});

test('tool-use ids Converse refuses are rewritten the same way every time; client-only betas are not sent', () => {
  assert.equal(toolUseId('call_abc-1'), 'call_abc-1');
  const odd = toolUseId('functions.get_weather:0');
  assert.match(odd, /^functions_get_weather_0_[0-9a-f]{23}$/);
  assert.equal(toolUseId('functions.get_weather:0'), odd);
  assert.ok(toolUseId('x'.repeat(100)).length <= 64);
  const req = decodeRequest('anthropic', { model: 'c', max_tokens: 10, messages: [{ role: 'user', content: 'q' }] });
  const b = encodeRequest('bedrock', req, CLAUDE, {
    anthropicBeta: ['claude-code-20250219', 'oauth-2025-04-20', 'interleaved-thinking-2025-05-14'],
  }) as any;
  assert.deepEqual(b.additionalModelRequestFields.anthropic_beta, ['interleaved-thinking-2025-05-14']);
});

test('a conversation with tool calls but no tools still declares them (Bedrock wants a toolConfig)', () => {
  const req = decodeRequest('openai', {
    model: 'm',
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '' },
    ],
  });
  const b = encodeRequest('bedrock', req, 'amazon.nova-pro-v1:0') as any;
  assert.deepEqual(b.toolConfig, { tools: [{ toolSpec: { name: 'lookup', inputSchema: { json: { type: 'object', properties: {} } } } }] });
  assert.deepEqual(b.messages[2].content[0].toolResult.content, [{ text: '(empty)' }], 'no blank text');
});

test('an Anthropic request to a Claude model: thinking, top_k, betas, cache points and signed reasoning', () => {
  const req = decodeRequest('anthropic', {
    model: 'claude',
    max_tokens: 5000,
    top_k: 5,
    anthropic_beta: ['context-1m-2025-08-07'],
    thinking: { type: 'enabled', budget_tokens: 2048 },
    system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
    tools: [{ name: 't', input_schema: { type: 'object', properties: {} }, cache_control: { type: 'ephemeral' } }],
    messages: [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig1' },
          { type: 'redacted_thinking', data: 'enc' },
          { type: 'text', text: 'a' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'q2', cache_control: { type: 'ephemeral' } }] },
    ],
  });
  const b = encodeRequest('bedrock', req, CLAUDE, { anthropicBeta: ['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07'] }) as any;
  assert.deepEqual(b.additionalModelRequestFields, {
    top_k: 5,
    thinking: { type: 'enabled', budget_tokens: 2048 },
    anthropic_beta: ['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07'],
  });
  assert.deepEqual(b.system, [{ text: 'sys' }, { cachePoint: { type: 'default' } }]);
  assert.deepEqual(b.toolConfig.tools[1], { cachePoint: { type: 'default' } });
  assert.deepEqual(b.messages[1].content, [
    { reasoningContent: { reasoningText: { text: 'hmm', signature: 'sig1' } } },
    { reasoningContent: { redactedContent: 'enc' } },
    { text: 'a' },
  ]);
  assert.deepEqual(b.messages[2].content, [{ text: 'q2' }, { cachePoint: { type: 'default' } }]);
  assert.ok(!req.dropped.includes('anthropic_beta'));
});

test('reasoning from an OpenAI caller: a budget below maxTokens, temperature dropped; other models get none', () => {
  const body = { model: 'm', reasoning_effort: 'low', temperature: 0.2, messages: [{ role: 'user', content: 'q' }] };
  let req = decodeRequest('openai', body);
  let b = encodeRequest('bedrock', req, CLAUDE) as any;
  assert.deepEqual(b.additionalModelRequestFields.thinking, { type: 'enabled', budget_tokens: 2048 });
  assert.equal(b.inferenceConfig.maxTokens, 2048 + 4096);
  assert.equal(b.inferenceConfig.temperature, undefined);
  req = decodeRequest('openai', body);
  b = encodeRequest('bedrock', req, 'amazon.nova-pro-v1:0') as any;
  assert.equal(b.additionalModelRequestFields, undefined);
  assert.ok(req.dropped.some((d) => d.startsWith('reasoning')));
});

test('a Converse response decodes: reasoning, text, tool use, stop reason, usage with cache reads and writes', () => {
  const body = {
    output: {
      message: {
        role: 'assistant',
        content: [
          { reasoningContent: { reasoningText: { text: 'think', signature: 's' } } },
          { text: 'hi' },
          { toolUse: { toolUseId: 'tu1', name: 'f', input: { a: 1 } } },
        ],
      },
    },
    stopReason: 'tool_use',
    usage: { inputTokens: 10, outputTokens: 5, totalTokens: 45, cacheReadInputTokens: 20, cacheWriteInputTokens: 10 },
  };
  const r = decodeResponse('bedrock', body);
  assert.deepEqual(r.choices[0].parts, [
    { type: 'thinking', text: 'think', signature: 's', from: 'bedrock' },
    { type: 'text', text: 'hi' },
  ]);
  assert.deepEqual(r.choices[0].toolCalls, [{ id: 'tu1', name: 'f', arguments: '{"a":1}' }]);
  assert.equal(r.choices[0].finishReason, 'tool_calls');
  assert.deepEqual(r.usage, { inputTokens: 40, outputTokens: 5, cachedInputTokens: 20, cacheWriteTokens: 10, reasoningTokens: 0 });
  assert.deepEqual(usageFromResponse('bedrock', body), r.usage);
  assert.throws(() => decodeResponse('bedrock', { message: 'nope' }));
});

test('ConverseStream events decode to canonical events and encode for an OpenAI caller', () => {
  const dec = createStreamDecoder('bedrock');
  const evs: CanonicalStreamEvent[] = [];
  const push = (event: string, data: unknown) => evs.push(...dec.push({ event, data: JSON.stringify(data) }));
  push('messageStart', { role: 'assistant' });
  push('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'th' } } });
  push('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'sg' } } });
  push('contentBlockStop', { contentBlockIndex: 0 });
  push('contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'Hi' } });
  push('contentBlockStart', { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tu', name: 'f' } } });
  push('contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '{"a":' } } });
  push('contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '1}' } } });
  push('messageStop', { stopReason: 'tool_use' });
  push('metadata', { usage: { inputTokens: 3, outputTokens: 4, cacheReadInputTokens: 1 } });
  assert.deepEqual(evs, [
    { type: 'start' },
    { type: 'thinking', index: 0, text: 'th', from: 'bedrock' },
    { type: 'thinking', index: 0, signature: 'sg', from: 'bedrock' },
    { type: 'text', index: 0, text: 'Hi' },
    { type: 'tool_call_start', index: 0, toolIndex: 0, id: 'tu', name: 'f' },
    { type: 'tool_call_args', index: 0, toolIndex: 0, delta: '{"a":' },
    { type: 'tool_call_args', index: 0, toolIndex: 0, delta: '1}' },
    { type: 'finish', index: 0, reason: 'tool_calls' },
    { type: 'usage', usage: { inputTokens: 4, outputTokens: 4, cachedInputTokens: 1, cacheWriteTokens: 0, reasoningTokens: 0 } },
  ]);
  const enc = createStreamEncoder('openai', { model: 'm', requestId: 'r', includeUsage: true });
  const out = evs.map((e) => enc.push(e)).join('') + enc.end();
  assert.match(out, /"reasoning_content":"th"/);
  assert.match(out, /"finish_reason":"tool_calls"/);
  assert.match(out, /"prompt_tokens":4/);
  assert.deepEqual(createStreamDecoder('bedrock').push({ event: 'throttlingException', data: '{"message":"slow down"}' }), [
    { type: 'error', message: 'slow down', code: 'throttlingException' },
  ]);
});

test('Bedrock errors name their type from x-amzn-errortype', () => {
  assert.equal(
    upstreamErrorMessage('bedrock', 429, '{"message":"Too many requests"}', 'ThrottlingException'),
    'ThrottlingException: Too many requests',
  );
  assert.equal(upstreamErrorMessage('bedrock', 400, '{"Message":"bad"}'), 'bad');
  assert.throws(() => decodeRequest('bedrock', {}), /not a caller format/);
});
