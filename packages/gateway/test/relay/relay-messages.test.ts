/**
 * The messages-style API (/v1/messages, count_tokens) with the official Anthropic SDK: pass-through to
 * an Anthropic upstream, conversion to an OpenAI upstream, billing, errors in the Anthropic envelope,
 * and the messages-style model list.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { startTestGateway, type TestGateway } from '../harness.ts';
import type { FakeUpstream } from '../fakes/upstreams/common.ts';
import { json } from '../fakes/upstreams/common.ts';
import { startFakeAnthropic, ANTHROPIC_USAGE } from '../fakes/upstreams/anthropic.ts';
import { startFakeOpenAI, USAGE, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { balance, consumeLog, createCaller, createChannel, setPrice } from '../relay-fixtures.ts';

let gw: TestGateway;
let ant: FakeUpstream;
let oa: FakeOpenAI;
let caller: { key: string; userId: number; keyId: number };

before(async () => {
  gw = await startTestGateway();
  ant = await startFakeAnthropic();
  oa = await startFakeOpenAI();
  await createChannel(gw, { type: 14, baseUrl: ant.url, keys: ['sk-ant'], models: ['claude-pass'] });
  await createChannel(gw, {
    type: 14,
    baseUrl: ant.url,
    keys: ['sk-ant'],
    models: ['claude-mapped'],
    modelMapping: { 'claude-mapped': 'claude-up' },
  });
  await createChannel(gw, { baseUrl: oa.url, models: ['gpt-conv'] });
  // 1 quota unit per token; cached input at a quarter.
  for (const m of ['claude-pass', 'claude-mapped', 'gpt-conv']) await setPrice(gw, m, { input: 2, output: 2, cached_input: 0.5 });
  caller = await createCaller(gw);
});
after(async () => {
  await gw?.stop();
  await ant?.close();
  await oa?.close();
});

const sdk = (key = caller.key) => new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
const tools = [
  { name: 'get_weather', description: 'weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } },
];

test('pass-through, non-stream: the body goes upstream as sent, the answer comes back as it was, usage billed', async () => {
  ant.requests.length = 0;
  const before = await balance(gw, caller.userId);
  const { data, response } = await sdk()
    .messages.create({ model: 'claude-pass', max_tokens: 100, system: 'be brief', messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  assert.equal(data.id, 'msg_1', 'the upstream answer is passed through');
  assert.equal(data.content[0].type === 'text' && data.content[0].text, 'Hello from Claude');
  assert.deepEqual(
    { i: data.usage.input_tokens, o: data.usage.output_tokens },
    { i: ANTHROPIC_USAGE.input_tokens, o: ANTHROPIC_USAGE.output_tokens },
  );
  const rid = response.headers.get('x-request-id')!;
  assert.match(rid, /^req_/);
  assert.ok(Number(response.headers.get('x-gatehouse-time-ms')) >= 0);
  const up = ant.requests[0];
  assert.equal(up.headers['x-api-key'], 'sk-ant');
  assert.deepEqual(up.body, { model: 'claude-pass', max_tokens: 100, system: 'be brief', messages: [{ role: 'user', content: 'hi' }] });
  const log = await consumeLog(gw, rid);
  assert.equal(log.endpoint, '/v1/messages');
  assert.equal(Number(log.quota), 30);
  assert.equal(await balance(gw, caller.userId), before - 30);
});

test('pass-through keeps the raw bytes when nothing changes, and rewrites only the model when mapped', async () => {
  ant.requests.length = 0;
  const raw = '{"model":"claude-pass","max_tokens":10,  "messages":[{"role":"user","content":"hi"}]}';
  const r = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': caller.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: raw,
  });
  assert.equal(r.status, 200);
  assert.equal(ant.requests[0].raw, raw);
  const m = await sdk().messages.create({ model: 'claude-mapped', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(ant.requests[1].body.model, 'claude-up');
  assert.equal(m.usage.output_tokens, ANTHROPIC_USAGE.output_tokens);
});

test('pass-through stream: events forwarded, usage read on the fly and billed', async () => {
  const stream = sdk().messages.stream({ model: 'claude-pass', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
  let text = '';
  stream.on('text', (t) => {
    text += t;
  });
  const final = await stream.finalMessage();
  const rid = (await stream.withResponse()).response.headers.get('x-request-id')!;
  assert.equal(text, 'Hello from Claude');
  assert.equal(final.usage.output_tokens, ANTHROPIC_USAGE.output_tokens);
  assert.equal(final.stop_reason, 'end_turn');
  const log = await consumeLog(gw, rid);
  assert.equal(Number(log.is_stream), 1);
  assert.equal(Number(log.prompt_tokens), ANTHROPIC_USAGE.input_tokens);
  assert.equal(Number(log.completion_tokens), ANTHROPIC_USAGE.output_tokens);
  assert.equal(Number(log.quota), 30);
});

test('thinking blocks and signatures pass through (non-stream and stream)', async () => {
  const r = await sdk().messages.create({
    model: 'claude-pass',
    max_tokens: 2000,
    thinking: { type: 'enabled', budget_tokens: 1024 },
    messages: [{ role: 'user', content: 'think' }],
  });
  assert.equal(r.content[0].type, 'thinking');
  assert.equal(r.content[0].type === 'thinking' && r.content[0].signature, 'sig-abc');
  const s = await sdk()
    .messages.stream({
      model: 'claude-pass',
      max_tokens: 2000,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'think' }],
    })
    .finalMessage();
  assert.equal(s.content[0].type === 'thinking' && s.content[0].thinking, 'Let me think.');
  assert.equal(s.content[1].type === 'text' && s.content[1].text, 'Hello from Claude');
});

test('cache reads and writes: read tokens priced at cached_input, writes at 1.25× input', async () => {
  ant.override = (r, res) => {
    json(res, 200, {
      id: 'msg_c',
      type: 'message',
      role: 'assistant',
      model: r.body.model,
      content: [{ type: 'text', text: 'ok' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, cache_read_input_tokens: 400, cache_creation_input_tokens: 100, output_tokens: 20 },
    });
    return true;
  };
  try {
    const { response } = await sdk()
      .messages.create({ model: 'claude-pass', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    const log = await consumeLog(gw, response.headers.get('x-request-id')!);
    assert.equal(Number(log.prompt_tokens), 510);
    assert.equal(Number(log.cached_tokens), 400);
    // (10 × $2 + 400 × $0.5 + 100 × $2.5 + 20 × $2) / 1M × 500,000 = 255
    assert.equal(Number(log.quota), 255);
    assert.equal(JSON.parse(log.other!).cache_write_tokens, 100);
  } finally {
    ant.override = null;
  }
});

for (const [model, label] of [
  ['claude-pass', 'anthropic upstream'],
  ['gpt-conv', 'openai upstream (converted)'],
] as const) {
  test(`tools round trip, non-stream and stream: ${label}`, async () => {
    const c = sdk();
    const r1 = await c.messages.create({ model, max_tokens: 200, tools, messages: [{ role: 'user', content: 'weather?' }] });
    assert.equal(r1.stop_reason, 'tool_use');
    const use = r1.content.find((b) => b.type === 'tool_use');
    assert.ok(use && use.type === 'tool_use');
    assert.equal(use.name, 'get_weather');
    assert.deepEqual(use.input, { city: 'Paris' });
    const r2 = await c.messages.create({
      model,
      max_tokens: 200,
      tools,
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: r1.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] },
      ],
    });
    assert.match(r2.content[0].type === 'text' ? r2.content[0].text : '', /tool said: sunny/);
    const s = await c.messages.stream({ model, max_tokens: 200, tools, messages: [{ role: 'user', content: 'weather?' }] }).finalMessage();
    const su = s.content.find((b) => b.type === 'tool_use');
    assert.ok(su && su.type === 'tool_use');
    assert.deepEqual(su.input, { city: 'Paris' });
    assert.equal(s.stop_reason, 'tool_use');
  });
}

test('converted to an OpenAI upstream, non-stream: system, images and max_tokens mapped; usage billed', async () => {
  oa.requests.length = 0;
  const { data, response } = await sdk()
    .messages.create({
      model: 'gpt-conv',
      max_tokens: 64,
      system: 'be brief',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
      ],
    })
    .withResponse();
  assert.equal(data.content[0].type === 'text' && data.content[0].text, 'Hello world');
  assert.equal(data.model, 'gpt-conv');
  assert.equal(data.usage.input_tokens, USAGE.prompt_tokens);
  assert.equal(data.usage.output_tokens, USAGE.completion_tokens);
  const b = oa.requests[0].body;
  assert.equal(b.model, 'gpt-conv');
  assert.equal(b.messages[0].role, 'system');
  assert.ok(JSON.stringify(b.messages[1].content).includes('data:image/png;base64,iVBORw0KGgo='));
  assert.ok(b.max_tokens === 64 || b.max_completion_tokens === 64);
  const log = await consumeLog(gw, response.headers.get('x-request-id')!);
  assert.equal(Number(log.quota), USAGE.prompt_tokens + USAGE.completion_tokens);
  assert.equal(JSON.parse(log.other!).inbound, 'anthropic');
});

test('converted to an OpenAI upstream, stream: Anthropic events, usage from the upstream', async () => {
  const stream = sdk().messages.stream({ model: 'gpt-conv', max_tokens: 64, messages: [{ role: 'user', content: 'echo:one two three' }] });
  let text = '';
  stream.on('text', (t) => {
    text += t;
  });
  const final = await stream.finalMessage();
  assert.equal(text, 'one two three');
  assert.equal(final.stop_reason, 'end_turn');
  assert.equal(final.usage.input_tokens, USAGE.prompt_tokens);
  assert.equal(final.usage.output_tokens, USAGE.completion_tokens);
  const log = await consumeLog(gw, (await stream.withResponse()).response.headers.get('x-request-id')!);
  assert.equal(Number(log.quota), USAGE.prompt_tokens + USAGE.completion_tokens);
});

test('count_tokens: counted locally, no upstream call, nothing billed', async () => {
  ant.requests.length = 0;
  const c = await createCaller(gw, { quota: 1000 });
  const r = await sdk(c.key).messages.countTokens({
    model: 'claude-pass',
    messages: [{ role: 'user', content: 'hello there, how are you today?' }],
  });
  assert.ok(r.input_tokens > 5 && r.input_tokens < 20, `got ${r.input_tokens}`);
  const withTools = await sdk(c.key).messages.countTokens({
    model: 'claude-pass',
    tools,
    messages: [{ role: 'user', content: 'hello there, how are you today?' }],
  });
  assert.ok(withTools.input_tokens > r.input_tokens);
  assert.equal(ant.requests.length, 0);
  assert.equal(await balance(gw, c.userId), 1000);
  await assert.rejects(sdk().messages.countTokens({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }), Anthropic.NotFoundError);
});

test('errors in the Anthropic envelope: bad key, unknown model, quota exhausted, missing max_tokens, upstream 400', async () => {
  await assert.rejects(
    sdk('sk-wrong').messages.create({ model: 'claude-pass', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
    (e: unknown) => {
      assert.ok(e instanceof Anthropic.AuthenticationError);
      assert.equal(e.status, 401);
      assert.equal(e.type, 'authentication_error');
      assert.equal(e.errorCode, 'invalid_api_key');
      return true;
    },
  );
  await assert.rejects(
    sdk().messages.create({ model: 'no-such-model', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
    (e: unknown) => {
      assert.ok(e instanceof Anthropic.NotFoundError);
      assert.equal(e.type, 'not_found_error');
      return true;
    },
  );
  const poor = await createCaller(gw, { quota: 5 });
  await assert.rejects(
    sdk(poor.key).messages.create({ model: 'claude-pass', max_tokens: 1000, messages: [{ role: 'user', content: 'x' }] }),
    (e: unknown) => {
      assert.ok(e instanceof Anthropic.RateLimitError);
      assert.equal(e.type, 'billing_error');
      assert.equal(e.errorCode, 'insufficient_quota');
      return true;
    },
  );
  const r = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': caller.key, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-pass', messages: [] }),
  });
  assert.equal(r.status, 400);
  const j = (await r.json()) as any;
  assert.equal(j.type, 'error');
  assert.equal(j.error.type, 'invalid_request_error');
  assert.match(j.error.message, /max_tokens/);
  assert.ok(r.headers.get('x-request-id') && r.headers.get('x-gatehouse-time-ms'));
  // An OpenAI upstream's 400 reaches a messages-style caller in the Anthropic envelope.
  oa.override = (_r, res) => {
    json(res, 400, { error: { message: 'context too long', type: 'invalid_request_error', code: 'context_length_exceeded' } });
    return true;
  };
  try {
    await assert.rejects(
      sdk().messages.create({ model: 'gpt-conv', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
      (e: unknown) => {
        assert.ok(e instanceof Anthropic.BadRequestError);
        assert.match(String(e.apiMessage ?? e.message), /context too long/);
        return true;
      },
    );
  } finally {
    oa.override = null;
  }
});

test("GET /v1/models with anthropic-version: the messages-style list, only the key's models", async () => {
  const limited = await createCaller(gw, { models: ['claude-pass', 'gpt-conv'] });
  const page = await sdk(limited.key).models.list();
  const ids = page.data.map((m) => m.id);
  assert.deepEqual(ids, ['claude-pass', 'gpt-conv']);
  assert.equal(page.data[0].type, 'model');
  assert.equal(page.data[0].display_name, 'claude-pass');
  const r = await fetch(`${gw.url}/v1/models?limit=1`, { headers: { 'x-api-key': limited.key, 'anthropic-version': '2023-06-01' } });
  const j = (await r.json()) as any;
  assert.deepEqual(
    { ids: j.data.map((m: any) => m.id), more: j.has_more, first: j.first_id, last: j.last_id },
    { ids: ['claude-pass'], more: true, first: 'claude-pass', last: 'claude-pass' },
  );
  const one = await sdk(limited.key).models.retrieve('gpt-conv');
  assert.equal(one.id, 'gpt-conv');
  await assert.rejects(sdk(limited.key).models.retrieve('claude-mapped'), Anthropic.NotFoundError);
});

test('a role the gateway does not know passes to an Anthropic upstream as sent; a converted call refuses it clearly', async () => {
  const body = {
    model: 'claude-pass',
    max_tokens: 50,
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'critic', content: 'be kind' },
      { role: 'user', content: 'again' },
    ],
  };
  const n = ant.requests.length;
  const r = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': caller.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(r.status, 200, await r.clone().text());
  assert.equal(ant.requests.length, n + 1);
  assert.deepEqual(
    ant.requests.at(-1)!.body.messages.map((m: { role: string }) => m.role),
    ['user', 'critic', 'user'],
    'the body as sent',
  );

  const conv = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': caller.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, model: 'gpt-conv' }),
  });
  assert.equal(conv.status, 400);
  const err = (await conv.json()) as { type: string; error: { type: string; message: string } };
  assert.equal(err.error.type, 'invalid_request_error');
  assert.match(err.error.message, /messages\[1\]\.role/);
});
