/**
 * Balancing strategies and per-channel caps (docs/relay.md#routing-policies), against loopback vendors
 * of known load and speed: `least_busy` sends calls away from a channel holding open streams, `latency`
 * prefers the fast vendor and comes back to a slow one that recovered (exploration), `cost` takes the
 * cheapest channel of the top tier; a channel at its `max_concurrency` is skipped (not failed), and one
 * whose `max_input_tokens` a prompt passes is skipped.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { beginStream, startGatedUpstream, type GatedUpstream } from '../fakes/upstreams/gated.ts';
import { sleep, type FakeUpstream } from '../fakes/upstreams/common.ts';
import { consumeLog, createCaller, createChannel, setPrice } from '../relay-fixtures.ts';

let gw: TestGateway;
let root: AdminClient;
const ups: FakeUpstream[] = [];

before(async () => {
  gw = await startTestGateway();
  root = await AdminClient.login(gw.url);
});
after(async () => {
  await gw?.stop();
  await Promise.all(ups.map((f) => f.close()));
});

async function fake(): Promise<FakeOpenAI> {
  const f = await startFakeOpenAI();
  ups.push(f);
  return f;
}
async function gated(): Promise<GatedUpstream> {
  const g = await startGatedUpstream();
  ups.push(g.up);
  return g;
}

const routing: Record<string, Record<string, string>> = { default: {} };
/** Sets a model's strategy through the admin API (the configuration file's `routing:`). */
async function strategy(model: string, s: string): Promise<void> {
  routing.default[model] = s;
  await root.ok('PUT', '/api/option', { options: { ChannelRouting: routing } });
}

/** A channel made through the admin API, as an operator would. */
async function channel(body: Record<string, unknown>): Promise<number> {
  const made = await root.ok<{ id: number }>('POST', '/api/channel', {
    name: `bal-${Math.random().toString(36).slice(2, 10)}`,
    type: 'openai',
    keys: ['sk-upstream'],
    ...body,
  });
  return made.id;
}

const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const ask = (key: string, model: string, content = 'hi') =>
  client(key).chat.completions.create({ model, messages: [{ role: 'user', content }] });
/** A stream whose gate is open already: it ends at once. */
async function quickStream(g: GatedUpstream[], key: string, model: string, name: string): Promise<void> {
  for (const x of g) x.open(name);
  const s = await beginStream(gw.url, key, name, model);
  await s.rest;
}
const namesOn = (g: GatedUpstream) => g.up.requests.map((r) => String(r.body.messages.at(-1).content));

test('least_busy: calls go to the channel with fewer calls in flight', async () => {
  const a = await gated();
  const b = await gated();
  await createChannel(gw, { baseUrl: a.up.url, models: ['lb-model'] });
  await createChannel(gw, { baseUrl: b.up.url, models: ['lb-model'] });
  await setPrice(gw, 'lb-model', { input: 1, output: 1 });
  await strategy('lb-model', 'least_busy');
  const c = await createCaller(gw, { quota: 100_000_000 });
  // Four streams held open: least_busy spreads them two and two.
  const held = [];
  for (let i = 0; i < 4; i++) held.push(await beginStream(gw.url, c.key, `lb-held-${i}`, 'lb-model'));
  assert.equal(a.up.requests.length, 2);
  assert.equal(b.up.requests.length, 2);
  // B's two end: A holds two calls, B none; 200 calls in a row all go to B.
  const onB = namesOn(b);
  for (const n of onB) b.open(n);
  for (const h of held.filter((_, i) => onB.includes(`lb-held-${i}`))) await h.rest;
  for (const h of held.filter((_, i) => onB.includes(`lb-held-${i}`))) await consumeLog(gw, h.requestId);
  for (let i = 0; i < 200; i++) await quickStream([a, b], c.key, 'lb-model', `lb-quick-${i}`);
  assert.equal(a.up.requests.length, 2, 'the busy channel got none of the 200');
  assert.equal(b.up.requests.length, 202);
  for (const n of namesOn(a)) a.open(n);
});

test('latency: the fast vendor takes most calls; a slow one that recovered is found again by exploration', async () => {
  const slow = await fake();
  const fast = await fake();
  const delay = (up: FakeUpstream, ms: number) => {
    up.override = async () => {
      await sleep(ms);
      return false;
    };
  };
  delay(slow, 120);
  await createChannel(gw, { baseUrl: slow.url, models: ['lat-model'] });
  await createChannel(gw, { baseUrl: fast.url, models: ['lat-model'] });
  await setPrice(gw, 'lat-model', { input: 1, output: 1 });
  await strategy('lat-model', 'latency');
  const c = await createCaller(gw, { quota: 100_000_000 });
  for (let i = 0; i < 200; i++) await ask(c.key, 'lat-model');
  assert.ok(fast.requests.length >= 170, `the fast vendor served ${fast.requests.length} of 200`);
  assert.ok(slow.requests.length >= 10, `exploration measured the slow vendor again (${slow.requests.length} calls)`);
  // The slow vendor recovers and the fast one slows down: within a few explorations the calls move back.
  slow.override = null;
  delay(fast, 120);
  const before = slow.requests.length;
  for (let i = 0; i < 100; i++) await ask(c.key, 'lat-model');
  const recovered = slow.requests.length - before;
  assert.ok(recovered >= 60, `the recovered vendor served ${recovered} of the next 100`);
  fast.override = null;
});

