import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
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

let gw: TestGateway;
let vendor: Vendor;
let alice: TestUser;
const Q = 500_000;

before(async () => {
  vendor = await startVendor();
  gw = await startTestGateway({
    // No short outer deadline here: it would race the failure counting of the tests below (on a
    // busy machine three polls and their back-offs can outlast it, and the task then fails as
    // timed out with fewer failures counted). The deadline test sets its own.
    env: { TASK_POLL_INTERVAL_SECONDS: '0.05', TASK_POLL_MAX_FAILURES: '3', TASK_POLL_BACKOFF_MAX_SECONDS: '0.1' },
  });
  gw.services.tasks.service.limits.headersTimeoutMs = 5000;
  await installPlugins(gw, ['loopback-video.js', 'loopback-batch.js', 'loopback-sse.js', 'loopback-sse-delta.js']);
  await createTaskChannel(gw, { name: 'lv', plugin: 'loopback-video', baseUrl: vendor.url });
  await createTaskChannel(gw, { name: 'lb', plugin: 'loopback-batch', baseUrl: vendor.url });
  await createTaskChannel(gw, { name: 'ls', plugin: 'loopback-sse', baseUrl: vendor.url });
  await createTaskChannel(gw, { name: 'lsd', plugin: 'loopback-sse-delta', baseUrl: vendor.url });
  await setTaskPrice(gw, 'lv-1', { expression: 'u("seconds") * 0.1' });
  for (const m of ['lb-1', 'ls-1', 'lsd-1']) await setTaskPrice(gw, m, { perRequest: 0.2 });
  alice = await createUser(gw, { name: 'alice', quota: 100 * Q });
});

after(async () => {
  await gw?.stop();
  await vendor?.close();
});

const row = (id: string) => gw.core.h.db.selectFrom('tasks').selectAll().where('public_id', '=', id).executeTakeFirstOrThrow();

async function finished(id: string, timeout = 10_000) {
  return waitFor(
    async () => {
      const r = await row(id);
      return (r.status === 'SUCCESS' || r.status === 'FAILURE') && r.billing_status !== 'reserved' ? r : null;
    },
    timeout,
    `task ${id}`,
  );
}

