/**
 * Failed logins per client address: after `LoginAttemptLimit` failures within
 * `LoginAttemptWindowSeconds` (a window that starts with the first failure), further logins from that
 * address are refused with 429 until the window ends, whatever the password. Counted with a
 * WindowCounter: shared by every node with Redis, per node without it. A successful login does not
 * reset the count, so guesses cannot be interleaved with a known account's logins. Other guessable
 * secrets (redemption codes) use the same class with their own counter `space` and keys.
 */
import type { Core } from '../core.ts';
import { WindowCounter } from '../platform/window-counter.ts';

export interface ThrottleSettings {
  /** Failures allowed per window; 0 turns the throttle off. */
  limit: number;
  windowMs: number;
}

export class LoginThrottle {
  private readonly failures: WindowCounter;

  constructor(
    core: Core,
    private readonly settings: () => ThrottleSettings,
    space = 'login-failures',
  ) {
    this.failures = new WindowCounter(core, space);
  }

  /** Seconds until `ip` may try again, or 0 when it may try now. */
  async blockedFor(ip: string): Promise<number> {
    const { limit, windowMs } = this.settings();
    if (limit <= 0) return 0;
    const c = await this.failures.add(ip, windowMs, 0);
    return c.n >= limit && c.leftMs > 0 ? Math.ceil(c.leftMs / 1000) : 0;
  }

  /** Counts a failed login from `ip`. */
  async failed(ip: string): Promise<void> {
    const { limit, windowMs } = this.settings();
    if (limit > 0) await this.failures.add(ip, windowMs);
  }
}
