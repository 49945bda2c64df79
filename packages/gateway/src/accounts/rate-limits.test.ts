import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RateLimiter, resetText, type LimitSubject } from './rate-limits.ts';
import { LocalLimitCounters } from '../platform/limit-counters.ts';
import type { Core } from '../core.ts';
import { Options } from '../options/options.ts';

const log = { warn() {}, info() {}, error() {}, debug() {} };

test('reset times are written as OpenAI writes them', () => {
  assert.equal(resetText(20), '20ms');
  assert.equal(resetText(1500), '1.5s');
  assert.equal(resetText(59_990), '59.99s');
  assert.equal(resetText(60_000), '1m0s');
  assert.equal(resetText(360_000), '6m0s');
  assert.equal(resetText(-5), '0ms');
});

test('local counters: all scopes or none, windows restart, corrections stay in their window, places come back', () => {
  const c = new LocalLimitCounters(1000);
  const key = { id: 'k:1', rpm: 10, tpm: 100, cc: 0 };
  const user = { id: 'u:1', rpm: 2, tpm: 0, cc: 1 };
  const a = c.acquire([key, user], 40, 't1', 0);
  assert.ok(a.ok);
  assert.deepEqual(a.states, [
    { start: 0, requests: 1, tokens: 40, active: 0 },
    { start: 0, requests: 1, tokens: 40, active: 1 },
  ]);
  // The user's one place is taken: refused, and the key counted nothing.
  const b = c.acquire([key, user], 40, 't2', 10);
  assert.deepEqual(b, { ok: false, index: 1, dimension: 'concurrency', state: { start: 0, requests: 1, tokens: 40, active: 1 } });
  c.end([], [], 0, ['u:1']);
  // Tokens: 40 + 70 > 100.
  assert.deepEqual(c.acquire([key], 70, 't3', 20), {
    ok: false,
    index: 0,
    dimension: 'tokens',
    state: { start: 0, requests: 1, tokens: 40, active: 0 },
  });
  // The first call used 5: corrected in its window, then 70 fits.
  c.end(['k:1'], [0], 5 - 40, []);
  assert.ok(c.acquire([key], 70, 't4', 30).ok);
  assert.ok(c.acquire([key, user], 0, 't5', 40).ok);
  assert.deepEqual(c.acquire([key, user], 0, 't6', 50), {
    ok: false,
    index: 1,
    dimension: 'requests',
    state: { start: 0, requests: 2, tokens: 40, active: 1 },
  });
  // A new window: counts start again; a correction for the old window changes nothing.
  const n = c.acquire([key], 1, 't7', 1000);
  assert.ok(n.ok && n.states[0].requests === 1 && n.states[0].tokens === 1);
  c.end(['k:1'], [0], -1, []);
  const m = c.acquire([key], 1, 't8', 1001);
  assert.ok(m.ok && m.states[0].tokens === 2);
});

test('a call nothing limits costs a few property reads: no counter, no Redis, no allocation', () => {
  // Redis is there, and any use of it fails the test.
  const redis = new Proxy(
    {},
    {
      get(_t, p) {
        if (p === 'defineCommand') return () => {};
        if (p === 'then' || p === 'ghLimitAcquire') return undefined;
        throw new Error(`Redis was used: ${String(p)}`);
      },
    },
  );
  const core = { redis, cache: { redisPrefix: 'test:' }, log } as unknown as Core;
  const limiter = new RateLimiter(core, new Options(core));
  const s: LimitSubject = { keyId: 1, userId: 1, group: 'default', keyLimits: null, userLimits: null };
  assert.equal(limiter.admit(s, 'gpt-4o', 1000, null), null);
  assert.equal(limiter.countsTokens(s, 'gpt-4o'), false, 'no tokenizer estimate for a call no tokens-per-minute limit counts');
  const N = 2_000_000;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) limiter.admit(s, 'gpt-4o', i, null);
  const ns = Number(process.hrtime.bigint() - t0) / N;
  // A model call costs milliseconds; this is tens of nanoseconds (a loose bound for busy machines).
  assert.ok(ns < 1000, `${ns.toFixed(1)} ns per check`);
  console.log(`no-limit check: ${ns.toFixed(1)} ns`);
});

