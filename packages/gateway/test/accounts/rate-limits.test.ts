/**
 * Rate limits per key and per user (accounts/rate-limits.ts, docs/limits.md): requests and tokens per
 * minute and calls in flight, the 429 in each family's envelope with Retry-After and the x-ratelimit-*
 * headers as the official SDKs see them, on one node and across two nodes sharing Redis.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { startGatedUpstream, type GatedUpstream } from '../fakes/upstreams/gated.ts';
import { createCaller, createChannel, createKey, setPrice, waitFor } from '../relay-fixtures.ts';
import { AdminClient } from '../admin-client.ts';
import type { KeyPrincipal } from '../../src/accounts/types.ts';

const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

const openai = (gw: TestGateway, key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const ask = (gw: TestGateway, key: string, o: { maxTokens?: number; content?: string } = {}) =>
  openai(gw, key)
    .chat.completions.create({
      model: 'rl-model',
      messages: [{ role: 'user', content: o.content ?? 'hi' }],
      ...(o.maxTokens ? { max_tokens: o.maxTokens } : {}),
    })
    .withResponse();

interface Refusal {
  status: number;
  code?: string;
  type?: string;
  headers: Headers;
  message: string;
}

async function refused(p: Promise<unknown>): Promise<Refusal> {
  try {
    await p;
  } catch (e) {
    const err = e as { status?: number; error?: any; headers?: Headers; message: string };
    const body = err.error ?? {};
    return {
      status: err.status ?? 0,
      code: body.code ?? body.error?.details?.error_code,
      type: body.error?.type ?? body.type,
      headers: err.headers instanceof Headers ? err.headers : new Headers(err.headers as unknown as Record<string, string>),
      message: err.message,
    };
  }
  assert.fail('the request should have been refused');
}

async function setup(gw: TestGateway): Promise<{ up: FakeOpenAI; gated: GatedUpstream; admin: AdminClient }> {
  const up = await startFakeOpenAI();
  const gated = await startGatedUpstream();
  await createChannel(gw, { baseUrl: up.url, models: ['rl-model'], groups: ['default', 'vip'] });
  await createChannel(gw, { baseUrl: gated.up.url, models: ['rl-stream'], groups: ['default', 'vip'] });
  await setPrice(gw, 'rl-model', { input: 1, output: 1 });
  await setPrice(gw, 'rl-stream', { input: 1, output: 1 });
  return { up, gated, admin: await AdminClient.login(gw.url) };
}

/** Starts a stream held open by the gated upstream (named `name`); resolves at its first chunk, with its headers. */
async function holdStream(
  gw: TestGateway,
  key: string,
  name: string,
  maxTokens = 100,
): Promise<{ headers: Headers; done: Promise<string> }> {
  const res = await postStream(gw, key, name, maxTokens);
  if (res.status !== 200) assert.fail(`stream ${name}: ${res.status} ${await res.text()}`);
  const reader = res.body!.getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /first/);
  const done = (async () => {
    let text = '';
    for (;;) {
      const c = await reader.read();
      if (c.done) return text;
      text += new TextDecoder().decode(c.value);
    }
  })();
  return { headers: res.headers, done };
}

function postStream(gw: TestGateway, key: string, name: string, maxTokens: number): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'rl-stream', stream: true, max_tokens: maxTokens, messages: [{ role: 'user', content: name }] }),
  });
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** Runs `fn` against one gateway with the upstreams of `setup`. */
async function oneNode(fn: (gw: TestGateway, s: Setup) => Promise<void>): Promise<void> {
  const gw = await startTestGateway();
  const s = await setup(gw);
  try {
    await fn(gw, s);
  } finally {
    await gw.stop();
    await s.up.close();
    await s.gated.up.close();
  }
}

/** Runs `fn` against two gateways sharing one database and Redis. */
async function twoNodes(fn: (a: TestGateway, b: TestGateway, s: Setup) => Promise<void>): Promise<void> {
  const env = { REDIS_URL };
  const a = await startTestGateway({ env });
  const b = await startTestGateway({ db: a.db, env });
  const s = await setup(a);
  try {
    await fn(a, b, s);
  } finally {
    await b.stop({ keepDb: true });
    await a.stop();
    await s.up.close();
    await s.gated.up.close();
  }
}

/** Until both nodes have `key` in their key cache with `ready` true, and both channels. */
function bothNodesKnow(nodes: TestGateway[], key: string, ready: (p: KeyPrincipal, g: TestGateway) => boolean): Promise<boolean> {
  return waitFor(
    () =>
      nodes.every((g) => {
        try {
          return ready(g.services.accounts.keys.authenticate(key, '127.0.0.1'), g) && g.services.relay.channels.all().length === 2;
        } catch {
          return false;
        }
      }),
    5000,
    'both nodes to know the key and the channels',
  );
}

