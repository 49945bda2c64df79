/**
 * Two gateways on one database with Redis (the real server on 127.0.0.1:6379): a change made on one
 * node reaches the other through Redis at once (the database poll is set to a minute here), and a
 * 429 that cools a channel key on one node cools it on the other, whose next call goes to another
 * channel without trying the rate-limited one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { createTestDatabase, startTestGateway, type TestGateway } from '../harness.ts';
import { json, startFake } from '../fakes/upstreams/common.ts';
import { startFakeOpenAI } from '../fakes/upstreams/openai.ts';
import { createCaller, createChannel, setPrice, waitFor } from '../relay-fixtures.ts';

const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

test('two nodes with Redis: changes and channel cooldowns reach the other node at once', { timeout: 60_000 }, async () => {
  const db = await createTestDatabase();
  const env = { REDIS_URL, CACHE_SYNC_INTERVAL_SECONDS: '60' };
  const a = await startTestGateway({ db, env });
  let b: TestGateway | null = null;
  const limited = await startFake((_r, res) => {
    res.setHeader('retry-after', '120');
    json(res, 429, { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } });
  });
  const good = await startFakeOpenAI();
  try {
    b = await startTestGateway({ db, env });
    // A channel made through node a is served by node b without waiting for the database poll.
    const c = await createCaller(a, { quota: 10_000_000 });
    await setPrice(a, 'mn-model', { input: 1, output: 1 });
    const limitedId = await createChannel(a, { baseUrl: limited.url, models: ['mn-model'], priority: 10 });
    await waitFor(() => b!.services.relay.channels.get(limitedId), 3000, 'the channel on node b');
    await waitFor(() => b!.services.accounts.keys.size > 0, 3000, 'the key on node b');
    await createChannel(a, { baseUrl: good.url, models: ['mn-model'], priority: 0 });

    // Node a meets the 429 (and fails over); node b hears of the cooldown.
    const viaA = new OpenAI({ apiKey: c.key, baseURL: `${a.url}/v1`, maxRetries: 0 });
    const r = await viaA.chat.completions.create({ model: 'mn-model', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.choices[0].message.content, 'Hello world');
    assert.equal(limited.requests.length, 1);
    assert.ok(a.services.relay.channels.coolingUntil(limitedId, 0));
    const until = await waitFor(() => b!.services.relay.channels.coolingUntil(limitedId, 0), 3000, 'the cooldown on node b');
    assert.ok(until > Date.now() + 100_000, 'the Retry-After of the 429 is kept');

    // Node b's call goes straight to the other channel.
    const viaB = new OpenAI({ apiKey: c.key, baseURL: `${b.url}/v1`, maxRetries: 0 });
    const r2 = await viaB.chat.completions.create({ model: 'mn-model', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r2.choices[0].message.content, 'Hello world');
    assert.equal(limited.requests.length, 1, 'the rate-limited channel was not tried again');
  } finally {
    if (b) await b.stop({ keepDb: true });
    await a.stop();
    await limited.close();
    await good.close();
  }
});

test('two nodes with Redis: qualifying failures on either node count towards one threshold', { timeout: 60_000 }, async () => {
  const db = await createTestDatabase();
  const env = { REDIS_URL, CACHE_SYNC_INTERVAL_SECONDS: '60' };
  const a = await startTestGateway({ db, env });
  let b: TestGateway | null = null;
  const refusing = await startFakeOpenAI({ keys: ['only-this'] });
  const good = await startFakeOpenAI();
  try {
    b = await startTestGateway({ db, env });
    await a.services.admin.options.set('AutoDisableFailureThreshold', 2);
    const c = await createCaller(a, { quota: 10_000_000 });
    await setPrice(a, 'mn-auth', { input: 1, output: 1 });
    const badId = await createChannel(a, { baseUrl: refusing.url, models: ['mn-auth'], keys: ['revoked'], priority: 10 });
    await createChannel(a, { baseUrl: good.url, models: ['mn-auth'], priority: 0 });
    await waitFor(() => b!.services.relay.channels.candidates('default', 'mn-auth').length === 2, 3000, 'both channels on node b');
    await waitFor(
      () => b!.services.accounts.keys.size > 0 && b!.services.admin.options.get('AutoDisableFailureThreshold') === '2',
      3000,
      'key and option on node b',
    );
    const ask = (gw: TestGateway) =>
      new OpenAI({ apiKey: c.key, baseURL: `${gw.url}/v1`, maxRetries: 0 }).chat.completions.create({
        model: 'mn-auth',
        messages: [{ role: 'user', content: 'hi' }],
      });
    // One 401 on node a (counted there and on node b), one on node b: the threshold of 2 is met on b.
    assert.equal((await ask(a)).choices[0].message.content, 'Hello world');
    await waitFor(() => b!.services.relay.policy.failureCount(badId, 0) === 1, 3000, "node a's failure counted on node b");
    assert.equal((await ask(b)).choices[0].message.content, 'Hello world');
    await waitFor(
      async () =>
        Number((await a.core.h.db.selectFrom('channels').select('status').where('id', '=', badId).executeTakeFirstOrThrow()).status) === 3,
      5000,
      'the refusing channel disabled',
    );
    assert.equal(refusing.requests.length, 2);
  } finally {
    if (b) await b.stop({ keepDb: true });
    await a.stop();
    await refusing.close();
    await good.close();
  }
});

test('without Redis a cooldown stays on its node', async () => {
  const db = await createTestDatabase();
  const a = await startTestGateway({ db });
  const b = await startTestGateway({ db });
  try {
    const id = await createChannel(a, { baseUrl: 'http://127.0.0.1:9', models: ['solo-model'] });
    await waitFor(() => b.services.relay.channels.get(id), 3000, 'the channel on node b');
    a.services.relay.channels.cooldown(id, 0, 60_000);
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(a.services.relay.channels.coolingUntil(id, 0));
    assert.equal(b.services.relay.channels.coolingUntil(id, 0), null);
  } finally {
    await b.stop({ keepDb: true });
    await a.stop();
  }
});

test(
  'two nodes: only the holder of the probe lease runs the recovery probe; the other takes over when it stops',
  { timeout: 60_000 },
  async () => {
    const db = await createTestDatabase();
    const running = new Set<TestGateway>();
    const start = async (node: string) => {
      const g = await startTestGateway({ db, env: { NODE_ID: node } });
      running.add(g);
      return g;
    };
    const stop = async (g: TestGateway) => {
      running.delete(g);
      await g.stop({ keepDb: true });
    };
    try {
      const a = await start('probe-a');
      const b = await start('probe-b');
      // The lease lasts two intervals (4 s) and its holder renews it every round (2 s).
      await a.services.admin.options.set('AutoEnableProbeSeconds', 2);
      await a.services.admin.options.set('AutoEnableEnabled', true);
      const rounds = () => [a.services.relay.probeRounds, b.services.relay.probeRounds];
      await waitFor(() => rounds().some((n) => n >= 3), 20_000, 'three probe rounds');
      const [ra, rb] = rounds();
      assert.ok(ra === 0 || rb === 0, `both nodes probed (${ra}, ${rb})`);
      const [holder, other] = ra > 0 ? [a, b] : [b, a];
      const lease = await a.core.h.db.selectFrom('node_leases').selectAll().where('name', '=', 'relay-probe').executeTakeFirstOrThrow();
      assert.equal(lease.holder, holder.core.config.nodeId);

      // The holder stops and gives the lease up; the other node probes from its next round on.
      await stop(holder);
      await waitFor(() => other.services.relay.probeRounds > 0, 10_000, 'the other node probing');
    } finally {
      for (const g of running) await g.stop({ keepDb: true });
      await db.drop();
    }
  },
);
