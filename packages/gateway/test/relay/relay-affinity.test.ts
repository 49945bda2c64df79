/**
 * Session affinity: calls of one conversation (OpenAI `prompt_cache_key`, a `session_id` header,
 * Anthropic `metadata.user_id`) stick to the channel that served it, so the vendor's prompt cache hits;
 * the conversation moves on when that channel fails, and with Redis every node knows where it sticks.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { createTestDatabase, startTestGateway, type TestGateway } from '../harness.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { startFakeAnthropic } from '../fakes/upstreams/anthropic.ts';
import { json, type FakeUpstream } from '../fakes/upstreams/common.ts';
import { createCaller, createChannel, setPrice, waitFor } from '../relay-fixtures.ts';

const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
let gw: TestGateway;
let a: FakeOpenAI;
let b: FakeOpenAI;
let antA: FakeUpstream;
let antB: FakeUpstream;
let client: OpenAI;
let key: string;

before(async () => {
  [a, b, antA, antB] = await Promise.all([startFakeOpenAI(), startFakeOpenAI(), startFakeAnthropic(), startFakeAnthropic()]);
  gw = await startTestGateway({ env: { RELAY_PROBE_INTERVAL_SECONDS: '3600' } });
  await createChannel(gw, { baseUrl: a.url, models: ['aff-model'], name: 'A' });
  await createChannel(gw, { baseUrl: b.url, models: ['aff-model'], name: 'B' });
  await createChannel(gw, { type: 14, baseUrl: antA.url, keys: ['sk-ant'], models: ['aff-claude'] });
  await createChannel(gw, { type: 14, baseUrl: antB.url, keys: ['sk-ant'], models: ['aff-claude'] });
  await setPrice(gw, 'aff-model', { input: 1, output: 1 });
  await setPrice(gw, 'aff-claude', { input: 1, output: 1 });
  key = (await createCaller(gw, { quota: 100_000_000 })).key;
  client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await gw?.stop();
  for (const u of [a, b, antA, antB]) await u?.close();
});

const served = (...ups: FakeUpstream[]) => ups.map((u) => u.requests.length);

test('one prompt_cache_key sticks to one channel; calls without one are spread', async () => {
  const before = served(a, b);
  for (let i = 0; i < 20; i++) {
    await client.chat.completions.create({
      model: 'aff-model',
      messages: [{ role: 'user', content: `turn ${i}` }],
      prompt_cache_key: 'conv-1',
    });
  }
  const after1 = served(a, b);
  const got = [after1[0] - before[0], after1[1] - before[1]];
  assert.ok(got.includes(20) && got.includes(0), `all 20 turns on one channel (${got})`);
  // Without a conversation name, 40 calls land on both equal channels (1 in 2^39 that they do not).
  for (let i = 0; i < 40; i++) await client.chat.completions.create({ model: 'aff-model', messages: [{ role: 'user', content: 'x' }] });
  const after2 = served(a, b);
  assert.ok(after2[0] > after1[0] && after2[1] > after1[1], `spread (${after2})`);
});

test('a session_id header and Anthropic metadata.user_id name conversations too', async () => {
  const withSession = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0, defaultHeaders: { session_id: 'sess-7' } });
  const before = served(a, b);
  for (let i = 0; i < 12; i++)
    await withSession.chat.completions.create({ model: 'aff-model', messages: [{ role: 'user', content: 'x' }] });
  const after = served(a, b);
  assert.ok([after[0] - before[0], after[1] - before[1]].includes(12));

  const ant = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
  const b0 = served(antA, antB);
  for (let i = 0; i < 12; i++)
    await ant.messages.create({
      model: 'aff-claude',
      max_tokens: 50,
      metadata: { user_id: 'user_x_session_42' },
      messages: [{ role: 'user', content: 'hi' }],
    });
  const b1 = served(antA, antB);
  assert.ok([b1[0] - b0[0], b1[1] - b0[1]].includes(12));
});

test('when the sticky channel fails the conversation moves to the other and stays there', async () => {
  await client.chat.completions.create({
    model: 'aff-model',
    messages: [{ role: 'user', content: 'first' }],
    prompt_cache_key: 'conv-move',
  });
  const sticky = a.requests.at(-1)?.body?.prompt_cache_key === 'conv-move' ? a : b;
  const other = sticky === a ? b : a;
  sticky.override = (_r, res) => {
    json(res, 500, { error: { message: 'down', type: 'server_error' } });
    return true;
  };
  try {
    const n = other.requests.length;
    await client.chat.completions.create({
      model: 'aff-model',
      messages: [{ role: 'user', content: 'second' }],
      prompt_cache_key: 'conv-move',
    });
    assert.equal(other.requests.length, n + 1, 'failed over');
  } finally {
    sticky.override = null;
  }
  const n = other.requests.length;
  for (let i = 0; i < 8; i++)
    await client.chat.completions.create({
      model: 'aff-model',
      messages: [{ role: 'user', content: 'again' }],
      prompt_cache_key: 'conv-move',
    });
  assert.equal(other.requests.length, n + 8, 'stays on the channel that served it last');
});

test('with Redis, two nodes send one conversation to the same channel', async () => {
  const db = await createTestDatabase();
  const env = { REDIS_URL, RELAY_PROBE_INTERVAL_SECONDS: '3600' };
  const n1 = await startTestGateway({ db, env });
  let n2: TestGateway | null = null;
  try {
    n2 = await startTestGateway({ db, env });
    await createChannel(n1, { baseUrl: a.url, models: ['aff-multi'] });
    await createChannel(n1, { baseUrl: b.url, models: ['aff-multi'] });
    await setPrice(n1, 'aff-multi', { input: 1, output: 1 });
    const c = await createCaller(n1, { quota: 10_000_000 });
    await waitFor(() => n2!.services.relay.channels.candidates('default', 'aff-multi').length === 2, 5000, 'both channels on node 2');
    await waitFor(() => n2!.services.accounts.keys.size > 0, 5000, 'the key on node 2');
    const clients = [n1, n2].map((n) => new OpenAI({ apiKey: c.key, baseURL: `${n.url}/v1`, maxRetries: 0 }));
    // Eight conversations of four turns, alternating nodes: each conversation stays on one channel
    // (without a shared store each node would choose for itself: 1 in 2^8 that all eight agree anyway).
    for (let k = 0; k < 8; k++) {
      const where: string[] = [];
      for (let i = 0; i < 4; i++) {
        const before = served(a, b);
        await clients[i % 2].chat.completions.create({
          model: 'aff-multi',
          messages: [{ role: 'user', content: 'x' }],
          prompt_cache_key: `shared-${k}`,
        });
        const after = served(a, b);
        where.push(after[0] > before[0] ? 'A' : 'B');
      }
      assert.equal(new Set(where).size, 1, `conversation ${k} went to ${where.join(',')}`);
    }
  } finally {
    await n2?.stop({ keepDb: true });
    await n1.stop();
  }
});
