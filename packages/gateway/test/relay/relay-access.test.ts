import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { balance, channelRow, consumeLog, createCaller, createChannel, logsFor, setPrice, waitFor } from '../relay-fixtures.ts';

let gw: TestGateway;
let up: FakeOpenAI;

before(async () => {
  gw = await startTestGateway();
  up = await startFakeOpenAI();
  await createChannel(gw, { baseUrl: up.url, models: ['acc-model', 'acc-other', 'acc-flat', 'acc-long'] });
  await setPrice(gw, 'acc-model', { input: 1, output: 1 });
  await setPrice(gw, 'acc-other', { input: 1, output: 1 });
  await setPrice(gw, 'acc-flat', { per_request: 0.001 }); // 500 units per call
  await setPrice(gw, 'acc-long', { input: 2, output: 2 }); // 1 unit per token
});
after(async () => {
  await gw?.stop();
  await up?.close();
});

const post = (key: string, body: unknown) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const chat = (model: string) => ({ model, messages: [{ role: 'user', content: 'hi' }] });

test('an expired key is refused with 401', async () => {
  const c = await createCaller(gw, { expiresAt: Date.now() - 1000 });
  const r = await post(c.key, chat('acc-model'));
  assert.equal(r.status, 401);
  assert.equal(((await r.json()) as any).error.code, 'api_key_expired');
  const ok = await createCaller(gw, { expiresAt: Date.now() + 60_000 });
  assert.equal((await post(ok.key, chat('acc-model'))).status, 200);
});

test('a key restricted to some models gets 403 for others', async () => {
  const c = await createCaller(gw, { models: ['acc-model'] });
  assert.equal((await post(c.key, chat('acc-model'))).status, 200);
  const r = await post(c.key, chat('acc-other'));
  assert.equal(r.status, 403);
  assert.equal(((await r.json()) as any).error.code, 'model_not_allowed');
});

test('a key restricted to some addresses gets 403 elsewhere', async () => {
  const away = await createCaller(gw, { allowedIps: ['10.9.8.7'] });
  const r = await post(away.key, chat('acc-model'));
  assert.equal(r.status, 403);
  assert.equal(((await r.json()) as any).error.code, 'ip_not_allowed');
  const here = await createCaller(gw, { allowedIps: ['127.0.0.0/8'] });
  assert.equal((await post(here.key, chat('acc-model'))).status, 200);
});

test('100 concurrent requests against a quota that fits 10: exactly 10 succeed, balance never negative', async () => {
  const c = await createCaller(gw, { quota: 5000 });
  const results = await Promise.all(
    Array.from({ length: 100 }, () =>
      post(c.key, chat('acc-flat')).then(async (r) => ({ status: r.status, body: (await r.json()) as any })),
    ),
  );
  const ok = results.filter((r) => r.status === 200);
  assert.equal(ok.length, 10);
  for (const r of results)
    if (r.status !== 200) {
      assert.equal(r.status, 429);
      assert.equal(r.body.error.code, 'insufficient_quota');
    }
  await waitFor(
    async () => {
      await gw.services.relay.logs.flush();
      const n = await gw.core.h.db.selectFrom('logs').select('id').where('user_id', '=', c.userId).where('type', '=', 'consume').execute();
      return n.length === 10;
    },
    5000,
    '10 consume logs',
  );
  assert.equal(await balance(gw, c.userId), 0);
});

test('the key cap holds as well as the user balance', async () => {
  const c = await createCaller(gw, { quota: 1_000_000, cap: 1000 });
  const results = await Promise.all(Array.from({ length: 5 }, () => post(c.key, chat('acc-flat'))));
  assert.equal(results.filter((r) => r.status === 200).length, 2);
  assert.equal(results.filter((r) => r.status === 429).length, 3);
});

test('a caller that disconnects mid-stream is billed for what was produced', async () => {
  const c = await createCaller(gw, { quota: 1_000_000 });
  up.delayMs = 5;
  try {
    up.requests.length = 0;
    const ac = new AbortController();
    const r = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      signal: ac.signal,
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acc-long', stream: true, max_tokens: 5000, messages: [{ role: 'user', content: 'long:400' }] }),
    });
    const rid = r.headers.get('x-request-id')!;
    const reader = r.body!.getReader();
    let got = '';
    while (got.split('word').length < 20) {
      const { value, done } = await reader.read();
      if (done) assert.fail(`stream ended early: ${got}`);
      got += new TextDecoder().decode(value);
    }
    ac.abort();
    const log = await consumeLog(gw, rid);
    assert.equal(Number(log.status_code), 499);
    const out = Number(log.completion_tokens);
    assert.ok(out >= 19 && out < 400 * 2, `completion tokens ${out} reflect what was streamed`);
    assert.ok(Number(log.prompt_tokens) > 0);
    assert.equal(Number(log.quota), out + Number(log.prompt_tokens));
    assert.equal(await balance(gw, c.userId), 1_000_000 - Number(log.quota));
    assert.equal(JSON.parse(log.other!).clientGone, true);
  } finally {
    up.delayMs = 0;
  }
});