test('cost: the cheapest channel of the top priority tier', async () => {
  const dear = await fake();
  const cheap = await fake();
  const cheaperLowTier = await fake();
  await channel({ base_url: dear.url, models: ['cost-model'], priority: 5, settings: { cost_ratio: 2 } });
  await channel({ base_url: cheap.url, models: ['cost-model'], priority: 5, settings: { cost_ratio: 0.8 } });
  await channel({ base_url: cheaperLowTier.url, models: ['cost-model'], priority: 0, settings: { cost_ratio: 0.1 } });
  await setPrice(gw, 'cost-model', { input: 1, output: 1 });
  await strategy('cost-model', 'cost');
  const c = await createCaller(gw, { quota: 100_000_000 });
  for (let i = 0; i < 200; i++) await ask(c.key, 'cost-model');
  assert.equal(cheap.requests.length, 200);
  assert.equal(dear.requests.length, 0);
  assert.equal(cheaperLowTier.requests.length, 0, 'a lower tier is not used while the top one serves');
  // The strategy of a model without its own entry: `priority` (weighted random over both channels).
  const priorityRouted = await fake();
  const other = await fake();
  await channel({ base_url: priorityRouted.url, models: ['cost-unlisted'], priority: 5, settings: { cost_ratio: 2 } });
  await channel({ base_url: other.url, models: ['cost-unlisted'], priority: 5, settings: { cost_ratio: 0.5 } });
  await setPrice(gw, 'cost-unlisted', { input: 1, output: 1 });
  for (let i = 0; i < 200; i++) await ask(c.key, 'cost-unlisted');
  assert.ok(priorityRouted.requests.length > 50 && other.requests.length > 50, 'both drawn by weight');
});

test('max_concurrency: a full channel is skipped, not failed, and serves again once a call ends', async () => {
  const capped = await gated();
  const spare = await gated();
  const cappedId = await channel({ base_url: capped.up.url, models: ['cap-model'], priority: 10, max_concurrency: 1 });
  await channel({ base_url: spare.up.url, models: ['cap-model'], priority: 0 });
  const view = await root.ok<{ max_concurrency: number; max_input_tokens: number }>('GET', `/api/channel/${cappedId}`);
  assert.equal(view.max_concurrency, 1);
  assert.equal(view.max_input_tokens, 0);
  await setPrice(gw, 'cap-model', { input: 1, output: 1 });
  const c = await createCaller(gw, { quota: 100_000_000 });
  const held = await beginStream(gw.url, c.key, 'cap-held', 'cap-model');
  assert.equal(capped.up.requests.length, 1, 'the higher tier serves first');
  for (let i = 0; i < 20; i++) await quickStream([capped, spare], c.key, 'cap-model', `cap-quick-${i}`);
  assert.equal(capped.up.requests.length, 1, 'the full channel was skipped');
  assert.equal(spare.up.requests.length, 20);
  capped.open('cap-held');
  await held.rest;
  await consumeLog(gw, held.requestId);
  await quickStream([capped, spare], c.key, 'cap-model', 'cap-after');
  assert.equal(capped.up.requests.length, 2, 'the channel serves again once its call ended');
});

test('max_input_tokens: a prompt longer than a channel takes skips it (and falls back when no channel of the model takes it)', async () => {
  const small = await fake();
  const big = await fake();
  await channel({ base_url: small.url, models: ['mit-model'], priority: 10, max_input_tokens: 200 });
  await channel({ base_url: big.url, models: ['mit-model'], priority: 0 });
  await setPrice(gw, 'mit-model', { input: 1, output: 1 });
  const c = await createCaller(gw, { quota: 100_000_000 });
  await ask(c.key, 'mit-model', 'short');
  assert.equal(small.requests.length, 1);
  await ask(c.key, 'mit-model', 'x'.repeat(4000));
  assert.equal(small.requests.length, 1, 'the long prompt skipped the capped channel');
  assert.equal(big.requests.length, 1);
  // A model whose only channel is too small for the prompt: the call falls back on context_length.
  const only = await fake();
  const larger = await fake();
  await channel({ base_url: only.url, models: ['mit-only'], max_input_tokens: 200 });
  await channel({ base_url: larger.url, models: ['mit-larger'] });
  await setPrice(gw, 'mit-only', { input: 1, output: 1 });
  await setPrice(gw, 'mit-larger', { input: 1, output: 1 });
  await root.ok('PUT', '/api/option', { options: { ModelFallbacks: { 'mit-only': [{ model: 'mit-larger', on: ['context_length'] }] } } });
  const r = await client(c.key)
    .chat.completions.create({ model: 'mit-only', messages: [{ role: 'user', content: 'y'.repeat(4000) }] })
    .withResponse();
  assert.equal(r.response.headers.get('x-gatehouse-model'), 'mit-larger');
  assert.equal(only.requests.length, 0);
  assert.equal(larger.requests.length, 1);
});

test('routing is checked when set: an unknown strategy is refused', async () => {
  const r = await root.call('PUT', '/api/option', { options: { ChannelRouting: { default: { '*': 'fastest' } } } });
  assert.equal(r.status, 400);
  assert.match(r.text, /must be one of priority, least_busy, latency, cost/);
  const neg = await root.call('POST', '/api/channel', { name: 'bal-neg', type: 'openai', keys: ['k'], models: ['m'], max_concurrency: -1 });
  assert.equal(neg.status, 400);
  assert.match(neg.text, /max_concurrency/);
});
