/**
 * Counts per name in fixed windows: a name's window starts with its first count and lasts `windowMs`,
 * then the count starts again from zero. With Redis the counts are shared by every node (one key per
 * name, expiring with its window); without it they live in this node's memory and `add` answers
 * synchronously. Used for attempts per client address or user (failed logins, sign-ups, redemptions).
 */
import type { Redis } from 'ioredis';

/** What the counter needs of the core (core.ts): its Redis client and the deployment's key prefix. */
export interface CounterCore {
  redis: Redis | null;
  cache: { redisPrefix: string | null };
}

export interface WindowCount {
  /** The count in the current window, this addition included. */
  n: number;
  /** Milliseconds until the window ends. */
  leftMs: number;
}

const MAX_LOCAL = 100_000;

export class WindowCounter {
  private readonly local = new Map<string, { n: number; resetAt: number }>();

  /** `space` keeps the names of different counters apart. */
  constructor(
    private readonly core: CounterCore,
    private readonly space: string,
  ) {}

  /** Adds `by` (0 reads) to `name`, starting a window of `windowMs` when none is running. */
  add(name: string, windowMs: number, by = 1, now = Date.now()): WindowCount | Promise<WindowCount> {
    const client = this.core.redis;
    const prefix = this.core.cache.redisPrefix;
    if (client && prefix) {
      const key = `${prefix}${this.space}:${name}`;
      // The key (and its expiry) is made only when missing; INCRBY keeps the expiry.
      return client
        .multi()
        .set(key, '0', 'PX', windowMs, 'NX')
        .incrby(key, by)
        .pttl(key)
        .exec()
        .then((r) => ({
          n: Number(r?.[1]?.[1] ?? 0),
          leftMs: Math.max(0, Number(r?.[2]?.[1] ?? 0)),
        }));
    }
    let e = this.local.get(name);
    if (!e || e.resetAt <= now) {
      if (!e && this.local.size >= MAX_LOCAL) this.sweep(now);
      e = { n: 0, resetAt: now + windowMs };
      this.local.set(name, e);
    }
    e.n += by;
    return { n: e.n, leftMs: e.resetAt - now };
  }

  private sweep(now: number): void {
    for (const [k, e] of this.local) if (e.resetAt <= now) this.local.delete(k);
    // Still full (a flood of names): the oldest entries go first.
    for (const k of this.local.keys()) {
      if (this.local.size < MAX_LOCAL) break;
      this.local.delete(k);
    }
  }
}
