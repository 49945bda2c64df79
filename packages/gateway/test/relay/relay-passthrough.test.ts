import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import WebSocket from 'ws';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { json, startFake, type FakeUpstream } from '../fakes/upstreams/common.ts';
import {
  AUDIO_BYTES,
  REALTIME_USAGE,
  startFakeMedia,
  startFakeRealtime,
  type FakeMedia,
  type FakeRealtime,
} from '../fakes/upstreams/openai-media.ts';
import { startVendor, type Vendor } from '../fakes/vendor/server.ts';
import { createTaskChannel, installPlugins, setTaskPrice } from '../fakes/vendor/fixtures.ts';
import { balance, consumeLog, createCaller, createChannel, logsFor, setPrice, waitFor } from '../relay-fixtures.ts';

let gw: TestGateway;
let up: FakeMedia;
let broken: FakeUpstream;
let rt: FakeRealtime;
let vendor: Vendor;

before(async () => {
  vendor = await startVendor();
  gw = await startTestGateway({
    env: { TASK_POLL_INTERVAL_SECONDS: '0.05', CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true', TASK_PLUGIN_PROTOCOL_TICK_MILLISECONDS: '50' },
  });
  up = await startFakeMedia();
  broken = await startFake((_r, res) => json(res, 500, { error: { message: 'upstream exploded' } }));
  rt = await startFakeRealtime();
  await createChannel(gw, {
    baseUrl: up.url,
    keys: ['sk-media'],
    models: [
      'dall-e-test',
      'gpt-image-test',
      'img-edit',
      'whisper-test',
      'transcribe-test',
      'tts-test',
      'rerank-test',
      'omni-moderation-latest',
      'mod-test',
      'resp-test',
      'search-test',
      'img-failover',
    ],
    modelMapping: { 'img-edit': 'upstream-edit' },
  });
  await createChannel(gw, { baseUrl: up.url, models: ['search-ok'], settings: { supports: ['alpha_search'] } });
  await createChannel(gw, { baseUrl: broken.url, models: ['img-failover'], priority: 10 });
  await createChannel(gw, { baseUrl: rt.url, keys: ['sk-rt'], models: ['rt-test'] });
  await setPrice(gw, 'dall-e-test', { per_request: 0.04 });
  await setPrice(gw, 'img-failover', { per_request: 0.04 });
  await setPrice(gw, 'gpt-image-test', { input: 5, output: 40 });
  await setPrice(gw, 'img-edit', { per_request: 0.02 });
  await setPrice(gw, 'whisper-test', { per_request: 0.006 });
  await setPrice(gw, 'transcribe-test', { input: 2.5, output: 10 });
  await setPrice(gw, 'tts-test', { input: 15 });
  await setPrice(gw, 'rerank-test', { input: 1 });
  await setPrice(gw, 'omni-moderation-latest', { per_request: 0.001 });
  await setPrice(gw, 'resp-test', { input: 2, output: 8, cached_input: 1 });
  await setPrice(gw, 'search-test', { per_request: 0.01 });
  await setPrice(gw, 'search-ok', { per_request: 0.01 });
  await setPrice(gw, 'rt-test', { input: 4, output: 16 });
  // A task plugin claims pm-img; dall-e-test is claimed by nobody and goes to the relay.
  await installPlugins(gw, ['proto-media.js']);
  await createTaskChannel(gw, { name: 'pm', plugin: 'proto-media', baseUrl: vendor.url });
  await setTaskPrice(gw, 'pm-img', { perRequest: 0.01 });
});

after(async () => {
  await gw?.stop();
  await up?.close();
  await broken?.close();
  await rt?.close();
  await vendor?.close();
});

const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const post = (key: string, path: string, body: unknown) =>
  fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

test('images.generate: unclaimed model through the relay, per_request × n; a plugin-claimed model still goes to the plugin', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  const { data, response } = await client(c.key).images.generate({ model: 'dall-e-test', prompt: 'a lighthouse', n: 2 }).withResponse();
  assert.equal(data.data!.length, 2);
  assert.equal(data.data![0].revised_prompt, 'up: a lighthouse');
  assert.ok(Number(response.headers.get('x-gatehouse-time-ms')) >= 0);
  const rid = response.headers.get('x-request-id')!;
  const log = await consumeLog(gw, rid);
  assert.equal(log.endpoint, '/v1/images/generations');
  // $0.04 × 2 images × 500,000
  assert.equal(Number(log.quota), 40_000);
  assert.equal(await balance(gw, c.userId), 1_000_000 - 40_000);

  const p = await client(c.key).images.generate({ model: 'pm-img', prompt: 'a lighthouse', n: 1 });
  assert.equal(p.data![0].revised_prompt, 'revised: generate');
});

