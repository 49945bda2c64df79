/**
 * The counters behind rate limits (accounts/rate-limits.ts): per scope (a name such as `k:12`), the
 * requests and tokens of its current window and the calls it has in flight.
 *
 * A window starts with the scope's first request and lasts `windowMs` (or the window a call names, for
 * scopes counted in windows of their own); its requests and tokens then start again from zero. Calls in flight are tickets, taken at admission and given back when the call
 * ends (a stream when it ends).
 *
 * `acquire` checks every scope of a call and, only when all of them allow it, counts the call in all
 * of them: all or nothing, so a refused call takes nothing from any scope.
 *  - Without Redis the counters live in this node's memory and answer synchronously: exact per node.
 *  - With Redis one Lua script does the check and the counting for all the call's scopes atomically,
 *    so no two nodes can both take the last slot (no read-then-write race). Tickets in flight are
 *    members of a sorted set scored by the end of their lease; the node renews the leases of its
 *    calls every third of `leaseMs`, so the tickets of a node that died expire after at most
 *    `leaseMs`, and a stream that runs for an hour keeps its place.
 */
import type { Redis } from 'ioredis';

export interface LimitEntry {
  /** The scope's name: `k:<key id>`, `u:<user id>`, `m:<user id>:<model>`. */
  id: string;
  /** Requests, tokens per window and calls in flight; 0 = not limited. */
  rpm: number;
  tpm: number;
  cc: number;
}

/** A scope's counts after the call was counted (or, when refused, as they stand). */
export interface ScopeState {
  /** Unix ms when the window started. */
  start: number;
  requests: number;
  tokens: number;
  /** Calls in flight. */
  active: number;
}

export type LimitDimension = 'requests' | 'tokens' | 'concurrency';

export type Acquired = { ok: true; states: ScopeState[] } | { ok: false; index: number; dimension: LimitDimension; state: ScopeState };

export interface LimitCounters {
  /**
   * Counts one call of `tokens` (and a ticket in flight where `cc` > 0) in every entry, or in none;
   * the entries' windows last `windowMs` when given, else the counters' own.
   */
  acquire(entries: readonly LimitEntry[], tokens: number, ticket: string, now: number, windowMs?: number): Acquired | Promise<Acquired>;
  /**
   * A call ended: adds `delta` tokens to the windows of `ids` that still started at `starts[i]` (never
   * below zero), and gives back its ticket in flight of `held`. Either may be empty.
   */
  end(ids: readonly string[], starts: readonly number[], delta: number, held: readonly string[], ticket: string): void | Promise<void>;
}

const MAX_LOCAL = 100_000;

interface Window {
  start: number;
  /** When it ends. */
  end: number;
  requests: number;
  tokens: number;
}

/** Counters in this node's memory (no Redis): synchronous and exact per node. */
export class LocalLimitCounters implements LimitCounters {
  private readonly windows = new Map<string, Window>();
  private readonly active = new Map<string, number>();

  constructor(private readonly windowMs: number) {}

