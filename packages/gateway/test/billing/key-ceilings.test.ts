/**
 * Key ceilings (billing/key-ceilings.ts, docs/api.md#api-keys): `max_spend_usd` is a key's lifetime
 * ceiling, refused like an empty balance once spent; a key mints child keys (authenticated by itself)
 * whose ceilings come out of its own remaining ceiling, exactly under concurrent requests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startFakeOpenAI } from '../fakes/upstreams/openai.ts';
import { createCaller, createChannel, createKey, setPrice, waitFor } from '../relay-fixtures.ts';
import { AdminClient } from '../admin-client.ts';
import { startChild, stopChild, type Child } from '../child-gateway.ts';

const ask = (gw: TestGateway, key: string) =>
  new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 }).chat.completions.create({
    model: 'c-model',
    max_tokens: 16,
    messages: [{ role: 'user', content: 'hi' }],
  });

const mint = (gw: { url: string }, parentId: number, bearer: string | null, body: unknown) =>
  fetch(`${gw.url}/api/token/${parentId}/children`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

const known = (gw: TestGateway, key: string) =>
  waitFor(
    () => {
      try {
        gw.services.accounts.keys.authenticate(key, '127.0.0.1');
        return true;
      } catch {
        return false;
      }
    },
    5000,
    'the key cache',
  );

test('max_spend_usd: a lifetime ceiling shown as spent plus remaining, refused like an empty balance once reached', async () => {
  const gw = await startTestGateway();
  const up = await startFakeOpenAI();
  try {
    await createChannel(gw, { baseUrl: up.url, models: ['c-model'] });
    // Output only, $1000 per 1M tokens: 500 units a token; a call reserves 16 × 500 and is charged 7 × 500.
    await setPrice(gw, 'c-model', { input: 0, output: 1000 });
    const admin = await AdminClient.login(gw.url);
    const c = await createCaller(gw, { quota: 100_000_000 });
    await admin.fails(400, 'PUT', `/api/token/${c.keyId}`, { max_spend_usd: -1 }, 'max_spend_usd');
    await admin.fails(400, 'PUT', `/api/token/${c.keyId}`, { max_spend_usd: 1, quota: 5 }, 'max_spend_usd');
    let view = await admin.ok('PUT', `/api/token/${c.keyId}`, { max_spend_usd: 0.02 });
    assert.deepEqual([view.max_spend_usd, view.remain_quota, view.used_quota], [0.02, 10_000, 0]);
    await waitFor(() => !gw.services.accounts.keys.authenticate(c.key, '127.0.0.1').unlimitedQuota, 5000, 'the key cache');
    await ask(gw, c.key);
    await waitFor(async () => (await admin.ok('GET', `/api/token/${c.keyId}`)).used_quota === 3_500, 5000, 'the settlement');
    view = await admin.ok('GET', `/api/token/${c.keyId}`);
    assert.deepEqual([view.max_spend_usd, view.remain_quota], [0.02, 6_500]);
    const before = up.requests.length;
    await assert.rejects(ask(gw, c.key), (e: any) => e.status === 429 && e.code === 'insufficient_quota');
    assert.equal(up.requests.length, before, 'a refused call never reaches the upstream');
    // Raising the ceiling keeps what was spent: remaining = ceiling − spent.
    view = await admin.ok('PUT', `/api/token/${c.keyId}`, { max_spend_usd: 0.03 });
    assert.deepEqual([view.max_spend_usd, view.remain_quota, view.used_quota], [0.03, 11_500, 3_500]);
    view = await admin.ok('PUT', `/api/token/${c.keyId}`, { max_spend_usd: null });
    assert.equal(view.max_spend_usd, null);
    const made = await admin.ok('POST', '/api/token', { user_id: c.userId, name: 'capped', max_spend_usd: 0.5 });
    assert.deepEqual([made.max_spend_usd, made.remain_quota, made.unlimited_quota], [0.5, 250_000, false]);
  } finally {
    await up.close();
    await gw.stop();
  }
});

test('child keys: minted by the parent key itself, narrowed to it, ceilings summing within its ceiling under 30 concurrent requests', async () => {
  const gw = await startTestGateway();
  const up = await startFakeOpenAI();
  try {
    await createChannel(gw, { baseUrl: up.url, models: ['c-model'] });
    await setPrice(gw, 'c-model', { input: 0, output: 1000 });
    const admin = await AdminClient.login(gw.url);
    const expiry = Date.now() + 3_600_000;
    // $0.10 = 50,000 units.
    const parent = await createCaller(gw, { quota: 100_000_000, cap: 50_000, models: ['c-model', 'd-model'], expiresAt: expiry });
    const other = await createKey(gw, parent.userId, {});
    await known(gw, parent.key);
    await known(gw, other.key);

    assert.equal((await mint(gw, parent.keyId, null, { name: 'x', max_spend_usd: 0.01 })).status, 401);
    // Another key of the same user cannot mint children of this one.
    const foreign = await mint(gw, parent.keyId, other.key, { name: 'x', max_spend_usd: 0.01 });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.success, false);
    const noCeiling = await mint(gw, parent.keyId, parent.key, { name: 'x' });
    assert.equal(noCeiling.status, 400);
    assert.match(noCeiling.body.message, /max_spend_usd/);
    const wider = await mint(gw, parent.keyId, parent.key, { name: 'x', max_spend_usd: 0.01, models: ['e-model'] });
    assert.equal(wider.status, 400);
    assert.match(wider.body.message, /models/);
    const tooMuch = await mint(gw, parent.keyId, parent.key, { name: 'x', max_spend_usd: 0.2 });
    assert.equal(tooMuch.status, 429);
    assert.equal(tooMuch.body.success, false);

    // 30 children of $0.005 (2,500 units) at once: exactly 20 fit in 50,000.
    const asks = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        mint(gw, parent.keyId, parent.key, { name: `child-${i}`, max_spend_usd: 0.005, expires_at: expiry + 86_400_000 }),
      ),
    );
    const made = asks.filter((a) => a.status === 200);
    assert.equal(made.length, 20, JSON.stringify(asks.filter((a) => a.status !== 200 && a.status !== 429)));
    assert.ok(asks.every((a) => a.status === 200 || a.status === 429));
    const p = await admin.ok('GET', `/api/token/${parent.keyId}`);
    assert.equal(p.remain_quota, 0);
    const children = await gw.core.h.db.selectFrom('api_keys').selectAll().where('name', 'like', 'child-%').execute();
    assert.equal(children.length, 20);
    assert.equal(
      children.reduce((s, r) => s + Number(r.remain_quota), 0),
      50_000,
    );
    const child = made[0].body.data;
    assert.match(child.key, /^sk-/);
    assert.equal(child.user_id, parent.userId);
    assert.equal(child.max_spend_usd, 0.005);
    assert.equal(child.expires_at, expiry, 'a child expires no later than its parent');
    assert.deepEqual(child.models, ['c-model', 'd-model']);
    // The child spends its own ceiling: one call (8,000 reserved) is more than its 2,500.
    await known(gw, child.key);
    await assert.rejects(ask(gw, child.key), (e: any) => e.status === 429 && e.code === 'insufficient_quota');
    // The parent, spent out, cannot mint more; its audit trail names the parent.
    assert.equal((await mint(gw, parent.keyId, parent.key, { name: 'late', max_spend_usd: 0.001 })).status, 429);
    const audit = await gw.core.h.db.selectFrom('audit_log').selectAll().where('action', '=', 'key.create_child').execute();
    assert.equal(audit.length, 20);
  } finally {
    await up.close();
    await gw.stop();
  }
});

test("child keys minted at once on two nodes of one database never sum past the parent's ceiling", async () => {
  const gw = await startTestGateway();
  let other: Child | undefined;
  try {
    const parent = await createCaller(gw, { quota: 100_000_000, cap: 50_000 });
    other = await startChild(gw.db, 'ceilings-2');
    const node2 = other;
    await known(gw, parent.key);
    await waitFor(
      async () => (await fetch(`${node2.url}/v1/models`, { headers: { authorization: `Bearer ${parent.key}` } })).status === 200,
      10_000,
      'the second node knows the key',
    );
    const asks = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        mint(i % 2 ? node2 : gw, parent.keyId, parent.key, { name: `two-node-${i}`, max_spend_usd: 0.005 }),
      ),
    );
    assert.ok(
      asks.every((a) => a.status === 200 || a.status === 429),
      JSON.stringify(asks.map((a) => a.status)),
    );
    assert.equal(asks.filter((a) => a.status === 200).length, 20);
    const rows = await gw.core.h.db.selectFrom('api_keys').selectAll().where('name', 'like', 'two-node-%').execute();
    assert.equal(
      rows.reduce((s, r) => s + Number(r.remain_quota), 0),
      50_000,
    );
    const p = await gw.core.h.db.selectFrom('api_keys').select('remain_quota').where('id', '=', parent.keyId).executeTakeFirstOrThrow();
    assert.equal(Number(p.remain_quota), 0);
  } finally {
    await stopChild(other);
    await gw.stop();
  }
});
