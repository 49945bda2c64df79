import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startVendor, type Vendor } from '../fakes/vendor/server.ts';
import {
  api,
  createTaskChannel,
  createUser,
  exampleSource,
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
let ndChannel: number;
const warnings: unknown[][] = [];
/** Logged errors keep their message and stack when the warnings are printed. */
const readable = (v: unknown): unknown =>
  v && typeof v === 'object' && 'err' in v && (v as { err: unknown }).err instanceof Error
    ? { ...v, err: { message: (v as { err: Error }).err.message, stack: (v as { err: Error }).err.stack } }
    : v;

before(async () => {
  vendor = await startVendor();
  gw = await startTestGateway({ env: { TASK_POLL_INTERVAL_SECONDS: '0.05', CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  await installPlugins(gw, ['native-demo.js', 'proto-media.js']);
  ndChannel = await createTaskChannel(gw, { name: 'nd', plugin: 'native-demo', baseUrl: vendor.url, key: 'nd-vendor-secret' });
  await createTaskChannel(gw, { name: 'pm', plugin: 'proto-media', baseUrl: vendor.url, models: ['pm-vid'] });
  for (const m of ['nd-video', 'nd-pro', 'nd-fast', 'pm-vid']) await setTaskPrice(gw, m, { perRequest: 0.01 });
  alice = await createUser(gw, { name: 'alice', quota: 100 * 500_000 });
  bob = await createUser(gw, { name: 'bob', quota: 100 * 500_000 });
  const log = gw.core.log as unknown as { warn: (...a: unknown[]) => void; error: (...a: unknown[]) => void };
  const warn = log.warn;
  log.warn = function (this: unknown, ...a: unknown[]) {
    warnings.push(a);
    return warn.apply(this, a);
  };
  const error = log.error;
  log.error = function (this: unknown, ...a: unknown[]) {
    warnings.push(a.map(readable));
    return error.apply(this, a);
  };
});

after(async () => {
  await gw?.stop();
  await vendor?.close();
});

const nd = (user: TestUser | null, method: string, path: string, body?: unknown) => api(gw.url, user ? user.key : null, method, path, body);

/** Waits for a terminal task whose money has moved (settlement follows the terminal transition). */
async function completed(user: TestUser, id: string): Promise<Record<string, unknown>> {
  const body = await waitFor(
    async () => {
      const r = await nd(user, 'GET', `/nd/api/v1/videos/${id}`);
      return r.status === 200 && (r.body.status === 'succeeded' || r.body.status === 'failed') ? r.body : null;
    },
    10_000,
    `task ${id} to finish`,
  );
  await waitFor(async () => !['reserved', 'reserving'].includes((await row(id)).billing_status), 10_000, `task ${id} to settle`);
  return body;
}

async function row(id: string) {
  return gw.core.h.db.selectFrom('tasks').selectAll().where('public_id', '=', id).executeTakeFirstOrThrow();
}

function noUpstreamIds(v: unknown): void {
  assert.doesNotMatch(JSON.stringify(v), /vt_\d+/, 'an upstream task id reached the caller');
}

test('submit and query routes: matched by method and path shape with :params; the presenter shapes only the envelope', async () => {
  const s = await nd(alice, 'POST', '/nd/api/v1/videos', { model: 'nd-video', prompt: 'a cat' });
  assert.equal(s.status, 200, JSON.stringify(s.body));
  assert.match(s.body.id, /^task_/);
  assert.equal(s.body.object, 'nd.video');
  assert.equal(s.body.status, 'queued');
  assert.equal(s.body.generation, 'g1');
  // The presenter sees the request only: no origin tasks, no channel data.
  assert.deepEqual(s.body.seen, ['body', 'method', 'params', 'path', 'query']);
  assert.equal(s.headers.get('content-type')?.startsWith('application/json'), true);
  noUpstreamIds(s.body);

  const done = await completed(alice, s.body.id);
  assert.deepEqual(
    { ...done, created: 0 },
    { id: s.body.id, object: 'nd.video', status: 'succeeded', progress: 100, created: 0, generation: 'g1', seconds: 4 },
  );
  noUpstreamIds(done);
  assert.deepEqual(
    (await movements(gw, s.body.id)).map((m) => m.kind),
    ['reserve', 'close', 'settle'],
  );

  // Method and shape decide: no GET on the submit path, no DELETE, trailing slash is another shape.
  assert.equal((await nd(alice, 'GET', '/nd/api/v1/videos')).status, 404);
  assert.equal((await nd(alice, 'DELETE', `/nd/api/v1/videos/${s.body.id}`)).status, 404);
  assert.equal((await nd(alice, 'GET', `/nd/api/v1/videos/${s.body.id}/`)).status, 404);
  assert.equal((await nd(alice, 'GET', `/nd/api/v1/videos/${s.body.id}/extra`)).status, 404);
  // An API key is required.
  const anon = await nd(null, 'GET', `/nd/api/v1/videos/${s.body.id}`);
  assert.equal(anon.status, 401);
});

test('query routes check ownership first: another user gets not found, shaped by native.error', async () => {
  const s = await nd(alice, 'POST', '/nd/api/v1/videos', { model: 'nd-video', prompt: 'private' });
  const stolen = await nd(bob, 'GET', `/nd/api/v1/videos/${s.body.id}`);
  assert.equal(stolen.status, 404);
  assert.equal(stolen.body.error.type, 'nd_error');
  assert.equal(stolen.body.error.code, 'task_not_found');
  assert.equal(stolen.body.error.retryable, false);
  assert.match(stolen.body.error.request_id, /\S/);
  assert.ok(!('status' in stolen.body) && !('generation' in stolen.body), 'no presenter output for a foreign task');
  const missing = await nd(alice, 'GET', '/nd/api/v1/videos/task_doesnotexist');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, 'task_not_found');
  // Generic reads agree.
  assert.equal((await api(gw.url, bob.key, 'GET', `/v1/tasks/${s.body.id}`)).status, 404);
});

test('model scope is checked before the decoder; decoder errors are 400 with readable text', async () => {
  const before = vendor.submits;
  const wrong = await nd(alice, 'POST', '/nd/api/v1/videos', { model: 'nd-fast', prompt: 'x' });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.error.code, 'invalid_request');
  assert.match(wrong.body.error.message, /model "nd-fast" is not allowed on this route/);
  const none = await nd(alice, 'POST', '/nd/api/v1/videos', { prompt: 'x' });
  assert.equal(none.status, 400);
  assert.match(none.body.error.message, /not allowed on this route/);
  const bad = await nd(alice, 'POST', '/nd/api/v1/videos', { model: 'nd-pro', prompt: '' });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /prompt is required/);
  assert.equal(vendor.submits, before, 'nothing was submitted');
});

test('hook error text is sanitised (no host paths, stack traces or secrets) and capped', async () => {
  const r = await nd(alice, 'POST', '/nd/api/v1/videos', { model: 'nd-video', prompt: 'explode' });
  assert.equal(r.status, 400);
  const m = r.body.error.message as string;
  assert.match(m, /decoder failed/);
  assert.doesNotMatch(m, /\/srv\/|node:internal|sk-live|0123456789abcdef|\bat decodeCreate\b/);
  const long = await nd(alice, 'POST', '/nd/api/v1/videos', { model: 'nd-video', prompt: 'long' });
  assert.equal(long.status, 400);
  assert.ok(Array.from(long.body.error.message as string).length <= 512, `capped (${long.body.error.message.length})`);
});

test('retainResult false: an immediate result is rendered once and later reads cannot find it', async () => {
  const q = await nd(alice, 'POST', '/nd/api/v1/quick', { model: 'nd-fast', prompt: 'now' });
  assert.equal(q.status, 200, JSON.stringify(q.body));
  assert.deepEqual(q.body, { id: q.body.id, status: 'succeeded', seconds: 4, has_video: true });
  const r = await row(q.body.id);
  assert.equal(r.retain, 0);
  assert.equal(r.data, null);
  assert.equal(r.status, 'SUCCESS');
  assert.deepEqual(
    (await movements(gw, q.body.id)).map((m) => m.kind),
    ['reserve', 'close', 'settle'],
  );
  assert.equal((await nd(alice, 'GET', `/nd/api/v1/videos/${q.body.id}`)).status, 404);
  assert.equal((await api(gw.url, alice.key, 'GET', `/v1/tasks/${q.body.id}`)).status, 404);
  assert.equal((await api(gw.url, alice.key, 'GET', `/v1/tasks/${q.body.id}/artifacts`)).status, 404);
});

test('retainResult false, but the upstream answers asynchronously: the result is kept and a warning logged', async () => {
  const n = warnings.length;
  const q = await nd(alice, 'POST', '/nd/api/v1/quick', { model: 'nd-fast', prompt: 'later', later: true });
  assert.equal(q.status, 200);
  assert.equal(q.body.status, 'queued');
  assert.ok(
    warnings.slice(n).some((w) => /does not retain results .* asynchronous task/.test(String(w[1]))),
    'a warning was logged',
  );
  const done = await completed(alice, q.body.id);
  assert.equal(done.status, 'succeeded');
  assert.equal((await row(q.body.id)).retain, 1);
});

test("dynamic route: a query intent presents the caller's tasks as an array; otherwise it submits", async () => {
  const a = await nd(alice, 'POST', '/nd/api/v1/videos', { model: 'nd-video', prompt: 'one' });
  const b = await nd(alice, 'POST', '/nd/api/v1/videos/lookup', { model: 'nd-pro', prompt: 'two' });
  assert.equal(b.status, 200, JSON.stringify(b.body));
  assert.match(b.body.id, /^task_/);
  assert.equal((await row(b.body.id)).model, 'nd-pro');
  const list = await nd(alice, 'POST', '/nd/api/v1/videos/lookup', { ids: [a.body.id, b.body.id] });
  assert.equal(list.status, 200);
  assert.equal(list.body.object, 'list');
  assert.deepEqual(
    list.body.data.map((x: { id: string }) => x.id),
    [a.body.id, b.body.id],
  );
  noUpstreamIds(list.body);
  const foreign = await nd(bob, 'POST', '/nd/api/v1/videos/lookup', { ids: [a.body.id] });
  assert.equal(foreign.status, 404);
  assert.equal(foreign.body.error.code, 'task_not_found');
});

test('originTaskIds: owned, same plugin, one channel; upstream ids reach the driver only; data null when discarded', async () => {
  const a = await nd(alice, 'POST', '/nd/api/v1/videos', { model: 'nd-video', prompt: 'base' });
  await completed(alice, a.body.id);
  const upstreamA = (await row(a.body.id)).upstream_task_id!;
  const ext = await nd(alice, 'POST', `/nd/api/v1/videos/${a.body.id}/extend`, { prompt: 'longer' });
  assert.equal(ext.status, 200, JSON.stringify(ext.body));
  noUpstreamIds(ext.body);
  assert.deepEqual(ext.body.seen, ['body', 'method', 'params', 'path', 'query']);
  const extRow = await row(ext.body.id);
  assert.equal(extRow.action, 'extend');
  const sent = vendor.tasks.get(extRow.upstream_task_id!)!;
  assert.equal(sent.prompt, `extend ${upstreamA} (${a.body.id}, SUCCESS, data kept): longer`);

  // A discarded result: the origin's data is null.
  const q = await nd(alice, 'POST', '/nd/api/v1/quick', { model: 'nd-fast', prompt: 'gone' });
  const ext2 = await nd(alice, 'POST', `/nd/api/v1/videos/${q.body.id}/extend`, { prompt: 'again' });
  assert.equal(ext2.status, 200, JSON.stringify(ext2.body));
  assert.match(vendor.tasks.get((await row(ext2.body.id)).upstream_task_id!)!.prompt, /data discarded\): again$/);

  // Another user's task, an unknown id, another plugin's task: 400 naming the id.
  const foreign = await nd(bob, 'POST', `/nd/api/v1/videos/${a.body.id}/extend`, { prompt: 'mine now' });
  assert.equal(foreign.status, 400);
  assert.match(foreign.body.error.message, new RegExp(`origin task "${a.body.id}" was not found`));
  const pm = await api(gw.url, alice.key, 'POST', '/v1/videos', { model: 'pm-vid', prompt: 'other plugin' });
  assert.equal(pm.status, 200, JSON.stringify(pm.body));
  const mismatch = await nd(alice, 'POST', `/nd/api/v1/videos/${pm.body.id}/extend`, { prompt: 'x' });
  assert.equal(mismatch.status, 400);
  assert.match(mismatch.body.error.message, new RegExp(`origin task "${pm.body.id}" was made by another plugin`));
});