  acquire(entries: readonly LimitEntry[], tokens: number, _ticket: string, now: number, windowMs = this.windowMs): Acquired {
    const states: ScopeState[] = [];
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i];
      const w = e.rpm > 0 || e.tpm > 0 ? this.windows.get(e.id) : undefined;
      const fresh = !w || w.start + windowMs <= now;
      const st: ScopeState = {
        start: fresh ? now : w.start,
        requests: fresh ? 0 : w.requests,
        tokens: fresh ? 0 : w.tokens,
        active: e.cc > 0 ? (this.active.get(e.id) ?? 0) : 0,
      };
      if (e.rpm > 0 && st.requests + 1 > e.rpm) return { ok: false, index: i, dimension: 'requests', state: st };
      if (e.tpm > 0 && st.tokens + tokens > e.tpm) return { ok: false, index: i, dimension: 'tokens', state: st };
      if (e.cc > 0 && st.active + 1 > e.cc) return { ok: false, index: i, dimension: 'concurrency', state: st };
      states.push(st);
    }
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i];
      const st = states[i];
      if (e.rpm > 0 || e.tpm > 0) {
        st.requests++;
        st.tokens += tokens;
        let w = this.windows.get(e.id);
        if (!w) {
          if (this.windows.size >= MAX_LOCAL) this.sweep(now);
          w = { start: st.start, end: 0, requests: 0, tokens: 0 };
          this.windows.set(e.id, w);
        }
        w.start = st.start;
        w.end = st.start + windowMs;
        w.requests = st.requests;
        w.tokens = st.tokens;
      }
      if (e.cc > 0) this.active.set(e.id, ++st.active);
    }
    return { ok: true, states };
  }

  end(ids: readonly string[], starts: readonly number[], delta: number, held: readonly string[]): void {
    for (let i = 0; i < ids.length; i++) {
      const w = this.windows.get(ids[i]);
      if (w && w.start === starts[i]) w.tokens = Math.max(0, w.tokens + delta);
    }
    for (const id of held) {
      const n = (this.active.get(id) ?? 0) - 1;
      if (n > 0) this.active.set(id, n);
      else this.active.delete(id);
    }
  }

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (w.end <= now) this.windows.delete(k);
    // Still full (a flood of scopes): the oldest windows go first.
    for (const k of this.windows.keys()) {
      if (this.windows.size < MAX_LOCAL) break;
      this.windows.delete(k);
    }
  }
}

/**
 * KEYS: per scope its window hash (s, r, t) and its set of tickets in flight.
 * ARGV: now, window ms, lease ms, ticket, tokens, then per scope rpm, tpm, cc.
 * Returns {1, s1, r1, t1, c1, s2, …} when counted, {0, index, dimension (1 requests, 2 tokens,
 * 3 concurrency), s, r, t, c} when refused (nothing written then).
 */
const ACQUIRE = `
local now, win, lease, ticket, tok = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
local n = #KEYS / 2
local st = {}
for i = 1, n do
  local a = 5 + 3 * (i - 1)
  local rpm, tpm, cc = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  local s, r, t, c = now, 0, 0, 0
  if rpm > 0 or tpm > 0 then
    local v = redis.call('HMGET', KEYS[2 * i - 1], 's', 'r', 't')
    local s0 = tonumber(v[1])
    if s0 and s0 + win > now then s, r, t = s0, tonumber(v[2]) or 0, tonumber(v[3]) or 0 end
  end
  if cc > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[2 * i], '-inf', now)
    c = redis.call('ZCARD', KEYS[2 * i])
  end
  if rpm > 0 and r + 1 > rpm then return {0, i, 1, s, r, t, c} end
  if tpm > 0 and t + tok > tpm then return {0, i, 2, s, r, t, c} end
  if cc > 0 and c + 1 > cc then return {0, i, 3, s, r, t, c} end
  st[i] = {s, r, t, c}
end
local out = {1}
for i = 1, n do
  local a = 5 + 3 * (i - 1)
  local rpm, tpm, cc = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  local s, r, t, c = st[i][1], st[i][2], st[i][3], st[i][4]
  if rpm > 0 or tpm > 0 then
    r, t = r + 1, t + tok
    redis.call('HSET', KEYS[2 * i - 1], 's', s, 'r', r, 't', t)
    redis.call('PEXPIREAT', KEYS[2 * i - 1], s + win + 1000)
  end
  if cc > 0 then
    redis.call('ZADD', KEYS[2 * i], now + lease, ticket)
    redis.call('PEXPIRE', KEYS[2 * i], lease)
    c = c + 1
  end
  out[#out + 1] = s
  out[#out + 1] = r
  out[#out + 1] = t
  out[#out + 1] = c
end
return out
`;

/** KEYS: window hashes. ARGV: delta, then each window's start. */
const ADJUST = `
local d = tonumber(ARGV[1])
for i = 1, #KEYS do
  local v = redis.call('HMGET', KEYS[i], 's', 't')
  if v[1] and tonumber(v[1]) == tonumber(ARGV[i + 1]) then
    local t = (tonumber(v[2]) or 0) + d
    if t < 0 then t = 0 end
    redis.call('HSET', KEYS[i], 't', t)
  end
end
return 0
`;