test('images.generate: a gpt-image model is billed by the upstream token usage', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  const { response } = await client(c.key).images.generate({ model: 'gpt-image-test', prompt: 'cat' }).withResponse();
  const log = await consumeLog(gw, response.headers.get('x-request-id')!);
  // (50 × $5 + 4160 × $40) / 1M × 500,000
  assert.equal(Number(log.quota), 83_325);
  assert.equal(Number(log.prompt_tokens), 50);
  assert.equal(Number(log.completion_tokens), 4160);
  assert.equal(await balance(gw, c.userId), 1_000_000 - 83_325);
});

test('images.edit with image[] files: multipart re-encoded with the mapped model and the file bytes', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  const f1 = await OpenAI.toFile(Buffer.from('one'), 'a.png', { type: 'image/png' });
  const f2 = await OpenAI.toFile(Buffer.from('two'), 'b.png', { type: 'image/png' });
  const { data, response } = await client(c.key)
    .images.edit({ model: 'img-edit', prompt: 'edit it', image: [f1, f2] })
    .withResponse();
  assert.equal(data.data![0].revised_prompt, 'model=upstream-edit');
  assert.equal(Buffer.from(data.data![0].b64_json!, 'base64').toString(), 'image[]:a.png:one|image[]:b.png:two');
  const log = await consumeLog(gw, response.headers.get('x-request-id')!);
  assert.equal(log.endpoint, '/v1/images/edits');
  assert.equal(log.upstream_model, 'upstream-edit');
  assert.equal(Number(log.quota), 10_000);
  assert.equal(await balance(gw, c.userId), 1_000_000 - 10_000);
});

test('failover: a 500 from the first channel is retried on the next for images', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  const { data, response } = await client(c.key).images.generate({ model: 'img-failover', prompt: 'x' }).withResponse();
  assert.equal(data.data!.length, 1);
  const rid = response.headers.get('x-request-id')!;
  const log = await consumeLog(gw, rid);
  assert.equal(Number(log.attempts), 2);
  assert.equal(Number(log.quota), 20_000);
  const rows = await logsFor(gw, rid);
  assert.equal(rows.filter((r) => r.type === 'error' && Number(r.status_code) === 500).length, 1);
  assert.equal(rows.filter((r) => r.type === 'consume').length, 1);
  assert.equal(await balance(gw, c.userId), 1_000_000 - 20_000);
});

test('audio.transcriptions with a file: token usage billed; text format passed through; per_request model', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  const file = await OpenAI.toFile(AUDIO_BYTES, 'speech.mp3', { type: 'audio/mpeg' });
  const { data, response } = await client(c.key).audio.transcriptions.create({ model: 'transcribe-test', file }).withResponse();
  assert.equal(data.text, `heard ${AUDIO_BYTES.length} bytes`);
  const log = await consumeLog(gw, response.headers.get('x-request-id')!);
  // (20 × $2.5 + 5 × $10) / 1M × 500,000
  assert.equal(Number(log.quota), 50);
  assert.equal(log.endpoint, '/v1/audio/transcriptions');

  const file2 = await OpenAI.toFile(AUDIO_BYTES, 'speech.mp3', { type: 'audio/mpeg' });
  const text = await client(c.key).audio.translations.create({ model: 'whisper-test', file: file2, response_format: 'text' });
  assert.equal(String(text).trim(), `heard ${AUDIO_BYTES.length} bytes`);
  await waitFor(async () => (await balance(gw, c.userId)) === 1_000_000 - 50 - 3_000, 5000, 'both audio calls settled');
});

