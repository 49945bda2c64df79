/**
 * `npm run bench:limits`: what the rate-limit check (packages/gateway/src/accounts/rate-limits.ts)
 * costs a model call — when nothing limits it, with key and user limits counted in memory, and with
 * them counted in Redis (`--redis URL`, default TEST_REDIS_URL or redis://127.0.0.1:6379; `--no-redis`
 * skips it). In process, no gateway: the check alone. Prints a markdown table (docs/benchmarks.md).
 */
import { Redis } from 'ioredis';
import { RateLimiter, type LimitSubject } from '../packages/gateway/src/accounts/rate-limits.ts';
import type { Core } from '../packages/gateway/src/core.ts';
import { Options } from '../packages/gateway/src/options/options.ts';

const args = process.argv.slice(2);
const arg = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : dflt;
};
const log = { warn() {}, info() {}, error() {}, debug() {} };
const none: LimitSubject = { keyId: 1, userId: 1, group: 'default', keyLimits: null, userLimits: null };
const limited: LimitSubject = {
  keyId: 1,
  userId: 1,
  group: 'default',
  keyLimits: { rpm: 1e9, tpm: 1e12, maxConcurrency: 1e6 },
  userLimits: { rpm: 1e9, tpm: 0, maxConcurrency: 0 },
};

function perCall(n: number, f: () => void): number {
  for (let i = 0; i < Math.min(n, 10_000); i++) f();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) f();
  return Number(process.hrtime.bigint() - t0) / n;
}

const rows: Array<[string, string]> = [];
const localCore = { redis: null, cache: { redisPrefix: null }, log } as unknown as Core;
const local = new RateLimiter(localCore, new Options(localCore));
rows.push([
  'no limit applies (the check)',
  `${perCall(5_000_000, () => {
    local.admit(none, 'm', 100, null);
  }).toFixed(0)} ns`,
]);
rows.push([
  'key and user limits, in memory (admit and end)',
  `${(
    perCall(500_000, () => {
      (local.admit(limited, 'm', 100, null) as { end(n: number): void }).end(50);
    }) / 1000
  ).toFixed(2)} µs`,
]);

if (!args.includes('--no-redis')) {
  const redis = new Redis(arg('redis', process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379'), {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
  });
  try {
    await redis.connect();
    const prefix = `gh-bench-${process.pid}:`;
    const redisCore = { redis, cache: { redisPrefix: prefix }, log } as unknown as Core;
    const rl = new RateLimiter(redisCore, new Options(redisCore));
    const N = 2000;
    for (let i = 0; i < 200; i++) await redis.ping();
    let t = process.hrtime.bigint();
    for (let i = 0; i < N; i++) await redis.ping();
    rows.push(['(for scale: one Redis PING round trip)', `${(Number(process.hrtime.bigint() - t) / N / 1000).toFixed(0)} µs`]);
    for (let i = 0; i < 200; i++) (await rl.admit(limited, 'm', 100, null))!.end(50);
    t = process.hrtime.bigint();
    for (let i = 0; i < N; i++) (await rl.admit(limited, 'm', 100, null))!.end(50);
    rows.push([
      'key and user limits, Redis: admission (one script), then the end (one more round trip, not waited for)',
      `${(Number(process.hrtime.bigint() - t) / N / 1000).toFixed(0)} µs`,
    ]);
    rl.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
  } catch (e) {
    rows.push(['Redis', `not measured (${(e as Error).message})`]);
  } finally {
    redis.disconnect();
  }
}

console.log('| rate-limit check per call | time |\n|---|---:|');
for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
