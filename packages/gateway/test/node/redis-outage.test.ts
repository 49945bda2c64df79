/**
 * Redis failing under load, on two gateway processes sharing one database and a private Redis server
 * (its own port, nothing saved; the machine's shared Redis is never touched). First Redis hangs
 * (SIGSTOP: connected, never answering), then it dies (SIGKILL). Throughout:
 * - no call hangs: Redis's commands time out (REDIS_COMMAND_TIMEOUT_SECONDS) and the nodes go on without it;
 * - a key's `rpm: 7` holds per node — each node counts what it admits on its own, so the two admit at
 *   most 7 each — instead of calls going through uncounted;
 * - a failed login is still a 401 counted by the login throttle, not a 500;
 * - the outage shows: `gatehouse_redis_up 0` and the error and fallback counters on /metrics, a warning
 *   on /readyz (which still answers ready: the node serves);
 * - money limits never depend on Redis: a user's balance and daily budget hold exactly under load.
 * docs/limits.md#when-redis-fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, startTestGateway } from '../harness.ts';
import { startChild, stopChild, type Child } from '../child-gateway.ts';
import { AdminClient } from '../admin-client.ts';
import { startFakeOpenAI } from '../fakes/upstreams/openai.ts';
import { createCaller, createChannel, setPrice } from '../relay-fixtures.ts';

const METRICS_TOKEN = 'metrics-token-for-the-redis-test';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** A private redis-server on `port`, keeping nothing on disk; resolves once it accepts connections. */
function startRedis(port: number): Promise<ChildProcess> {
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (/Ready to accept connections/.test(out)) resolve(proc);
    });
    proc.on('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out.slice(-500)}`)));
  });
}

