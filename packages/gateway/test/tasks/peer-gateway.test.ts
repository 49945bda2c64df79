/**
 * Two gateways chained: the edge gateway has a type 60 channel whose base URL is the origin gateway
 * and whose key is an API key of the origin; the origin has a type 61 channel to the loopback vendor.
 * The same plugin runs on both: against the vendor on the origin, against the peer's native routes
 * on the edge.
 */
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

let vendor: Vendor;
let origin: TestGateway;
let edge: TestGateway;
let peerUser: TestUser;
let edgeUser: TestUser;

const ENV = { TASK_POLL_INTERVAL_SECONDS: '0.05' };

before(async () => {
  vendor = await startVendor();
  origin = await startTestGateway({ env: ENV });
  edge = await startTestGateway({ env: ENV });
  await installPlugins(origin, ['native-demo.js']);
  await installPlugins(edge, ['native-demo.js']);
  await createTaskChannel(origin, { name: 'vendor', plugin: 'native-demo', baseUrl: vendor.url, key: 'vendor-key' });
  await setTaskPrice(origin, 'nd-video', { perRequest: 0.02 });
  peerUser = await createUser(origin, { name: 'edge-operator', quota: 10 * 500_000 });
  await createTaskChannel(edge, { name: 'peer', type: 60, plugin: 'native-demo', baseUrl: origin.url, key: peerUser.key });
  await setTaskPrice(edge, 'nd-video', { perRequest: 0.05 });
  edgeUser = await createUser(edge, { name: 'customer', quota: 10 * 500_000 });
});

after(async () => {
  await edge?.stop();
  await origin?.stop();
  await vendor?.close();
});

test('a type 60 peer: submit through the edge, poll to success, read artifacts; money moves once on each gateway', async () => {
  const peerBefore = await balance(origin, peerUser.userId);
  const edgeBefore = await balance(edge, edgeUser.userId);

  const s = await api(edge.url, edgeUser.key, 'POST', '/nd/api/v1/videos', { model: 'nd-video', prompt: 'through two gateways' });
  assert.equal(s.status, 200, JSON.stringify(s.body));
  const edgeId = s.body.id as string;
  assert.match(edgeId, /^task_/);

  // The edge's upstream id is the origin's public id; the origin's task belongs to the channel key's user.
  const edgeRow = await edge.core.h.db.selectFrom('tasks').selectAll().where('public_id', '=', edgeId).executeTakeFirstOrThrow();
  const originId = edgeRow.upstream_task_id!;
  assert.match(originId, /^task_/);
  assert.notEqual(originId, edgeId);
  const originRow = await origin.core.h.db.selectFrom('tasks').selectAll().where('public_id', '=', originId).executeTakeFirstOrThrow();
  assert.equal(Number(originRow.user_id), peerUser.userId);
  assert.match(originRow.upstream_task_id!, /^vt_/);
  // The vendor saw the origin's channel key, never the peer API key.
  assert.ok(vendor.auth.includes('Bearer vendor-key'));
  assert.ok(!vendor.auth.some((a) => a.includes(peerUser.key)));

  const done = await waitFor(
    async () => {
      const r = await api(edge.url, edgeUser.key, 'GET', `/nd/api/v1/videos/${edgeId}`);
      return r.status === 200 && r.body.status === 'succeeded' ? r.body : null;
    },
    15_000,
    'the edge task to succeed',
  );
  assert.equal(done.id, edgeId);
  assert.doesNotMatch(JSON.stringify(done), new RegExp(`${originId}|vt_\\d`));
  const generic = await api(edge.url, edgeUser.key, 'GET', `/v1/tasks/${edgeId}`);
  assert.equal(generic.body.status, 'SUCCESS');

  const arts = await api(edge.url, edgeUser.key, 'GET', `/v1/tasks/${edgeId}/artifacts`);
  assert.equal(arts.status, 200);
  assert.equal(arts.body.artifacts[0].key, 'video');
  const content = await fetch(arts.body.artifacts[0].content_url);
  assert.equal(content.status, 200);
  assert.equal(Buffer.from(await content.arrayBuffer()).equals(MEDIA), true);
  const ranged = await api(edge.url, edgeUser.key, 'GET', `/v1/tasks/${edgeId}/artifacts/video/content`, undefined, { range: 'bytes=0-9' });
  assert.equal(ranged.status, 206);
  assert.equal(ranged.raw.equals(MEDIA.subarray(0, 10)), true);

  // Both sides settle exactly once, each at its own price.
  await waitFor(
    async () =>
      (await origin.core.h.db.selectFrom('tasks').select('billing_status').where('public_id', '=', originId).executeTakeFirstOrThrow())
        .billing_status === 'settled',
    5000,
    'origin settled',
  );
  await waitFor(
    async () =>
      (await edge.core.h.db.selectFrom('tasks').select('billing_status').where('public_id', '=', edgeId).executeTakeFirstOrThrow())
        .billing_status === 'settled',
    5000,
    'edge settled',
  );
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(
    (await movements(origin, originId)).map((m) => m.kind),
    ['reserve', 'close', 'settle'],
  );
  assert.deepEqual(
    (await movements(edge, edgeId)).map((m) => m.kind),
    ['reserve', 'close', 'settle'],
  );
  assert.equal(peerBefore - (await balance(origin, peerUser.userId)), 0.02 * 500_000);
  assert.equal(edgeBefore - (await balance(edge, edgeUser.userId)), 0.05 * 500_000);
});

test('a peer failure reaches the edge as a failure and both sides refund', async () => {
  const edgeBefore = await balance(edge, edgeUser.userId);
  const peerBefore = await balance(origin, peerUser.userId);
  const s = await api(edge.url, edgeUser.key, 'POST', '/nd/api/v1/videos', { model: 'nd-video', prompt: 'doomed', scenario: 'fail' });
  assert.equal(s.status, 200, JSON.stringify(s.body));
  const done = await waitFor(
    async () => {
      const r = await api(edge.url, edgeUser.key, 'GET', `/nd/api/v1/videos/${s.body.id}`);
      return r.body.status === 'failed' ? r.body : null;
    },
    15_000,
    'the edge task to fail',
  );
  assert.match(done.error, /content policy violation/);
  await waitFor(
    async () => (await balance(edge, edgeUser.userId)) === edgeBefore && (await balance(origin, peerUser.userId)) === peerBefore,
    5000,
    'refunds on both gateways',
  );
});
