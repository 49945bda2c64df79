/**
 * Channels at runtime: every enabled relay channel (OpenAI-compatible, Azure, Anthropic, Gemini, Vertex AI, Bedrock) held
 * in memory with its unsealed keys and indexed by (group, model). Rebuilt when the `channels` revision
 * changes; nothing here reads the database on the hot path.
 *
 * Health (when, is decided in relay/policy.ts from the admin options):
 * - `disableKey` disables one key in `key_state` with the reason; the channel is auto-disabled
 *   (status 3) only when every key is. Both are written to the database and the revision bumped, so
 *   every node agrees. A background probe retries them and re-enables on success.
 * - `cooldown` pauses a key in memory (429, connection failures) on this node and, with Redis, on every
 *   node; it recovers by itself. A channel whose usable keys all cool is skipped while any other
 *   candidate remains.
 * - Listeners of `onHealth` hear each change of state this node wrote to the database (a key or a
 *   channel auto-disabled, or enabled again by the probe): the operator alerts.
 */
import type { Core } from '../core.ts';
import type { Selectable } from 'kysely';
import type { ChannelRow as ChannelTable } from '../store/schema-core.ts';

type ChannelRow = Selectable<ChannelTable>;
import { ChannelType } from '../channels/types.ts';
import { presetRoot } from './providers/openai/presets.ts';
import { defaultBaseUrl, endpointOf, RELAY_CHANNEL_TYPES } from './providers/registry.ts';
import { pickRanked } from '../channels/pick.ts';
import { ChannelStore } from '../channels/store.ts';

export const CHANNELS_REVISION = 'channels';
/** The cluster event of a key's cooldown (`{c: channel id, k: key index, u: until, unix ms}`). */
const COOLDOWN_EVENT = 'cooldown';
/** The channel types of model calls: every type a provider serves (relay/providers/registry.ts). */
export const RELAY_TYPES: ReadonlySet<number> = RELAY_CHANNEL_TYPES;

export interface KeyState {
  status: 'auto_disabled' | 'disabled';
  reason: string;
  at: number;
}

export interface RuntimeChannel {
  id: number;
  name: string;
  type: number;
  /** Without a trailing slash. */
  baseUrl: string;
  /** `baseUrl` is an OpenAI-compatible API root (a preset's): API paths are appended without adding `/v1`. */
  apiRoot: boolean;
  keys: string[];
  keyMode: 'random' | 'round_robin';
  keyState: Record<string, KeyState>;
  models: string[];
  groups: string[];
  priority: number;
  weight: number;
  modelMapping: Record<string, string>;
  headerOverride: Record<string, string>;
  paramOverride: Record<string, unknown>;
  settings: Record<string, unknown>;
  /** What the operator pays the vendor relative to list prices (the upstream cost of its calls; absent: 1). */
  costRatio?: number;
  /** 1 enabled, 2 disabled by hand, 3 auto-disabled. */
  status: number;
  testModel: string | null;
  rr: number;
  /** Calls in flight above which the channel is skipped (0: no cap; relay/routing.ts). */
  maxConcurrency: number;
  /** Estimated prompt tokens above which the channel is skipped (0: no cap). */
  maxInputTokens: number;
}

/** A change of a channel's (or one key's) health, as written to the database. */
export interface HealthChange {
  kind: 'key_auto_disabled' | 'channel_auto_disabled' | 'key_enabled' | 'channel_enabled' | 'channel_low_balance';
  channelId: number;
  channelName: string;
  /** The key's index (key events). */
  keyIndex?: number;
  reason?: string;
  /** The balance read (channel_low_balance). */
  balance?: number;
}

export interface Pick {
  channel: RuntimeChannel;
  keyIndex: number;
  key: string;
}

function obj<T>(s: string | null | undefined, dflt: T): T {
  if (!s) return dflt;
  try {
    const v = JSON.parse(s);
    return v && typeof v === 'object' ? (v as T) : dflt;
  } catch {
    return dflt;
  }
}