test('requests per minute of a key: headers on every answer, then 429 with Retry-After in the OpenAI, Anthropic and Gemini envelopes, before routing and billing', () =>
  oneNode(async (gw, { up, admin }) => {
    const c = await createCaller(gw, { quota: 10_000_000 });
    // No limit: no headers.
    const free = await ask(gw, c.key);
    assert.equal(free.response.headers.get('x-ratelimit-limit-requests'), null);

    const view = await admin.ok('PUT', `/api/token/${c.keyId}`, { rpm: 3 });
    assert.equal(view.rpm, 3);
    assert.equal(view.tpm, null);
    await waitFor(() => gw.services.accounts.keys.authenticate(c.key, '127.0.0.1').keyLimits?.rpm === 3, 5000, 'the key cache');

    for (let i = 1; i <= 3; i++) {
      const r = await ask(gw, c.key);
      assert.equal(r.response.headers.get('x-ratelimit-limit-requests'), '3');
      assert.equal(r.response.headers.get('x-ratelimit-remaining-requests'), String(3 - i));
      assert.match(r.response.headers.get('x-ratelimit-reset-requests')!, /^(\d+m)?\d+(\.\d+)?m?s$/);
      assert.equal(r.response.headers.get('x-ratelimit-limit-tokens'), null, 'only the limits that apply');
    }
    const upstreamCalls = up.requests.length;
    await waitFor(
      async () => (await gw.core.h.db.selectFrom('open_reserves').select('ref').execute()).length === 0,
      5000,
      'the calls to settle',
    );
    const ledgerRows = (await gw.core.h.db.selectFrom('ledger').select('id').execute()).length;

    const r = await refused(ask(gw, c.key));
    assert.equal(r.status, 429);
    assert.equal(r.code, 'rate_limit_exceeded');
    assert.equal(r.type, 'requests');
    assert.match(r.message, /this API key.*requests per minute.*limit 3/);
    const ra = Number(r.headers.get('retry-after'));
    assert.ok(ra >= 1 && ra <= 60, String(ra));
    assert.equal(r.headers.get('x-ratelimit-remaining-requests'), '0');

    const viaAnthropic = await refused(
      new Anthropic({ apiKey: c.key, baseURL: gw.url, maxRetries: 0 }).messages.create({
        model: 'rl-model',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    assert.equal(viaAnthropic.status, 429);
    assert.equal(viaAnthropic.type, 'rate_limit_error');
    assert.ok(Number(viaAnthropic.headers.get('retry-after')) >= 1);
    assert.equal(viaAnthropic.headers.get('x-ratelimit-limit-requests'), '3');

    const gemini = await fetch(`${gw.url}/v1beta/models/rl-model:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': c.key, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    assert.equal(gemini.status, 429);
    assert.equal(((await gemini.json()) as any).error.status, 'RESOURCE_EXHAUSTED');
    assert.ok(Number(gemini.headers.get('retry-after')) >= 1);

    // Refused calls reached neither the upstream nor the ledger.
    assert.equal(up.requests.length, upstreamCalls);
    assert.equal((await gw.core.h.db.selectFrom('ledger').select('id').execute()).length, ledgerRows);

    // Another key of the same user has its own count; lifting the limit serves the key again.
    const other = await createKey(gw, c.userId);
    await ask(gw, other.key);
    await admin.ok('PUT', `/api/token/${c.keyId}`, { rpm: null });
    await waitFor(() => gw.services.accounts.keys.authenticate(c.key, '127.0.0.1').keyLimits === null, 5000, 'the key cache');
    await ask(gw, c.key);
  }));

test('requests per minute of a user count every key of the user and the playground; the headers show the scope closest to its limit', () =>
  oneNode(async (gw, { admin }) => {
    const c = await createCaller(gw, { quota: 10_000_000 });
    const second = await createKey(gw, c.userId);
    await admin.ok('PUT', `/api/user/${c.userId}`, { rpm: 4 });
    await admin.ok('PUT', `/api/token/${c.keyId}`, { rpm: 10 });
    await waitFor(() => gw.services.accounts.keys.authenticate(second.key, '127.0.0.1').userLimits?.rpm === 4, 5000, 'the key cache');
    const a = await ask(gw, c.key);
    // Key: 9 left of 10; user: 3 left of 4 — the user's is shown.
    assert.equal(a.response.headers.get('x-ratelimit-limit-requests'), '4');
    assert.equal(a.response.headers.get('x-ratelimit-remaining-requests'), '3');
    await ask(gw, second.key);
    await ask(gw, c.key);
    await ask(gw, second.key);
    const r = await refused(ask(gw, c.key));
    assert.equal(r.status, 429);
    assert.match(r.message, /this user/);
    assert.equal((await refused(ask(gw, second.key))).status, 429);
    // The refusal by the user's limit took nothing from the key's count: 10 - 2 calls made with it.
    await admin.ok('PUT', `/api/user/${c.userId}`, { rpm: 0 });
    await waitFor(() => gw.services.accounts.keys.authenticate(c.key, '127.0.0.1').userLimits === null, 5000, 'the key cache');
    const after = await ask(gw, c.key);
    assert.equal(after.response.headers.get('x-ratelimit-remaining-requests'), String(10 - 3));

    // The playground (a login, no key) counts towards the user's limit.
    const root = await gw.services.admin.users.findByUsername('root');
    await admin.ok('PUT', `/api/user/${root!.id}`, { rpm: 2 });
    await admin.ok('POST', `/api/user/${root!.id}/quota`, { mode: 'add', amount: 10_000_000 });
    await waitFor(() => gw.services.accounts.keys.userPolicy(Number(root!.id)).limits?.rpm === 2, 5000, 'the user limits');
    const pg = () =>
      fetch(`${gw.url}/pg/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'rl-model', messages: [{ role: 'user', content: 'hi' }] }),
      });
    const one = await pg();
    assert.equal(one.status, 200);
    assert.equal(one.headers.get('x-ratelimit-remaining-requests'), '1');
    assert.equal((await pg()).status, 200);
    const third = await pg();
    assert.equal(third.status, 429);
    assert.equal(((await third.json()) as any).error.code, 'rate_limit_exceeded');
    assert.ok(Number(third.headers.get('retry-after')) >= 1);
  }));

