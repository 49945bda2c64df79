/**
 * Task completion callbacks: delivery to a loopback receiver that fails before it accepts (signature,
 * one delivery id, back-off), the key's default URL, the refusals at submit (private addresses,
 * bad URLs, keys without a secret), the address guard at delivery, and one delivering node when two
 * share a database.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, startTestGateway, type TestDatabase, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { CallbackWorker } from '../../src/tasks/callbacks/worker.ts';
import { startVendor, type Vendor } from '../fakes/vendor/server.ts';
import { api, createTaskChannel, createUser, installPlugins, setTaskPrice, waitFor, type TestUser } from '../fakes/vendor/fixtures.ts';

const Q = 500_000;
const BASE_MS = 50;
/** Fast polls and deliveries; retries start at 50 ms and double. */
const ENV = {
  TASK_POLL_INTERVAL_SECONDS: '0.05',
  CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true',
  TASK_CALLBACK_INTERVAL_SECONDS: '0.05',
  TASK_CALLBACK_RETRY_BASE_SECONDS: String(BASE_MS / 1000),
  TASK_CALLBACK_TIMEOUT_SECONDS: '5',
};

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
}

/** A loopback receiver: answers `plan[i]` to its i-th request (200 once the plan runs out). */
async function startReceiver(plan: number[] = []): Promise<{ url: string; got: Received[]; close(): Promise<void>; server: Server }> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), path: req.url ?? '' });
      const code = plan[got.length - 1] ?? 200;
      res.writeHead(code, { 'content-type': 'text/plain' }).end(code === 200 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    got,
    server,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function setupTasks(gw: TestGateway, vendor: Vendor): Promise<void> {
  await installPlugins(gw, ['loopback-video.js']);
  await createTaskChannel(gw, { name: 'lv', plugin: 'loopback-video', baseUrl: vendor.url });
  await setTaskPrice(gw, 'lv-1', { perRequest: 0.1 });
}

const sign = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** The key's callback secret, made by its owner through the admin API (shown once). */
async function makeSecret(gw: TestGateway, user: TestUser, name: string): Promise<string> {
  const owner = await AdminClient.login(gw.url, name, `${name}-password`);
  const out = await owner.ok<{ callback_secret: string }>('POST', `/api/token/${user.keyId}/callback-secret`);
  assert.match(out.callback_secret, /^whsec_/);
  const view = await owner.ok('GET', `/api/token/${user.keyId}`);
  assert.equal(view.callback_secret_set, true);
  assert.ok(!JSON.stringify(view).includes(out.callback_secret), 'the secret is shown once only');
  return out.callback_secret;
}

async function delivered(gw: TestGateway, key: string, id: string) {
  return waitFor(
    async () => {
      const r = await api(gw.url, key, 'GET', `/v1/tasks/${id}`);
      return r.body.callback?.status === 'delivered' || r.body.callback?.status === 'failed' ? r.body : null;
    },
    20_000,
    `the callback of ${id}`,
  );
}

let vendor: Vendor;
let gw: TestGateway;
let alice: TestUser;
let bob: TestUser;
let aliceSecret: string;

before(async () => {
  vendor = await startVendor();
  gw = await startTestGateway({ env: ENV });
  await setupTasks(gw, vendor);
  await installPlugins(gw, ['proto-media.js', 'native-demo.js']);
  await createTaskChannel(gw, { name: 'pm', plugin: 'proto-media', baseUrl: vendor.url, models: ['pm-vid'] });
  await createTaskChannel(gw, { name: 'nd', plugin: 'native-demo', baseUrl: vendor.url, key: 'nd-vendor-secret' });
  for (const m of ['pm-vid', 'nd-video']) await setTaskPrice(gw, m, { perRequest: 0.01 });
  alice = await createUser(gw, { name: 'alice', quota: 100 * Q });
  bob = await createUser(gw, { name: 'bob', quota: 100 * Q });
  aliceSecret = await makeSecret(gw, alice, 'alice');
});

after(async () => {
  await gw?.stop();
  await vendor?.close();
});

test('a receiver that fails twice then accepts gets one logical delivery: same id and body, signed, with back-off', async () => {
  const rx = await startReceiver([500, 503]);
  try {
    const r = await api(
      gw.url,
      alice.key,
      'POST',
      '/v1/tasks/loopback-video',
      { model: 'lv-1', seconds: 2, steps: 2 },
      { 'X-Callback-URL': `${rx.url}/hook?x=1` },
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const id = r.body.id as string;
    const view = await delivered(gw, alice.key, id);
    assert.equal(view.status, 'SUCCESS');
    const cb = view.callback;
    assert.equal(cb.status, 'delivered', JSON.stringify(cb));
    assert.equal(cb.attempts, 3);
    assert.equal(cb.last_status, 200);
    assert.equal(cb.url, `${rx.url}/hook?x=1`);
    assert.match(cb.delivery_id, /^dlv_[A-Za-z0-9]{32}$/);
    assert.deepEqual(
      cb.history.map((a: { status: number }) => a.status),
      [500, 503, 200],
    );

    assert.equal(rx.got.length, 3, 'three attempts reached the receiver');
    assert.deepEqual(new Set(rx.got.map((g) => g.headers['x-delivery-id'])), new Set([cb.delivery_id]), 'one delivery id');
    assert.deepEqual(
      rx.got.map((g) => g.headers['x-delivery-attempt']),
      ['1', '2', '3'],
    );
    assert.equal(new Set(rx.got.map((g) => g.body)).size, 1, 'every attempt sends the same bytes');
    for (const g of rx.got) {
      assert.equal(g.path, '/hook?x=1');
      assert.equal(g.headers['content-type'], 'application/json');
      assert.equal(g.headers['x-task-id'], id);
      assert.equal(g.headers['x-signature'], sign(aliceSecret, g.body), 'X-Signature is the HMAC of the raw body');
    }
    const body = JSON.parse(rx.got[2].body);
    assert.equal(body.task_id, id);
    assert.equal(body.status, 'SUCCESS');
    assert.ok(!rx.got[2].body.includes('vt_'), 'the upstream id is not in the callback');

    // Back-off: the second retry waited at least twice the base delay, the first at least the base.
    const admin = await AdminClient.login(gw.url);
    const detail = await admin.ok('GET', `/api/task/${id}`);
    const at = detail.callback.history.map((a: { at: number }) => a.at);
    assert.ok(at[1] - at[0] >= BASE_MS, `first retry after ≥ ${BASE_MS} ms: ${at}`);
    assert.ok(at[2] - at[1] >= 2 * BASE_MS, `second retry after ≥ ${2 * BASE_MS} ms: ${at}`);
    const own = await (await AdminClient.login(gw.url, 'alice', 'alice-password')).ok('GET', `/api/task/self/${id}`);
    assert.equal(own.callback.delivery_id, cb.delivery_id);
    assert.equal(own.callback.attempts, 3);
  } finally {
    await rx.close();
  }
});

test("the key's callback_url applies without the header; a failed task is delivered too", async () => {
  const rx = await startReceiver();
  try {
    const owner = await AdminClient.login(gw.url, 'alice', 'alice-password');
    const k = await owner.ok('PUT', `/api/token/${alice.keyId}`, { callback_url: `${rx.url}/default` });
    assert.equal(k.callback_url, `${rx.url}/default`);
    await waitFor(
      async () => (gw.services.accounts.keys.authenticate(alice.key, '127.0.0.1').callbackUrl ? true : null),
      5000,
      'the key cache',
    );
    const r = await api(gw.url, alice.key, 'POST', '/v1/tasks/loopback-video', { model: 'lv-1', seconds: 1, steps: 1, scenario: 'fail' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const view = await delivered(gw, alice.key, r.body.id);
    assert.equal(view.status, 'FAILURE');
    assert.equal(view.callback.status, 'delivered');
    assert.equal(rx.got.length, 1);
    assert.equal(rx.got[0].path, '/default');
    assert.equal(JSON.parse(rx.got[0].body).status, 'FAILURE');
    await owner.ok('PUT', `/api/token/${alice.keyId}`, { callback_url: null });
  } finally {
    await rx.close();
  }
});

test('the header works on protocol routes (/v1/videos) and plugin native routes too', async () => {
  const rx = await startReceiver();
  try {
    const hook = { 'X-Callback-URL': `${rx.url}/proto` };
    const v = await api(gw.url, alice.key, 'POST', '/v1/videos', { model: 'pm-vid', prompt: 'waves', seconds: '4' }, hook);
    assert.equal(v.status, 200, JSON.stringify(v.body));
    const n = await api(
      gw.url,
      alice.key,
      'POST',
      '/nd/api/v1/videos',
      { model: 'nd-video', prompt: 'a cat' },
      { 'X-Callback-URL': `${rx.url}/native` },
    );
    assert.equal(n.status, 200, JSON.stringify(n.body));
    for (const id of [v.body.id, n.body.id]) {
      const view = await delivered(gw, alice.key, id);
      assert.equal(view.callback.status, 'delivered', JSON.stringify(view.callback));
    }
    assert.deepEqual(rx.got.map((g) => g.path).sort(), ['/native', '/proto']);
    for (const g of rx.got) assert.equal(g.headers['x-signature'], sign(aliceSecret, g.body));
    const proto = await gw.core.h.db.selectFrom('tasks').select('plugin_key').where('public_id', '=', v.body.id).executeTakeFirstOrThrow();
    assert.equal(proto.plugin_key, 'proto-media');
  } finally {
    await rx.close();
  }
});

test('submissions with an unusable callback are refused before anything is reserved', async () => {
  const bad = await api(
    gw.url,
    alice.key,
    'POST',
    '/v1/tasks/loopback-video',
    { model: 'lv-1' },
    { 'X-Callback-URL': 'ftp://example.com/x' },
  );
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'callback_url_invalid');
  const creds = await api(
    gw.url,
    alice.key,
    'POST',
    '/v1/tasks/loopback-video',
    { model: 'lv-1' },
    { 'X-Callback-URL': 'https://u:p@example.com/x' },
  );
  assert.equal(creds.body.error.code, 'callback_url_invalid');
  // Bob's key has no secret: nothing could be signed.
  const unsigned = await api(
    gw.url,
    bob.key,
    'POST',
    '/v1/tasks/loopback-video',
    { model: 'lv-1' },
    { 'X-Callback-URL': 'http://127.0.0.1:9/x' },
  );
  assert.equal(unsigned.status, 400);
  assert.equal(unsigned.body.error.code, 'callback_secret_missing');
  const n = await gw.core.h.db
    .selectFrom('tasks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', bob.userId)
    .executeTakeFirstOrThrow();
  assert.equal(Number(n.n), 0, 'no task was made');
});

test('private callback addresses are refused at submit and at delivery unless allowed', async () => {
  const rx = await startReceiver();
  const closed = await startTestGateway({ env: { ...ENV, CONTENT_ALLOW_PRIVATE_ADDRESSES: 'false' } });
  try {
    await setupTasks(closed, vendor);
    const carol = await createUser(closed, { name: 'carol', quota: 100 * Q });
    await makeSecret(closed, carol, 'carol');
    for (const url of [
      `${rx.url}/x`,
      'http://localhost:8080/x',
      'http://[::1]:8080/x',
      'http://2130706433/x',
      'http://10.1.2.3/x',
      'http://169.254.169.254/latest',
    ]) {
      const r = await api(closed.url, carol.key, 'POST', '/v1/tasks/loopback-video', { model: 'lv-1' }, { 'X-Callback-URL': url });
      assert.equal(r.status, 400, `${url}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'callback_url_not_public', url);
    }
    // A name that resolved to a public address at submit but to a private one later is still refused
    // when connecting: a delivery row pointing at the receiver is never sent.
    const r = await api(closed.url, carol.key, 'POST', '/v1/tasks/loopback-video', { model: 'lv-1', seconds: 1, steps: 1 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const task = await closed.core.h.db
      .selectFrom('tasks')
      .select(['id', 'public_id', 'key_id'])
      .where('public_id', '=', r.body.id)
      .executeTakeFirstOrThrow();
    await closed.services.tasks.callbacks.create(task, `${rx.url}/rebound`);
    const row = await waitFor(
      async () => {
        const c = await closed.services.tasks.callbacks.forTask(task.id);
        return c && c.attempts > 0 ? c : null;
      },
      10_000,
      'a delivery attempt',
    );
    assert.notEqual(row.status, 'delivered');
    assert.equal(row.last_status, null);
    assert.match(row.last_error ?? '', /not public/);
    assert.equal(rx.got.length, 0, 'nothing reached the private address');
  } finally {
    await closed.stop();
    await rx.close();
  }
});

test(
  'with an injected clock: retries double from 10 s up to an hour and stop a day after the first attempt',
  { timeout: 60_000 },
  async () => {
    const rx = await startReceiver(new Array(200).fill(500));
    // Default schedule; the gateway's own worker is stopped and one with a fake clock is driven by hand.
    const g = await startTestGateway({ env: { TASK_POLL_INTERVAL_SECONDS: '0.05', CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    try {
      await setupTasks(g, vendor);
      const erin = await createUser(g, { name: 'erin', quota: 100 * Q });
      await makeSecret(g, erin, 'erin');
      await g.services.tasks.callbackWorker.stop();
      const r = await api(
        g.url,
        erin.key,
        'POST',
        '/v1/tasks/loopback-video',
        { model: 'lv-1', seconds: 1, steps: 1 },
        { 'X-Callback-URL': `${rx.url}/slow` },
      );
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const task = await g.core.h.db.selectFrom('tasks').select('id').where('public_id', '=', r.body.id).executeTakeFirstOrThrow();
      const cbs = g.services.tasks.callbacks;
      await waitFor(async () => ((await cbs.forTask(task.id))?.status === 'pending' ? true : null), 10_000, 'the callback to be due');
      let now = Date.now() + 1000;
      const worker = new CallbackWorker(g.core, cbs, g.services.tasks.store, () => now);
      const t0 = now;
      const delays: number[] = [];
      for (let i = 0; i < 100; i++) {
        assert.equal(await worker.pass(), 1, `attempt ${i + 1} was due`);
        await worker.drain();
        const row = (await cbs.forTask(task.id))!;
        assert.equal(row.attempts, i + 1);
        if (row.status === 'failed') break;
        assert.equal(row.status, 'pending');
        delays.push(Number(row.next_attempt_at) - now);
        // Nothing is due before the delay has passed.
        now = Number(row.next_attempt_at) - 1;
        assert.equal(await worker.pass(), 0, 'not due yet');
        now += 1;
      }
      const row = (await cbs.forTask(task.id))!;
      assert.equal(row.status, 'failed');
      assert.equal(row.next_attempt_at, null);
      assert.deepEqual(
        delays.slice(0, 10),
        [10, 20, 40, 80, 160, 320, 640, 1280, 2560, 3600].map((x) => x * 1000),
      );
      assert.ok(delays.every((d) => d <= 3_600_000));
      // The last attempt was the last one whose retry would still fall within a day of the first.
      assert.ok(now - t0 <= 86_400_000 && now - t0 + 3_600_000 > 86_400_000, `last attempt ${(now - t0) / 1000} s after the first`);
      assert.equal(rx.got.length, row.attempts);
      assert.equal(new Set(rx.got.map((x) => x.headers['x-delivery-id'])).size, 1);
      const view = (await api(g.url, erin.key, 'GET', `/v1/tasks/${r.body.id}`)).body.callback;
      assert.equal(view.status, 'failed');
      assert.equal(view.last_status, 500);
      assert.equal(view.history.length, 20, 'the latest 20 attempts are kept');
    } finally {
      await g.stop();
      await rx.close();
    }
  },
);

test('two nodes on one database: deliveries come from the lease holder only, once each', { timeout: 60_000 }, async () => {
  const rx = await startReceiver();
  const db: TestDatabase = await createTestDatabase();
  let a: TestGateway | undefined;
  let b: TestGateway | undefined;
  try {
    a = await startTestGateway({ db, env: { ...ENV, NODE_ID: 'cb-node-a' } });
    await setupTasks(a, vendor);
    const dave = await createUser(a, { name: 'dave', quota: 100 * Q });
    await makeSecret(a, dave, 'dave');
    b = await startTestGateway({ db, env: { ...ENV, NODE_ID: 'cb-node-b' } });
    await waitFor(async () => (b!.services.plugins.current().plugins.has('loopback-video') ? true : null), 10_000, 'the plugin on node b');
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const node = i % 2 === 0 ? a : b;
      await waitFor(
        async () => {
          try {
            node.services.accounts.keys.authenticate(dave.key, '127.0.0.1');
            return true;
          } catch {
            return null;
          }
        },
        5000,
        'the key',
      );
      const r = await api(
        node.url,
        dave.key,
        'POST',
        '/v1/tasks/loopback-video',
        { model: 'lv-1', seconds: 1, steps: 1 },
        { 'X-Callback-URL': `${rx.url}/n${i}` },
      );
      assert.equal(r.status, 200, JSON.stringify(r.body));
      ids.push(r.body.id);
    }
    for (const id of ids) await delivered(a, dave.key, id);
    assert.equal(rx.got.length, 6, 'one request per task');
    assert.equal(new Set(rx.got.map((g) => g.headers['x-delivery-id'])).size, 6, 'one delivery id per task');
    const sa = a.services.tasks.callbackWorker.stats.attempts;
    const sb = b.services.tasks.callbackWorker.stats.attempts;
    assert.equal(sa + sb, 6, `attempts a=${sa} b=${sb}`);
    assert.ok(sa === 0 || sb === 0, `one node delivered: a=${sa} b=${sb}`);
    const lease = await a.core.h.db
      .selectFrom('node_leases')
      .select('holder')
      .where('name', '=', 'task-callbacks')
      .executeTakeFirstOrThrow();
    assert.equal(lease.holder, sa > 0 ? 'cb-node-a' : 'cb-node-b');
  } finally {
    await b?.stop({ keepDb: true });
    await a?.stop();
    await rx.close();
  }
});