type LimitRedis = Redis & { ghLimitAcquire(...args: (string | number)[]): Promise<number[]> };

/** Counters in Redis, shared by every node (see the top of this file). */
export class RedisLimitCounters implements LimitCounters {
  private readonly redis: LimitRedis;
  /** Tickets of this node in flight, by ticket: the sets holding them (their leases are renewed). */
  private readonly live = new Map<string, readonly string[]>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly windowMs: number,
    private readonly leaseMs: number,
  ) {
    const r = redis as LimitRedis;
    if (typeof r.ghLimitAcquire !== 'function') {
      r.defineCommand('ghLimitAcquire', { lua: ACQUIRE });
      r.defineCommand('ghLimitAdjust', { lua: ADJUST });
    }
    this.redis = r;
  }

  private windowKey(id: string): string {
    return `${this.prefix}rl:w:${id}`;
  }

  private ticketsKey(id: string): string {
    return `${this.prefix}rl:c:${id}`;
  }

  async acquire(entries: readonly LimitEntry[], tokens: number, ticket: string, now: number, windowMs = this.windowMs): Promise<Acquired> {
    const keys: string[] = [];
    const args: (string | number)[] = [now, windowMs, this.leaseMs, ticket, tokens];
    for (const e of entries) {
      keys.push(this.windowKey(e.id), this.ticketsKey(e.id));
      args.push(e.rpm, e.tpm, e.cc);
    }
    const r = await this.redis.ghLimitAcquire(keys.length, ...keys, ...args);
    if (Number(r[0]) !== 1) {
      const dim: LimitDimension = r[2] === 1 ? 'requests' : r[2] === 2 ? 'tokens' : 'concurrency';
      return {
        ok: false,
        index: Number(r[1]) - 1,
        dimension: dim,
        state: { start: Number(r[3]), requests: Number(r[4]), tokens: Number(r[5]), active: Number(r[6]) },
      };
    }
    const states: ScopeState[] = [];
    for (let i = 0; i < entries.length; i++) {
      states.push({
        start: Number(r[1 + 4 * i]),
        requests: Number(r[2 + 4 * i]),
        tokens: Number(r[3 + 4 * i]),
        active: Number(r[4 + 4 * i]),
      });
    }
    const held = entries.filter((e) => e.cc > 0).map((e) => this.ticketsKey(e.id));
    if (held.length) {
      this.live.set(ticket, held);
      this.schedule();
    }
    return { ok: true, states };
  }

  /** One round trip: the token correction and the tickets given back together. */
  async end(ids: readonly string[], starts: readonly number[], delta: number, held: readonly string[], ticket: string): Promise<void> {
    this.live.delete(ticket);
    const adjust = ids.length > 0 && delta !== 0;
    if (!adjust && !held.length) return;
    const m = this.redis.multi() as ReturnType<Redis['multi']> & { ghLimitAdjust(...args: (string | number)[]): unknown };
    if (adjust) m.ghLimitAdjust(ids.length, ...ids.map((id) => this.windowKey(id)), delta, ...starts);
    for (const id of held) m.zrem(this.ticketsKey(id), ticket);
    await m.exec();
  }

  /** Renews the leases of this node's tickets in flight (every third of the lease while there are any). */
  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        void this.renew().finally(() => {
          if (this.live.size) this.schedule();
        });
      },
      Math.max(100, Math.floor(this.leaseMs / 3)),
    );
    this.timer.unref();
  }

  async renew(now = Date.now()): Promise<void> {
    if (!this.live.size) return;
    const m = this.redis.multi();
    for (const [ticket, keys] of this.live) {
      for (const k of keys) {
        m.zadd(k, 'XX', now + this.leaseMs, ticket);
        m.pexpire(k, this.leaseMs);
      }
    }
    await m.exec().catch(() => {});
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
