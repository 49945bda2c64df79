/**
 * How the Redis connection is doing, as the code that shares state through it sees it (docs/limits.md#when-redis-fails).
 * Rate limits, the login and other throttles, the per-user request limit and session affinity keep
 * their counts in Redis when it is configured; when it fails they go on with this node's own counts
 * (`usable` false: they do not even send the command) rather than admitting calls uncounted or
 * refusing them. Money never depends on Redis: balances, budgets and quota holds live in the database.
 *
 * A command fails when the connection is down (ioredis reconnects in the background) or when Redis
 * does not answer within REDIS_COMMAND_TIMEOUT_SECONDS (a hung server). After a failure no command is sent
 * for a second, so calls do not each wait for a time-out; then one is tried again. The outage is
 * visible: one warning in the log when it starts (and a line when Redis is back), the metrics
 * `gatehouse_redis_up`, `gatehouse_redis_errors_total{use}` and `gatehouse_redis_fallback_total{use}`,
 * and a warning on `/readyz`.
 */
import type { Redis } from 'ioredis';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';

/** How long no command is sent after one failed. */
export const REDIS_PAUSE_AFTER_FAILURE_MS = 1000;

export interface RedisState {
  up: boolean;
  /** Unix ms when the outage began (null while up). */
  downSince: number | null;
  /** The last failure's message (no connection string). */
  lastError: string | null;
}

export class RedisHealth {
  private downSince: number | null = null;
  private lastError: string | null = null;
  private pauseUntil = 0;

  constructor(
    private readonly client: Redis,
    private readonly log: Logger,
    private readonly metrics: Metrics,
  ) {
    metrics.redisUp(client.status === 'ready');
    client.on('ready', () => this.back());
    client.on('close', () => this.down('the connection to redis closed'));
    client.on('error', (e: Error) => this.down(e.message));
  }

  /** Whether to send a command now: connected, and none failed in the last REDIS_PAUSE_AFTER_FAILURE_MS. */
  usable(): boolean {
    return this.client.status === 'ready' && Date.now() >= this.pauseUntil;
  }

  /** A command sent for `use` (rate_limits, a throttle's name, affinity) failed or timed out: the caller goes on without Redis. */
  failed(use: string, e: unknown): void {
    this.metrics.redisError(use);
    this.pauseUntil = Date.now() + REDIS_PAUSE_AFTER_FAILURE_MS;
    this.down(e instanceof Error ? e.message : String(e));
  }

  /** A call of `use` was counted on this node alone because Redis was not usable. */
  fellBack(use: string): void {
    this.metrics.redisFallback(use);
  }

  state(): RedisState {
    return { up: this.downSince === null, downSince: this.downSince, lastError: this.lastError };
  }

  private down(why: string): void {
    this.lastError = why
      .split('\n')[0]
      .replace(/\/\/[^@\s]*@/g, '//***@')
      .slice(0, 300);
    if (this.downSince !== null) return;
    this.downSince = Date.now();
    this.metrics.redisUp(false);
    this.log.warn(
      { err: this.lastError },
      'redis unavailable: rate limits, throttles and session affinity count on this node alone until it is back',
    );
  }

  private back(): void {
    this.pauseUntil = 0;
    this.metrics.redisUp(true);
    if (this.downSince === null) return;
    this.log.info({ down_ms: Date.now() - this.downSince }, 'redis is back');
    this.downSince = null;
    this.lastError = null;
  }
}
