import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startVendor, MEDIA, type Vendor } from '../fakes/vendor/server.ts';
import { api, createTaskChannel, createUser, installPlugins, setTaskPrice, type TestUser } from '../fakes/vendor/fixtures.ts';

let gw: TestGateway;
let vendor: Vendor;
let user: TestUser;
let client: OpenAI;

before(async () => {
  vendor = await startVendor();
  gw = await startTestGateway({
    env: {
      TASK_POLL_INTERVAL_SECONDS: '0.05',
      CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true',
      TASK_PLUGIN_PROTOCOL_TICK_MILLISECONDS: '50',
      TASK_PLUGIN_PROTOCOL_HEARTBEAT_SECONDS: '0.2',
    },
  });
  await installPlugins(gw, ['proto-media.js']);
  await createTaskChannel(gw, { name: 'pm', plugin: 'proto-media', baseUrl: vendor.url });
  for (const m of ['pm-img', 'pm-vid', 'pm-resp']) await setTaskPrice(gw, m, { perRequest: 0.01 });
  user = await createUser(gw, { name: 'olivia', quota: 100 * 500_000 });
  client = new OpenAI({ apiKey: user.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await gw?.stop();
  await vendor?.close();
});

test('images.generate waits for the task, polls inside the request, adds b64_json and created', async () => {
  const r = await client.images.generate({ model: 'pm-img', prompt: 'a lighthouse', n: 1, response_format: 'b64_json' });
  assert.equal(typeof r.created, 'number');
  assert.equal(r.data!.length, 1);
  assert.match(r.data![0].url!, /\/media\/.+\.mp4$/);
  assert.equal(Buffer.from(r.data![0].b64_json!, 'base64').equals(MEDIA), true);
  assert.equal(r.data![0].revised_prompt, 'revised: generate');
});

test('images.edit with multipart image[] files; failure is 400 with the reason; unclaimed model is 503', async () => {
  const f1 = await OpenAI.toFile(Buffer.from('one'), 'a.png', { type: 'image/png' });
  const f2 = await OpenAI.toFile(Buffer.from('two'), 'b.png', { type: 'image/png' });
  const r = await client.images.edit({ model: 'pm-img', prompt: 'edit it', image: [f1, f2] });
  assert.equal(r.data![0].revised_prompt, 'revised: edit');
  assert.ok(!('b64_json' in r.data![0]));
  await assert.rejects(client.images.generate({ model: 'pm-img', prompt: 'fail' }), (e: unknown) => {
    assert.ok(e instanceof OpenAI.APIError);
    assert.equal(e.status, 400);
    assert.match(e.message, /content policy violation/);
    return true;
  });
  await assert.rejects(
    client.images.generate({ model: 'pm-img', prompt: '' }),
    (e: unknown) => e instanceof OpenAI.APIError && e.status === 400 && /prompt is required/.test(e.message),
  );
  const none = await api(gw.url, user.key, 'POST', '/v1/images/generations', { model: 'nobody-claims', prompt: 'x' });
  assert.equal(none.status, 503);
  assert.match(none.body.error.message, /nobody-claims/);
});

test('immediate image results are not retained', async () => {
  const r = await client.images.generate({ model: 'pm-img', prompt: 'immediate' });
  assert.match(r.data![0].url!, /\/media\//);
  const rows = await gw.core.h.db.selectFrom('tasks').selectAll().where('model', '=', 'pm-img').orderBy('id', 'desc').limit(1).execute();
  assert.equal(rows[0].status, 'SUCCESS');
  assert.equal(rows[0].retain, 0);
  assert.equal(rows[0].data, null);
});

test('videos.create / retrieve / downloadContent', async () => {
  const v = await client.videos.create({ model: 'pm-vid' as never, prompt: 'waves', seconds: '4' as never });
  assert.match(v.id, /^task_/);
  assert.equal(v.object, 'video');
  assert.equal(v.status, 'queued');
  let got = await client.videos.retrieve(v.id);
  for (let i = 0; i < 200 && got.status !== 'completed'; i++) {
    await new Promise((r) => setTimeout(r, 25));
    got = await client.videos.retrieve(v.id);
  }
  assert.equal(got.status, 'completed');
  assert.equal(got.id, v.id);
  assert.equal(got.model, 'pm-vid');
  assert.equal(got.progress, 100);
  assert.equal(typeof got.completed_at, 'number');
  assert.equal(got.seconds, '4');
  assert.equal((got as unknown as Record<string, unknown>).size, '1280x720');
  const res = await client.videos.downloadContent(v.id);
  assert.equal(Buffer.from(await res.arrayBuffer()).equals(MEDIA), true);
  const head = await fetch(`${gw.url}/v1/videos/${v.id}/content`, { method: 'HEAD', headers: { authorization: `Bearer ${user.key}` } });
  assert.equal(head.status, 200);
  const other = await createUser(gw, { name: 'mallory', quota: 500_000 });
  const stolen = await api(gw.url, other.key, 'GET', `/v1/videos/${v.id}`);
  assert.equal(stolen.status, 404);
});

test('responses: sync waits and renders the final response with artifact URLs', async () => {
  const r = await client.responses.create({ model: 'pm-resp', input: 'a short film' });
  assert.equal(r.status, 'completed');
  assert.match(r.id, /^resp_/);
  assert.match(r.output_text, /^video ready: http.*\/v1\/tasks\/task_.*\/artifacts\/video\/content\?access=/);
  assert.equal((r.metadata as Record<string, string>).vendor, 'loopback');
  const again = await client.responses.retrieve(r.id);
  assert.equal(again.status, 'completed');
  assert.equal(again.output_text, r.output_text);
});

test('responses: stream is host-managed SSE with Responses event names', async () => {
  const stream = await client.responses.create({ model: 'pm-resp', input: 'streamed film', stream: true });
  const types: string[] = [];
  let seq = -1;
  let text = '';
  for await (const ev of stream) {
    types.push(ev.type);
    assert.equal(ev.sequence_number, seq + 1);
    seq = ev.sequence_number;
    if (ev.type === 'response.output_text.delta') text += ev.delta;
  }
  assert.equal(types[0], 'response.created');
  assert.ok(types.includes('response.output_item.added'));
  assert.equal(types.at(-1), 'response.completed');
  assert.match(text, /\/artifacts\/video\/content\?access=/);
});

test('responses: background returns a pending response at once; retrieve later', async () => {
  const r = await client.responses.create({ model: 'pm-resp', input: 'later', background: true });
  assert.equal(r.background, true);
  assert.ok(r.status === 'queued' || r.status === 'in_progress');
  let got = await client.responses.retrieve(r.id);
  for (let i = 0; i < 200 && got.status !== 'completed'; i++) {
    await new Promise((res) => setTimeout(res, 25));
    got = await client.responses.retrieve(r.id);
  }
  assert.equal(got.status, 'completed');
  assert.equal(got.background, true);
  assert.match(got.output_text, /video ready/);
  const sync = await client.responses.create({ model: 'pm-resp', input: 'now' });
  assert.equal((await client.responses.retrieve(sync.id)).background, false);
  await assert.rejects(client.responses.retrieve('resp_doesnotexist'), (e: unknown) => e instanceof OpenAI.APIError && e.status === 404);
});