test('tokens per minute: counted from the reserve estimate at admission, corrected to the usage at settle; a request larger than the limit is refused', () =>
  oneNode(async (gw, { up, gated, admin }) => {
    const c = await createCaller(gw, { quota: 100_000_000 });
    await admin.ok('PUT', `/api/token/${c.keyId}`, { tpm: 2000 });
    await waitFor(() => gw.services.accounts.keys.authenticate(c.key, '127.0.0.1').keyLimits?.tpm === 2000, 5000, 'the key cache');

    const first = await ask(gw, c.key, { maxTokens: 300 });
    assert.equal(first.response.headers.get('x-ratelimit-limit-tokens'), '2000');
    const estimate = 2000 - Number(first.response.headers.get('x-ratelimit-remaining-tokens'));
    // The estimate: the body's bytes and overhead (an upper bound of the input) and max_tokens.
    assert.ok(estimate > 300 && estimate < 600, String(estimate));
    // Settled at the usage the upstream reported (11 + 7 tokens): the next call sees 18 used, not the estimate.
    const second = await ask(gw, c.key, { maxTokens: 300 });
    assert.equal(Number(second.response.headers.get('x-ratelimit-remaining-tokens')), 2000 - 18 - estimate);

    // Larger than the limit by itself: refused whatever the window holds.
    const big = await refused(ask(gw, c.key, { maxTokens: 2500 }));
    assert.equal(big.status, 429);
    assert.equal(big.type, 'tokens');
    assert.match(big.message, /request too large/);

    // In flight, calls hold their estimates: streams of about 1,100 tokens each, one fits in what is left.
    const s1 = await holdStream(gw, c.key, 'tpm-1', 1000);
    const left = Number(s1.headers.get('x-ratelimit-remaining-tokens'));
    assert.ok(left < 1000, String(left));
    const r = await postStream(gw, c.key, 'tpm-2', 1000);
    assert.equal(r.status, 429);
    assert.equal(((await r.json()) as any).error.type, 'tokens');
    const n = up.requests.length;
    // The gated upstream reports 1,000 + 2,000 tokens, beyond the estimate: the minute is over its limit after the correction.
    gated.open('tpm-1');
    await s1.done;
    const over = await refused(ask(gw, c.key, { maxTokens: 10 }));
    assert.equal(over.status, 429);
    assert.equal(over.type, 'tokens');
    assert.equal(over.headers.get('x-ratelimit-remaining-tokens'), '0');
    assert.equal(up.requests.length, n);
  }));

