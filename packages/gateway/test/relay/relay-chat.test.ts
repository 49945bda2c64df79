import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startTestGateway, TEST_ROOT_PASSWORD, type TestGateway } from '../harness.ts';
import { startFakeOpenAI, USAGE, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import {
  balance,
  channelRow,
  consumeLog,
  createCaller,
  createChannel,
  setGroupRatio,
  setPrice,
  streamedToolCall,
} from '../relay-fixtures.ts';

let gw: TestGateway;
let up: FakeOpenAI;

before(async () => {
  gw = await startTestGateway();
  up = await startFakeOpenAI();
  await createChannel(gw, {
    baseUrl: up.url,
    models: ['gpt-test', 'text-embedding-test', 'gpt-mapped', 'gpt-instruct'],
    modelMapping: { 'gpt-mapped': 'upstream-real-model' },
  });
  await setPrice(gw, 'gpt-test', { input: 2, output: 10 });
  await setPrice(gw, 'gpt-mapped', { input: 2, output: 10 });
  await setPrice(gw, 'gpt-instruct', { input: 2, output: 10 });
  await setPrice(gw, 'text-embedding-test', { input: 0.2 });
});

after(async () => {
  await gw?.stop();
  await up?.close();
});

const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
// (11 × $2 + 7 × $10) / 1M × 500,000 units per USD
const CHAT_COST = 46;

test('chat completion, non-stream: pass-through body, usage billed, one consume log, gateway headers', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  up.requests.length = 0;
  const { data, response, request_id } = await client(c.key)
    .chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  assert.equal(data.choices[0].message.content, 'Hello world');
  assert.deepEqual(data.usage, USAGE);
  assert.match(request_id ?? '', /^req_/);
  assert.ok(Number(response.headers.get('x-gatehouse-time-ms')) >= 0);
  // The request is sent as received, with the max_tokens the gateway reserved for (the default when none is named).
  assert.equal(up.requests.length, 1);
  assert.equal(up.requests[0].headers.authorization, 'Bearer sk-upstream');
  assert.deepEqual(up.requests[0].body, { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 4096 });
  assert.ok(
    up.requests[0].raw.endsWith(JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }).slice(1)),
    'the rest of the body keeps its bytes',
  );
  const log = await consumeLog(gw, request_id!);
  assert.equal(log.model, 'gpt-test');
  assert.equal(Number(log.prompt_tokens), 11);
  assert.equal(Number(log.completion_tokens), 7);
  assert.equal(Number(log.quota), CHAT_COST);
  assert.equal(Number(log.status_code), 200);
  assert.equal(Number(log.attempts), 1);
  assert.ok(log.channel_id);
  assert.equal(await balance(gw, c.userId), 1_000_000 - CHAT_COST);
});

test('chat completion, stream with usage: chunks arrive, usage chunk kept when asked', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  const { data: s, response } = await client(c.key)
    .chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'echo:one two three' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    .withResponse();
  let text = '';
  let usage: unknown = null;
  for await (const ch of s) {
    text += ch.choices[0]?.delta?.content ?? '';
    if (ch.usage) usage = ch.usage;
  }
  assert.equal(text, 'one two three');
  assert.deepEqual(usage, USAGE);
  const log = await consumeLog(gw, response.headers.get('x-request-id')!);
  assert.equal(Number(log.is_stream), 1);
  assert.equal(Number(log.quota), CHAT_COST);
  assert.ok(log.first_byte_ms !== null);
});

test('stream without include_usage: the gateway asks upstream for usage and strips the extra chunk', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  up.requests.length = 0;
  const { data: s, response } = await client(c.key)
    .chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true })
    .withResponse();
  const chunks = [];
  for await (const ch of s) chunks.push(ch);
  assert.ok(chunks.length >= 3);
  assert.ok(
    chunks.every((ch) => ch.choices.length > 0 && !ch.usage),
    'no usage-only chunk reaches a caller that did not ask',
  );
  assert.deepEqual(up.requests[0].body.stream_options, { include_usage: true });
  const log = await consumeLog(gw, response.headers.get('x-request-id')!);
  assert.equal(Number(log.completion_tokens), 7);
  assert.equal(await balance(gw, c.userId), 1_000_000 - CHAT_COST);
});

