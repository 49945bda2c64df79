import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startVendor, type Vendor } from '../fakes/vendor/server.ts';
import { AdminClient } from '../admin-client.ts';
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
let bob: TestUser;
let boss: TestUser; // role admin, with an API key of their own
let root: AdminClient;
let admin: AdminClient;
let aliceUi: AdminClient;
let channelId: number;
const Q = 500_000;
const RESERVE = 0.1 * Q; // lv-1 at 1 s × $0.1

before(async () => {
  vendor = await startVendor();
  gw = await startTestGateway({ env: { TASK_POLL_INTERVAL_SECONDS: '0.05', CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  await installPlugins(gw, ['loopback-video.js']);
  channelId = await createTaskChannel(gw, { name: 'lv', plugin: 'loopback-video', baseUrl: vendor.url });
  await setTaskPrice(gw, 'lv-1', { expression: 'u("seconds") * 0.1' });
  alice = await createUser(gw, { name: 'alice', quota: 100 * Q });
  bob = await createUser(gw, { name: 'bob', quota: 100 * Q });
  boss = await createUser(gw, { name: 'boss', quota: 100 * Q });
  root = await AdminClient.login(gw.url);
  await root.ok('PUT', `/api/user/${boss.userId}`, { role: 'admin' });
  await root.ok('POST', '/api/user', { username: 'adm', password: 'adm-password', role: 'admin' });
  admin = await AdminClient.login(gw.url, 'adm', 'adm-password');
  aliceUi = await AdminClient.login(gw.url, 'alice', 'alice-password');
});

after(async () => {
  await gw?.stop();
  await vendor?.close();
});

const row = (id: string) => gw.core.h.db.selectFrom('tasks').selectAll().where('public_id', '=', id).executeTakeFirstOrThrow();

async function submitOk(user: TestUser, body: Record<string, unknown> = {}): Promise<string> {
  const r = await api(gw.url, user.key, 'POST', '/v1/tasks/loopback-video', { model: 'lv-1', seconds: 1, steps: 1, ...body });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.id as string;
}

async function settled(id: string) {
  return waitFor(
    async () => {
      const r = await row(id);
      return (r.status === 'SUCCESS' || r.status === 'FAILURE') && r.billing_status !== 'reserved' ? r : null;
    },
    10_000,
    `task ${id} to settle`,
  );
}

/** A task whose submit outcome is unknown: the vendor takes the request and never answers. */
async function flaggedTask(user: TestUser = alice): Promise<string> {
  const limits = gw.services.tasks.service.limits;
  const saved = limits.headersTimeoutMs;
  limits.headersTimeoutMs = 300;
  try {
    const r = await api(gw.url, user.key, 'POST', '/v1/tasks/loopback-video', { model: 'lv-1', scenario: 'hang-submit', seconds: 1 });
    assert.equal(r.status, 502, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'submit_outcome_unknown');
    const id = /task_[A-Za-z0-9]{32}/.exec(r.body.error.message)![0];
    const t = await row(id);
    assert.equal(t.flagged, 1);
    assert.equal(t.status, 'UNKNOWN');
    assert.equal(t.billing_status, 'reserved');
    return id;
  } finally {
    limits.headersTimeoutMs = saved;
  }
}

async function resolveLogs(id: string) {
  return gw.core.h.db
    .selectFrom('logs')
    .selectAll()
    .where('request_id', '=', id)
    .where('type', '=', 'task')
    .where('content', 'like', 'task resolved%')
    .execute();
}

test('permissions: users get 403, anonymous 401, admins and root are served', async () => {
  const id = await submitOk(alice);
  await settled(id);
  await aliceUi.fails(403, 'GET', '/api/task');
  await aliceUi.fails(403, 'GET', `/api/task/${id}`);
  await aliceUi.fails(403, 'POST', `/api/task/${id}/resolve`, { action: 'refund' });
  const anon = new AdminClient(gw.url, null);
  await anon.fails(401, 'GET', '/api/task');
  await anon.fails(401, 'GET', '/api/task/self');
  const page = await admin.ok('GET', '/api/task');
  assert.ok(page.items.some((t: any) => t.task_id === id));
  await root.ok('GET', `/api/task/${id}`);
  await admin.fails(404, 'GET', '/api/task/task_doesnotexist');
  const doc = (await (await fetch(`${gw.url}/api/openapi.json`)).json()) as any;
  for (const path of ['/api/task', '/api/task/self', '/api/task/{id}', '/api/task/{id}/resolve'])
    assert.ok(doc.paths[path], `OpenAPI lists ${path}`);
});

test("listing: filters, paging, and what an admin may see (users' tasks; root: all)", async () => {
  const t0 = Date.now();
  const ok1 = await submitOk(alice);
  const ok2 = await submitOk(bob);
  const bossTask = await submitOk(boss);
  await Promise.all([ok1, ok2, bossTask].map(settled));
  const fl = await flaggedTask(alice);

  const ids = (p: any) => p.items.map((t: any) => t.task_id) as string[];
  const since = `start=${t0}`;
  assert.deepEqual(ids(await root.ok('GET', `/api/task?${since}`)).sort(), [ok1, ok2, bossTask, fl].sort());
  assert.deepEqual(
    ids(await admin.ok('GET', `/api/task?${since}`)).sort(),
    [ok1, ok2, fl].sort(),
    "an admin does not see another admin's tasks",
  );
  await admin.fails(404, 'GET', `/api/task/${bossTask}`);
  assert.deepEqual(ids(await root.ok('GET', `/api/task?${since}&user_id=${alice.userId}`)).sort(), [ok1, fl].sort());
  assert.deepEqual(ids(await root.ok('GET', `/api/task?${since}&username=bob`)), [ok2]);
  assert.deepEqual(ids(await root.ok('GET', `/api/task?${since}&flagged=true`)), [fl]);
  assert.deepEqual(ids(await root.ok('GET', `/api/task?${since}&status=UNKNOWN`)), [fl]);
  assert.deepEqual(ids(await root.ok('GET', `/api/task?${since}&billing_status=reserved`)), [fl]);
  assert.deepEqual(ids(await root.ok('GET', `/api/task?task_id=${ok2}`)), [ok2]);
  assert.equal((await root.ok('GET', `/api/task?${since}&plugin=loopback-video&model=lv-1&channel_id=${channelId}`)).total, 4);
  assert.equal((await root.ok('GET', `/api/task?${since}&plugin=other`)).total, 0);
  assert.equal((await root.ok('GET', `/api/task?end=${t0 - 1}&task_id=${ok1}`)).total, 0);
  const p1 = await root.ok('GET', `/api/task?${since}&page=1&page_size=1`);
  const p2 = await root.ok('GET', `/api/task?${since}&page=2&page_size=1`);
  assert.equal(p1.total, 4);
  assert.equal(p1.page_size, 1);
  assert.equal(p1.items.length, 1);
  assert.notEqual(p1.items[0].task_id, p2.items[0].task_id);
  assert.equal(p1.items[0].task_id, fl, 'newest first');
  await root.fails(400, 'GET', '/api/task?page_size=101', undefined, 'page_size');
  await root.fails(400, 'GET', '/api/task?status=DONE', undefined, 'status');
  await root.fails(400, 'GET', '/api/task?billing_status=paid', undefined, 'billing_status');
});

test('details for administrators; the own list for users hides upstream ids and channels', async () => {
  const id = await submitOk(alice);
  await settled(id);
  const d = await admin.ok('GET', `/api/task/${id}`);
  assert.equal(d.status, 'SUCCESS');
  assert.equal(d.plugin, 'loopback-video');
  assert.equal(typeof d.plugin_version, 'string');
  assert.equal(d.channel_id, channelId);
  assert.equal(d.user_id, alice.userId);
  assert.equal(d.username, 'alice');
  assert.equal(d.model, 'lv-1');
  assert.equal(d.upstream_model, 'lv-1');
  assert.match(d.upstream_task_id, /^vt_\d+$/);
  assert.equal(d.billing_status, 'settled');
  assert.equal(d.quota_reserved, RESERVE);
  assert.equal(d.quota_final, RESERVE);
  assert.equal(d.poll_failures, 0);
  assert.equal(d.flagged, false);
  assert.equal(typeof d.created_at, 'number');
  assert.ok(d.created_at > 1e12, 'unix ms');
  assert.deepEqual(Object.keys(d.ledger).sort(), ['close', 'reserve', 'settle']);
  assert.equal(d.ledger.reserve, RESERVE);

  // API-key callers never see the upstream id.
  const pub = await api(gw.url, alice.key, 'GET', `/v1/tasks/${id}`);
  assert.ok(!JSON.stringify(pub.body).includes(d.upstream_task_id));

  const mine = await aliceUi.ok('GET', `/api/task/self?task_id=${id}`);
  assert.equal(mine.total, 1);
  const v = mine.items[0];
  assert.equal(v.task_id, id);
  assert.equal(v.status, 'SUCCESS');
  assert.equal(v.quota_final, RESERVE);
  for (const k of ['upstream_task_id', 'channel_id', 'upstream_model', 'flag_reason', 'username'])
    assert.ok(!(k in v), `no ${k} in the own view`);
  assert.ok(!JSON.stringify(mine).includes(d.upstream_task_id));
  const all = await aliceUi.ok('GET', '/api/task/self?page_size=100');
  assert.ok(all.items.length >= 1 && all.items.every((t: any) => t.task_id.startsWith('task_')));
  const ownIds = new Set(
    (await gw.core.h.db.selectFrom('tasks').select('public_id').where('user_id', '=', alice.userId).execute()).map((r) => r.public_id),
  );
  assert.ok(
    all.items.every((t: any) => ownIds.has(t.task_id)),
    'only her own tasks',
  );
  const bobUi = await AdminClient.login(gw.url, 'bob', 'bob-password');
  assert.equal((await bobUi.ok('GET', `/api/task/self?task_id=${id}`)).total, 0, 'another user does not see it');
  // admin-only filters are not part of the own list
  assert.equal((await aliceUi.ok('GET', `/api/task/self?user_id=${bob.userId}&task_id=${id}`)).total, 1);
});

test('resolve refund: FAILURE, the reserve goes back once, a log row names the admin; a repeat changes nothing', async () => {
  const b = await balance(gw, alice.userId);
  const id = await flaggedTask();
  assert.equal(b - (await balance(gw, alice.userId)), RESERVE);
  const d = await admin.ok('POST', `/api/task/${id}/resolve`, { action: 'refund', reason: 'vendor console shows no such job' });
  assert.equal(d.status, 'FAILURE');
  assert.equal(d.flagged, false);
  assert.match(d.flag_reason, /^resolved: refund by adm/);
  assert.equal(d.fail_reason, 'vendor console shows no such job');
  assert.equal(d.billing_status, 'refunded');
  assert.equal(await balance(gw, alice.userId), b);
  assert.deepEqual(
    (await movements(gw, id)).map((m) => m.kind),
    ['reserve', 'close', 'refund'],
  );
  const logs = await resolveLogs(id);
  assert.equal(logs.length, 1);
  assert.equal(logs[0].username, 'adm');
  assert.equal(JSON.parse(logs[0].other!).action, 'refund');

  const again = await admin.call('POST', `/api/task/${id}/resolve`, { action: 'refund' });
  assert.equal(again.status, 200);
  assert.match(again.body.message, /already/);
  await admin.fails(409, 'POST', `/api/task/${id}/resolve`, { action: 'charge' });
  assert.equal(await balance(gw, alice.userId), b);
  assert.equal((await resolveLogs(id)).length, 1);
});

test('resolve fail: same as refund', async () => {
  const b = await balance(gw, alice.userId);
  const id = await flaggedTask();
  const d = await root.ok('POST', `/api/task/${id}/resolve`, { action: 'fail' });
  assert.equal(d.status, 'FAILURE');
  assert.equal(d.billing_status, 'refunded');
  assert.match(d.fail_reason, /resolved by an administrator \(fail\)/);
  assert.equal(await balance(gw, alice.userId), b);
  assert.equal((await resolveLogs(id))[0].username, 'root');
});

test('resolve charge: settled at the reserved amount, as SUCCESS or as FAILURE', async () => {
  const b = await balance(gw, alice.userId);
  const s = await flaggedTask();
  const d = await admin.ok('POST', `/api/task/${s}/resolve`, { action: 'charge', status: 'SUCCESS', upstream_task_id: 'vt_console_1' });
  assert.equal(d.status, 'SUCCESS');
  assert.equal(d.billing_status, 'settled');
  assert.equal(d.quota_final, RESERVE);
  assert.equal(d.upstream_task_id, 'vt_console_1');
  assert.equal(b - (await balance(gw, alice.userId)), RESERVE);
  assert.deepEqual(
    (await movements(gw, s)).map((m) => m.kind),
    ['reserve', 'close', 'settle'],
  );

  const f = await flaggedTask();
  const e = await admin.ok('POST', `/api/task/${f}/resolve`, {
    action: 'charge',
    status: 'FAILURE',
    reason: 'the vendor billed a failed render',
  });
  assert.equal(e.status, 'FAILURE');
  assert.equal(e.fail_reason, 'the vendor billed a failed render');
  assert.equal(e.billing_status, 'settled');
  assert.equal(b - (await balance(gw, alice.userId)), 2 * RESERVE);
  assert.deepEqual(
    (await movements(gw, f)).map((m) => m.kind),
    ['reserve', 'close', 'settle'],
  );
  const u = await gw.core.h.db.selectFrom('users').select('used_quota').where('id', '=', alice.userId).executeTakeFirstOrThrow();
  assert.ok(Number(u.used_quota) >= 2 * RESERVE);
});

test('resolve: input checks; unflagged tasks are refused', async () => {
  const id = await flaggedTask();
  await admin.fails(400, 'POST', `/api/task/${id}/resolve`, { action: 'poll' }, 'upstream_task_id');
  await admin.fails(400, 'POST', `/api/task/${id}/resolve`, { action: 'delete' }, 'action');
  await admin.fails(400, 'POST', `/api/task/${id}/resolve`, { action: 'refund', status: 'SUCCESS' }, 'status');
  await admin.fails(400, 'POST', `/api/task/${id}/resolve`, { action: 'refund', extra: 1 }, 'extra');
  assert.equal((await row(id)).flagged, 1, 'nothing changed');
  const done = await submitOk(alice);
  await settled(done);
  await admin.fails(409, 'POST', `/api/task/${done}/resolve`, { action: 'refund' });
  await admin.fails(404, 'POST', '/api/task/task_nope/resolve', { action: 'refund' });
  await admin.ok('POST', `/api/task/${id}/resolve`, { action: 'refund' });
});

test('concurrent resolutions move money once', async () => {
  const b = await balance(gw, alice.userId);
  const id = await flaggedTask();
  const same = await Promise.all([1, 2, 3].map(() => admin.call('POST', `/api/task/${id}/resolve`, { action: 'refund' })));
  assert.deepEqual(
    same.map((r) => r.status),
    [200, 200, 200],
  );
  assert.equal(same.filter((r) => r.body.message === 'task resolved').length, 1, 'one call resolved, the others found it done');
  assert.equal(await balance(gw, alice.userId), b);
  assert.deepEqual(
    (await movements(gw, id)).map((m) => m.kind),
    ['reserve', 'close', 'refund'],
  );
  assert.equal((await resolveLogs(id)).length, 1);

  const id2 = await flaggedTask();
  const mixed = await Promise.all([
    admin.call('POST', `/api/task/${id2}/resolve`, { action: 'refund' }),
    root.call('POST', `/api/task/${id2}/resolve`, { action: 'charge' }),
  ]);
  assert.deepEqual(mixed.map((r) => r.status).sort(), [200, 409]);
  const kinds = (await movements(gw, id2)).map((m) => m.kind);
  assert.equal(kinds.length, 3);
  assert.equal(kinds.filter((k) => k === 'settle' || k === 'refund').length, 1);
  const winner = mixed.find((r) => r.status === 200)!;
  assert.equal(
    await balance(gw, alice.userId),
    winner.body.data.status === 'FAILURE' && winner.body.data.billing_status === 'refunded' ? b : b - RESERVE,
  );
  assert.equal((await resolveLogs(id2)).length, 1);
});

test('resolve poll: the upstream id from the vendor console resumes polling to SUCCESS and settles', async () => {
  const b = await balance(gw, alice.userId);
  const id = await flaggedTask();
  // What the vendor actually made of the hung submission (seen in its console).
  vendor.tasks.set('vt_console_9', { id: 'vt_console_9', scenario: 'success', model: 'lv-1', polls: 0, steps: 2, seconds: 1, prompt: '' });
  const d = await admin.ok('POST', `/api/task/${id}/resolve`, { action: 'poll', upstream_task_id: 'vt_console_9' });
  assert.equal(d.flagged, false);
  assert.equal(d.upstream_task_id, 'vt_console_9');
  assert.ok(['SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS'].includes(d.status), d.status);
  assert.equal(d.billing_status === 'reserved' || d.billing_status === 'settled', true);
  const r = await settled(id);
  assert.equal(r.status, 'SUCCESS');
  assert.equal(r.billing_status, 'settled');
  assert.equal(vendor.tasks.get('vt_console_9')!.polls >= 2, true, 'polled at the vendor');
  assert.equal(b - (await balance(gw, alice.userId)), RESERVE);
  assert.deepEqual(
    (await movements(gw, id)).map((m) => m.kind),
    ['reserve', 'close', 'settle'],
  );
  const pub = await api(gw.url, alice.key, 'GET', `/v1/tasks/${id}`);
  assert.equal(pub.body.status, 'SUCCESS');
  assert.ok(!JSON.stringify(pub.body).includes('vt_console_9'));
  const again = await admin.call('POST', `/api/task/${id}/resolve`, { action: 'poll', upstream_task_id: 'vt_console_9' });
  assert.equal(again.status, 200);
  assert.match(again.body.message, /already/);
});

test('signed artifact links use the TaskPublicAddress / ServerAddress options over the environment', async () => {
  const id = await submitOk(alice);
  await settled(id);
  const link = async () => (await api(gw.url, alice.key, 'GET', `/v1/tasks/${id}/artifacts`)).body.artifacts[0].content_url as string;
  assert.ok((await link()).startsWith(`${gw.url}/v1/tasks/${id}/artifacts/`), 'this node by default');

  await root.ok('PUT', '/api/option', { key: 'ServerAddress', value: 'https://gw.example.test/' });
  await waitFor(
    async () => (await link()).startsWith(`https://gw.example.test/v1/tasks/${id}/artifacts/video/content?access=`),
    5000,
    'ServerAddress in links',
  );
  await root.ok('PUT', '/api/option', { key: 'TaskPublicAddress', value: 'https://media.example.test' });
  await waitFor(
    async () => (await link()).startsWith(`https://media.example.test/v1/tasks/${id}/artifacts/video/content?access=`),
    5000,
    'TaskPublicAddress in links',
  );
  assert.equal(gw.services.tasks.publicBase(), 'https://media.example.test');
  // The signature does not depend on the address: the same path works here.
  const signed = new URL(await link());
  const res = await fetch(`${gw.url}${signed.pathname}${signed.search}`);
  assert.equal(res.status, 200);
  await res.arrayBuffer();

  await root.ok('DELETE', '/api/option/TaskPublicAddress');
  await root.ok('DELETE', '/api/option/ServerAddress');
  await waitFor(async () => (await link()).startsWith(gw.url), 5000, 'back to this node');
});