test('calls in flight: streams count until they end; the next call is admitted once one has ended', () =>
  oneNode(async (gw, { up, gated, admin }) => {
    const c = await createCaller(gw, { quota: 100_000_000 });
    await admin.ok('PUT', `/api/token/${c.keyId}`, { max_concurrency: 2 });
    await waitFor(() => gw.services.accounts.keys.authenticate(c.key, '127.0.0.1').keyLimits?.maxConcurrency === 2, 5000, 'the key cache');
    const a = await holdStream(gw, c.key, 'cc-a');
    assert.equal(a.headers.get('x-ratelimit-limit-concurrency'), '2');
    assert.equal(a.headers.get('x-ratelimit-remaining-concurrency'), '1');
    const b = await holdStream(gw, c.key, 'cc-b');
    assert.equal(b.headers.get('x-ratelimit-remaining-concurrency'), '0');
    const r = await refused(ask(gw, c.key));
    assert.equal(r.status, 429);
    assert.equal(r.type, 'concurrency');
    assert.equal(r.headers.get('retry-after'), '1');
    assert.match(r.message, /2 calls at once/);
    gated.open('cc-a');
    await a.done;
    await waitFor(
      async () => {
        try {
          await ask(gw, c.key);
          return true;
        } catch {
          return false;
        }
      },
      5000,
      'the slot to be given back',
    );
    // A call that failed (its upstream answered 500) gives its place back too.
    gated.open('cc-b');
    await b.done;
    const x = await holdStream(gw, c.key, 'cc-c');
    up.override = (_r, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"down"}}');
      return true;
    };
    const failed = await refused(ask(gw, c.key));
    assert.equal(failed.status, 502);
    assert.equal(failed.headers.get('x-ratelimit-remaining-concurrency'), '0', 'the failed call held the second place while it ran');
    up.override = null;
    const y = await holdStream(gw, c.key, 'cc-d');
    gated.open('cc-c');
    gated.open('cc-d');
    await Promise.all([x.done, y.done]);
  }));

test('with Redis, two nodes share one count: requests, tokens and calls in flight of a key and a user', () =>
  twoNodes(async (a, b, { gated, admin }) => {
    const c = await createCaller(a, { quota: 100_000_000 });
    await admin.ok('PUT', `/api/token/${c.keyId}`, { rpm: 5, max_concurrency: 1 });
    await bothNodesKnow([a, b], c.key, (p) => p.keyLimits?.rpm === 5);
    await ask(a, c.key);
    await ask(b, c.key);
    // One call in flight on node a: node b refuses the second.
    const s = await holdStream(a, c.key, 'mn-1');
    const busy = await refused(ask(b, c.key));
    assert.equal(busy.status, 429);
    assert.equal(busy.type, 'concurrency');
    gated.open('mn-1');
    await s.done;
    await waitFor(
      async () => {
        try {
          await ask(b, c.key);
          return true;
        } catch {
          return false;
        }
      },
      5000,
      'the slot to be given back',
    );
    // 4 requests admitted so far (the refusal counted nothing): one more on either node, then none.
    await ask(a, c.key);
    const r1 = await refused(ask(a, c.key));
    const r2 = await refused(ask(b, c.key));
    assert.equal(r1.status, 429);
    assert.equal(r2.status, 429);
    assert.equal(r2.type, 'requests');

    // Tokens of a user, across the nodes: each call's estimate is taken from one shared minute.
    const u = await createCaller(a, { quota: 100_000_000 });
    await admin.ok('PUT', `/api/user/${u.userId}`, { tpm: 1500 });
    await bothNodesKnow([a, b], u.key, (p) => p.userLimits?.tpm === 1500);
    const h1 = await holdStream(a, u.key, 'mn-t1', 500);
    const est = 1500 - Number(h1.headers.get('x-ratelimit-remaining-tokens'));
    const h2 = await holdStream(b, u.key, 'mn-t2', 500);
    assert.equal(Number(h2.headers.get('x-ratelimit-remaining-tokens')), 1500 - 2 * est);
    const third = await postStream(a, u.key, 'mn-t3', 500);
    assert.equal(third.status, 429);
    await third.body?.cancel();
    gated.open('mn-t1');
    gated.open('mn-t2');
    await Promise.all([h1.done, h2.done]);
  }));

test('many calls at once on two nodes never pass a limit (the count is atomic in Redis)', () =>
  twoNodes(async (a, b, { up, admin }) => {
    const c = await createCaller(a, { quota: 100_000_000 });
    await admin.ok('PUT', `/api/token/${c.keyId}`, { rpm: 7 });
    await bothNodesKnow([a, b], c.key, (p) => p.keyLimits?.rpm === 7);
    const before = up.requests.length;
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => ask(i % 2 ? a : b, c.key)));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 7);
    assert.equal(up.requests.length - before, 7);
  }));

