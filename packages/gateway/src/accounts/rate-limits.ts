/**
 * Rate limits of model calls (docs/limits.md): requests per minute, tokens per minute and calls in
 * flight, each counted per scope —
 *  - the API key (its `rpm`, `tpm`, `max_concurrency`),
 *  - the user (the same fields on the user; every key of the user and the playground count),
 *  - a model for a user (options `RateLimitModels`, replaced for the users of a group by
 *    `RateLimitGroups`): what each user may do with that model.
 * and, apart, the requests of each user by group (option `RateLimitRequests` in windows of
 * `RateLimitRequestsWindowSeconds`; its older names are the `ModelRequestRateLimit*` options): every
 * POST on an API-key route is counted when it arrives, before its body is read (`admitRequest`).
 * A call must fit in every scope that applies; it is then counted in all of them at once, or refused
 * with 429 `rate_limit_exceeded` and `Retry-After` before any routing or billing (and counted in none).
 *
 * Tokens are input + output: a call is counted at admission with its estimate (the tokenizer's count
 * of its input times its vendor family's margin, relay/input-estimate.ts, and the max_tokens the gateway
 * sends), and corrected to the usage the upstream reported when it settles: the window then holds what
 * calls actually used, so a limit of N admits calls whose actual total fits N. The tokens of a minute
 * never pass the limit by more than what calls in flight use beyond their estimates. A window is a
 * minute that starts with the scope's first request.
 *
 * The counters (platform/limit-counters.ts) are shared by every node through Redis (one atomic script
 * per call) or, without Redis, exact per node. While Redis is unavailable (platform/redis-health.ts:
 * down, or not answering within REDIS_COMMAND_TIMEOUT_SECONDS) each node counts the calls it admits in its
 * own counters: a limit then holds per node (k nodes admit at most k times it per window), never
 * uncounted; a call keeps the counters that admitted it until it ends. When no limit applies to a call
 * the check is a few property reads: no counter, no Redis call, no allocation.
 *
 * Every response of an admitted call carries OpenAI's headers for the limits that apply — the scope
 * closest to its limit for each of requests and tokens: `x-ratelimit-limit-requests`,
 * `x-ratelimit-remaining-requests`, `x-ratelimit-reset-requests`, and the same for `-tokens` — and for
 * calls in flight `x-ratelimit-limit-concurrency` and `x-ratelimit-remaining-concurrency`.
 */
import { randomBytes } from 'node:crypto';
import type { Core } from '../core.ts';
import type { Options } from '../options/options.ts';
import { echo, GatewayError, fail } from '../platform/errors.ts';
import {
  LocalLimitCounters,
  RedisLimitCounters,
  type Acquired,
  type LimitCounters,
  type LimitDimension,
  type LimitEntry,
  type ScopeState,
} from '../platform/limit-counters.ts';
import type { RateLimits } from './types.ts';

export const RATE_WINDOW_MS = 60_000;
/** A ticket in flight of a node that stopped renewing it is dropped after this long (Redis). */
export const CONCURRENCY_LEASE_MS = 60_000;

/** The limits of a row with `rpm`, `tpm`, `max_concurrency` columns; null when none is set. */
export function rateLimitsOf(r: { rpm?: unknown; tpm?: unknown; max_concurrency?: unknown }): RateLimits | null {
  const rpm = Math.max(0, Number(r.rpm ?? 0) || 0);
  const tpm = Math.max(0, Number(r.tpm ?? 0) || 0);
  const maxConcurrency = Math.max(0, Number(r.max_concurrency ?? 0) || 0);
  return rpm || tpm || maxConcurrency ? Object.freeze({ rpm, tpm, maxConcurrency }) : null;
}

/** Requests per user and window, by group (`RateLimitRequests`): a group's count, else `*`'s; 0 = no limit. */
export interface RequestLimitSettings {
  groups: ReadonlyMap<string, number>;
  windowMs: number;
}

const NO_REQUEST_LIMITS: RequestLimitSettings = { groups: new Map(), windowMs: RATE_WINDOW_MS };

