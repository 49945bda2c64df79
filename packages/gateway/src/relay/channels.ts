/**
 * Channels at runtime: every enabled relay channel (OpenAI-compatible, Azure, Anthropic, Gemini, Vertex AI, Bedrock) held
 * in memory with its unsealed keys and indexed by (group, model). Rebuilt when the `channels` revision
 * changes; nothing here reads the database on the hot path. The health of channels and keys (auto-
 * disabled keys, cooldowns, the listeners of health changes) is `channels/health.ts`'s: the index
 * reads it when it chooses and hands it the channels it holds.
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
import { CHANNELS_REVISION, ChannelHealth, jsonObject, type HealthChange, type KeyState } from '../channels/health.ts';

export { CHANNELS_REVISION, type HealthChange, type KeyState };
/** The channel types of model calls: every type a provider serves (relay/providers/registry.ts). */
export const RELAY_TYPES: ReadonlySet<number> = RELAY_CHANNEL_TYPES;

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

export interface Pick {
  channel: RuntimeChannel;
  keyIndex: number;
  key: string;
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
  /** The health of the channels and their keys (channels/health.ts), over the channels held here. */
  readonly health: ChannelHealth;

  constructor(private readonly core: Core) {
    this.health = new ChannelHealth(core, (id) => this.byId.get(id));
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
    const settings = jsonObject<Record<string, unknown>>(r.settings, {});
    const type = Number(r.type);
    return {
      id: Number(r.id),
      name: r.name,
      type,
      ...((b) => ({ baseUrl: b.url, apiRoot: b.apiRoot }))(resolveBaseUrl(type, r.base_url, settings)),
      keys,
      keyMode: r.key_mode === 'round_robin' ? 'round_robin' : 'random',
      keyState: jsonObject<Record<string, KeyState>>(r.key_state, {}),
      models: jsonObject<unknown[]>(r.models, []).map(String),
      groups: jsonObject<unknown[]>(r.groups, []).map(String),
      priority: Number(r.priority),
      weight: Math.max(0, Number(r.weight)),
      modelMapping: jsonObject<Record<string, string>>(r.model_mapping, {}),
      headerOverride: jsonObject<Record<string, string>>(r.header_override, {}),
      paramOverride: jsonObject<Record<string, unknown>>(r.param_override, {}),
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
      const until = this.health.cooldownEnd(ch.id, i);
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
          const until = this.health.cooldownEnd(ch.id, k)!;
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
    const until = this.health.cooldownEnd(ch.id, keyIndex);
    if (until !== undefined && until > Date.now()) return null;
    return { channel: ch, keyIndex, key: ch.keys[keyIndex] };
  }

  /** Adds a listener of the health changes this node writes (channels/health.ts). */
  onHealth(fn: (c: HealthChange) => void): void {
    this.health.onHealth(fn);
  }

  /** Tells the listeners of a change written elsewhere (a low upstream balance). */
  announce(change: HealthChange): void {
    this.health.announce(change);
  }

  /** Puts a key on cooldown, on every node when Redis is configured. */
  cooldown(channelId: number, keyIndex: number, ms: number): void {
    this.health.cooldown(channelId, keyIndex, ms);
  }

  coolingUntil(channelId: number, keyIndex: number): number | null {
    return this.health.coolingUntil(channelId, keyIndex);
  }

  /** Disables one key after the upstream refused it (its channel when no key is left). */
  disableKey(channelId: number, keyIndex: number, reason: string): Promise<void> {
    return this.health.disableKey(channelId, keyIndex, reason);
  }

  /** Re-enables a key that passed a probe (and its channel when it was auto-disabled). */
  enableKey(channelId: number, keyIndex: number): Promise<void> {
    return this.health.enableKey(channelId, keyIndex);
  }

  /** Records a test result. */
  recordTest(channelId: number, ms: number): Promise<void> {
    return this.health.recordTest(channelId, ms);
  }
}

/** A channel's `cost_ratio`; `settings.cost_ratio` counts while the field is left at its default 1. */
function costRatioOf(column: number | null | undefined, settings: Record<string, unknown>): number {
  const own = column === undefined || column === null ? 1 : Number(column);
  const s = settings.cost_ratio;
  return own === 1 && typeof s === 'number' && Number.isFinite(s) && s >= 0 ? s : own;
}