test('audio.speech: bytes streamed back with the upstream content type; billed per input character', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  const input = 'Hello speech world!!';
  const res = await client(c.key).audio.speech.create({ model: 'tts-test', voice: 'alloy', input });
  assert.equal(res.headers.get('content-type'), 'audio/mpeg');
  assert.ok(Buffer.from(await res.arrayBuffer()).equals(AUDIO_BYTES));
  const log = await consumeLog(gw, res.headers.get('x-request-id')!);
  // 20 characters × $15 / 1M × 500,000
  assert.equal(Number(log.quota), 150);
  assert.equal(await balance(gw, c.userId), 1_000_000 - 150);
});

test('moderations without a model use the default moderation model', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  up.requests.length = 0;
  const r = await fetch(`${gw.url}/v1/moderations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ input: 'hello' }),
  });
  assert.equal(r.status, 200);
  assert.equal(((await r.json()) as any).results[0].flagged, false);
  assert.equal(up.requests.at(-1)!.body.model, 'omni-moderation-latest');
  const m = await client(c.key).moderations.create({ model: 'omni-moderation-latest', input: 'hi' });
  assert.equal(m.results.length, 1);
  await waitFor(async () => (await balance(gw, c.userId)) === 1_000_000 - 1_000, 5000, 'two moderation calls billed');
});

test('responses.create: pass-through with unknown params, usage billed; retrieve and delete go to the creating channel', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  up.requests.length = 0;
  const body = { model: 'resp-test', input: 'hi', client_metadata: { a: 1 }, some_future_param: true };
  const { data, response } = await client(c.key)
    .responses.create(body as never)
    .withResponse();
  assert.equal((data as { output_text?: string }).output_text, 'Hello there');
  // Sent as received, with the max_output_tokens the gateway reserved for (the default when none is named).
  assert.deepEqual(up.requests[0].body, { ...body, max_output_tokens: 4096 });
  const log = await consumeLog(gw, response.headers.get('x-request-id')!);
  // (20 uncached × $2 + 10 cached × $1 + 12 × $8) / 1M × 500,000
  assert.equal(Number(log.quota), 73);
  assert.equal(Number(log.cached_tokens), 10);
  assert.equal(log.endpoint, '/v1/responses');

  const got = await client(c.key).responses.retrieve(data.id);
  assert.equal(got.id, data.id);
  assert.equal((got as unknown as { key: string }).key, 'Bearer sk-media');
  const other = await createCaller(gw, { quota: 1_000 });
  await assert.rejects(client(other.key).responses.retrieve(data.id), (e: unknown) => e instanceof OpenAI.APIError && e.status === 404);
  const del = await fetch(`${gw.url}/v1/responses/${data.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${c.key}` } });
  assert.equal(del.status, 200);
  assert.equal(((await del.json()) as any).deleted, true);
  assert.equal(await balance(gw, c.userId), 1_000_000 - 73);
});

test('responses.create stream: events pass through, usage from response.completed, the id is remembered', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  const { data: s, response } = await client(c.key).responses.create({ model: 'resp-test', input: 'hi', stream: true }).withResponse();
  const types: string[] = [];
  let id = '';
  for await (const ev of s) {
    types.push(ev.type);
    if (ev.type === 'response.completed') id = ev.response.id;
  }
  assert.deepEqual(types, ['response.created', 'response.output_text.delta', 'response.output_text.delta', 'response.completed']);
  const log = await consumeLog(gw, response.headers.get('x-request-id')!);
  assert.equal(Number(log.quota), 73);
  assert.equal(Number(log.is_stream), 1);
  const got = await waitFor(
    async () =>
      client(c.key)
        .responses.retrieve(id)
        .catch(() => null),
    3000,
    'retrieve',
  );
  assert.equal(got.id, id);
});

test('responses/compact is relayed and billed like text', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  const r = await post(c.key, '/v1/responses/compact', { model: 'resp-test', input: [{ role: 'user', content: 'long history' }] });
  assert.equal(r.status, 200);
  assert.equal(((await r.json()) as any).object, 'response.compaction');
  const log = await consumeLog(gw, r.headers.get('x-request-id')!);
  assert.equal(log.endpoint, '/v1/responses/compact');
  assert.equal(Number(log.quota), 73);
});

test('rerank: empty query or documents are 400; a good request is billed by tokens', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  for (const b of [
    { model: 'rerank-test', query: '', documents: ['a'] },
    { model: 'rerank-test', query: 'q', documents: [] },
    { model: 'rerank-test', query: 'q' },
  ]) {
    const r = await post(c.key, '/v1/rerank', b);
    assert.equal(r.status, 400);
    const e = (await r.json()) as any;
    assert.equal(e.error.code, 'invalid_request');
    assert.ok(r.headers.get('x-request-id'));
  }
  const r = await post(c.key, '/v1/rerank', { model: 'rerank-test', query: 'q', documents: ['a', 'b'], top_n: 1 });
  assert.equal(r.status, 200);
  assert.equal(((await r.json()) as any).results.length, 2);
  const log = await consumeLog(gw, r.headers.get('x-request-id')!);
  // 40 tokens × $1 / 1M × 500,000
  assert.equal(Number(log.quota), 20);
  assert.equal(await balance(gw, c.userId), 1_000_000 - 20);
});

/** Opens a realtime session for `key`; collects the events and resolves `closed` with the close code. */
async function realtimeSession(key: string) {
  const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/v1/realtime?model=rt-test`, ['realtime', `openai-insecure-api-key.${key}`]);
  const got: any[] = [];
  let requestId = '';
  ws.on('upgrade', (res) => {
    requestId = String(res.headers['x-request-id'] ?? '');
  });
  ws.on('message', (d) => got.push(JSON.parse(d.toString())));
  const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const respond = async () => {
    const n = got.filter((m) => m.type === 'response.done').length;
    ws.send(JSON.stringify({ type: 'response.create' }));
    await waitFor(() => got.filter((m) => m.type === 'response.done').length > n, 5000, 'response.done');
  };
  return { ws, got, closed, respond, requestId: () => requestId };
}

// A response of 1,000 in and 10,000 out costs (1000 × $4 + 10000 × $16) / 1M × 500,000 = 82,000 units,
// twice the session's first reserve (4096 in and out: 40,960).
const BIG_USAGE = {
  total_tokens: 11_000,
  input_tokens: 1000,
  output_tokens: 10_000,
  input_token_details: { cached_tokens: 0 },
  output_token_details: {},
};

test('realtime: usage beyond the first reserve extends it; the session is charged exactly its usage', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  rt.usage = BIG_USAGE;
  try {
    const s = await realtimeSession(c.key);
    for (let i = 0; i < 3; i++) await s.respond();
    // Reserved meanwhile: the first reserve and its extensions cover the three responses.
    await waitFor(async () => (await balance(gw, c.userId)) <= 1_000_000 - 246_000, 5000, 'extensions taken');
    const openRow = () => gw.core.h.db.selectFrom('open_reserves').select('node').where('ref', '=', s.requestId()).executeTakeFirst();
    assert.equal(
      (await openRow())?.node,
      gw.services.billing.ledger.node,
      'an open session is an open reserve of its node (recovered if the node dies)',
    );
    s.ws.close();
    await s.closed;
    const log = await consumeLog(gw, s.requestId());
    assert.equal(await openRow(), undefined, 'closed with its settle');
    assert.equal(Number(log.quota), 246_000);
    assert.equal(JSON.parse(log.other ?? '{}').shortfall, undefined);
    assert.equal(await balance(gw, c.userId), 1_000_000 - 246_000);
    const kinds = (await gw.core.h.db.selectFrom('ledger').select('kind').where('ref', '=', s.requestId()).execute())
      .map((r) => r.kind)
      .sort();
    assert.deepEqual(kinds, ['close', 'extend:1', 'extend:2', 'extend:3', 'reserve', 'settle']);
  } finally {
    rt.usage = REALTIME_USAGE;
    rt.frames.length = 0;
  }
});

