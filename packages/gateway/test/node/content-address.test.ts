/**
 * Content no channel vouches for cannot reach private addresses (CONTENT_ALLOW_PRIVATE_ADDRESSES
 * unset): a vendor that names a loopback service as a credentialless artifact — in any spelling,
 * `[::ffff:127.0.0.1]` among them — gets a refusal through the signed content link, and the service
 * is never contacted; a marketplace on loopback is refused the same way. The channel's own vendor on
 * loopback keeps working (the channel vouches for its base URL).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { api, createTaskChannel, createUser, exampleSource, setTaskPrice, type TestUser } from '../fakes/vendor/fixtures.ts';
import { AdminClient } from '../admin-client.ts';

const SECRET = 'INTERNAL-SERVICE-BODY-7f3a';
let gw: TestGateway;
let internal: Server;
let internalPort = 0;
let internalHits = 0;
let vendor: Server;
let alice: TestUser;

/** The loopback example plugin, with credentialless artifact reads of the URL the vendor gave. */
function credentiallessPlugin(): string {
  const src = exampleSource('loopback-video.js')
    .replace("key: 'loopback-video'", "key: 'cdn-video'")
    .replace("models: ['lv-1', 'lv-2']", "models: ['cdn-1']");
  const i = src.indexOf('export function buildContentRequest');
  assert.ok(i > 0);
  return (
    src.slice(0, i) +
    'export function buildContentRequest(ctx) {\n  return { url: ctx.data.video_url, method: ctx.clientRequest.method, credentialless: true };\n}\n'
  );
}

async function listen(s: Server, host: string): Promise<number> {
  await new Promise<void>((r) => s.listen(0, host, r));
  return (s.address() as AddressInfo).port;
}

before(async () => {
  // A service only reachable from the gateway's host, on every loopback address (dual stack).
  internal = createServer((_req, res) => {
    internalHits++;
    res.end(SECRET);
  });
  internalPort = await listen(internal, '::');
  // The vendor finishes every task at once and names the prompt as the video's URL.
  vendor = createServer((req, res) => {
    let b = '';
    req.on('data', (c) => (b += c));
    req.on('end', () => {
      const body = JSON.parse(b || '{}');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ id: `vt_${Math.random().toString(36).slice(2)}`, status: 'succeeded', duration: 1, video_url: body.prompt }),
      );
    });
  });
  const vendorPort = await listen(vendor, '127.0.0.1');
  gw = await startTestGateway({ env: { CONTENT_ALLOW_PRIVATE_ADDRESSES: '' } });
  await gw.services.plugins.admin.upload({ source: credentiallessPlugin(), enabled: true });
  await createTaskChannel(gw, { name: 'cdn', plugin: 'cdn-video', baseUrl: `http://127.0.0.1:${vendorPort}` });
  await setTaskPrice(gw, 'cdn-1', { perRequest: 0.01 });
  alice = await createUser(gw, { name: 'alice', quota: 1_000_000 });
});

after(async () => {
  await gw?.stop();
  internal?.close();
  vendor?.close();
});

test('a signed artifact link to a loopback service is refused in every spelling; the body never reaches the user', async () => {
  const spellings = [
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:ffff:127.0.0.1]',
    '127.0.0.1',
    '127.1',
    '2130706433',
    '0x7f.1',
    '[::1]',
    '[::]',
    '0.0.0.0',
    'localhost',
    'localhost.',
  ];
  for (const host of spellings) {
    const target = `http://${host}:${internalPort}/admin/secret`;
    const sub = await api(gw.url, alice.key, 'POST', '/v1/tasks/cdn-video', { model: 'cdn-1', prompt: target });
    assert.equal(sub.status, 200, `submit (the channel's loopback vendor is reachable): ${JSON.stringify(sub.body)}`);
    const list = await api(gw.url, alice.key, 'GET', `/v1/tasks/${sub.body.id}/artifacts`);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const link = list.body.artifacts[0].content_url as string;
    assert.match(link, /access=/);
    const res = await fetch(link);
    const text = await res.text();
    assert.equal(res.status, 502, `${host}: ${text}`);
    assert.ok(!text.includes(SECRET), `${host}: the internal body reached the user`);
    assert.match(text, /artifact_address_refused|not public/, host);
    const withKey = await api(gw.url, alice.key, 'GET', `/v1/tasks/${sub.body.id}/artifacts/video/content`);
    assert.equal(withKey.status, 502);
    assert.ok(!withKey.raw.toString().includes(SECRET));
  }
  assert.equal(internalHits, 0, 'the internal service was never contacted');
});

test('a marketplace on a loopback address is refused', async () => {
  const admin = await AdminClient.login(gw.url);
  const indexUrl = `http://[::ffff:127.0.0.1]:${internalPort}/index.json`;
  await admin.ok('PUT', '/api/plugin/task/marketplace/sources', [{ name: 'inside', index_url: indexUrl }]);
  const r = await admin.call('POST', '/api/plugin/task/marketplace/install', { source: 'inside', key: 'anything' });
  assert.equal(r.status, 502, r.text);
  assert.ok(!r.text.includes(SECRET));
  const idx = await admin.call('POST', '/api/plugin/task/marketplace/install', {
    index_url: `http://127.1:${internalPort}/index.json`,
    key: 'anything',
  });
  assert.equal(idx.status, 502, idx.text);
  assert.equal(internalHits, 0, 'the internal service was never contacted');
});