test('reserved host namespaces are refused at upload', async () => {
  const base = exampleSource('native-demo.js')
    .replace("key: 'native-demo'", "key: 'nd-reserved'")
    .replace(/models: \['nd-video', 'nd-pro', 'nd-fast', 'shared-img'\]/, "models: ['nd-video', 'nd-pro', 'nd-fast']")
    .replace("  protocols: [{ name: 'compat_image', models: ['shared-img'] }],\n", '');
  for (const path of [
    '/v1/tasks/render',
    '/api/v1/videos',
    '/v1/images/generations/x',
    '/v1/responses/:task_id/more',
    '/:vendor/api/v1/videos',
    '/models/x',
  ]) {
    const src = base.replace("path: '/nd/api/v1/videos/lookup'", `path: '${path}'`);
    await assert.rejects(gw.services.plugins.admin.upload({ source: src, enabled: true }), (e: Error & { status?: number }) => {
      assert.equal(e.status, 400, `${path}: ${e.message}`);
      assert.match(e.message, /reserved path prefix/, path);
      return true;
    });
  }
  assert.equal(gw.services.plugins.current().plugins.has('nd-reserved'), false);
});

test('routes are per generation: a newly activated version serves new requests', async () => {
  const old = await nd(alice, 'POST', '/nd/api/v1/videos', { model: 'nd-video', prompt: 'before' });
  const v2 = exampleSource('native-demo.js')
    .replace("version: '1.0.0'", "version: '1.1.0'")
    .replace("const MARK = 'g1'", "const MARK = 'g2'")
    .replace("path: '/nd/api/v1/quick'", "path: '/nd/api/v2/quick'");
  await gw.services.plugins.admin.upload({ source: v2, enabled: true });
  await waitFor(async () => gw.services.plugins.current().plugins.get('native-demo')?.version === '1.1.0', 5000, 'version 1.1.0');
  const s = await nd(alice, 'POST', '/nd/api/v1/videos', { model: 'nd-video', prompt: 'after' });
  assert.equal(s.body.generation, 'g2', `${s.status} ${JSON.stringify(s.body)}; warnings: ${JSON.stringify(warnings.slice(-3))}`);
  assert.equal((await completed(alice, old.body.id)).generation, 'g2', 'queries run in the current generation');
  assert.equal((await nd(alice, 'POST', '/nd/api/v1/quick', { model: 'nd-fast', prompt: 'x' })).status, 404);
  const moved = await nd(alice, 'POST', '/nd/api/v2/quick', { model: 'nd-fast', prompt: 'x' });
  assert.equal(moved.status, 200, `${JSON.stringify(moved.body)}; warnings: ${JSON.stringify(warnings.slice(-3))}`);
  assert.equal(moved.body.status, 'succeeded');
});