test('realtime: when the balance cannot cover an extension the caller gets insufficient_quota and the session closes', async () => {
  const c = await createCaller(gw, { quota: 100_000 });
  rt.usage = BIG_USAGE;
  try {
    const s = await realtimeSession(c.key);
    await s.respond(); // 82,000: extended to 82,000 (balance 18,000 left)
    await s.respond(); // 164,000: 82,000 more cannot be taken
    assert.equal(await s.closed, 1008);
    const err = s.got.find((m) => m.type === 'error');
    assert.equal(err?.error?.code, 'insufficient_quota');
    const log = await consumeLog(gw, s.requestId());
    // What was left is taken; the rest of the last response is a shortfall.
    assert.equal(Number(log.quota), 100_000);
    assert.equal(JSON.parse(log.other ?? '{}').shortfall, 64_000);
    assert.equal(await balance(gw, c.userId), 0);
  } finally {
    rt.usage = REALTIME_USAGE;
    rt.frames.length = 0;
  }
});

test('alpha search: refused without a channel that supports it, served by one that does', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  const no = await post(c.key, '/v1/alpha/search', { model: 'search-test', query: 'x' });
  assert.equal(no.status, 503);
  assert.match(((await no.json()) as any).error.message, /search-test/);
  const ok = await post(c.key, '/v1/alpha/search', { model: 'search-ok', query: 'x' });
  assert.equal(ok.status, 200);
  assert.equal(((await ok.json()) as any).query, 'x');
  const log = await consumeLog(gw, ok.headers.get('x-request-id')!);
  assert.equal(Number(log.quota), 5_000);
  assert.equal(await balance(gw, c.userId), 1_000_000 - 5_000);
});

