/**
 * What every area is built on: settings, logger, database, cache sync, secrets, the outbound HTTP
 * client, optional Redis.
 */
import type { Redis } from 'ioredis';
import { RedisHealth } from './platform/redis-health.ts';
import type { Config } from './platform/config.ts';
import { createLogger, type Logger } from './platform/logger.ts';
import { SecretBox } from './platform/crypto.ts';
import { openDb, type DbHandle } from './store/db.ts';
import { migrate } from './store/migrations/index.ts';
import { CacheSync } from './cache/sync.ts';
import { Outbound } from './platform/outbound.ts';
import { Metrics } from './platform/metrics.ts';
import { createRequire } from 'node:module';

/** The gateway's version (its package.json). */
export const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

export interface Core {
  config: Config;
  log: Logger;
  h: DbHandle;
  cache: CacheSync;
  secrets: SecretBox;
  redis: Redis | null;
  /** How the Redis connection is doing (platform/redis-health.ts); null without Redis. */
  redisHealth: RedisHealth | null;
  /** The one outbound HTTP client (platform/outbound.ts). */
  outbound: Outbound;
  /** This node's Prometheus metrics (platform/metrics.ts). */
  metrics: Metrics;
  /** Closers run in reverse order on shutdown. */
  onClose(fn: () => Promise<void> | void): void;
  close(): Promise<void>;
}

export async function createCore(config: Config, log?: Logger): Promise<Core> {
  const logger = log ?? createLogger(config.logLevel);
  const h = await openDb(config.databaseUrl, { checkpointer: true });
  await migrate(h);
  const closers: Array<() => Promise<void> | void> = [];
  const cache = new CacheSync(h, logger, config.cacheSyncIntervalMs);
  const metrics = new Metrics({ version, node: config.nodeId }, config.metricsToken !== null);
  let redis: Redis | null = null;
  let redisHealth: RedisHealth | null = null;
  if (config.redisUrl) {
    // Loaded only when configured: a node without Redis never loads the client. A command Redis does
    // not answer in time fails (a hung server must not hold calls): the callers then count on this
    // node (platform/redis-health.ts).
    const { Redis: RedisClient } = await import('ioredis');
    redis = new RedisClient(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2, commandTimeout: config.redisCommandTimeoutMs });
    await redis.connect();
    redisHealth = new RedisHealth(redis, logger, metrics);
    const sub = redis.duplicate();
    await cache.start({ sub, pub: redis });
    closers.push(() => {
      sub.disconnect();
    });
  } else {
    await cache.start();
  }
  const core: Core = {
    config,
    log: logger,
    h,
    cache,
    secrets: new SecretBox(config.cryptoSecret),
    redis,
    redisHealth,
    outbound: new Outbound({ relayTimeoutMs: config.relayTimeoutMs, allowPrivateContent: config.contentAllowPrivateAddresses }),
    metrics,
    onClose: (fn) => closers.push(fn),
    async close() {
      await cache.stop();
      for (const fn of closers.reverse()) {
        try {
          await fn();
        } catch (e) {
          logger.warn({ err: (e as Error).message }, 'close step failed');
        }
      }
      await core.outbound.close();
      core.metrics.close();
      if (redis) redis.disconnect();
      await h.close();
    },
  };
  return core;
}