test('origin tasks pin their channel for the new task; a disabled origin channel is refused', async () => {
  const a = await nd(alice, 'POST', '/nd/api/v1/videos', { model: 'nd-video', prompt: 'pinned' });
  assert.equal(a.status, 200, `${JSON.stringify(a.body)}; warnings: ${JSON.stringify(warnings.slice(-3))}`);
  assert.equal(Number((await row(a.body.id)).channel_id), ndChannel);
  // A higher-priority channel now takes new tasks, but the extension stays on the origin's channel.
  const other = await createTaskChannel(gw, { name: 'nd-2', plugin: 'native-demo', baseUrl: vendor.url, priority: 5 });
  await waitFor(async () => gw.services.tasks.catalog.channel(other), 5000, 'channel nd-2');
  const fresh = await nd(alice, 'POST', '/nd/api/v1/videos', { model: 'nd-video', prompt: 'new' });
  assert.equal(Number((await row(fresh.body.id)).channel_id), other);
  const ext = await nd(alice, 'POST', `/nd/api/v1/videos/${a.body.id}/extend`, { prompt: 'same channel' });
  assert.equal(ext.status, 200, JSON.stringify(ext.body));
  assert.equal(Number((await row(ext.body.id)).channel_id), ndChannel);
  await gw.services.admin.channels.setStatus(ndChannel, 2);
  await waitFor(async () => !gw.services.tasks.catalog.channel(ndChannel), 5000, 'channel nd disabled');
  const refused = await nd(alice, 'POST', `/nd/api/v1/videos/${a.body.id}/extend`, { prompt: 'nowhere' });
  assert.equal(refused.status, 400);
  assert.match(refused.body.error.message, /disabled/);
});