test('restart keeps balances, keys, channels, key state and logs', async () => {
  const own = await startTestGateway();
  const fake = await startFakeOpenAI({ keys: ['k-good'] });
  let second: TestGateway | null = null;
  try {
    await own.services.admin.options.set('AutoDisableFailureThreshold', 1); // the first refusal disables the key
    const chId = await createChannel(own, { baseUrl: fake.url, models: ['rs-model'], keys: ['k-good', 'k-bad'], keyMode: 'round_robin' });
    await setPrice(own, 'rs-model', { per_request: 0.0001 }); // 50 units
    const c = await createCaller(own, { quota: 10_000 });
    for (let i = 0; i < 3; i++) {
      const oa = new OpenAI({ apiKey: c.key, baseURL: `${own.url}/v1`, maxRetries: 0 });
      await oa.chat.completions.create(chat('rs-model') as any);
    }
    await waitFor(async () => (await balance(own, c.userId)) === 10_000 - 150, 3000, 'settled');
    const state = (await channelRow(own, chId)).key_state;
    assert.ok(JSON.parse(state)['1']);
    await own.stop({ keepDb: true });
    second = await startTestGateway({ db: own.db });
    assert.equal(await balance(second, c.userId), 10_000 - 150);
    const logs = await second.core.h.db
      .selectFrom('logs')
      .select('id')
      .where('user_id', '=', c.userId)
      .where('type', '=', 'consume')
      .execute();
    assert.equal(logs.length, 3, 'logs queued before shutdown were written');
    const n = fake.requests.filter((r) => r.headers.authorization === 'Bearer k-bad').length;
    const oa = new OpenAI({ apiKey: c.key, baseURL: `${second.url}/v1`, maxRetries: 0 });
    const { data, request_id } = await oa.chat.completions.create(chat('rs-model') as any).withResponse();
    assert.equal((data as any).choices[0].message.content, 'Hello world');
    assert.equal(fake.requests.filter((r) => r.headers.authorization === 'Bearer k-bad').length, n, 'the disabled key stays disabled');
    const log = await consumeLog(second, request_id!);
    assert.equal(Number(log.quota), 50);
    assert.ok((await logsFor(second, request_id!)).length >= 1);
  } finally {
    if (second) await second.stop();
    else await own.stop();
    await fake.close();
  }
});

test('a key keeps no group its user lost: moved from vip to default, the vip key is refused (403), never served at the vip price', async () => {
  await createChannel(gw, { baseUrl: up.url, models: ['acc-vip-only'], groups: ['vip'] });
  await setPrice(gw, 'acc-vip-only', { input: 1, output: 1 });
  const root = await AdminClient.login(gw.url);
  const user = await root.ok('POST', '/api/user', {
    username: `mover${Date.now().toString(36)}`,
    password: 'mover-password',
    group: 'vip',
    quota_usd: 1,
  });
  const made = await root.ok('POST', '/api/token', { user_id: user.id, name: 'vip key', group: 'vip' });
  assert.equal((await post(made.key, chat('acc-vip-only'))).status, 200);

  await root.ok('PUT', `/api/user/${user.id}`, { group: 'default' });
  const before = await balance(gw, user.id);
  const r = await post(made.key, chat('acc-vip-only'));
  assert.equal(r.status, 403);
  const body = (await r.json()) as any;
  assert.equal(body.error.code, 'group_not_allowed');
  assert.match(body.error.message, /"vip"/);
  assert.equal(await balance(gw, user.id), before, 'nothing was reserved or charged');

  // A key's group can only be its user's own, for admins too; clearing it makes the key follow its user.
  await root.fails(400, 'PUT', `/api/token/${made.id}`, { group: 'vip' }, 'group');
  await root.fails(400, 'POST', '/api/token', { user_id: user.id, name: 'other', group: 'vip' }, 'group');
  await root.ok('PUT', `/api/token/${made.id}`, { group: null });
  const r2 = await post(made.key, chat('acc-vip-only'));
  assert.equal(r2.status, 503, 'the default group has no channel for the vip-only model');
  assert.equal((await post(made.key, chat('acc-model'))).status, 200);
});