test('limits per model for each user (RateLimitModels), replaced for a group (RateLimitGroups); invalid values are refused', () =>
  oneNode(async (gw, { up, gated, admin }) => {
    const o = gw.services.admin.options;
    await assert.rejects(o.set('RateLimitModels', '{"rl-model": {"rpm": "many"}}'), /rl-model\.rpm/);
    await assert.rejects(o.set('RateLimitModels', '{"rl-model": {"rps": 1}}'), /unknown limit "rps"/);
    await assert.rejects(o.set('RateLimitGroups', '{"vip": 5}'), /vip/);
    const bad = await admin.fails(400, 'PUT', '/api/option', { key: 'RateLimitModels', value: '[1]' });
    assert.match(bad.body.message, /must be a JSON object of model names to limits/);
    await admin.ok('PUT', '/api/option', { key: 'RateLimitModels', value: '{"rl-model": {"rpm": 2}, "*": {"max_concurrency": 1}}' });
    await o.set('RateLimitGroups', JSON.stringify({ vip: { 'rl-model': { rpm: 3 }, '*': {} } }));
    const alice = await createCaller(gw, { quota: 10_000_000 });
    const bob = await createCaller(gw, { quota: 10_000_000 });
    const vip = await createCaller(gw, { quota: 10_000_000, group: 'vip' });
    await waitFor(() => gw.services.accounts.rateLimits.modelLimits('vip', 'rl-model')?.rpm === 3, 5000, 'the options');

    const first = await ask(gw, alice.key);
    assert.equal(first.response.headers.get('x-ratelimit-limit-requests'), '2');
    await ask(gw, alice.key);
    const r = await refused(ask(gw, alice.key));
    assert.equal(r.status, 429);
    assert.match(r.message, /model "rl-model" for this user/);
    // Each user has their own count of the model; the vip group has its own limit.
    await ask(gw, bob.key);
    for (let i = 0; i < 3; i++) await ask(gw, vip.key);
    assert.equal((await refused(ask(gw, vip.key))).status, 429);

    // "*": every other model, one call at a time per user; the vip group's "*" lifts it.
    const s = await holdStream(gw, alice.key, 'model-a');
    assert.equal(s.headers.get('x-ratelimit-limit-concurrency'), '1');
    const busy = await postStream(gw, alice.key, 'model-b', 100);
    assert.equal(busy.status, 429);
    await busy.body?.cancel();
    const other = await holdStream(gw, bob.key, 'model-c');
    const v1 = await holdStream(gw, vip.key, 'model-d');
    const v2 = await holdStream(gw, vip.key, 'model-e');
    assert.equal(v2.headers.get('x-ratelimit-limit-concurrency'), null);
    for (const n of ['model-a', 'model-c', 'model-d', 'model-e']) gated.open(n);
    await Promise.all([s.done, other.done, v1.done, v2.done]);
    assert.equal(up.requests.filter((x) => x.body?.model === 'rl-model').length, 2 + 1 + 3);
  }));

test("with Redis, a model's tokens per minute for a user are one count on two nodes", () =>
  twoNodes(async (a, b, { gated }) => {
    const c = await createCaller(a, { quota: 100_000_000 });
    await a.services.admin.options.set('RateLimitModels', '{"rl-stream": {"tpm": 1500, "rpm": 10}}');
    await bothNodesKnow([a, b], c.key, (_p, g) => g.services.accounts.rateLimits.modelLimits('default', 'rl-stream')?.tpm === 1500);
    const h1 = await holdStream(a, c.key, 'mt-1', 500);
    assert.equal(h1.headers.get('x-ratelimit-remaining-requests'), '9');
    const est = 1500 - Number(h1.headers.get('x-ratelimit-remaining-tokens'));
    const h2 = await holdStream(b, c.key, 'mt-2', 500);
    assert.equal(h2.headers.get('x-ratelimit-remaining-requests'), '8');
    assert.equal(Number(h2.headers.get('x-ratelimit-remaining-tokens')), 1500 - 2 * est);
    const third = await postStream(a, c.key, 'mt-3', 500);
    assert.equal(third.status, 429);
    assert.equal(((await third.json()) as any).error.type, 'tokens');
    // The other model is not limited.
    await ask(b, c.key);
    gated.open('mt-1');
    gated.open('mt-2');
    await Promise.all([h1.done, h2.done]);
  }));