/** A channel's base URL: its own, else its preset's API root (`apiRoot`), else its type's default. */
export function resolveBaseUrl(type: number, baseUrl: string, settings: Record<string, unknown>): { url: string; apiRoot: boolean } {
  const own = baseUrl.trim();
  if (own) return { url: own.replace(/\/+$/, ''), apiRoot: false };
  if (type === ChannelType.openai && typeof settings.preset === 'string') {
    const root = presetRoot(settings.preset, settings);
    if (root) return { url: root.replace(/\/+$/, ''), apiRoot: true };
  }
  return { url: defaultBaseUrl(type).replace(/\/+$/, ''), apiRoot: false };
}

/**
 * Where a chat call to `model` goes on a channel with these fields: the URL the relay itself builds (its base URL
 * resolved as above, then the type's endpoint), for the console's preview while a channel is edited. Null for a
 * type that makes no model calls or a URL that needs what only a key holds (a Vertex project without project_id).
 */
export function chatCallUrl(type: number, baseUrl: string, settings: Record<string, unknown>, model: string): string | null {
  if (!RELAY_TYPES.has(type)) return null;
  const base = resolveBaseUrl(type, baseUrl, settings);
  try {
    return endpointOf(type).url({ type, baseUrl: base.url, apiRoot: base.apiRoot, keys: [], settings }, 'chat', model, false).toString();
  } catch {
    return null;
  }
}

export class ChannelIndex {
  private byId = new Map<number, RuntimeChannel>();
  /** group → model → channels (status 1 only). */
  private index = new Map<string, Map<string, RuntimeChannel[]>>();
  /** `${channelId}:${keyIndex}` → cooldown end (unix ms). In memory (shared through Redis): a rate limit is short-lived. */
  private cooldowns = new Map<string, number>();
  private writes = new Map<number, Promise<void>>();
  private healthListeners: Array<(c: HealthChange) => void> = [];

  constructor(private readonly core: Core) {
    // Cooldowns other nodes set (with Redis): applied here as they are, not sent on again.
    core.cache.onEvent(COOLDOWN_EVENT, (p) => {
      const e = p as { c?: unknown; k?: unknown; u?: unknown };
      if (typeof e.c !== 'number' || typeof e.k !== 'number' || typeof e.u !== 'number') return;
      this.setCooldown(e.c, e.k, e.u);
    });
  }

  async load(): Promise<void> {
    const rows = await new ChannelStore(this.core.h).all();
    const byId = new Map<number, RuntimeChannel>();
    const index = new Map<string, Map<string, RuntimeChannel[]>>();
    for (const r of rows) {
      if (!RELAY_TYPES.has(Number(r.type))) continue;
      const ch = this.fromRow(r);
      if (!ch) continue;
      const prev = this.byId.get(ch.id);
      if (prev) ch.rr = prev.rr;
      byId.set(ch.id, ch);
      if (ch.status !== 1) continue;
      for (const g of ch.groups) {
        let m = index.get(g);
        if (!m) index.set(g, (m = new Map()));
        for (const model of ch.models) {
          const list = m.get(model);
          if (list) list.push(ch);
          else m.set(model, [ch]);
        }
      }
    }
    this.byId = byId;
    this.index = index;
  }