/** Parses `{"group": count}` (`RateLimitRequests`, `ModelMaxOutputTokens`); throws on anything else. */
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

/**
 * The request limits the options set: `RateLimitRequests` when it is stored, else (older names) the
 * `ModelRequestRateLimit*` options when `ModelRequestRateLimitEnabled` is on — `ModelRequestRateLimitCount`
 * for every group, `ModelRequestRateLimitGroup` per group. The window is `RateLimitRequestsWindowSeconds`
 * (or `ModelRequestRateLimitDurationMinutes`, options/options.ts reads it).
 */
function requestLimits(o: Options, warn: (option: string, err: unknown) => void): RequestLimitSettings {
  const windowMs = Math.max(1, o.getNumber('RateLimitRequestsWindowSeconds', 60)) * 1000;
  let groups = new Map<string, number>();
  const text = o.stored('RateLimitRequests');
  try {
    if (text !== undefined) groups = parseGroupCounts(text);
    else if (o.getBool('ModelRequestRateLimitEnabled')) {
      groups = parseGroupCounts(o.get('ModelRequestRateLimitGroup') ?? '');
      const count = Math.max(0, o.getNumber('ModelRequestRateLimitCount', 0));
      if (!groups.has('*')) groups.set('*', count);
    }
  } catch (e) {
    warn(text !== undefined ? 'RateLimitRequests' : 'ModelRequestRateLimitGroup', e);
  }
  for (const [g, n] of groups) if (n <= 0) groups.set(g, 0);
  return [...groups.values()].some((n) => n > 0) ? { groups, windowMs } : NO_REQUEST_LIMITS;
}

/** Per-model limits: a model's entry, else `*` (any model without one); undefined when neither is given. */
export interface ModelLimitTable {
  models: ReadonlyMap<string, RateLimits | null>;
  any: RateLimits | null | undefined;
}

export interface ModelLimitSettings {
  /** `RateLimitModels`. */
  all: ModelLimitTable;
  /** `RateLimitGroups`: replaces `all`'s entries for the users of a group. */
  groups: ReadonlyMap<string, ModelLimitTable>;
}

const EMPTY_TABLE: ModelLimitTable = { models: new Map(), any: undefined };
const NO_MODEL_LIMITS: ModelLimitSettings = { all: EMPTY_TABLE, groups: new Map() };

const LIMIT_KEYS = ['rpm', 'tpm', 'max_concurrency'];