async function submit(plugin: string, body: Record<string, unknown>) {
  const r = await api(gw.url, alice.key, 'POST', `/v1/tasks/${plugin}`, body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.id as string;
}

test('upstream 404 on a poll: FAILURE and refund at once', async () => {
  const b = await balance(gw, alice.userId);
  const id = await submit('loopback-video', { model: 'lv-1', scenario: 'gone' });
  const r = await finished(id);
  assert.equal(r.status, 'FAILURE');
  assert.match(r.fail_reason!, /upstream task not found \(HTTP 404\)/);
  assert.equal(r.billing_status, 'refunded');
  assert.equal(await balance(gw, alice.userId), b);
});

for (const scenario of ['e401', 'e403', 'e429', 'e500', 'e503', 'reset']) {
  test(`poll error ${scenario} is counted; at TASK_POLL_MAX_FAILURES the task fails and is refunded`, async () => {
    const b = await balance(gw, alice.userId);
    const id = await submit('loopback-video', { model: 'lv-1', scenario });
    const mid = await waitFor(
      async () => {
        const r = await row(id);
        return Number(r.poll_failures) >= 1 ? r : null;
      },
      5000,
      'a counted failure',
    );
    assert.ok(mid.status === 'SUBMITTED' || mid.status === 'FAILURE', `status unchanged while counting (${mid.status})`);
    const r = await finished(id);
    assert.equal(r.status, 'FAILURE');
    assert.equal(Number(r.poll_failures), 3);
    assert.match(r.fail_reason!, scenario === 'reset' ? /poll failed 3 times/ : new RegExp(`HTTP ${scenario.slice(1)}`));
    assert.equal(await balance(gw, alice.userId), b);
    assert.deepEqual(
      (await movements(gw, id)).map((m) => m.kind),
      ['reserve', 'close', 'refund'],
    );
  });
}

test('an unrecognised upstream status is UNKNOWN, never in progress, and counts as a poll failure', async () => {
  const id = await submit('loopback-video', { model: 'lv-1', scenario: 'weird' });
  const mid = await waitFor(
    async () => {
      const r = await row(id);
      return r.status === 'UNKNOWN' ? r : null;
    },
    5000,
    'UNKNOWN',
  );
  assert.equal(mid.started_at, null);
  assert.notEqual(mid.progress, '30%');
  const q = await api(gw.url, alice.key, 'GET', `/v1/tasks/${id}`);
  assert.ok(['UNKNOWN', 'FAILURE'].includes(q.body.status));
  const r = await finished(id);
  assert.equal(r.status, 'FAILURE');
  assert.equal(r.billing_status, 'refunded');
});

test('TASK_TIMEOUT_MINUTES is the outer deadline: a task whose polls hang fails and is refunded', async () => {
  gw.core.config.taskTimeoutMinutes = 0.02; // 1.2 s, read by every poll pass
  try {
    const b = await balance(gw, alice.userId);
    const id = await submit('loopback-video', { model: 'lv-1', scenario: 'hang-poll' });
    const r = await finished(id, 8000);
    assert.equal(r.status, 'FAILURE');
    assert.match(r.fail_reason!, /timed out/);
    assert.equal(await balance(gw, alice.userId), b);
    assert.deepEqual(
      (await movements(gw, id)).map((m) => m.kind),
      ['reserve', 'close', 'refund'],
    );
  } finally {
    gw.core.config.taskTimeoutMinutes = 1440;
  }
});

test('batch: one request per channel per pass polls every task; success settles, failure refunds', async () => {
  const b = await balance(gw, alice.userId);
  const singlePolls = vendor.polls;
  // With the background poller paused, three tasks are submitted and made due together; one pass
  // must then poll all three with a single batch request.
  const poller = gw.services.tasks.poller;
  await poller.stop();
  let ids: string[];
  try {
    ids = [
      await submit('loopback-batch', { model: 'lb-1', steps: 2 }),
      await submit('loopback-batch', { model: 'lb-1', steps: 3 }),
      await submit('loopback-batch', { model: 'lb-1', scenario: 'fail' }),
    ];
    // Time moved on: the three are due now (no service moves a task's next poll).
    await gw.core.h.db
      .updateTable('tasks')
      .set({ next_poll_at: Date.now() - 1 })
      .where('public_id', 'in', ids)
      .execute();
    const sizesBefore = vendor.batchSizes.length;
    await poller.tick();
    await poller.drain();
    assert.deepEqual(vendor.batchSizes.slice(sizesBefore), [3], 'one pass, one batch request carrying the three tasks');
  } finally {
    poller.start();
  }
  const rows = await Promise.all(ids.map((id) => finished(id)));
  assert.deepEqual(
    rows.map((r) => r.status),
    ['SUCCESS', 'SUCCESS', 'FAILURE'],
  );
  assert.equal(rows[2].fail_reason, 'content policy violation');
  assert.equal(b - (await balance(gw, alice.userId)), 2 * 0.2 * Q);
  assert.equal(vendor.polls, singlePolls, 'a batch plugin is never polled task by task');
  assert.equal(JSON.parse(rows[0].data!).status, 'succeeded', 'batch item data stored');
});

test('SSE submit, snapshot mode: the final state is the submit body; an immediate success settles', async () => {
  const b = await balance(gw, alice.userId);
  const id = await submit('loopback-sse', { model: 'ls-1', prompt: 'hi' });
  const r = await row(id);
  assert.equal(r.status, 'SUCCESS');
  assert.deepEqual(JSON.parse(r.data!), { id: r.upstream_task_id, text: 'Hello world', status: 'succeeded' });
  assert.equal(b - (await balance(gw, alice.userId)), 0.2 * Q);
  // A stream that ends before done: accepted upstream, so not retried and not refunded; flagged.
  const submits = vendor.submits;
  const bad = await api(gw.url, alice.key, 'POST', '/v1/tasks/loopback-sse', { model: 'ls-1', mode: 'eof' });
  assert.equal(bad.status, 502);
  assert.equal(vendor.submits, submits + 1, 'not retried');
  const flagged = await gw.core.h.db
    .selectFrom('tasks')
    .selectAll()
    .where('flagged', '=', 1)
    .where('plugin_key', '=', 'loopback-sse')
    .execute();
  assert.equal(flagged.length, 1);
  assert.equal(flagged[0].billing_status, 'reserved', 'unknown outcome is not refunded automatically');
});

test('SSE submit, delta mode: set / append / appendText build the body; an async result is then polled', async () => {
  const id = await submit('loopback-sse-delta', { model: 'lsd-1', final: 'queued' });
  const r0 = await row(id);
  assert.deepEqual(JSON.parse(r0.data!), { id: r0.upstream_task_id, text: 'Hello world', chunks: ['Hello ', 'world'], status: 'queued' });
  const r = await finished(id);
  assert.equal(r.status, 'SUCCESS');
  assert.equal(r.billing_status, 'settled');
});

test('a hung submit is an unknown outcome: flagged, not retried, not refunded', async () => {
  gw.services.tasks.service.limits.headersTimeoutMs = 300;
  try {
    const b = await balance(gw, alice.userId);
    const submits = vendor.submits;
    const r = await api(gw.url, alice.key, 'POST', '/v1/tasks/loopback-video', { model: 'lv-1', scenario: 'hang-submit', seconds: 1 });
    assert.equal(r.status, 502);
    assert.equal(r.body.error.code, 'submit_outcome_unknown');
    assert.equal(vendor.submits, submits + 1);
    assert.equal(b - (await balance(gw, alice.userId)), 0.1 * Q, 'the reserve is kept for an administrator to decide');
    const id = /task_[A-Za-z0-9]{32}/.exec(r.body.error.message)![0];
    const t = await row(id);
    assert.equal(t.flagged, 1);
    assert.equal(t.status, 'UNKNOWN');
  } finally {
    gw.services.tasks.service.limits.headersTimeoutMs = 5000;
  }
});

test('a channel that cannot be reached is skipped for the next one; a busy one (503) too', async () => {
  await createTaskChannel(gw, { name: 'dead', plugin: 'loopback-video', baseUrl: 'http://127.0.0.1:1', priority: 10 });
  try {
    const id = await submit('loopback-video', { model: 'lv-1', steps: 1 });
    const r = await finished(id);
    assert.equal(r.status, 'SUCCESS');
    const ch = await gw.core.h.db.selectFrom('channels').select(['id', 'name']).where('id', '=', r.channel_id!).executeTakeFirstOrThrow();
    assert.equal(ch.name, 'lv');
  } finally {
    const dead = await gw.services.admin.channels.findByName('dead');
    if (dead) await gw.services.admin.channels.remove(Number(dead.id));
  }
  const b = await balance(gw, alice.userId);
  const busy = await api(gw.url, alice.key, 'POST', '/v1/tasks/loopback-video', { model: 'lv-1', scenario: 'busy' });
  assert.equal(busy.status, 502);
  assert.equal(await balance(gw, alice.userId), b, 'a rejection everywhere is refunded');
});
