/**
 * The web playground chat (/pg/chat/completions): the login session instead of an API key, the user's
 * group, billed to the user with no key; the same routing, conversion and retries as chat completions.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import type { FakeUpstream } from '../fakes/upstreams/common.ts';
import { json } from '../fakes/upstreams/common.ts';
import { startFakeAnthropic } from '../fakes/upstreams/anthropic.ts';
import { startFakeOpenAI, USAGE, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { balance, consumeLog, createChannel, createUser, setPrice } from '../relay-fixtures.ts';

let gw: TestGateway;
let oa: FakeOpenAI;
let oa2: FakeOpenAI;
let ant: FakeUpstream;
let userId: number;
let cookie: string;

before(async () => {
  gw = await startTestGateway();
  oa = await startFakeOpenAI();
  oa2 = await startFakeOpenAI();
  ant = await startFakeAnthropic();
  await createChannel(gw, { baseUrl: oa.url, models: ['pg-model'], groups: ['vip'], priority: 10 });
  await createChannel(gw, { baseUrl: oa2.url, models: ['pg-model'], groups: ['vip'], priority: 0 });
  await createChannel(gw, { baseUrl: oa.url, models: ['pg-default-only'], groups: ['default'] });
  await createChannel(gw, { type: 14, baseUrl: ant.url, keys: ['sk-ant'], models: ['pg-claude'], groups: ['vip'] });
  for (const m of ['pg-model', 'pg-claude', 'pg-default-only']) await setPrice(gw, m, { input: 2, output: 2 });
  const username = `pguser${Date.now().toString(36)}`;
  userId = await createUser(gw, { group: 'vip', quota: 1_000_000, username, password: 'pg-password-1' });
  const login = await fetch(`${gw.url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: 'pg-password-1' }),
  });
  assert.equal(login.status, 200);
  cookie = login.headers.get('set-cookie')!.split(';')[0];
});
after(async () => {
  await gw?.stop();
  await oa?.close();
  await oa2?.close();
  await ant?.close();
});

const pg = (headers: Record<string, string> = {}) =>
  new OpenAI({ apiKey: 'unused', baseURL: `${gw.url}/pg`, maxRetries: 0, defaultHeaders: { cookie, ...headers } });

test("playground chat with the session cookie: the user's group, billed to the user, logged without a key", async () => {
  const before = await balance(gw, userId);
  const { data, response } = await pg()
    .chat.completions.create({ model: 'pg-model', messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  assert.equal(data.choices[0].message.content, 'Hello world');
  assert.ok(Number(response.headers.get('x-gatehouse-time-ms')) >= 0);
  const log = await consumeLog(gw, response.headers.get('x-request-id')!);
  assert.equal(Number(log.user_id), userId);
  assert.equal(log.key_id, null);
  assert.equal(log.group_name, 'vip');
  assert.equal(log.endpoint, '/pg/chat/completions');
  assert.equal(Number(log.quota), USAGE.total_tokens);
  assert.equal(await balance(gw, userId), before - USAGE.total_tokens);
  const ledger = await gw.core.h.db.selectFrom('ledger').selectAll().where('ref', '=', log.request_id).execute();
  assert.ok(ledger.length > 0 && ledger.every((r) => r.key_id === null));
});

test('playground stream, conversion to an Anthropic channel, and failover work as for chat completions', async () => {
  let text = '';
  for await (const ch of await pg().chat.completions.create({
    model: 'pg-claude',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
  }))
    text += ch.choices[0]?.delta?.content ?? '';
  assert.equal(text, 'Hello from Claude');
  oa.override = (_r, res) => {
    json(res, 500, { error: { message: 'down' } });
    return true;
  };
  try {
    oa2.requests.length = 0;
    const r = await pg().chat.completions.create({ model: 'pg-model', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.choices[0].message.content, 'Hello world');
    assert.equal(oa2.requests.length, 1, 'the second channel served after the first failed');
  } finally {
    oa.override = null;
  }
});

test('playground: refused without a session; other groups and their models are not reachable', async () => {
  const anon = new OpenAI({ apiKey: 'unused', baseURL: `${gw.url}/pg`, maxRetries: 0 });
  await assert.rejects(
    anon.chat.completions.create({ model: 'pg-model', messages: [{ role: 'user', content: 'hi' }] }),
    (e: any) => e.status === 401,
  );
  // An API key is not a login.
  const r = await fetch(`${gw.url}/pg/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk-not-a-session', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'pg-model', messages: [] }),
  });
  assert.equal(r.status, 401);
  await assert.rejects(
    pg().chat.completions.create({ model: 'pg-default-only', messages: [{ role: 'user', content: 'hi' }] }),
    (e: any) => e.status === 503,
  );
  await assert.rejects(
    pg().chat.completions.create({ model: 'pg-model', messages: [{ role: 'user', content: 'hi' }], group: 'default' } as any),
    (e: any) => e.status === 403,
  );
  const same = await pg().chat.completions.create({ model: 'pg-model', messages: [{ role: 'user', content: 'hi' }], group: 'vip' } as any);
  assert.equal(same.choices[0].message.content, 'Hello world');
});