function limitsEntry(v: unknown, where: string): RateLimits | null {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${where} must be an object of rpm, tpm, max_concurrency`);
  for (const [k, n] of Object.entries(v)) {
    if (!LIMIT_KEYS.includes(k)) throw new Error(`${where}: unknown limit "${k}" (rpm, tpm, max_concurrency)`);
    if (n !== null && (typeof n !== 'number' || !Number.isInteger(n) || n < 0)) throw new Error(`${where}.${k} must be a whole number ≥ 0`);
  }
  return rateLimitsOf(v as Record<string, unknown>);
}

function modelTable(v: unknown, where: string): ModelLimitTable {
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw new Error(`${where ? `${where} ` : ''}must be a JSON object of model names to limits`);
  const models = new Map<string, RateLimits | null>();
  let any: RateLimits | null | undefined;
  for (const [model, l] of Object.entries(v)) {
    const entry = limitsEntry(l, where ? `${where}.${model}` : model);
    if (model === '*') any = entry;
    else models.set(model, entry);
  }
  return { models, any };
}

/** Parses `RateLimitModels`: `{"gpt-4o": {"rpm": 60, "tpm": 100000, "max_concurrency": 4}, "*": {...}}`; throws when invalid. */
export function parseModelLimits(text: string): ModelLimitTable {
  if (text.trim() === '') return EMPTY_TABLE;
  return modelTable(JSON.parse(text), '');
}

/** Parses `RateLimitGroups`: `{"vip": {"gpt-4o": {"rpm": 600}, "*": {}}}`; throws when invalid. */
export function parseGroupModelLimits(text: string): Map<string, ModelLimitTable> {
  const out = new Map<string, ModelLimitTable>();
  if (text.trim() === '') return out;
  const v: unknown = JSON.parse(text);
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('must be a JSON object of group names to {model: limits}');
  for (const [g, t] of Object.entries(v)) out.set(g, modelTable(t, g));
  return out;
}

/** Who makes a call, as far as limits go (a KeyPrincipal, or the playground's user). */
export interface LimitSubject {
  keyId: number | null;
  userId: number;
  group: string;
  keyLimits: RateLimits | null;
  userLimits: RateLimits | null;
  /** A key of a team: the team's limits, counted over all its keys (scope `t:<team id>`); absent: none. */
  teamId?: number | null;
  teamLimits?: RateLimits | null;
}

/** Where the headers go: a ServerResponse before its head is written, or any collector. */
export interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

/** An admitted call: `end` once it is over (a stream when it ends). */
export interface Admission {
  /** The call used `tokens` (input + output; 0 when it failed): corrects the tokens counted and gives back its place. Once. */
  end(tokens: number): void;
}

/** `ms` as OpenAI writes its reset headers: `20ms`, `1.5s`, `6m0s`. */
export function resetText(ms: number): string {
  const v = Math.max(0, Math.ceil(ms));
  if (v < 1000) return `${v}ms`;
  const s = Math.round(v / 10) / 100;
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return `${m}m${Math.round((s - m * 60) * 100) / 100}s`;
}

const SCOPE_TEXT = { k: 'this API key', u: 'this user', t: 'this team', m: 'this model for this user' } as const;
const DIM_TEXT: Record<LimitDimension, string> = {
  requests: 'requests per minute (RPM)',
  tokens: 'tokens per minute (TPM)',
  concurrency: 'calls at once',
};

/** An answer of the counters, with the counters that gave it. */
interface Counted {
  a: Acquired;
  c: LimitCounters;
}

class Ticket implements Admission {
  private ended = false;

  constructor(
    private readonly limiter: RateLimiter,
    private readonly entries: readonly LimitEntry[],
    private readonly states: readonly ScopeState[],
    private readonly tokens: number,
    private readonly id: string,
    /** The counters that admitted the call (Redis, or this node's while Redis was unavailable). */
    private readonly counters: LimitCounters,
  ) {}

  end(tokens: number): void {
    if (this.ended) return;
    this.ended = true;
    this.limiter.ended(this.entries, this.states, tokens - this.tokens, this.id, this.counters);
  }
}

export class RateLimiter {
  /** Redis's counters, shared by every node; null without Redis. */
  private readonly shared: RedisLimitCounters | null;
  /** This node's counters: all of them without Redis, and while it is unavailable. */
  private readonly local: LocalLimitCounters;
  private readonly node = randomBytes(4).toString('hex');
  private seq = 0;
  private seen: Options | undefined;
  private revision = -1;
  private settings: ModelLimitSettings = NO_MODEL_LIMITS;
  private requestSettings: RequestLimitSettings = NO_REQUEST_LIMITS;

  constructor(
    private readonly core: Core,
    private readonly options: Options,
    readonly windowMs = RATE_WINDOW_MS,
  ) {
    const redis = core.redis;
    const prefix = core.cache.redisPrefix;
    this.shared = redis && prefix ? new RedisLimitCounters(redis, prefix, windowMs, CONCURRENCY_LEASE_MS) : null;
    this.local = new LocalLimitCounters(windowMs);
  }

  /** Stops renewing the leases of calls in flight (shutdown). */
  close(): void {
    this.shared?.close();
  }

  /** The per-model settings, parsed again only when the options were reloaded. */
  current(): ModelLimitSettings {
    const o = this.options;
    if (!o) return NO_MODEL_LIMITS;
    if (o !== this.seen || o.revision !== this.revision) {
      this.seen = o;
      this.revision = o.revision;
      let all = EMPTY_TABLE;
      let groups = new Map<string, ModelLimitTable>();
      try {
        all = parseModelLimits(o.get('RateLimitModels') ?? '');
      } catch (e) {
        this.core.log.warn({ err: (e as Error).message }, 'RateLimitModels ignored');
      }
      try {
        groups = parseGroupModelLimits(o.get('RateLimitGroups') ?? '');
      } catch (e) {
        this.core.log.warn({ err: (e as Error).message }, 'RateLimitGroups ignored');
      }
      this.settings = all.models.size === 0 && all.any === undefined && groups.size === 0 ? NO_MODEL_LIMITS : { all, groups };
      this.requestSettings = requestLimits(o, (option, e) => this.core.log.warn({ err: (e as Error).message }, `${option} ignored`));
    }
    return this.settings;
  }

  /** The request limits (RateLimitRequests), parsed again only when the options were reloaded. */
  requestLimits(): RequestLimitSettings {
    this.current();
    return this.requestSettings;
  }

  /** How many requests a user of `group` may make per window; 0: no limit. */
  requestLimit(group: string): number {
    const g = this.requestLimits().groups;
    return g.get(group) ?? g.get('*') ?? 0;
  }

  /**
   * Counts one request of `userId` (of `group`) in its window: returns (without Redis) or resolves when
   * it is admitted, throws 429 `rate_limit_exceeded` with `retryAfter` seconds when the window is used
   * up. Nothing is counted, and nothing allocated, when the group has no limit.
   */
  admitRequest(userId: number, group: string): void | Promise<void> {
    const s = this.requestLimits();
    if (s === NO_REQUEST_LIMITS) return;
    const limit = s.groups.get(group) ?? s.groups.get('*') ?? 0;
    if (limit <= 0) return;
    const now = Date.now();
    const entries = [{ id: `r:${userId}`, rpm: limit, tpm: 0, cc: 0 }];
    const check = (a: Acquired) => {
      if (!a.ok) throw requestsRefused(limit, s.windowMs, Math.max(1, Math.ceil((a.state.start + s.windowMs - now) / 1000)));
    };
    const r = this.acquire(entries, 0, '', now, s.windowMs);
    if (!(r instanceof Promise)) return check(r.a);
    return r.then((x) => check(x.a));
  }

  /**
   * Counts in Redis while it is usable, else — and when its command fails or times out — in this
   * node's counters: never uncounted (platform/redis-health.ts). Gives the answer with the counters
   * that gave it (a call ends in the counters that admitted it).
   */
  private acquire(
    entries: readonly LimitEntry[],
    tokens: number,
    ticket: string,
    now: number,
    windowMs?: number,
  ): Counted | Promise<Counted> {
    const health = this.core.redisHealth;
    const shared = this.shared;
    if (!shared || (health && !health.usable())) {
      if (shared) health?.fellBack('rate_limits');
      return { a: this.local.acquire(entries, tokens, ticket, now, windowMs), c: this.local };
    }
    return shared.acquire(entries, tokens, ticket, now, windowMs).then(
      (a) => ({ a, c: shared }),
      (e: unknown) => {
        if (health) health.failed('rate_limits', e);
        else this.core.log.warn({ err: (e as Error).message }, 'rate limit counters unavailable; counted on this node');
        return { a: this.local.acquire(entries, tokens, ticket, Date.now(), windowMs), c: this.local };
      },
    );
  }

  /**
   * What each user of `group` may do with `model`: the group's entry for the model (`RateLimitGroups`),
   * else the group's `*`, else the model's entry (`RateLimitModels`), else its `*`; null when none.
   */
  modelLimits(group: string, model: string): RateLimits | null {
    const s = this.current();
    if (s === NO_MODEL_LIMITS) return null;
    const g = s.groups.get(group);
    if (g) {
      const x = g.models.get(model);
      if (x !== undefined) return x;
      if (g.any !== undefined) return g.any;
    }
    const x = s.all.models.get(model);
    if (x !== undefined) return x;
    return s.all.any ?? null;
  }

  /**
   * Whether a tokens-per-minute limit counts a call of `model` by `s` (then the relay estimates its input
   * with the tokenizer rather than the byte bound). A few property reads when nothing limits it.
   */
  countsTokens(s: LimitSubject, model: string): boolean {
    if ((s.keyId !== null && (s.keyLimits?.tpm ?? 0) > 0) || (s.userLimits?.tpm ?? 0) > 0 || (s.teamLimits?.tpm ?? 0) > 0) return true;
    return (this.modelLimits(s.group, model)?.tpm ?? 0) > 0;
  }

  /**
   * Admits one call of `model` that may use `tokens` (input + output, its reserve's estimate): counts
   * it in every scope that limits it and writes the rate-limit headers to `sink`. Null when nothing
   * limits the call. Throws 429 `rate_limit_exceeded` (with `retryAfter` seconds, and Retry-After on
   * `sink`) when a scope is used up. Synchronous without Redis.
   */
  admit(
    s: LimitSubject,
    model: string,
    tokens: number,
    sink: HeaderSink | null,
    at?: number,
  ): Admission | null | Promise<Admission | null> {
    const m = this.modelLimits(s.group, model);
    if (!s.keyLimits && !s.userLimits && !s.teamLimits && !m) return null;
    const now = at ?? Date.now();
    const entries: LimitEntry[] = [];
    if (s.keyLimits && s.keyId !== null) entries.push(entryOf(`k:${s.keyId}`, s.keyLimits));
    if (s.userLimits) entries.push(entryOf(`u:${s.userId}`, s.userLimits));
    if (s.teamLimits && s.teamId) entries.push(entryOf(`t:${s.teamId}`, s.teamLimits));
    if (m) entries.push(entryOf(`m:${s.userId}:${model}`, m));
    if (!entries.length) return null;
    const need = Math.max(0, Math.ceil(tokens));
    for (const e of entries) {
      if (e.tpm > 0 && need > e.tpm) throw this.tooLarge(e, need, model, sink);
    }
    const ticket = `${this.node}.${++this.seq}`;
    const r = this.acquire(entries, need, ticket, now);
    if (!(r instanceof Promise)) return this.admitted(r.a, entries, need, ticket, model, sink, now, r.c);
    return r.then((x) => this.admitted(x.a, entries, need, ticket, model, sink, now, x.c));
  }

  /** The call counted (its headers written), or its refusal thrown. */
  private admitted(
    a: Acquired,
    entries: LimitEntry[],
    need: number,
    ticket: string,
    model: string,
    sink: HeaderSink | null,
    now: number,
    counters: LimitCounters,
  ): Admission {
    if (!a.ok) throw this.refusal(entries[a.index], a.dimension, a.state, model, sink, now);
    if (sink) this.writeHeaders(sink, entries, a.states, now);
    return new Ticket(this, entries, a.states, need, ticket, counters);
  }

  /** Called by an admission's `end`: its tokens corrected by `delta`, its places given back (in the counters that admitted it). */
  ended(entries: readonly LimitEntry[], states: readonly ScopeState[], delta: number, ticket: string, counters: LimitCounters): void {
    const ids: string[] = [];
    const starts: number[] = [];
    const held: string[] = [];
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i];
      if (delta !== 0 && e.tpm > 0) {
        ids.push(e.id);
        starts.push(states[i].start);
      }
      if (e.cc > 0) held.push(e.id);
    }
    if (!ids.length && !held.length) return;
    try {
      counters.end(ids, starts, delta, held, ticket)?.catch(this.failed);
    } catch (e) {
      this.failed(e);
    }
  }

  private readonly failed = (e: unknown): void => {
    this.core.log.warn({ err: (e as Error).message }, 'rate limit counters could not be updated');
  };

  /** For each kind, the scope closest to its limit: its headers. */
  private writeHeaders(sink: HeaderSink, entries: readonly LimitEntry[], states: readonly ScopeState[], now: number): void {
    let rq = -1;
    let tk = -1;
    let cc = -1;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i];
      const st = states[i];
      if (e.rpm > 0 && (rq < 0 || e.rpm - st.requests < entries[rq].rpm - states[rq].requests)) rq = i;
      if (e.tpm > 0 && (tk < 0 || e.tpm - st.tokens < entries[tk].tpm - states[tk].tokens)) tk = i;
      if (e.cc > 0 && (cc < 0 || e.cc - st.active < entries[cc].cc - states[cc].active)) cc = i;
    }
    if (rq >= 0) this.dimensionHeaders(sink, 'requests', entries[rq].rpm, states[rq].requests, states[rq].start, now);
    if (tk >= 0) this.dimensionHeaders(sink, 'tokens', entries[tk].tpm, states[tk].tokens, states[tk].start, now);
    if (cc >= 0) this.dimensionHeaders(sink, 'concurrency', entries[cc].cc, states[cc].active, 0, now);
  }

  private dimensionHeaders(sink: HeaderSink, dim: LimitDimension, limit: number, used: number, start: number, now: number): void {
    sink.setHeader(`x-ratelimit-limit-${dim}`, String(limit));
    sink.setHeader(`x-ratelimit-remaining-${dim}`, String(Math.max(0, limit - used)));
    if (dim !== 'concurrency') sink.setHeader(`x-ratelimit-reset-${dim}`, resetText(start + this.windowMs - now));
  }

  private refusal(e: LimitEntry, dim: LimitDimension, st: ScopeState, model: string, sink: HeaderSink | null, now: number): GatewayError {
    const limit = dim === 'requests' ? e.rpm : dim === 'tokens' ? e.tpm : e.cc;
    const used = dim === 'requests' ? st.requests : dim === 'tokens' ? st.tokens : st.active;
    // Calls in flight free up when one ends: asked again in a second.
    const waitMs = dim === 'concurrency' ? 1000 : Math.max(1, st.start + this.windowMs - now);
    const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
    if (sink) {
      this.dimensionHeaders(sink, dim, limit, used, st.start, now);
      sink.setHeader('retry-after', String(retryAfter));
    }
    const who = scopeText(e.id, model);
    const message =
      dim === 'concurrency'
        ? `rate limit reached for ${who}: ${limit} calls at once are in flight; try again when one has ended`
        : `rate limit reached for ${who} on ${DIM_TEXT[dim]}: limit ${limit}, used ${used}; try again in ${retryAfter} s`;
    return Object.assign(fail('rate_limit_exceeded', message, { type: dim, details: { scope: e.id.slice(0, 1), dimension: dim } }), {
      retryAfter,
    });
  }

  private tooLarge(e: LimitEntry, need: number, model: string, sink: HeaderSink | null): GatewayError {
    const retryAfter = Math.ceil(this.windowMs / 1000);
    if (sink) sink.setHeader('retry-after', String(retryAfter));
    const message =
      `request too large for ${scopeText(e.id, model)}: it may use up to ${need} tokens (its input and max_tokens), ` +
      `more than the limit of ${e.tpm} tokens per minute; send a smaller request or a lower max_tokens`;
    return Object.assign(
      fail('rate_limit_exceeded', message, { type: 'tokens', details: { scope: e.id.slice(0, 1), dimension: 'tokens' } }),
      { retryAfter },
    );
  }
}

/** The refusal of a request its user's window cannot take. */
function requestsRefused(limit: number, windowMs: number, retryAfter: number): GatewayError {
  const minutes = windowMs / 60_000;
  const per = minutes === 1 ? 'minute' : Number.isInteger(minutes) ? `${minutes} minutes` : `${windowMs / 1000} s`;
  return Object.assign(fail('rate_limit_exceeded', `rate limit reached: ${limit} requests per ${per}; try again in ${retryAfter} s`), {
    retryAfter,
  });
}

function entryOf(id: string, l: RateLimits): LimitEntry {
  return { id, rpm: l.rpm, tpm: l.tpm, cc: l.maxConcurrency };
}

function scopeText(id: string, model: string): string {
  const k = id[0] as keyof typeof SCOPE_TEXT;
  return k === 'm' ? `model "${echo(model)}" for this user` : SCOPE_TEXT[k];
}
