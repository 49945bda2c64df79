import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import type { FakeUpstream } from '../fakes/upstreams/common.ts';
import { startFakeAnthropic } from '../fakes/upstreams/anthropic.ts';
import { startFakeGemini } from '../fakes/upstreams/gemini.ts';
import { consumeLog, createCaller, createChannel, setPrice, streamedToolCall } from '../relay-fixtures.ts';

let gw: TestGateway;
let ant: FakeUpstream;
let gem: FakeUpstream;
let key: string;

before(async () => {
  gw = await startTestGateway();
  ant = await startFakeAnthropic();
  gem = await startFakeGemini();
  await createChannel(gw, {
    type: 14,
    baseUrl: ant.url,
    keys: ['sk-ant'],
    models: ['claude-test'],
    modelMapping: { 'claude-test': 'claude-upstream-1' },
  });
  await createChannel(gw, { type: 24, baseUrl: gem.url, keys: ['g-key'], models: ['gemini-test'] });
  await setPrice(gw, 'claude-test', { input: 2, output: 2 }); // 1 unit per token
  await setPrice(gw, 'gemini-test', { input: 2, output: 2 });
  key = (await createCaller(gw)).key;
});
after(async () => {
  await gw?.stop();
  await ant?.close();
  await gem?.close();
});

const client = () => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const tools = [
  {
    type: 'function' as const,
    function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  },
];

for (const [model, expect, usage] of [
  ['claude-test', 'Hello from Claude', [21, 9]],
  ['gemini-test', 'Hello from Gemini', [13, 6]],
] as const) {
  test(`${model}: chat completion through the converter, non-stream`, async () => {
    const { data, request_id } = await client()
      .chat.completions.create({
        model,
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hi' },
        ],
        max_tokens: 50,
      })
      .withResponse();
    assert.equal(data.choices[0].message.content, expect);
    assert.equal(data.model, model, 'the caller sees its own model name');
    assert.equal(data.usage?.prompt_tokens, usage[0]);
    assert.equal(data.usage?.completion_tokens, usage[1]);
    const log = await consumeLog(gw, request_id!);
    assert.equal(Number(log.quota), usage[0] + usage[1]);
  });

  test(`${model}: streaming through the converter, with usage`, async () => {
    const { data: s, response } = await client()
      .chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    let text = '';
    let u: any = null;
    let finish: string | null = null;
    for await (const ch of s) {
      text += ch.choices[0]?.delta?.content ?? '';
      finish = ch.choices[0]?.finish_reason ?? finish;
      if (ch.usage) u = ch.usage;
    }
    assert.equal(text, expect);
    assert.equal(finish, 'stop');
    assert.equal(u?.prompt_tokens, usage[0]);
    assert.equal(u?.completion_tokens, usage[1]);
    const log = await consumeLog(gw, response.headers.get('x-request-id')!);
    assert.equal(Number(log.quota), usage[0] + usage[1]);
    assert.equal(Number(log.is_stream), 1);
  });

  test(`${model}: tools round trip through the converter (non-stream and stream)`, async () => {
    const oa = client();
    const r1 = await oa.chat.completions.create({ model, messages: [{ role: 'user', content: 'weather?' }], tools });
    const call = r1.choices[0].message.tool_calls?.[0];
    assert.ok(call && call.type === 'function');
    assert.equal(call.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris' });
    assert.equal(r1.choices[0].finish_reason, 'tool_calls');
    const r2 = await oa.chat.completions.create({
      model,
      tools,
      messages: [
        { role: 'user', content: 'weather?' },
        r1.choices[0].message,
        { role: 'tool', tool_call_id: call.id, content: '{"temp":"sunny"}' },
      ],
    });
    assert.match(r2.choices[0].message.content ?? '', /tool said: .*sunny/);
    const s = await oa.chat.completions.create({ model, messages: [{ role: 'user', content: 'weather?' }], tools, stream: true });
    const { name, args } = await streamedToolCall(s);
    assert.equal(name, 'get_weather');
    assert.deepEqual(JSON.parse(args), { city: 'Paris' });
  });
}

test('anthropic upstream gets the mapped model, its auth headers and a max_tokens', async () => {
  ant.requests.length = 0;
  await client().chat.completions.create({ model: 'claude-test', messages: [{ role: 'user', content: 'hi' }] });
  const r = ant.requests[0];
  assert.equal(r.path, '/v1/messages');
  assert.equal(r.body.model, 'claude-upstream-1');
  assert.equal(r.headers['x-api-key'], 'sk-ant');
  assert.equal(typeof r.body.max_tokens, 'number');
  assert.equal(r.headers.authorization, undefined);
});

test('gemini upstream: model in the URL, key in x-goog-api-key, SSE for streams', async () => {
  gem.requests.length = 0;
  const s = await client().chat.completions.create({ model: 'gemini-test', messages: [{ role: 'user', content: 'hi' }], stream: true });
  for await (const _ of s) {
    /* drain */
  }
  assert.equal(gem.requests[0].path, '/v1beta/models/gemini-test:streamGenerateContent?alt=sse');
  assert.equal(gem.requests[0].headers['x-goog-api-key'], 'g-key');
});

test('claude-test: thinking signatures reach an OpenAI SDK caller as thinking_blocks and go back upstream with the next turn (non-stream and stream)', async () => {
  const oa = client();
  const ask = { model: 'claude-test', max_tokens: 4096, reasoning_effort: 'low' as const, tools };
  const r1 = await oa.chat.completions.create({ ...ask, messages: [{ role: 'user', content: 'weather?' }] });
  const m = r1.choices[0].message as OpenAI.ChatCompletionMessage & { reasoning_content?: string; thinking_blocks?: unknown[] };
  assert.equal(m.reasoning_content, 'Let me think.');
  assert.deepEqual(m.thinking_blocks, [{ type: 'thinking', thinking: 'Let me think.', signature: 'sig-abc' }]);
  const call = m.tool_calls![0];
  const sent = ant.requests.length;
  const r2 = await oa.chat.completions.create({
    ...ask,
    messages: [{ role: 'user', content: 'weather?' }, m, { role: 'tool', tool_call_id: call.id, content: 'sunny' }],
  });
  assert.match(r2.choices[0].message.content ?? '', /tool said: sunny/);
  const upstreamTurn = ant.requests[sent].body.messages[1];
  assert.deepEqual(upstreamTurn.content[0], { type: 'thinking', thinking: 'Let me think.', signature: 'sig-abc' });
  assert.equal(upstreamTurn.content[1].type, 'tool_use');

  const s = await oa.chat.completions.create({ ...ask, messages: [{ role: 'user', content: 'weather?' }], stream: true });
  const blocks: unknown[] = [];
  let reasoning = '';
  for await (const ch of s) {
    const d = ch.choices[0]?.delta as { reasoning_content?: string; thinking_blocks?: unknown[] } | undefined;
    reasoning += d?.reasoning_content ?? '';
    blocks.push(...(d?.thinking_blocks ?? []));
  }
  assert.equal(reasoning, 'Let me think.');
  assert.deepEqual(blocks, [{ type: 'thinking', thinking: 'Let me think.', signature: 'sig-abc' }]);
});
