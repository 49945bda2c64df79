/**
 * Responses over a WebSocket for a model a task plugin claims: the turn goes to the task protocols
 * first, as `POST /v1/responses` does, and the host-managed event stream arrives as socket messages.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startVendor, type Vendor } from '../fakes/vendor/server.ts';
import { createTaskChannel, createUser, installPlugins, setTaskPrice, type TestUser } from '../fakes/vendor/fixtures.ts';

let gw: TestGateway;
let vendor: Vendor;
let user: TestUser;

before(async () => {
  vendor = await startVendor();
  gw = await startTestGateway({
    env: { TASK_POLL_INTERVAL_SECONDS: '0.05', CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true', TASK_PLUGIN_PROTOCOL_HEARTBEAT_SECONDS: '0.2' },
  });
  await installPlugins(gw, ['proto-media.js']);
  await createTaskChannel(gw, { name: 'pm', plugin: 'proto-media', baseUrl: vendor.url });
  await setTaskPrice(gw, 'pm-resp', { perRequest: 0.01 });
  user = await createUser(gw, { name: 'wendy', quota: 100 * 500_000 });
});

after(async () => {
  await gw?.stop();
  await vendor?.close();
});

test('a response.create for a plugin-claimed model streams the task protocol events over the socket', async () => {
  const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/v1/responses`, { headers: { authorization: `Bearer ${user.key}` } });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const events: any[] = [];
  const done = new Promise<void>((resolve) =>
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString());
      events.push(m);
      if (m.type === 'response.completed' || m.type === 'response.failed' || m.type === 'error') resolve();
    }),
  );
  ws.send(JSON.stringify({ type: 'response.create', model: 'pm-resp', input: 'streamed film' }));
  await done;
  const types = events.map((e) => e.type);
  assert.equal(types[0], 'response.created', types.join(','));
  assert.ok(types.includes('response.output_item.added'));
  assert.equal(types.at(-1), 'response.completed');
  assert.deepEqual(
    events.map((e) => e.sequence_number),
    events.map((_, i) => i),
    'in order',
  );
  const text = events
    .filter((e) => e.type === 'response.output_text.delta')
    .map((e) => e.delta)
    .join('');
  assert.match(text, /\/artifacts\/video\/content\?access=/);
  ws.close();
});