test('tools round trip (non-stream and stream)', async () => {
  const c = await createCaller(gw);
  const tools = [
    {
      type: 'function' as const,
      function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    },
  ];
  const oa = client(c.key);
  const r1 = await oa.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'weather?' }], tools });
  const call = r1.choices[0].message.tool_calls![0];
  assert.equal(call.type, 'function');
  assert.equal(call.type === 'function' && call.function.name, 'get_weather');
  const r2 = await oa.chat.completions.create({
    model: 'gpt-test',
    tools,
    messages: [{ role: 'user', content: 'weather?' }, r1.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'sunny' }],
  });
  assert.equal(r2.choices[0].message.content, 'tool said: sunny');
  const s = await oa.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'weather?' }], tools, stream: true });
  const { name, args } = await streamedToolCall(s);
  assert.equal(name, 'get_weather');
  assert.deepEqual(JSON.parse(args), { city: 'Paris' });
});

test('multimodal content and n are passed through', async () => {
  const c = await createCaller(gw);
  up.requests.length = 0;
  const r = await client(c.key).chat.completions.create({
    model: 'gpt-test',
    n: 2,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ],
  });
  assert.equal(r.choices.length, 2);
  assert.equal(up.requests[0].body.messages[0].content[1].type, 'image_url');
});

test('embeddings (both paths) and completions', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  const e = await client(c.key).embeddings.create({ model: 'text-embedding-test', input: ['a', 'b'] });
  assert.equal(e.data.length, 2);
  assert.deepEqual(
    e.data[0].embedding.map((x) => Math.round(x * 10) / 10),
    [0.1, 0.2, 0.3],
  );
  const legacy = await fetch(`${gw.url}/v1/engines/text-embedding-test/embeddings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ input: 'x' }),
  });
  assert.equal(legacy.status, 200);
  const lj = (await legacy.json()) as { data: unknown[] };
  assert.equal(lj.data.length, 1);
  const rid = legacy.headers.get('x-request-id')!;
  const log = await consumeLog(gw, rid);
  assert.equal(log.model, 'text-embedding-test');
  assert.equal(Number(log.prompt_tokens), 5);
  const cm = await client(c.key).completions.create({ model: 'gpt-instruct', prompt: 'say hi' });
  assert.equal(cm.choices[0].text, 'Hello world');
});

test('model mapping: upstream gets the mapped name; billing and logs use the client name; overrides apply', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  const id = await createChannel(gw, {
    baseUrl: up.url,
    models: ['gpt-over'],
    modelMapping: { 'gpt-over': 'real-over' },
    headerOverride: { 'x-custom': 'yes' },
    paramOverride: { temperature: 0.1, user: null },
  });
  await setPrice(gw, 'gpt-over', { input: 2, output: 10 });
  up.requests.length = 0;
  const { data, request_id } = await client(c.key)
    .chat.completions.create({ model: 'gpt-over', messages: [{ role: 'user', content: 'hi' }], user: 'drop-me', temperature: 1 })
    .withResponse();
  assert.equal(data.choices[0].message.content, 'Hello world');
  const sent = up.requests[0];
  assert.equal(sent.body.model, 'real-over');
  assert.equal(sent.body.temperature, 0.1);
  assert.equal('user' in sent.body, false);
  assert.equal(sent.headers['x-custom'], 'yes');
  const log = await consumeLog(gw, request_id!);
  assert.equal(log.model, 'gpt-over');
  assert.equal(log.upstream_model, 'real-over');
  assert.equal(Number(log.channel_id), id);
  assert.equal(Number(log.quota), CHAT_COST);
});

test('group ratio multiplies the cost', async () => {
  await setGroupRatio(gw, 'vip', 0.5);
  await createChannel(gw, { baseUrl: up.url, models: ['gpt-test'], groups: ['vip'] });
  const c = await createCaller(gw, { quota: 1_000_000, group: 'vip' });
  const { request_id } = await client(c.key)
    .chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  const log = await consumeLog(gw, request_id!);
  assert.equal(Number(log.quota), CHAT_COST / 2);
});

test('model list holds only models the key may use and a channel serves; detail 404 is model_not_found', async () => {
  const c = await createCaller(gw, { models: ['gpt-test', 'text-embedding-test', 'not-served'] });
  const list = await client(c.key).models.list();
  assert.deepEqual(list.data.map((m) => m.id).sort(), ['gpt-test', 'text-embedding-test']);
  const m = await client(c.key).models.retrieve('gpt-test');
  assert.equal(m.id, 'gpt-test');
  await assert.rejects(client(c.key).models.retrieve('gpt-mapped'), (e: any) => e.status === 404 && e.code === 'model_not_found');
  await assert.rejects(client(c.key).models.retrieve('nope'), (e: any) => e.status === 404 && e.code === 'model_not_found');
  const all = await createCaller(gw);
  const ids = (await client(all.key).models.list()).data.map((x) => x.id);
  assert.ok(ids.includes('gpt-mapped') && ids.includes('gpt-test'));
});

test('errors: bad JSON 400, bad key 401, unpriced model 403, unknown model 503, upstream 400 returned as is', async () => {
  const c = await createCaller(gw);
  const post = (body: string, key = c.key) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
  let r = await post('{"model":');
  assert.equal(r.status, 400);
  assert.equal(((await r.json()) as any).error.code, 'invalid_json');
  r = await post('{}', 'sk-wrong');
  assert.equal(r.status, 401);
  assert.equal(((await r.json()) as any).error.code, 'invalid_api_key');
  await createChannel(gw, { baseUrl: up.url, models: ['gpt-unpriced'] });
  r = await post(JSON.stringify({ model: 'gpt-unpriced', messages: [] }));
  assert.equal(r.status, 403);
  assert.equal(((await r.json()) as any).error.code, 'model_price_not_set');
  r = await post(JSON.stringify({ model: 'no-such-model', messages: [] }));
  assert.equal(r.status, 503);
  const j = (await r.json()) as any;
  assert.equal(j.error.code, 'no_available_channel');
  assert.match(j.error.message, /no-such-model/);
  up.override = (_r, res) => {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'max_tokens is too large', type: 'invalid_request_error', code: 'bad_max' } }));
    return true;
  };
  try {
    const before = await balance(gw, c.userId);
    up.requests.length = 0;
    r = await post(JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'x' }], max_tokens: 10 }));
    assert.equal(r.status, 400);
    assert.equal(((await r.json()) as any).error.code, 'bad_max');
    assert.equal(up.requests.length, 1, 'a 400 is not retried');
    assert.equal(await balance(gw, c.userId), before, 'reserve refunded');
  } finally {
    up.override = null;
  }
});

test('Azure OpenAI channel: deployment URL, api-version and api-key header', async () => {
  await createChannel(gw, {
    type: 3,
    baseUrl: up.url,
    keys: ['az-key'],
    models: ['gpt-az'],
    modelMapping: { 'gpt-az': 'my-deploy' },
    settings: { api_version: '2024-06-01' },
  });
  await setPrice(gw, 'gpt-az', { input: 1, output: 1 });
  const c = await createCaller(gw);
  up.requests.length = 0;
  const r = await client(c.key).chat.completions.create({ model: 'gpt-az', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(r.choices[0].message.content, 'Hello world');
  assert.equal(up.requests[0].path, '/openai/deployments/my-deploy/chat/completions?api-version=2024-06-01');
  assert.equal(up.requests[0].headers['api-key'], 'az-key');
  assert.equal(up.requests[0].headers.authorization, undefined);
});

test('channel test call: admin only, records the response time', async () => {
  const id = await createChannel(gw, { baseUrl: up.url, models: ['gpt-probe'] });
  const anon = await fetch(`${gw.url}/api/channel/${id}/test`, { method: 'POST' });
  assert.equal(anon.status, 401);
  const login = await fetch(`${gw.url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'root', password: TEST_ROOT_PASSWORD }),
  });
  const cookie = login.headers.get('set-cookie')!.split(';')[0];
  up.requests.length = 0;
  const r = await fetch(`${gw.url}/api/channel/${id}/test`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-probe' }),
  });
  assert.equal(r.status, 200);
  const j = (await r.json()) as { success: boolean; data: { time_ms: number; model: string } };
  assert.equal(j.success, true);
  assert.equal(j.data.model, 'gpt-probe');
  assert.equal(up.requests[0].body.model, 'gpt-probe');
  const row = await channelRow(gw, id);
  assert.ok(row.tested_at !== null && row.response_time_ms !== null);
  const missing = await fetch(`${gw.url}/api/channel/999999/test`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(missing.status, 404);
  assert.equal(((await missing.json()) as { success: boolean }).success, false);
});
