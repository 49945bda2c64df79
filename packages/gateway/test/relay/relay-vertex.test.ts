/**
 * Vertex AI channels against a loopback Vertex whose token endpoint verifies the service account's
 * signed JWT: Gemini models (generateContent, streamGenerateContent) and Anthropic models (rawPredict,
 * streamRawPredict) through the official OpenAI and Anthropic SDKs, one token exchange shared by every
 * call, a refused token exchanged again, a channel created through the admin API with the key's
 * project, a key that is not a service account refused, and a task plugin whose auth is `vertex_oauth`
 * completing a task with the same credential.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { startFakeVertex, type FakeVertex } from '../fakes/upstreams/vertex.ts';
import { GEMINI_USAGE } from '../fakes/upstreams/gemini.ts';
import { ANTHROPIC_USAGE } from '../fakes/upstreams/anthropic.ts';
import { createCaller, createChannel, setPrice } from '../relay-fixtures.ts';
import { api, createTaskChannel, createUser, installPlugins, setTaskPrice, waitFor } from '../fakes/vendor/fixtures.ts';

let gw: TestGateway;
let vx: FakeVertex;
let caller: { key: string; userId: number; keyId: number };

before(async () => {
  gw = await startTestGateway({ env: { TASK_POLL_INTERVAL_SECONDS: '0.05' } });
  vx = await startFakeVertex();
  await createChannel(gw, {
    type: 41,
    baseUrl: vx.up.url,
    keys: [vx.serviceAccount],
    models: ['gemini-2.5-pro', 'claude-sonnet-4-5'],
    settings: { region: 'us-east5' },
  });
  for (const m of ['gemini-2.5-pro', 'claude-sonnet-4-5']) await setPrice(gw, m, { input: 2, output: 2 });
  caller = await createCaller(gw);
});
after(async () => {
  await gw?.stop();
  await vx?.close();
});

test('Gemini and Claude models on Vertex through the OpenAI SDK, plain and streamed, with one token exchange', async () => {
  const client = new OpenAI({ apiKey: caller.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const before = vx.exchanges;
  const g = await client.chat.completions.create({ model: 'gemini-2.5-pro', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(g.choices[0].message.content, 'Hello from Gemini');
  assert.equal(g.usage?.prompt_tokens, GEMINI_USAGE.promptTokenCount);
  const c = await client.chat.completions.create({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(c.choices[0].message.content, 'Hello from Claude');
  assert.equal(c.usage?.prompt_tokens, ANTHROPIC_USAGE.input_tokens);
  for (const model of ['gemini-2.5-pro', 'claude-sonnet-4-5']) {
    const s = await client.chat.completions.create({
      model,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    let usage = 0;
    for await (const ch of s) {
      text += ch.choices[0]?.delta?.content ?? '';
      if (ch.usage) usage = ch.usage.total_tokens;
    }
    assert.match(text, model.startsWith('claude') ? /Claude/ : /Gemini/);
    assert.ok(usage > 0, `${model}: usage at the end of the stream`);
  }
  assert.equal(vx.exchanges - before, before === 0 ? 1 : 0, 'one token exchange for every call');
  assert.ok(vx.calls.some((p) => p.includes('/publishers/google/models/gemini-2.5-pro:streamGenerateContent')));
  assert.ok(vx.calls.some((p) => p.includes('/publishers/anthropic/models/claude-sonnet-4-5:streamRawPredict')));
  assert.ok(
    vx.calls.every((p) => p.startsWith('/v1/projects/proj-1/locations/us-east5/')),
    'project from the key, location from the settings',
  );
});

test('Claude on Vertex through the Anthropic SDK keeps the Anthropic format', async () => {
  const client = new Anthropic({ apiKey: caller.key, baseURL: gw.url, maxRetries: 0 });
  const m = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(m.content[0].type === 'text' ? m.content[0].text : '', 'Hello from Claude');
  assert.equal(m.usage.input_tokens, ANTHROPIC_USAGE.input_tokens);
});

test('a token the upstream refuses is exchanged again, once', async () => {
  const client = new OpenAI({ apiKey: caller.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  await client.chat.completions.create({ model: 'gemini-2.5-pro', messages: [{ role: 'user', content: 'warm' }] });
  const before = vx.exchanges;
  vx.revokeAll();
  // The refused call may fail (one channel, one key); the next gets a new token.
  await client.chat.completions.create({ model: 'gemini-2.5-pro', messages: [{ role: 'user', content: 'hi' }] }).catch(() => null);
  const g = await client.chat.completions.create({ model: 'gemini-2.5-pro', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(g.choices[0].message.content, 'Hello from Gemini');
  assert.equal(vx.exchanges - before, 1, 'exactly one new exchange');
});

test('a Vertex channel through the admin API; a key that is not a service account is refused', async () => {
  const root = await AdminClient.login(gw.url);
  const other = await startFakeVertex({ project: 'proj-2', region: 'global' });
  try {
    const made = await root.ok('POST', '/api/channel', {
      name: 'vx',
      type: 'vertex',
      base_url: other.up.url,
      keys: [other.serviceAccount],
      models: ['gemini-admin', 'claude-admin'],
    });
    for (const model of ['gemini-admin', 'claude-admin']) {
      const t = await root.ok('POST', `/api/channel/${made.id}/test`, { model });
      assert.equal(t.status, 200, `the channel test of ${model} reaches Vertex with a token: ${JSON.stringify(t)}`);
    }
    assert.ok(
      other.calls.some((p) => p.includes('/publishers/anthropic/models/claude-admin:rawPredict')),
      'the Claude test went to rawPredict',
    );
    other.calls.length = 0;
    await setPrice(gw, 'gemini-admin', { input: 2, output: 2 });
    const client = new OpenAI({ apiKey: caller.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const g = await client.chat.completions.create({ model: 'gemini-admin', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(g.choices[0].message.content, 'Hello from Gemini');
    assert.ok(other.calls[0].startsWith('/v1/projects/proj-2/locations/global/publishers/google/'), other.calls[0]);
    await root.fails(
      400,
      'POST',
      '/api/channel',
      { name: 'vx-bad', type: 'vertex', base_url: other.up.url, keys: ['AIza-not-a-service-account'], models: ['gemini-bad'] },
      'keys[0]',
    );
  } finally {
    await other.close();
  }
});

test('a task plugin with vertex_oauth auth gets a Bearer token and the project of its service-account key', async () => {
  await installPlugins(gw, ['loopback-vertex.js']);
  await createTaskChannel(gw, { name: 'veo', plugin: 'loopback-vertex', baseUrl: vx.up.url, key: vx.serviceAccount, models: ['veo-loop'] });
  await setTaskPrice(gw, 'veo-loop', { expression: 'u("seconds") * 0.01' });
  const u = await createUser(gw, { name: 'veo-user', quota: 1_000_000 });
  const calls = vx.calls.length;
  const r = await api(gw.url, u.key, 'POST', '/v1/tasks/loopback-vertex', { model: 'veo-loop', prompt: 'a cat', seconds: 4 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const done = await waitFor(
    async () => {
      const q = await api(gw.url, u.key, 'GET', `/v1/tasks/${r.body.id}`);
      return q.body.status === 'SUCCESS' || q.body.status === 'FAILURE' ? q.body : null;
    },
    15_000,
    'the Vertex task to finish',
  );
  assert.equal(done.status, 'SUCCESS', JSON.stringify(done));
  const mine = vx.calls.slice(calls);
  assert.ok(mine[0].startsWith('/v1/projects/proj-1/locations/us-east5/publishers/google/models/veo-loop:predictLongRunning'), mine[0]);
  assert.ok(mine.filter((p) => p.endsWith(':fetchPredictOperation')).length >= 2, 'polled with the token until done');
});

test('a task plugin with vertex_oauth auth and a key that is not a service account is refused at submit', async () => {
  // Preferred over the good channel of the test before (the last test of the file).
  await createTaskChannel(gw, {
    name: 'veo-bad',
    plugin: 'loopback-vertex',
    baseUrl: vx.up.url,
    key: 'not-json',
    models: ['veo-loop'],
    priority: 10,
  });
  const u = await createUser(gw, { name: 'veo-bad-user', quota: 1_000_000 });
  const r = await api(gw.url, u.key, 'POST', '/v1/tasks/loopback-vertex', { model: 'veo-loop', prompt: 'a cat' });
  assert.ok(r.status >= 400, JSON.stringify(r.body));
  assert.match(JSON.stringify(r.body), /service-account/);
  assert.doesNotMatch(JSON.stringify(r.body), /not-json/);
});