test('a limited call on one node: headers, refusal with Retry-After, and its place back when it ends', () => {
  const core = { redis: null, cache: { redisPrefix: null }, log } as unknown as Core;
  const limiter = new RateLimiter(core, new Options(core));
  const s: LimitSubject = {
    keyId: 7,
    userId: 3,
    group: 'default',
    keyLimits: { rpm: 0, tpm: 0, maxConcurrency: 1 },
    userLimits: { rpm: 5, tpm: 1000, maxConcurrency: 0 },
  };
  const headers = new Map<string, string>();
  const sink = { setHeader: (k: string, v: string) => headers.set(k, v) };
  const a = limiter.admit(s, 'm', 300, sink, 0);
  assert.ok(a && !(a instanceof Promise));
  assert.deepEqual(Object.fromEntries(headers), {
    'x-ratelimit-limit-requests': '5',
    'x-ratelimit-remaining-requests': '4',
    'x-ratelimit-reset-requests': '1m0s',
    'x-ratelimit-limit-tokens': '1000',
    'x-ratelimit-remaining-tokens': '700',
    'x-ratelimit-reset-tokens': '1m0s',
    'x-ratelimit-limit-concurrency': '1',
    'x-ratelimit-remaining-concurrency': '0',
  });
  headers.clear();
  assert.throws(
    () => limiter.admit(s, 'm', 300, sink, 1000),
    (e: any) => e.status === 429 && e.code === 'rate_limit_exceeded' && e.retryAfter === 1,
  );
  assert.equal(headers.get('retry-after'), '1');
  a.end(20);
  const b = limiter.admit(s, 'm', 300, sink, 30_000);
  assert.ok(b && !(b instanceof Promise));
  // 20 used by the first call, 300 by this one.
  assert.equal(headers.get('x-ratelimit-remaining-tokens'), '680');
  assert.equal(headers.get('x-ratelimit-reset-tokens'), '30s');
  assert.equal(limiter.countsTokens(s, 'm'), true, "the user's tpm counts the call");
  assert.equal(limiter.countsTokens({ ...s, userLimits: { rpm: 5, tpm: 0, maxConcurrency: 0 } }, 'm'), false);
  b.end(0);
  b.end(500);
  assert.equal(limiter.admit(s, 'm', 0, sink, 31_000) !== null, true, 'ending twice changes nothing');
  assert.equal(headers.get('x-ratelimit-remaining-tokens'), '980');
});

/** Options whose values a test sets. */
class TestOptions extends Options {
  put(values: Record<string, string>): void {
    this.values = new Map(Object.entries(values));
    this.revision++;
  }
}

test('requests per user: RateLimitRequests by group in its window, or its older names, refused with the end of the window', () => {
  const core = { redis: null, cache: { redisPrefix: null }, log } as unknown as Core;
  const o = new TestOptions(core);
  const limiter = new RateLimiter(core, o);
  const refusedAfter = (fn: () => unknown): number => {
    try {
      fn();
    } catch (e) {
      assert.equal((e as { code?: string }).code, 'rate_limit_exceeded');
      return (e as { retryAfter: number }).retryAfter;
    }
    return assert.fail('the request should have been refused');
  };
  // Nothing set: nothing counted.
  for (let i = 0; i < 100; i++) assert.equal(limiter.admitRequest(1, 'default'), undefined);

  o.put({ RateLimitRequests: '{"*": 2, "vip": 3, "free": 0}', RateLimitRequestsWindowSeconds: '120' });
  assert.equal(limiter.requestLimit('default'), 2);
  assert.equal(limiter.requestLimit('vip'), 3);
  limiter.admitRequest(10, 'default');
  limiter.admitRequest(10, 'default');
  const after = refusedAfter(() => limiter.admitRequest(10, 'default'));
  assert.ok(after > 60 && after <= 120, String(after));
  for (let i = 0; i < 3; i++) limiter.admitRequest(11, 'vip');
  refusedAfter(() => limiter.admitRequest(11, 'vip'));
  for (let i = 0; i < 10; i++) limiter.admitRequest(12, 'free');

  // The older names: off until ModelRequestRateLimitEnabled, the count for every group, groups over it,
  // the window in minutes.
  o.put({ ModelRequestRateLimitCount: '1', ModelRequestRateLimitGroup: '{"vip": 2}', ModelRequestRateLimitDurationMinutes: '5' });
  assert.equal(limiter.requestLimit('default'), 0);
  o.put({
    ModelRequestRateLimitEnabled: 'true',
    ModelRequestRateLimitCount: '1',
    ModelRequestRateLimitGroup: '{"vip": 2}',
    ModelRequestRateLimitDurationMinutes: '5',
  });
  assert.deepEqual(limiter.requestLimits().windowMs, 300_000);
  assert.equal(limiter.requestLimit('default'), 1);
  assert.equal(limiter.requestLimit('vip'), 2);
  limiter.admitRequest(20, 'default');
  assert.ok(refusedAfter(() => limiter.admitRequest(20, 'default')) > 240);
  // The current name wins over the older ones.
  o.put({ ModelRequestRateLimitEnabled: 'true', ModelRequestRateLimitCount: '1', RateLimitRequests: '{"*": 5}' });
  assert.equal(limiter.requestLimit('default'), 5);
});