test('Redis hanging then dying under load on two nodes: no call hangs, rate limits hold per node, the outage shows, money limits hold', async () => {
  const up = await startFakeOpenAI();
  const db = await createTestDatabase();
  const port = await freePort();
  const redis = await startRedis(port);
  const nodes: Child[] = [];
  try {
    // The database: a channel and a price, a key limited to 7 requests per minute, and a payer with a
    // balance and a daily budget that a few calls use up.
    const setup = await startTestGateway({ db });
    await createChannel(setup, { baseUrl: up.url, models: ['rl-model'] });
    await setPrice(setup, 'rl-model', { input: 1000, output: 1000 });
    const root = await AdminClient.login(setup.url);
    const limited = await createCaller(setup, { quota: 1_000_000_000 });
    await root.ok('PUT', `/api/token/${limited.keyId}`, { rpm: 7 });
    const payer = await createCaller(setup, { quota: 2_000_000 });
    await root.ok('PUT', `/api/user/${payer.userId}`, { budget: 60_000, budget_period: 'day' });
    await setup.stop({ keepDb: true });

    const env = { REDIS_URL: `redis://127.0.0.1:${port}`, METRICS_TOKEN, REDIS_COMMAND_TIMEOUT_SECONDS: '0.3', TRUST_PROXY: '1' };
    nodes.push(await startChild(db, 'redis-a', env), await startChild(db, 'redis-b', env));
    const call = async (node: number, key: string, content = 'hi') => {
      const r = await fetch(`${nodes[node].url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'rl-model', max_tokens: 16, messages: [{ role: 'user', content }] }),
        // Not a timing assertion: a call Redis holds forever must fail the test, not hang it.
        signal: AbortSignal.timeout(60_000),
      });
      const body = (await r.json()) as { error?: { code?: string } };
      return { status: r.status, code: body.error?.code };
    };
    /** Fires `n` calls per node at once with `key`; the admitted ones per node. */
    const burst = async (n: number, key: string) => {
      const res = await Promise.all(Array.from({ length: 2 * n }, (_, i) => call(i % 2, key).then((r) => ({ node: i % 2, ...r }))));
      for (const r of res) assert.ok(r.status === 200 || (r.status === 429 && r.code === 'rate_limit_exceeded'), JSON.stringify(r));
      return [0, 1].map((n0) => res.filter((r) => r.node === n0 && r.status === 200).length);
    };

    // Redis up: the limit is shared by both nodes.
    const shared = await burst(6, limited.key);
    assert.equal(shared[0] + shared[1], 7, `7 of 12 across both nodes (${shared})`);

    // Redis hangs: every call still ends (the command times out), counted by its node alone.
    redis.kill('SIGSTOP');
    const hung = await burst(10, limited.key);
    // Redis dies: the same windows go on counting on each node.
    redis.kill('SIGKILL');
    await new Promise((r) => redis.once('exit', r));
    const dead = await burst(10, limited.key);
    for (const n of [0, 1])
      assert.ok(hung[n] + dead[n] <= 7, `node ${n} admitted ${hung[n]} + ${dead[n]} of 20 without Redis: at most its 7`);
    assert.ok(hung[0] + dead[0] + hung[1] + dead[1] >= 1, 'calls are served without Redis');

    // A wrong password is still a failed login (401, counted on the node), not a failure of the gateway.
    for (const n of [0, 1]) {
      const r = await fetch(`${nodes[n].url}/api/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.99' },
        body: JSON.stringify({ username: 'root', password: 'not-the-password' }),
      });
      assert.equal(r.status, 401);
    }

    // The outage shows.
    for (const n of nodes) {
      const m = await (await fetch(`${n.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      assert.match(m, /^gatehouse_redis_up 0$/m);
      assert.match(m, /^gatehouse_redis_fallback_total\{use="rate_limits"\} [1-9]/m);
      const ready = await fetch(`${n.url}/readyz`);
      const body = (await ready.json()) as { ready: boolean; checks: { redis: string }; warnings?: string[] };
      assert.equal(ready.status, 200, JSON.stringify(body));
      assert.equal(body.checks.redis, 'failed');
      assert.ok(
        body.warnings?.some((w) => /count on this node alone/.test(w)),
        JSON.stringify(body),
      );
    }
    const errors = await Promise.all(
      nodes.map(async (n) =>
        (await (await fetch(`${n.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()).match(
          /^gatehouse_redis_errors_total\{use="[a-z_-]+"\} [1-9]/m,
        ),
      ),
    );
    assert.ok(errors.some(Boolean), 'the timed-out commands are counted');

    // Money never depended on Redis: 40 concurrent calls of the payer on both nodes stop at its budget.
    const paid = await Promise.all(Array.from({ length: 40 }, (_, i) => call(i % 2, payer.key, `pay ${i}`)));
    for (const r of paid) assert.ok(r.status === 200 || (r.status === 429 && r.code === 'insufficient_quota'), JSON.stringify(r));
    assert.ok(
      paid.some((r) => r.status === 429),
      'the budget refused some',
    );
    // Read once both nodes have stopped (every call settled, every log row written).
    for (const n of nodes) await stopChild(n);
    const check = await startTestGateway({ db });
    try {
      const u = await check.core.h.db.selectFrom('users').select('quota').where('id', '=', payer.userId).executeTakeFirstOrThrow();
      const charged = 2_000_000 - Number(u.quota);
      assert.ok(charged > 0 && charged <= 60_000, `charged ${charged}: within the budget of 60,000`);
      const logs = await check.core.h.db
        .selectFrom('logs')
        .select(['quota'])
        .where('user_id', '=', payer.userId)
        .where('type', '=', 'consume')
        .execute();
      assert.equal(
        logs.reduce((a, l) => a + Number(l.quota), 0),
        charged,
        'the balance moved by exactly what the calls were charged',
      );
      assert.equal(logs.length, paid.filter((r) => r.status === 200).length);
      const spend = await check.core.h.db.selectFrom('budget_spend').select(['spent']).where('owner', '=', `u:${payer.userId}`).execute();
      assert.deepEqual(
        spend.map((s) => Number(s.spent)),
        [charged],
        'the budget counted exactly the same',
      );
      assert.equal((await check.core.h.db.selectFrom('open_reserves').select('ref').execute()).length, 0);
    } finally {
      await check.stop({ keepDb: true });
    }
  } finally {
    for (const n of nodes) await stopChild(n);
    if (redis.exitCode === null && redis.signalCode === null) {
      redis.kill('SIGKILL');
      await new Promise((r) => redis.once('exit', r));
    }
    await up.close();
    await db.drop();
  }
});
