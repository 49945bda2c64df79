/**
 * Money moves exactly once across gateway processes: one killed with SIGKILL while tasks are in
 * flight and started again, and two processes polling one PostgreSQL database.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, startTestGateway, type TestDatabase, type TestGateway } from '../harness.ts';
import { startChild as startNode, stopChild, type Child } from '../child-gateway.ts';
import { startVendor, type Vendor } from '../fakes/vendor/server.ts';
import {
  api,
  balance,
  createTaskChannel,
  createUser,
  installPlugins,
  movements,
  setTaskPrice,
  waitFor,
  type TestUser,
} from '../fakes/vendor/fixtures.ts';

const Q = 500_000;

/** Child processes poll fast with a short lease. */
const POLL_ENV = { TASK_POLL_INTERVAL_SECONDS: '0.05', TASK_POLL_LEASE_SECONDS: '2' };
const startChild = (db: TestDatabase, nodeId: string) => startNode(db, nodeId, POLL_ENV);

async function setup(db: TestDatabase, vendor: Vendor): Promise<{ gw: TestGateway; user: TestUser }> {
  // An in-process gateway prepares the database and reads it back; its own poller is stopped so only
  // the child processes poll.
  const gw = await startTestGateway({ db, listen: false });
  await gw.services.tasks.poller.stop();
  await installPlugins(gw, ['loopback-video.js']);
  await createTaskChannel(gw, { name: 'lv', plugin: 'loopback-video', baseUrl: vendor.url });
  await setTaskPrice(gw, 'lv-1', { expression: 'u("seconds") * 0.1' });
  const user = await createUser(gw, { name: 'carol', quota: 100 * Q });
  return { gw, user };
}

async function checkExactlyOnce(gw: TestGateway, user: TestUser, ids: string[], expectFail: Set<string>): Promise<void> {
  let charged = 0;
  for (const id of ids) {
    const t = await gw.core.h.db.selectFrom('tasks').selectAll().where('public_id', '=', id).executeTakeFirstOrThrow();
    const m = await movements(gw, id);
    const kinds = m.map((x) => x.kind).sort();
    if (expectFail.has(id)) {
      assert.equal(t.status, 'FAILURE', id);
      assert.deepEqual(kinds, ['close', 'refund', 'reserve'], `${id}: ${JSON.stringify(m)}`);
    } else {
      assert.equal(t.status, 'SUCCESS', `${id}: ${t.status} ${t.fail_reason}`);
      assert.deepEqual(kinds, ['close', 'reserve', 'settle'], `${id}: ${JSON.stringify(m)}`);
      charged += m.find((x) => x.kind === 'reserve')!.amount + m.find((x) => x.kind === 'settle')!.amount;
    }
  }
  assert.equal(100 * Q - (await balance(gw, user.userId)), charged, 'the balance is the sum of the settled tasks');
}

test('SIGKILL with tasks in flight, then a restart: polling resumes, nothing charged twice or lost', { timeout: 120_000 }, async () => {
  const vendor = await startVendor();
  const db = await createTestDatabase();
  const { gw, user } = await setup(db, vendor);
  let a: Child | undefined;
  let b: Child | undefined;
  try {
    a = await startChild(db, 'node-a');
    vendor.advancing = false;
    const ids: string[] = [];
    const fail = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const r = await api(a.url, user.key, 'POST', '/v1/tasks/loopback-video', {
        model: 'lv-1',
        seconds: i + 1,
        steps: 2,
        scenario: i % 3 === 2 ? 'fail' : 'success',
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      ids.push(r.body.id);
      if (i % 3 === 2) fail.add(r.body.id);
    }
    await waitFor(async () => vendor.polls >= 12, 10_000, 'polls before the kill');
    await stopChild(a, 'SIGKILL');
    const unfinished = await gw.core.h.db
      .selectFrom('tasks')
      .select('public_id')
      .where('status', 'not in', ['SUCCESS', 'FAILURE'])
      .execute();
    assert.equal(unfinished.length, 6, 'every task was in flight when the gateway died');
    vendor.advancing = true;
    b = await startChild(db, 'node-a');
    await waitFor(
      async () => {
        const rows = await gw.core.h.db.selectFrom('tasks').select(['status', 'billing_status']).execute();
        return rows.every((r) => (r.status === 'SUCCESS' || r.status === 'FAILURE') && r.billing_status !== 'reserved');
      },
      30_000,
      'every task to finish after the restart',
    );
    await checkExactlyOnce(gw, user, ids, fail);
    // A second restart moves nothing.
    await stopChild(b);
    b = await startChild(db, 'node-b');
    await new Promise((r) => setTimeout(r, 500));
    await checkExactlyOnce(gw, user, ids, fail);
  } finally {
    await stopChild(a, 'SIGKILL');
    await stopChild(b);
    await gw.stop();
    await vendor.close();
  }
});

test(
  'two gateway processes polling one PostgreSQL database: each task polled by one node at a time, money moves once',
  { timeout: 120_000 },
  async () => {
    const vendor = await startVendor();
    vendor.pollDelayMs = 80;
    const db = await createTestDatabase('postgres');
    const { gw, user } = await setup(db, vendor);
    let a: Child | undefined;
    let b: Child | undefined;
    try {
      [a, b] = await Promise.all([startChild(db, 'node-a'), startChild(db, 'node-b')]);
      const ids: string[] = [];
      const fail = new Set<string>();
      for (let i = 0; i < 10; i++) {
        const via = i % 2 ? a : b;
        const r = await api(via.url, user.key, 'POST', '/v1/tasks/loopback-video', {
          model: 'lv-1',
          seconds: 2,
          steps: 3,
          scenario: i % 4 === 3 ? 'fail' : 'success',
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        ids.push(r.body.id);
        if (i % 4 === 3) fail.add(r.body.id);
      }
      await waitFor(
        async () => {
          const rows = await gw.core.h.db.selectFrom('tasks').select(['status', 'billing_status']).execute();
          return rows.every((r) => (r.status === 'SUCCESS' || r.status === 'FAILURE') && r.billing_status !== 'reserved');
        },
        40_000,
        'every task to finish',
      );
      await checkExactlyOnce(gw, user, ids, fail);
      assert.equal(vendor.maxOverlap, 1, 'no task was polled by two nodes at once');
      // Both nodes read each other's tasks.
      const q = await api(a.url, user.key, 'GET', `/v1/tasks/${ids[0]}`);
      assert.equal(q.body.status, 'SUCCESS');
    } finally {
      await stopChild(a);
      await stopChild(b);
      await gw.stop();
      await vendor.close();
    }
  },
);
