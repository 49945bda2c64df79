/**
 * Failed logins per client address: after `LoginAttemptLimit` failures within
 * `LoginAttemptWindowSeconds` (a window that starts with the first failure), further logins from that
 * address are refused with 429 until the window ends, whatever the password. With Redis the count is
 * shared by every node (one key per address, expiring with its window); without it each node counts
 * its own. A successful login does not reset the count, so guesses cannot be interleaved with a known
 * account's logins.
 */
import type { Core } from '../core.ts';

export interface ThrottleSettings {
  /** Failures allowed per window; 0 turns the throttle off. */
  limit: number;
  windowMs: number;
}

const MAX_LOCAL = 100_000;

export class LoginThrottle {
  private readonly local = new Map<string, { n: number; resetAt: number }>();

  constructor(private readonly core: Core, private readonly settings: () => ThrottleSettings) {}

  /** Seconds until `ip` may try again, or 0 when it may try now. */
  async blockedFor(ip: string, now = Date.now()): Promise<number> {
    const { limit } = this.settings();
    if (limit <= 0) return 0;
    const redis = this.redisKey(ip);
    if (redis) {
      const [n, ttl] = await Promise.all([redis.client.get(redis.key), redis.client.pttl(redis.key)]);
      return Number(n ?? 0) >= limit && ttl > 0 ? Math.ceil(ttl / 1000) : 0;
    }
    const e = this.local.get(ip);
    if (!e || e.resetAt <= now) return 0;
    return e.n >= limit ? Math.ceil((e.resetAt - now) / 1000) : 0;
  }

  /** Counts a failed login from `ip`. */
  async failed(ip: string, now = Date.now()): Promise<void> {
    const { limit, windowMs } = this.settings();
    if (limit <= 0) return;
    const redis = this.redisKey(ip);
    if (redis) {
      // The window starts with the first failure: the key (and its expiry) is made only when missing;
      // INCR keeps the expiry.
      await redis.client.multi().set(redis.key, '0', 'PX', windowMs, 'NX').incr(redis.key).exec();
      return;
    }
    const e = this.local.get(ip);
    if (e && e.resetAt > now) { e.n++; return; }
    if (this.local.size >= MAX_LOCAL) this.sweep(now);
    this.local.set(ip, { n: 1, resetAt: now + windowMs });
  }

  private redisKey(ip: string) {
    const client = this.core.redis;
    const prefix = this.core.cache.redisPrefix;
    return client && prefix ? { client, key: `${prefix}login-failures:${ip}` } : null;
  }

  private sweep(now: number): void {
    for (const [k, e] of this.local) if (e.resetAt <= now) this.local.delete(k);
    // Still full (an address flood): the oldest entries go first.
    for (const k of this.local.keys()) {
      if (this.local.size < MAX_LOCAL) break;
      this.local.delete(k);
    }
  }
}
