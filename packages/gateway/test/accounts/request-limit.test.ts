/**
 * Model requests per user (RateLimitRequests, set here through its older names, the ModelRequestRateLimit* options): the limit, group overrides, what counts,
 * the 429 in each family's envelope with Retry-After, and with Redis one count across two nodes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import WebSocket from 'ws';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startFakeOpenAI } from '../fakes/upstreams/openai.ts';
import { createCaller, createChannel, setPrice } from '../relay-fixtures.ts';

const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const ask = (gw: TestGateway, key: string) =>
  new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 }).chat.completions.create({
    model: 'rl-model',
    messages: [{ role: 'user', content: 'hi' }],
  });

async function limited(p: Promise<unknown>): Promise<{ status: number; code?: string; retryAfter: number }> {
  try {
    await p;
  } catch (e) {
    const err = e as { status?: number; code?: string; error?: { error?: { type?: string } }; headers?: Headers | Record<string, string> };
    const h = err.headers;
    const ra = h instanceof Headers ? h.get('retry-after') : h?.['retry-after'];
    return { status: err.status ?? 0, code: err.code ?? err.error?.error?.type, retryAfter: Number(ra) };
  }
  assert.fail('the request should have been refused');
}

async function setup(gw: TestGateway) {
  const up = await startFakeOpenAI();
  await createChannel(gw, { baseUrl: up.url, models: ['rl-model'], groups: ['default', 'vip'] });
  await setPrice(gw, 'rl-model', { input: 1, output: 1 });
  return up;
}

test('requests per user: the limit, a group override, reads not counted, 429 in the OpenAI and Anthropic envelopes with Retry-After', async () => {
  const gw = await startTestGateway();
  const up = await setup(gw);
  try {
    const alice = await createCaller(gw, { quota: 10_000_000 });
    const bob = await createCaller(gw, { quota: 10_000_000 });
    const vip = await createCaller(gw, { quota: 10_000_000, group: 'vip' });
    const o = gw.services.admin.options;
    // Off by default.
    for (let i = 0; i < 4; i++) await ask(gw, alice.key);
    await o.set('ModelRequestRateLimitCount', 3);
    await assert.rejects(o.set('ModelRequestRateLimitGroup', '{"vip": "many"}'), /vip/);
    await o.set('ModelRequestRateLimitGroup', '{"vip": 5}');
    await o.set('ModelRequestRateLimitEnabled', true);

    const client = new OpenAI({ apiKey: alice.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    for (let i = 0; i < 3; i++) await ask(gw, alice.key);
    assert.ok((await client.models.list()).data.length > 0, 'model lists do not count');
    const r = await limited(ask(gw, alice.key));
    assert.equal(r.status, 429);
    assert.equal(r.code, 'rate_limit_exceeded');
    assert.ok(r.retryAfter >= 1 && r.retryAfter <= 60, String(r.retryAfter));
    const viaAnthropic = await limited(
      new Anthropic({ apiKey: alice.key, baseURL: gw.url, maxRetries: 0 }).messages.create({
        model: 'rl-model',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    assert.equal(viaAnthropic.status, 429);
    assert.equal(viaAnthropic.code, 'rate_limit_error');
    // A realtime session is a request too: its handshake is refused.
    const handshake = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${gw.url.replace('http', 'ws')}/v1/realtime?model=rl-model`, {
        headers: { authorization: `Bearer ${alice.key}` },
      });
      ws.on('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.on('open', () => {
        resolve(101);
        ws.close();
      });
      ws.on('error', () => {});
    });
    assert.equal(handshake, 429);

    // Another user has their own count; the vip group gets five.
    await ask(gw, bob.key);
    for (let i = 0; i < 5; i++) await ask(gw, vip.key);
    assert.equal((await limited(ask(gw, vip.key))).status, 429);
    // Refused requests never reached the upstream or the ledger.
    assert.equal(up.requests.length, 4 + 3 + 1 + 5);

    // Off again: alice is served.
    await o.set('ModelRequestRateLimitEnabled', false);
    await ask(gw, alice.key);
  } finally {
    await gw.stop();
    await up.close();
  }
});

test("with Redis, one user's requests on two nodes share one count", async () => {
  const env = { REDIS_URL };
  const a = await startTestGateway({ env });
  const b = await startTestGateway({ db: a.db, env });
  const up = await setup(a);
  try {
    const c = await createCaller(a, { quota: 10_000_000 });
    await a.services.admin.options.set('ModelRequestRateLimitCount', 4);
    await a.services.admin.options.set('ModelRequestRateLimitEnabled', true);
    for (
      let i = 0;
      i < 100 &&
      !(
        b.services.relay.channels.all().length &&
        b.services.accounts.rateLimits.requestLimit('default') > 0 &&
        b.services.accounts.keys.size > 0
      );
      i++
    ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(b.services.accounts.rateLimits.requestLimit('default') > 0, 'the options reached node b');
    await ask(a, c.key);
    await ask(b, c.key);
    await ask(a, c.key);
    await ask(b, c.key);
    assert.equal((await limited(ask(a, c.key))).status, 429);
    assert.equal((await limited(ask(b, c.key))).status, 429);
  } finally {
    await b.stop({ keepDb: true });
    await a.stop();
    await up.close();
  }
});