test('realtime: frames both ways, key via subprotocol, billed once at close from response.done', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/v1/realtime?model=rt-test`, [
    'realtime',
    `openai-insecure-api-key.${c.key}`,
    'openai-beta.realtime-v1',
  ]);
  const got: any[] = [];
  let requestId = '';
  ws.on('upgrade', (res) => {
    requestId = String(res.headers['x-request-id'] ?? '');
  });
  ws.on('message', (d) => got.push(JSON.parse(d.toString())));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  assert.equal(ws.protocol, 'realtime');
  assert.match(requestId, /^req_/);
  ws.send(JSON.stringify({ type: 'session.update', session: { instructions: 'be brief' } }));
  ws.send(JSON.stringify({ type: 'response.create' }));
  await waitFor(() => got.some((m) => m.type === 'response.done'), 5000, 'response.done');
  assert.equal(got[0].type, 'session.created');
  ws.close();
  await new Promise((r) => ws.once('close', r));
  assert.deepEqual(
    rt.frames.map((f) => JSON.parse(f).type),
    ['session.update', 'response.create'],
  );
  assert.equal(rt.handshakes.at(-1)!.authorization, 'Bearer sk-rt');
  assert.equal(rt.handshakes.at(-1)!.path, '/v1/realtime?model=rt-test');
  const log = await consumeLog(gw, requestId);
  // (100 × $4 + 50 × $16) / 1M × 500,000
  assert.equal(Number(log.quota), 600);
  assert.equal(log.endpoint, '/v1/realtime');
  assert.equal((await logsFor(gw, requestId)).filter((r) => r.type === 'consume').length, 1);
  assert.equal(await balance(gw, c.userId), 1_000_000 - 600);

  const status = await new Promise<number>((resolve) => {
    const w = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/v1/realtime?model=rt-test`);
    w.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
    });
    w.on('error', () => {});
  });
  assert.equal(status, 401);
});
