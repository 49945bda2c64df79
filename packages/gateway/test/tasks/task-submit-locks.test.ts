/**
 * A submit in flight and the poller's sweep of unfinished submissions must not deadlock on MySQL /
 * MariaDB. The test forces the interleaving that made a native-route submit answer 500 now and then:
 * the submit's accept UPDATE (by id) waits for the task row while the sweep scans the status index,
 * then both go on in the order that used to cross (row → index entry against index entry → row).
 * Lock waits are observed in information_schema, so nothing depends on timing. MySQL only: the
 * other databases take no index-range locks.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { startTestGateway, TEST_DB, type TestGateway } from '../harness.ts';
import { api, createTaskChannel, createUser, installPlugins, setTaskPrice, waitFor, type TestUser } from '../fakes/vendor/fixtures.ts';

const mysqlOnly = TEST_DB !== 'mysql' && 'index-range locks are a MySQL/MariaDB matter';

let gw: TestGateway;
let upstream: Server;
let alice: TestUser;
/** Submits the upstream holds until the test answers them. */
const held: Array<{ req: IncomingMessage; res: ServerResponse }> = [];
const logged: string[] = [];

before(async () => {
  if (mysqlOnly) return;
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => held.push({ req, res }));
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  // The background poller is stopped below; the test runs the poller's pass itself.
  gw = await startTestGateway({ env: { TASK_POLL_INTERVAL_SECONDS: '3600', CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  await gw.services.tasks.poller.stop();
  await installPlugins(gw, ['native-demo.js']);
  await createTaskChannel(gw, {
    name: 'gated',
    plugin: 'native-demo',
    baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
  });
  await setTaskPrice(gw, 'nd-fast', { perRequest: 0.01 });
  alice = await createUser(gw, { name: 'alice', quota: 100 * 500_000 });
  const log = gw.core.log as unknown as Record<'warn' | 'error', (...a: unknown[]) => void>;
  for (const level of ['warn', 'error'] as const) {
    const orig = log[level];
    log[level] = function (this: unknown, ...a: unknown[]) {
      logged.push(JSON.stringify(a, (_k, v) => (v instanceof Error ? v.message : v)));
      return orig.apply(this, a);
    };
  }
});

after(async () => {
  if (mysqlOnly) return;
  for (const h of held.splice(0)) h.res.destroy();
  await gw?.stop();
  await new Promise((r) => upstream?.close(r));
});

/**
 * Statements of this test's database waiting for a row lock (MariaDB/MySQL information_schema).
 * InnoDB refreshes the cache behind INNODB_TRX only when it was not read for 0.1 s, so each read
 * waits that long first: polled faster, the view never changes.
 */
async function lockWaits(): Promise<string[]> {
  await new Promise((r) => setTimeout(r, 150));
  const r = await sql<{ q: string | null }>`
    SELECT t.trx_query AS q FROM information_schema.INNODB_TRX t
    JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id
    WHERE t.trx_state = 'LOCK WAIT' AND p.DB = DATABASE()`.execute(gw.core.h.db);
  return r.rows.map((x) => String(x.q ?? ''));
}

/**
 * Earlier tasks: finished ones, and submissions a stopped node left unfinished long ago (the sweep's
 * work). They make the table look like a used one; the statistics are then read again.
 */
async function earlierTasks(): Promise<void> {
  const now = Date.now();
  const row = (i: number, status: string, age: number) => ({
    public_id: `task_earlier${i}`,
    plugin_key: 'native-demo',
    plugin_version: '1.0.0',
    user_id: alice.userId,
    key_id: alice.keyId,
    key_unlimited: 1,
    channel_key_index: 0,
    group_name: 'default',
    model: 'nd-fast',
    upstream_model: 'nd-fast',
    action: 'generate',
    status,
    progress: status === 'NOT_START' ? '0%' : '100%',
    retain: 1,
    quota_reserved: 0,
    billing_status: 'none',
    poll_failures: 0,
    flagged: 0,
    created_at: now - age,
    updated_at: now - age,
  });
  const rows = [
    ...Array.from({ length: 64 }, (_x, i) => row(i, i % 2 ? 'SUCCESS' : 'FAILURE', (100 - i) * 1000)),
    ...Array.from({ length: 10 }, (_x, i) => row(100 + i, 'NOT_START', 3_600_000 + i)),
  ];
  await gw.core.h.db.insertInto('tasks').values(rows).execute();
  await sql`ANALYZE TABLE tasks`.execute(gw.core.h.db);
}

test('a submit accepted while the poller sweeps unfinished submissions is not rolled back', { skip: mysqlOnly }, async () => {
  const db = gw.core.h.db;
  await earlierTasks();
  // 1. The submit reaches the upstream: its task row is NOT_START and its money reserved.
  const submit = api(gw.url, alice.key, 'POST', '/nd/api/v1/quick', { model: 'nd-fast', prompt: 'x' });
  await waitFor(async () => held.length === 1, 10_000, 'the submit to reach the upstream');
  const task = await db
    .selectFrom('tasks')
    .select(['id', 'status'])
    .where('public_id', 'not like', 'task_earlier%')
    .executeTakeFirstOrThrow();
  assert.equal(task.status, 'NOT_START');

  // 2. Another transaction holds the task row, so each statement stops at the point where it wants it.
  await db.connection().execute(async (conn) => {
    await sql`BEGIN`.execute(conn);
    try {
      await sql`SELECT id FROM tasks WHERE id = ${task.id} FOR UPDATE`.execute(conn);
      // 3. The upstream answers (a final result): the submit's accept UPDATE waits for the row.
      const { res } = held.shift()!;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ id: 'vt_gated', status: 'succeeded', duration: 4, video_url: 'http://127.0.0.1:1/v.mp4' }));
      await waitFor(
        async () => (await lockWaits()).some((q) => /^update .*\bset `status` = 'SUCCESS'/i.test(q)),
        30_000,
        'the accept UPDATE to wait for the task row',
      );
      // 4. A poller pass: its sweep either finishes without touching the row, or waits for it too.
      let sweepDone = false;
      const sweep = gw.services.tasks.poller
        .tick()
        .then(
          () => null,
          (e: Error) => e,
        )
        .finally(() => {
          sweepDone = true;
        });
      await waitFor(async () => sweepDone || (await lockWaits()).length >= 2, 30_000, 'the poller pass to finish or wait');
      // 5. The row is free: the waiters go on in the order they queued.
      await sql`COMMIT`.execute(conn);
      const err = await sweep;
      assert.equal(err, null, `the poller pass failed: ${err?.message}`);
    } catch (e) {
      await sql`ROLLBACK`.execute(conn).catch(() => {});
      throw e;
    }
  });

  const r = await submit;
  assert.equal(r.status, 200, `${JSON.stringify(r.body)}; logged: ${logged.join(' | ')}`);
  assert.equal(r.body.status, 'succeeded');
  const row = await db
    .selectFrom('tasks')
    .select(['status', 'billing_status', 'flagged'])
    .where('id', '=', task.id)
    .executeTakeFirstOrThrow();
  assert.deepEqual({ ...row, flagged: Number(row.flagged) }, { status: 'SUCCESS', billing_status: 'settled', flagged: 0 });
  // The sweep did its work: the abandoned submissions are flagged.
  const abandoned = await db
    .selectFrom('tasks')
    .select(['status', 'flagged'])
    .where('created_at', '<', Date.now() - 3_000_000)
    .execute();
  assert.equal(abandoned.length, 10);
  assert.ok(
    abandoned.every((t) => t.status === 'UNKNOWN' && Number(t.flagged) === 1),
    JSON.stringify(abandoned),
  );
});