  private fromRow(r: ChannelRow): RuntimeChannel | null {
    let keys: string[];
    try {
      const v = JSON.parse(this.core.secrets.open(r.keys_sealed));
      keys = Array.isArray(v) ? v.map(String) : [String(v)];
    } catch (e) {
      this.core.log.warn({ channelId: r.id, err: (e as Error).message }, 'channel keys cannot be unsealed; channel skipped');
      return null;
    }
    const settings = obj<Record<string, unknown>>(r.settings, {});
    const type = Number(r.type);
    return {
      id: Number(r.id),
      name: r.name,
      type,
      ...((b) => ({ baseUrl: b.url, apiRoot: b.apiRoot }))(resolveBaseUrl(type, r.base_url, settings)),
      keys,
      keyMode: r.key_mode === 'round_robin' ? 'round_robin' : 'random',
      keyState: obj<Record<string, KeyState>>(r.key_state, {}),
      models: obj<unknown[]>(r.models, []).map(String),
      groups: obj<unknown[]>(r.groups, []).map(String),
      priority: Number(r.priority),
      weight: Math.max(0, Number(r.weight)),
      modelMapping: obj<Record<string, string>>(r.model_mapping, {}),
      headerOverride: obj<Record<string, string>>(r.header_override, {}),
      paramOverride: obj<Record<string, unknown>>(r.param_override, {}),
      settings,
      costRatio: costRatioOf(r.cost_ratio, settings),
      status: Number(r.status),
      testModel: r.test_model,
      rr: 0,
      maxConcurrency: Math.max(0, Number(r.max_concurrency ?? 0)),
      maxInputTokens: Math.max(0, Number(r.max_input_tokens ?? 0)),
    };
  }

  get(id: number): RuntimeChannel | undefined {
    return this.byId.get(id);
  }

  all(): RuntimeChannel[] {
    return [...this.byId.values()];
  }

  /** Enabled channels serving `model` for `group`. */
  candidates(group: string, model: string): RuntimeChannel[] {
    return this.index.get(group)?.get(model) ?? [];
  }

  /** Every model some enabled channel serves for `group`. */
  modelsFor(group: string): string[] {
    return [...(this.index.get(group)?.keys() ?? [])];
  }

  private usableKeys(ch: RuntimeChannel, now: number, skipKeys?: ReadonlySet<number>): { ready: number[]; cooling: number[] } {
    const ready: number[] = [];
    const cooling: number[] = [];
    for (let i = 0; i < ch.keys.length; i++) {
      if (ch.keyState[String(i)]) continue;
      if (skipKeys?.has(i)) continue;
      const until = this.cooldowns.get(`${ch.id}:${i}`);
      if (until !== undefined && until > now) cooling.push(i);
      else ready.push(i);
    }
    return { ready, cooling };
  }

  /**
   * Chooses a channel and key for an attempt: among the untried, usable channels by the rule of
   * `channels/pick.ts` (highest priority tier; weighted random within it, zero-weight channels
   * only when no weighted one is left).
   * `tried` channels are never drawn again, except a multi-key channel whose key was refused
   * (`failedKeys`): it may serve again with another key. Cooling channels are used only when nothing
   * else is left (the one that recovers first). `route` (relay/routing.ts) replaces the draw by the
   * call's balancing strategy and skips channels its caps leave out.
   */
  pick(
    candidates: RuntimeChannel[],
    tried: ReadonlySet<number>,
    failedKeys: ReadonlyMap<number, ReadonlySet<number>>,
    route?: { choose<T>(items: readonly T[], of: (t: T) => RuntimeChannel): T; admits(ch: RuntimeChannel): boolean },
  ): Pick | null {
    const now = Date.now();
    const open: Array<{ ch: RuntimeChannel; keys: number[] }> = [];
    let coolBest: { ch: RuntimeChannel; key: number; until: number } | null = null;
    for (const ch of candidates) {
      const fk = failedKeys.get(ch.id);
      if (tried.has(ch.id) && !fk) continue;
      if (route && !route.admits(ch)) continue;
      const { ready, cooling } = this.usableKeys(ch, now, fk);
      if (ready.length) open.push({ ch, keys: ready });
      else {
        for (const k of cooling) {
          const until = this.cooldowns.get(`${ch.id}:${k}`)!;
          if (!coolBest || until < coolBest.until) coolBest = { ch, key: k, until };
        }
      }
    }
    if (open.length === 0) {
      return coolBest ? { channel: coolBest.ch, keyIndex: coolBest.key, key: coolBest.ch.keys[coolBest.key] } : null;
    }
    const chosen = route ? route.choose(open, (o) => o.ch) : pickRanked(open, (o) => o.ch)!;
    const ch = chosen.ch;
    let keyIndex: number;
    if (chosen.keys.length === 1) keyIndex = chosen.keys[0];
    else if (ch.keyMode === 'round_robin') keyIndex = chosen.keys[ch.rr++ % chosen.keys.length];
    else keyIndex = chosen.keys[Math.floor(Math.random() * chosen.keys.length)];
    return { channel: ch, keyIndex, key: ch.keys[keyIndex] };
  }

