import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startVendor, MEDIA, type Vendor } from '../fakes/vendor/server.ts';
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
const Q = 500_000; // quota units per USD

before(async () => {
  vendor = await startVendor();
  gw = await startTestGateway({ env: { TASK_POLL_INTERVAL_SECONDS: '0.05', CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  await installPlugins(gw, ['loopback-video.js']);
  await createTaskChannel(gw, { name: 'lv', plugin: 'loopback-video', baseUrl: vendor.url, modelMapping: { 'lv-2': 'lv-2-upstream' } });
  await setTaskPrice(gw, 'loopback-video::lv-1', { expression: 'u("quality") == "pro" ? u("seconds") * 0.2 : u("seconds") * 0.1' });
  await setTaskPrice(gw, 'lv-2', { perRequest: 0.5 });
  alice = await createUser(gw, { name: 'alice', quota: 100 * Q });
  bob = await createUser(gw, { name: 'bob', quota: 100 * Q });
});

after(async () => {
  await gw?.stop();
  await vendor?.close();
});

async function submit(user: TestUser, body: Record<string, unknown>) {
  return api(gw.url, user.key, 'POST', '/v1/tasks/loopback-video', body);
}

/** Waits for a terminal state and for its settlement (which follows the state change). */
async function terminal(user: TestUser, id: string) {
  const body = await waitFor(
    async () => {
      const r = await api(gw.url, user.key, 'GET', `/v1/tasks/${id}`);
      return r.body.status === 'SUCCESS' || r.body.status === 'FAILURE' ? r.body : null;
    },
    10_000,
    `task ${id} to finish`,
  );
  await settled(id);
  return body;
}

async function settled(id: string) {
  await waitFor(
    async () => {
      const t = await gw.core.h.db.selectFrom('tasks').select('billing_status').where('public_id', '=', id).executeTakeFirstOrThrow();
      return t.billing_status === 'settled' || t.billing_status === 'refunded';
    },
    10_000,
    `task ${id} to settle`,
  );
}

test('per_task lifecycle: queued → in progress → success; reserve at submit, settle from completion facts', async () => {
  const before = await balance(gw, alice.userId);
  const r = await submit(alice, { model: 'lv-1', prompt: 'a cat', seconds: 4, steps: 3 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.match(r.body.id, /^task_[A-Za-z0-9]{32}$/);
  assert.equal(r.body.task_id, r.body.id);
  assert.equal(r.body.status, 'queued');
  assert.equal(r.body.model, 'lv-1');
  assert.equal(typeof r.body.created_at, 'number');
  assert.ok(!JSON.stringify(r.body).includes('vt_'), 'the upstream id never reaches the client');
  assert.equal(before - (await balance(gw, alice.userId)), 0.4 * Q, 'reserved 4 s × $0.1');

  const seenProgress = new Set<string>();
  const done = await waitFor(async () => {
    const q = await api(gw.url, alice.key, 'GET', `/v1/tasks/${r.body.id}`);
    seenProgress.add(q.body.progress);
    return q.body.status === 'SUCCESS' ? q.body : null;
  });
  await settled(r.body.id);
  assert.equal(done.task_id, r.body.id);
  assert.equal(done.platform, 'loopback-video');
  assert.equal(done.progress, '100%');
  assert.equal(done.fail_reason, '');
  assert.equal(typeof done.finished_at, 'number');
  assert.ok(!('data' in done) && !JSON.stringify(done).includes('vt_') && !JSON.stringify(done).includes('/media/'));
  // The vendor reports duration 4 (the facts of the submit), so the charge equals the reserve.
  const m = await movements(gw, r.body.id);
  assert.deepEqual(m.map((x) => x.kind).sort(), ['close', 'reserve', 'settle']);
  assert.equal(before - (await balance(gw, alice.userId)), 0.4 * Q);
  const row = await gw.core.h.db.selectFrom('tasks').selectAll().where('public_id', '=', r.body.id).executeTakeFirstOrThrow();
  assert.equal(row.billing_status, 'settled');
  assert.ok(row.started_at !== null && row.finished_at !== null);
  assert.equal(row.next_poll_at, null);
  assert.deepEqual(JSON.parse(row.state!), { polls: 4 }, 'plugin state is what the last hook returned');
  const pollsAtEnd = vendor.polls;
  await new Promise((res) => setTimeout(res, 200));
  assert.equal(vendor.polls, pollsAtEnd, 'a finished task is not polled again');
});

test('per-call price with model mapping and group ratio; facts from the enum tier', async () => {
  await gw.services.admin.prices.setRatio({ group: 'default', ratio: 2 });
  try {
    const before = await balance(gw, alice.userId);
    const r = await submit(alice, { model: 'lv-2', prompt: 'x' });
    assert.equal(r.status, 200);
    assert.equal([...vendor.tasks.values()].at(-1)!.model, 'lv-2-upstream', 'model mapping applied');
    await terminal(alice, r.body.id);
    assert.equal(before - (await balance(gw, alice.userId)), 0.5 * 2 * Q);
    const b2 = await balance(gw, alice.userId);
    const p = await submit(alice, { model: 'lv-1', quality: 'pro', seconds: 10, steps: 1 });
    assert.equal(b2 - (await balance(gw, alice.userId)), 10 * 0.2 * 2 * Q);
    await terminal(alice, p.body.id);
  } finally {
    await gw.services.admin.prices.removeRatio('default');
  }
});

test('failure refunds the reserve exactly once', async () => {
  const before = await balance(gw, alice.userId);
  const r = await submit(alice, { model: 'lv-1', scenario: 'fail' });
  assert.equal(r.status, 200);
  const done = await terminal(alice, r.body.id);
  assert.equal(done.status, 'FAILURE');
  assert.equal(done.fail_reason, 'content policy violation');
  assert.equal(await balance(gw, alice.userId), before);
  const m = await movements(gw, r.body.id);
  assert.deepEqual(
    m.map((x) => x.kind),
    ['reserve', 'close', 'refund'],
  );
});

test('immediate success settles at submit and is never polled; immediate failure refunds at submit', async () => {
  const polls = vendor.polls;
  const before = await balance(gw, alice.userId);
  const r = await submit(alice, { model: 'lv-1', scenario: 'immediate-success', seconds: 2 });
  assert.equal(r.status, 200);
  const q = await api(gw.url, alice.key, 'GET', `/v1/tasks/${r.body.id}`);
  assert.equal(q.body.status, 'SUCCESS');
  assert.equal(before - (await balance(gw, alice.userId)), 0.2 * Q);
  assert.deepEqual(
    (await movements(gw, r.body.id)).map((x) => x.kind),
    ['reserve', 'close', 'settle'],
  );

  const f = await submit(alice, { model: 'lv-1', scenario: 'immediate-fail' });
  assert.equal(f.status, 200);
  const fq = await api(gw.url, alice.key, 'GET', `/v1/tasks/${f.body.id}`);
  assert.equal(fq.body.status, 'FAILURE');
  assert.equal(fq.body.fail_reason, 'refused at once');
  assert.equal(before - (await balance(gw, alice.userId)), 0.2 * Q, 'the failed one cost nothing');
  await new Promise((res) => setTimeout(res, 200));
  assert.equal(vendor.polls, polls, 'immediate results are not polled');
});

test('retainResult false: the immediate result is not stored, the row stays for billing, reads are 404', async () => {
  const principal = gw.services.accounts.keys.authenticate(alice.key, '127.0.0.1');
  const before = await balance(gw, alice.userId);
  const { task } = await gw.services.tasks.submit({
    principal,
    pluginKey: 'loopback-video',
    model: 'lv-1',
    requestBody: { scenario: 'immediate-success', seconds: 3 },
    retainResult: false,
  });
  assert.equal(task.status, 'SUCCESS');
  const row = await gw.core.h.db.selectFrom('tasks').selectAll().where('public_id', '=', task.task_id).executeTakeFirstOrThrow();
  assert.equal(row.retain, 0);
  assert.equal(row.data, null);
  assert.equal(row.billing_status, 'settled');
  assert.equal(before - (await balance(gw, alice.userId)), 0.3 * Q);
  for (const path of [
    `/v1/tasks/${task.task_id}`,
    `/v1/tasks/${task.task_id}/artifacts`,
    `/v1/tasks/${task.task_id}/artifacts/video/content`,
  ]) {
    const r = await api(gw.url, alice.key, 'GET', path);
    assert.equal(r.status, 404, path);
  }
});

test('rejected submits refund; unknown models, missing prices and missing keys are refused before money moves', async () => {
  const before = await balance(gw, alice.userId);
  const r = await submit(alice, { model: 'lv-1', scenario: 'reject' });
  assert.equal(r.status, 400);
  assert.match(r.body.error.message, /prompt rejected/);
  assert.equal(await balance(gw, alice.userId), before);
  assert.equal((await submit(alice, { model: 'nope' })).status, 400);
  assert.equal((await api(gw.url, alice.key, 'POST', '/v1/tasks/no-such-plugin', { model: 'x' })).status, 404);
  assert.equal((await api(gw.url, null, 'POST', '/v1/tasks/loopback-video', { model: 'lv-1' })).status, 401);
  assert.equal((await api(gw.url, 'sk-wrong', 'GET', '/v1/tasks/task_x')).status, 401);
  const missing = await submit(alice, { model: 'lv-1', scenario: 'x', seconds: 99999 });
  assert.equal(missing.status, 400, 'facts above the unit ceiling are refused');
  assert.equal(missing.body.error.code, 'plugin_usage_invalid');
  assert.equal(await balance(gw, alice.userId), before);
});

test('artifacts: signed content_url, Range and conditional reads, API-key download, tampered link refused', async () => {
  const r = await submit(alice, { model: 'lv-1', steps: 1 });
  await terminal(alice, r.body.id);
  const list = await api(gw.url, alice.key, 'GET', `/v1/tasks/${r.body.id}/artifacts`);
  assert.equal(list.status, 200);
  assert.equal(list.headers.get('cache-control'), 'private, no-store');
  assert.equal(list.body.artifacts.length, 1);
  const a = list.body.artifacts[0];
  assert.equal(a.key, 'video');
  assert.equal(a.type, 'video');
  assert.equal(a.mime_type, 'video/mp4');
  assert.ok(a.content_url.startsWith(`${gw.url}/v1/tasks/${r.body.id}/artifacts/video/content?access=`));

  // Signed link, no API key, with a Range.
  vendor.mediaRequests.length = 0;
  const part = await fetch(a.content_url, { headers: { range: 'bytes=10-19' } });
  assert.equal(part.status, 206);
  assert.equal(part.headers.get('content-range'), `bytes 10-19/${MEDIA.length}`);
  assert.deepEqual(Buffer.from(await part.arrayBuffer()), MEDIA.subarray(10, 20));
  assert.equal(vendor.mediaRequests[0].range, 'bytes=10-19');
  assert.equal(vendor.mediaRequests[0].auth, 'Bearer vendor-secret-key', 'credentials go to the channel host');

  // Whole file with the API key; HEAD; conditional.
  const whole = await api(gw.url, alice.key, 'GET', `/v1/tasks/${r.body.id}/artifacts/video/content`);
  assert.equal(whole.status, 200);
  assert.deepEqual(whole.raw, MEDIA);
  const head = await fetch(`${gw.url}/v1/tasks/${r.body.id}/artifacts/video/content`, {
    method: 'HEAD',
    headers: { authorization: `Bearer ${alice.key}` },
  });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('content-length'), String(MEDIA.length));
  const cond = await api(gw.url, alice.key, 'GET', `/v1/tasks/${r.body.id}/artifacts/video/content`, undefined, {
    'if-none-match': '"media-1"',
  });
  assert.equal(cond.status, 304);

  // Tampered links.
  const bad = a.content_url.replace(/access=(.)/, (_m: string, c: string) => `access=${c === 'A' ? 'B' : 'A'}`);
  assert.equal((await fetch(bad)).status, 404);
  const otherKey = a.content_url.replace('/artifacts/video/', '/artifacts/thumb/');
  assert.equal((await fetch(otherKey)).status, 404);
  assert.equal((await fetch(a.content_url.replace(/\?access=.*/, ''))).status, 401);
  assert.equal((await api(gw.url, alice.key, 'GET', `/v1/tasks/${r.body.id}/artifacts/nope/content`)).status, 404);
});

test("another user's task is 404 on every read, and a running task's content is not ready", async () => {
  vendor.advancing = false;
  try {
    const r = await submit(alice, { model: 'lv-1', steps: 1 });
    const paths = [`/v1/tasks/${r.body.id}`, `/v1/tasks/${r.body.id}/artifacts`, `/v1/tasks/${r.body.id}/artifacts/video/content`];
    for (const p of paths) {
      const res = await api(gw.url, bob.key, 'GET', p);
      assert.equal(res.status, 404, p);
      assert.ok(res.body.error, 'OpenAI-style envelope');
    }
    assert.equal((await fetch(`${gw.url}${paths[2]}`, { method: 'HEAD', headers: { authorization: `Bearer ${bob.key}` } })).status, 404);
    const own = await api(gw.url, alice.key, 'GET', paths[2]);
    assert.equal(own.status, 409);
    assert.equal(own.body.error.code, 'artifact_not_ready');
  } finally {
    vendor.advancing = true;
  }
});
