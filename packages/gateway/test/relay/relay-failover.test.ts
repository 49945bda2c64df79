import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { json, sleep } from '../fakes/upstreams/common.ts';
import { balance, channelRow, consumeLog, createCaller, createChannel, logsFor, setPrice, waitFor } from '../relay-fixtures.ts';

let gw: TestGateway;
const fakes: FakeOpenAI[] = [];

before(async () => {
  gw = await startTestGateway({ env: { RELAY_PROBE_INTERVAL_SECONDS: '0.3' } });
  // These tests check what happens once a key is disabled: the first refusal is enough here
  // (the threshold itself is tested in relay-options.test.ts).
  await gw.services.admin.options.set('AutoDisableFailureThreshold', 1);
});
after(async () => {
  await gw?.stop();
  await Promise.all(fakes.map((f) => f.close()));
});

async function fake(keys?: string[]) {
  const f = await startFakeOpenAI({ keys });
  fakes.push(f);
  return f;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const ask = (key: string, model: string) =>
  client(key)
    .chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();

test('a channel answering 500 fails over to the next tier; the failed attempt is logged', async () => {
  const bad = await fake();
  const good = await fake();
  bad.override = (_r, res) => {
    json(res, 500, { error: { message: 'boom' } });
    return true;
  };
  const badId = await createChannel(gw, { baseUrl: bad.url, models: ['fo-500'], priority: 10 });
  const goodId = await createChannel(gw, { baseUrl: good.url, models: ['fo-500'], priority: 0 });
  await setPrice(gw, 'fo-500', { input: 1, output: 1 });
  const c = await createCaller(gw);
  const { data, request_id } = await ask(c.key, 'fo-500');
  assert.equal(data.choices[0].message.content, 'Hello world');
  assert.equal(bad.requests.length, 1);
  assert.equal(good.requests.length, 1);
  const log = await consumeLog(gw, request_id!);
  assert.equal(Number(log.channel_id), goodId);
  assert.equal(Number(log.attempts), 2);
  const err = (await logsFor(gw, request_id!)).find((r) => r.type === 'error');
  assert.ok(err);
  assert.equal(Number(err.channel_id), badId);
  assert.equal(Number(err.status_code), 500);
  assert.equal((await channelRow(gw, badId)).status, 1, 'a 500 does not disable');
});

test('a channel refusing connections fails over', async () => {
  const good = await fake();
  const port = await freePort();
  await createChannel(gw, { baseUrl: `http://127.0.0.1:${port}`, models: ['fo-refused'], priority: 10 });
  await createChannel(gw, { baseUrl: good.url, models: ['fo-refused'], priority: 0 });
  await setPrice(gw, 'fo-refused', { input: 1, output: 1 });
  const c = await createCaller(gw);
  const { data } = await ask(c.key, 'fo-refused');
  assert.equal(data.choices[0].message.content, 'Hello world');
  assert.equal(good.requests.length, 1);
});

test('retries never redraw a tried channel; when all fail the caller gets 502 with the last message and the reserve back', async () => {
  const a = await fake();
  const b = await fake();
  a.override = (_r, res) => {
    json(res, 503, { error: { message: 'a is down' } });
    return true;
  };
  b.override = (_r, res) => {
    json(res, 502, { error: { message: 'b is down' } });
    return true;
  };
  await createChannel(gw, { baseUrl: a.url, models: ['fo-all'] });
  await createChannel(gw, { baseUrl: b.url, models: ['fo-all'] });
  await setPrice(gw, 'fo-all', { input: 1, output: 1 });
  const c = await createCaller(gw, { quota: 100_000 });
  const r = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fo-all', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(r.status, 502);
  const j = (await r.json()) as { error: { message: string; code: string } };
  assert.equal(j.error.code, 'upstream_error');
  assert.match(j.error.message, /(a|b) is down/);
  assert.equal(a.requests.length, 1, 'each channel tried once (2 channels, 3 attempts allowed)');
  assert.equal(b.requests.length, 1);
  await waitFor(async () => (await balance(gw, c.userId)) === 100_000, 3000, 'refund');
});

test('no retry once stream bytes reached the caller', async () => {
  const a = await fake();
  const b = await fake();
  a.override = (_r, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'partial ' }, finish_reason: null }] })}\n\n`,
    );
    setTimeout(() => res.socket?.destroy(), 50);
    return true;
  };
  await createChannel(gw, { baseUrl: a.url, models: ['fo-stream'], priority: 10 });
  await createChannel(gw, { baseUrl: b.url, models: ['fo-stream'], priority: 0 });
  await setPrice(gw, 'fo-stream', { input: 1, output: 1 });
  const c = await createCaller(gw);
  const r = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fo-stream', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(r.status, 200);
  const text = await r.text();
  assert.match(text, /partial/);
  assert.match(text, /upstream_stream_error/);
  assert.equal(b.requests.length, 0, 'the second channel was not called');
  const log = await consumeLog(gw, r.headers.get('x-request-id')!);
  assert.equal(Number(log.status_code), 502);
  assert.ok(Number(log.completion_tokens) > 0, 'billed for what was produced');
});

test('429 puts the channel on cooldown (Retry-After) and it recovers by itself', async () => {
  const a = await fake();
  const b = await fake();
  let limited = true;
  a.override = (_r, res) => {
    if (!limited) return false;
    json(res, 429, { error: { message: 'slow down', type: 'rate_limit' } }, { 'retry-after': '1' });
    return true;
  };
  const aId = await createChannel(gw, { baseUrl: a.url, models: ['fo-429'], priority: 10 });
  await createChannel(gw, { baseUrl: b.url, models: ['fo-429'], priority: 0 });
  await setPrice(gw, 'fo-429', { input: 1, output: 1 });
  const c = await createCaller(gw);
  await ask(c.key, 'fo-429');
  assert.equal(a.requests.length, 1);
  assert.equal(b.requests.length, 1);
  await ask(c.key, 'fo-429');
  assert.equal(a.requests.length, 1, 'cooling channel skipped');
  assert.equal(b.requests.length, 2);
  assert.equal((await channelRow(gw, aId)).status, 1, '429 never disables');
  limited = false;
  await sleep(1100);
  await ask(c.key, 'fo-429');
  assert.equal(a.requests.length, 2, 'back after the cooldown');
  assert.equal(b.requests.length, 2);
});

test('a refused key is disabled alone, the channel keeps serving, and the probe brings the key back', async () => {
  const up = await fake(['good-key']);
  const id = await createChannel(gw, { baseUrl: up.url, models: ['fo-key'], keys: ['good-key', 'bad-key'], keyMode: 'round_robin' });
  await setPrice(gw, 'fo-key', { input: 1, output: 1 });
  const c = await createCaller(gw);
  for (let i = 0; i < 4; i++) {
    const { data } = await ask(c.key, 'fo-key');
    assert.equal(data.choices[0].message.content, 'Hello world');
  }
  let row = await channelRow(gw, id);
  const ks = JSON.parse(row.key_state);
  assert.equal(ks['1']?.status, 'auto_disabled');
  assert.match(ks['1'].reason, /401/);
  assert.equal(ks['0'], undefined);
  assert.equal(row.status, 1);
  const relayedWithBad = () => up.requests.filter((r) => r.headers.authorization === 'Bearer bad-key' && r.body.max_tokens !== 1).length;
  const before = relayedWithBad();
  for (let i = 0; i < 3; i++) await ask(c.key, 'fo-key');
  assert.equal(relayedWithBad(), before, 'the disabled key is not used for traffic');
  // The upstream accepts the key again: the background probe re-enables it.
  up.keys!.add('bad-key');
  row = await waitFor(
    async () => {
      const r = await channelRow(gw, id);
      return JSON.parse(r.key_state)['1'] ? null : r;
    },
    5000,
    'key recovery',
  );
  assert.equal(row.status, 1);
});

test('a channel whose only key is refused is auto-disabled (status 3) and recovers', async () => {
  const up = await fake(['ok']);
  const other = await fake();
  const id = await createChannel(gw, { baseUrl: up.url, models: ['fo-chan'], keys: ['revoked'], priority: 10 });
  await createChannel(gw, { baseUrl: other.url, models: ['fo-chan'], priority: 0 });
  await setPrice(gw, 'fo-chan', { input: 1, output: 1 });
  const c = await createCaller(gw);
  const { data } = await ask(c.key, 'fo-chan');
  assert.equal(data.choices[0].message.content, 'Hello world');
  const row = await channelRow(gw, id);
  assert.equal(row.status, 3);
  assert.match(row.status_reason ?? '', /401/);
  const n = up.requests.length;
  await ask(c.key, 'fo-chan');
  // Only probes (no relay traffic) reach the disabled channel now.
  assert.ok(up.requests.every((r, i) => i < n || r.body.max_tokens === 1));
  up.keys!.add('revoked');
  await waitFor(async () => (await channelRow(gw, id)).status === 1, 5000, 'channel recovery');
  // The in-memory index reloads after the revision bump: wait for it too.
  await waitFor(
    () => gw.services.relay.channels.candidates('default', 'fo-chan').some((ch) => ch.id === id && !ch.keyState['0']),
    5000,
    'index reload',
  );
  const relayed = () => up.requests.filter((r) => r.body.max_tokens !== 1).length;
  const m = relayed();
  await ask(c.key, 'fo-chan');
  assert.equal(relayed(), m + 1, 'traffic is back on the recovered channel');
});
