/**
 * The caller's vendor headers reach an upstream of that vendor and no other: OpenAI's `OpenAI-Beta` and
 * session / client request ids on chat and Responses calls to OpenAI-compatible channels (its prompt
 * cache routes by them), Anthropic's version and betas to Anthropic channels; nothing else the caller
 * sent, and never the caller's own credential.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { startFakeMedia, type FakeMedia } from '../fakes/upstreams/openai-media.ts';
import { startFakeAnthropic } from '../fakes/upstreams/anthropic.ts';
import type { FakeUpstream } from '../fakes/upstreams/common.ts';
import { createCaller, createChannel, setPrice } from '../relay-fixtures.ts';

let gw: TestGateway;
let chat: FakeOpenAI;
let media: FakeMedia;
let ant: FakeUpstream;
let client: OpenAI;
let key: string;

const SENT = {
  'OpenAI-Beta': 'responses=v1',
  session_id: 'sess-123',
  'x-client-request-id': 'creq-9',
  'x-private-thing': 'mine',
  'anthropic-beta': 'context-1m-2025-08-07',
};

before(async () => {
  chat = await startFakeOpenAI();
  media = await startFakeMedia();
  ant = await startFakeAnthropic();
  gw = await startTestGateway();
  await createChannel(gw, { baseUrl: chat.url, models: ['vh-chat'] });
  await createChannel(gw, { baseUrl: media.url, models: ['vh-resp'] });
  await createChannel(gw, { type: 14, baseUrl: ant.url, keys: ['sk-ant'], models: ['vh-claude'] });
  for (const m of ['vh-chat', 'vh-resp', 'vh-claude']) await setPrice(gw, m, { input: 1, output: 1 });
  key = (await createCaller(gw, { quota: 10_000_000 })).key;
  client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0, defaultHeaders: SENT });
});

after(async () => {
  await gw?.stop();
  for (const u of [chat, media, ant]) await u?.close();
});

function checkOpenAIHeaders(h: Record<string, unknown>): void {
  assert.equal(h['openai-beta'], 'responses=v1');
  assert.equal(h.session_id, 'sess-123');
  assert.equal(h['x-client-request-id'], 'creq-9');
  assert.equal(h['x-private-thing'], undefined, 'other caller headers stay at the gateway');
  assert.equal(h['anthropic-beta'], undefined, "another vendor's headers are not sent");
  assert.notEqual(h.authorization, `Bearer ${key}`, "the caller's key never leaves");
}

test('chat completions to an OpenAI-compatible channel carry the OpenAI headers', async () => {
  await client.chat.completions.create({ model: 'vh-chat', messages: [{ role: 'user', content: 'hi' }] });
  checkOpenAIHeaders(chat.requests.at(-1)!.headers);
});

test('Responses to a channel with the Responses API carry them too', async () => {
  await client.responses.create({ model: 'vh-resp', input: 'hi' });
  const r = media.requests.filter((q) => q.path.endsWith('/responses')).at(-1)!;
  checkOpenAIHeaders(r.headers);
});

test('a Responses call converted for an Anthropic channel sends none of the OpenAI headers', async () => {
  await client.responses.create({ model: 'vh-claude', input: 'hi' });
  const h = ant.requests.at(-1)!.headers;
  assert.equal(h['openai-beta'], undefined);
  assert.equal(h.session_id, undefined);
  assert.equal(h['x-private-thing'], undefined);
});