  /**
   * The remembered channel and key of a conversation (relay/affinity.ts) when it may serve now: among
   * the candidates, the key enabled and not cooling down. Null otherwise (then `pick` chooses).
   */
  pickPreferred(candidates: RuntimeChannel[], channelId: number, keyIndex: number): Pick | null {
    const ch = candidates.find((c) => c.id === channelId);
    if (!ch || keyIndex < 0 || keyIndex >= ch.keys.length || ch.keyState[String(keyIndex)]) return null;
    const until = this.cooldowns.get(`${ch.id}:${keyIndex}`);
    if (until !== undefined && until > Date.now()) return null;
    return { channel: ch, keyIndex, key: ch.keys[keyIndex] };
  }

  /** Adds a listener of the health changes this node writes (see the module comment). */
  onHealth(fn: (c: HealthChange) => void): void {
    this.healthListeners.push(fn);
  }

  /** Tells the listeners of a change written elsewhere (a low upstream balance). */
  announce(change: HealthChange): void {
    this.emitHealth([change]);
  }

  private emitHealth(changes: HealthChange[]): void {
    for (const c of changes) {
      for (const fn of this.healthListeners) {
        try {
          fn(c);
        } catch (e) {
          this.core.log.error({ err: (e as Error).message }, 'health listener failed');
        }
      }
    }
  }

  /** Puts a key on cooldown (429, connection failures), on every node when Redis is configured. */
  cooldown(channelId: number, keyIndex: number, ms: number): void {
    const until = Date.now() + Math.max(1, ms);
    this.setCooldown(channelId, keyIndex, until);
    this.core.cache.broadcast(COOLDOWN_EVENT, { c: channelId, k: keyIndex, u: until });
  }

  private setCooldown(channelId: number, keyIndex: number, until: number): void {
    const k = `${channelId}:${keyIndex}`;
    if ((this.cooldowns.get(k) ?? 0) >= until) return;
    this.cooldowns.set(k, until);
    if (this.cooldowns.size > 10_000) {
      const now = Date.now();
      for (const [k, v] of this.cooldowns) if (v <= now) this.cooldowns.delete(k);
    }
  }

  coolingUntil(channelId: number, keyIndex: number): number | null {
    const v = this.cooldowns.get(`${channelId}:${keyIndex}`);
    return v !== undefined && v > Date.now() ? v : null;
  }

