import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startVendor, type Vendor } from '../fakes/vendor/server.ts';
import { api, createTaskChannel, createUser, installPlugins, setTaskPrice, waitFor, type TestUser } from '../fakes/vendor/fixtures.ts';

let gw: TestGateway;
let vendor: Vendor;
let user: TestUser;
let pm: number;
let nd: number;

before(async () => {
  vendor = await startVendor();
  gw = await startTestGateway({ env: { TASK_POLL_INTERVAL_SECONDS: '0.05', TASK_PLUGIN_PROTOCOL_TICK_MILLISECONDS: '50' } });
  await installPlugins(gw, ['proto-media.js', 'native-demo.js']);
  pm = await createTaskChannel(gw, { name: 'pm', plugin: 'proto-media', baseUrl: vendor.url, models: ['shared-img'], priority: 10 });
  nd = await createTaskChannel(gw, { name: 'nd', plugin: 'native-demo', baseUrl: vendor.url, models: ['shared-img'], priority: 0 });
  await setTaskPrice(gw, 'shared-img', { perRequest: 0.01 });
  user = await createUser(gw, { name: 'sam', quota: 100 * 500_000 });
});

after(async () => {
  await gw?.stop();
  await vendor?.close();
});

async function priorities(p: Record<number, number>): Promise<void> {
  const channels = gw.services.admin.channels;
  for (const [id, priority] of Object.entries(p)) await channels.update(Number(id), channels.parse({ priority }, 'update'));
  await waitFor(
    async () =>
      Object.entries(p).every(
        ([id, pr]) => (gw.services.tasks.catalog.channel(Number(id)) as { priority: number } | undefined)?.priority === pr,
      ),
    5000,
    'channel priorities',
  );
}

async function lastTask() {
  return gw.core.h.db.selectFrom('tasks').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
}

const generate = (body: Record<string, unknown>) => api(gw.url, user.key, 'POST', '/v1/images/generations', body);

test('two plugins claim one image model: the selected channel decides the executing plugin', async () => {
  const a = await generate({ model: 'shared-img', prompt: 'a harbour' });
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.equal(a.body.data[0].revised_prompt, 'revised: generate');
  let t = await lastTask();
  assert.equal(t.plugin_key, 'proto-media');
  assert.equal(Number(t.channel_id), pm);

  await priorities({ [pm]: 0, [nd]: 10 });
  const b = await generate({ model: 'shared-img', prompt: 'a harbour' });
  assert.equal(b.status, 200, JSON.stringify(b.body));
  assert.equal(b.body.data[0].revised_prompt, 'native-demo');
  t = await lastTask();
  assert.equal(t.plugin_key, 'native-demo');
  assert.equal(Number(t.channel_id), nd);
});

test("a candidate that refuses drops out: the other plugin's channel runs even at lower priority", async () => {
  await priorities({ [pm]: 0, [nd]: 10 });
  const r = await generate({ model: 'shared-img', prompt: 'nobody' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.data[0].revised_prompt, 'revised: generate');
  assert.equal((await lastTask()).plugin_key, 'proto-media');
});

test('when every candidate refuses, the error groups the failures with their plugin keys', async () => {
  const before = await lastTask();
  const r = await generate({ model: 'shared-img', prompt: '' });
  assert.equal(r.status, 400);
  assert.equal(r.body.error.message, 'native-demo: native-demo needs a prompt; proto-media: prompt is required');
  assert.equal((await lastTask()).id, before.id, 'no task was created');
});

test('a chosen channel that cannot be reached fails over only to channels of the same plugin', async () => {
  const dead = await createTaskChannel(gw, {
    name: 'nd-dead',
    plugin: 'native-demo',
    baseUrl: 'http://127.0.0.1:1',
    models: ['shared-img'],
    priority: 20,
  });
  await priorities({ [dead]: 20, [pm]: 15, [nd]: 10 });
  const r = await generate({ model: 'shared-img', prompt: 'fail over' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.data[0].revised_prompt, 'native-demo');
  const t = await lastTask();
  assert.equal(t.plugin_key, 'native-demo');
  assert.equal(Number(t.channel_id), nd);
});
