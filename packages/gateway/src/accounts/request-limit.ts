/**
 * Model requests per user (`ModelRequestRateLimit*` options, as new-api names them): at most `count`
 * requests per user in a window of `DurationMinutes` that starts with the user's first request, with
 * `ModelRequestRateLimitGroup` (`{"group": count}`) overriding the count for the users of a group.
 * A refused request gets 429 `rate_limit_exceeded` with `Retry-After` (the end of the window).
 *
 * Counted (by the routes): model calls and task submissions, realtime handshakes, playground calls;
 * model lists and task reads are not. Counted with a WindowCounter: shared by every node with Redis,
 * per node (and synchronously) without it. Off by default: then the check is one comparison.
 */
import type { Core } from '../core.ts';
import type { Options } from '../options/options.ts';
import { GatewayError, fail } from '../platform/errors.ts';
import { WindowCounter, type WindowCount } from '../platform/window-counter.ts';

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
  private readonly requests: WindowCounter;

  constructor(
    private readonly core: Core,
    private readonly options: Options,
  ) {
    this.requests = new WindowCounter(core, 'requests');
  }

  /** The settings, parsed again only when the options were reloaded. */
  current(): RequestLimitSettings {
    const o = this.options;
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
   * Counts one request of `userId`; returns (without Redis) or resolves when it is admitted, throws a
   * 429 GatewayError with `retryAfter` seconds when the user's window is used up.
   */
  admit(userId: number, group: string): void | Promise<void> {
    const s = this.current();
    if (!s.enabled) return;
    const limit = s.groups.get(group) ?? s.count;
    if (limit <= 0) return;
    const check = (c: WindowCount) => {
      if (c.n > limit) throw limited(limit, s.windowMs, Math.max(1, Math.ceil(c.leftMs / 1000)));
    };
    const c = this.requests.add(String(userId), s.windowMs);
    if (c instanceof Promise) return c.then(check);
    check(c);
  }
}

function limited(limit: number, windowMs: number, retryAfter: number): GatewayError & { retryAfter: number } {
  const minutes = windowMs / 60_000;
  const e = fail(
    'rate_limit_exceeded',
    `rate limit reached: ${limit} requests per ${minutes === 1 ? 'minute' : `${minutes} minutes`}; try again in ${retryAfter} s`,
  );
  return Object.assign(e, { retryAfter });
}