  /**
   * Disables one key after the upstream refused it; the channel goes to status 3 when no key is
   * left. Memory changes at once; the database and other nodes follow.
   */
  async disableKey(channelId: number, keyIndex: number, reason: string): Promise<void> {
    const ch = this.byId.get(channelId);
    if (!ch || ch.keyState[String(keyIndex)]) return;
    const state: KeyState = { status: 'auto_disabled', reason: reason.slice(0, 500), at: Date.now() };
    ch.keyState = { ...ch.keyState, [String(keyIndex)]: state };
    const allOff = ch.keys.every((_, i) => ch.keyState[String(i)]);
    if (allOff) ch.status = 3;
    this.core.log.warn({ channelId, keyIndex, reason: state.reason, channelDisabled: allOff }, 'channel key auto-disabled');
    const changes: HealthChange[] = [];
    await this.persist(
      channelId,
      (row) => {
        const ks = obj<Record<string, KeyState>>(row.key_state, {});
        if (!ks[String(keyIndex)]) {
          ks[String(keyIndex)] = state;
          changes.push({ kind: 'key_auto_disabled', channelId, channelName: row.name, keyIndex, reason: state.reason });
        }
        const keyCount = ch.keys.length;
        const off = Array.from({ length: keyCount }, (_, i) => ks[String(i)]).every(Boolean);
        if (off && Number(row.status) === 1)
          changes.push({
            kind: 'channel_auto_disabled',
            channelId,
            channelName: row.name,
            reason: `all keys refused by the upstream: ${state.reason}`,
          });
        return {
          key_state: JSON.stringify(ks),
          ...(off && Number(row.status) === 1
            ? { status: 3, status_reason: `all keys refused by the upstream: ${state.reason}`.slice(0, 1000) }
            : {}),
        };
      },
      () => this.emitHealth(changes),
    );
  }

  /** Re-enables a key that passed a probe (and its channel when it was auto-disabled). */
  async enableKey(channelId: number, keyIndex: number): Promise<void> {
    const ch = this.byId.get(channelId);
    if (ch) {
      const ks = { ...ch.keyState };
      if (ks[String(keyIndex)]?.status === 'auto_disabled') delete ks[String(keyIndex)];
      ch.keyState = ks;
    }
    this.core.log.info({ channelId, keyIndex }, 'channel key recovered');
    const changes: HealthChange[] = [];
    await this.persist(
      channelId,
      (row) => {
        const ks = obj<Record<string, KeyState>>(row.key_state, {});
        if (ks[String(keyIndex)]?.status === 'auto_disabled') {
          delete ks[String(keyIndex)];
          changes.push({ kind: 'key_enabled', channelId, channelName: row.name, keyIndex });
        }
        if (Number(row.status) === 3) changes.push({ kind: 'channel_enabled', channelId, channelName: row.name });
        return { key_state: JSON.stringify(ks), ...(Number(row.status) === 3 ? { status: 1, status_reason: null } : {}) };
      },
      () => this.emitHealth(changes),
    );
  }

  /** Read-modify-write of one channel's state, one at a time per channel on this node; `written` runs after a successful write. */
  private persist(channelId: number, change: (row: ChannelRow) => Record<string, unknown>, written?: () => void): Promise<void> {
    const prev = this.writes.get(channelId) ?? Promise.resolve();
    const next = prev.then(() => this.persistNow(channelId, change, written));
    this.writes.set(channelId, next);
    void next.finally(() => {
      if (this.writes.get(channelId) === next) this.writes.delete(channelId);
    });
    return next;
  }

  private async persistNow(channelId: number, change: (row: ChannelRow) => Record<string, unknown>, written?: () => void): Promise<void> {
    try {
      const store = new ChannelStore(this.core.h);
      const row = await store.byId(channelId);
      if (!row) return;
      const upd = change(row);
      await store.update(channelId, { ...upd, updated_at: Date.now() } as never);
      await this.core.cache.bump(CHANNELS_REVISION);
      written?.();
    } catch (e) {
      this.core.log.error({ channelId, err: (e as Error).message }, 'channel state update failed');
    }
  }

  /** Records a test result. */
  async recordTest(channelId: number, ms: number): Promise<void> {
    await new ChannelStore(this.core.h).update(channelId, { response_time_ms: Math.round(ms), tested_at: Date.now() });
  }
}

/** A channel's `cost_ratio`; `settings.cost_ratio` counts while the field is left at its default 1. */
function costRatioOf(column: number | null | undefined, settings: Record<string, unknown>): number {
  const own = column === undefined || column === null ? 1 : Number(column);
  const s = settings.cost_ratio;
  return own === 1 && typeof s === 'number' && Number.isFinite(s) && s >= 0 ? s : own;
}
