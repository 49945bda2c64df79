/**
 * Model requests per user (`ModelRequestRateLimit*` options, as new-api names them): at most `count`
 * requests per user in each window of `DurationMinutes` (windows aligned to the clock), with
 * `ModelRequestRateLimitGroup` (`{"group": count}`) overriding the count for the users of a group.
 * A refused request gets 429 `rate_limit_exceeded` with `Retry-After` (the end of the window).
 *
 * Counted: model calls and task submissions (POST and WebSocket upgrades on API-key routes); model
 * lists and task reads are not. With Redis the counters are shared by every node (one key per user
 * and window); without it each node counts its own. Off by default: then the check is one comparison.
 */
import type { Core } from '../core.ts';
import type { Options } from '../admin/options.ts';
import { GatewayError } from '../platform/errors.ts';

export interface RequestLimitSettings {
  enabled: boolean;
  windowMs: number;
  /** Requests per user and window; 0 = no limit. */
  count: number;
  /** Per-group counts replacing `count`. */
  groups: ReadonlyMap<string, number>;
}

const OFF: RequestLimitSettings = { enabled: false, windowMs: 60_000, count: 0, groups: new Map() };

/** Parses `{"group": count}`; throws on anything else (used to check the option when it is saved). */
export function parseGroupCounts(text: string): Map<string, number> {
  const out = new Map<string, number>();
  if (text.trim() === '') return out;
  const v: unknown = JSON.parse(text);
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('must be a JSON object of group names to request counts');
  for (const [g, n] of Object.entries(v)) {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new Error(`the count of group "${g}" must be a whole number ≥ 0`);
    out.set(g, n);
  }
  return out;
}

export class RequestLimiter {
  private seen: Options | undefined;
  private revision = -1;
  private settings: RequestLimitSettings = OFF;
  /** Node-local counts of the current window (without Redis). */
  private window = -1;
  private readonly counts = new Map<number, number>();

  constructor(private readonly core: Core, private readonly options: () => Options | undefined) {}

  /** The settings, parsed again only when the options were reloaded. */
  current(): RequestLimitSettings {
    const o = this.options();
    if (!o) return OFF;
    if (o !== this.seen || o.revision !== this.revision) {
      this.seen = o;
      this.revision = o.revision;
      let groups = new Map<string, number>();
      try {
        groups = parseGroupCounts(o.get('ModelRequestRateLimitGroup') ?? '');
      } catch (e) {
        this.core.log.warn({ err: (e as Error).message }, 'ModelRequestRateLimitGroup ignored');
      }
      this.settings = {
        enabled: o.getBool('ModelRequestRateLimitEnabled'),
        windowMs: Math.max(1, o.getNumber('ModelRequestRateLimitDurationMinutes', 1)) * 60_000,
        count: Math.max(0, o.getNumber('ModelRequestRateLimitCount', 0)),
        groups,
      };
    }
    return this.settings;
  }

  /**
   * Counts one request of `userId`; resolves (or returns, without Redis) when it is admitted, throws a
   * 429 GatewayError with `retryAfter` seconds when the user's window is used up.
   */
  admit(userId: number, group: string, now = Date.now()): void | Promise<void> {
    const s = this.current();
    if (!s.enabled) return;
    const limit = s.groups.get(group) ?? s.count;
    if (limit <= 0) return;
    const window = Math.floor(now / s.windowMs);
    const retryAfter = Math.max(1, Math.ceil(((window + 1) * s.windowMs - now) / 1000));
    const client = this.core.redis;
    const prefix = this.core.cache.redisPrefix;
    if (client && prefix) {
      const key = `${prefix}requests:${userId}:${s.windowMs}:${window}`;
      return client.multi().incr(key).pexpire(key, s.windowMs * 2).exec().then((r) => {
        const n = Number(r?.[0]?.[1] ?? 0);
        if (n > limit) throw limited(limit, s.windowMs, retryAfter);
      });
    }
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const n = this.counts.get(userId) ?? 0;
    if (n >= limit) throw limited(limit, s.windowMs, retryAfter);
    this.counts.set(userId, n + 1);
  }
}

function limited(limit: number, windowMs: number, retryAfter: number): GatewayError & { retryAfter: number } {
  const minutes = windowMs / 60_000;
  const e = new GatewayError(429, 'rate_limit_exceeded', `rate limit reached: ${limit} requests per ${minutes === 1 ? 'minute' : `${minutes} minutes`}; try again in ${retryAfter} s`, 'rate_limit_error');
  return Object.assign(e, { retryAfter });
}
