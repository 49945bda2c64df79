/**
 * The health of channels and their keys, for every part that calls channels:
 * - `disableKey` disables one key in `key_state` with the reason; the channel is auto-disabled
 *   (status 3) only when every key is. Both are written to the database and the `channels` revision
 *   bumped, so every node agrees (relay/recovery.ts probes them and calls `enableKey` on success).
 * - `cooldown` pauses a key in memory (429, connection failures) on this node and, with Redis, on every
 *   node; it recovers by itself.
 * - Listeners of `onHealth` hear each change of state this node wrote to the database (a key or a
 *   channel auto-disabled, or enabled again): the operator alerts.
 * When is decided by the caller (relay/policy.ts from the admin options); the in-memory channels whose
 * state changes at once are the caller's (relay/channels.ts), reached through `live`.
 */
import type { Selectable } from 'kysely';
import type { Core } from '../core.ts';
import type { ChannelRow as ChannelTable } from '../store/schema-core.ts';
import { ChannelStore } from './store.ts';

type ChannelRow = Selectable<ChannelTable>;

/** The cache revision of the channels: bumped by every write to the `channels` table. */
export const CHANNELS_REVISION = 'channels';
/** The cluster event of a key's cooldown (`{c: channel id, k: key index, u: until, unix ms}`). */
const COOLDOWN_EVENT = 'cooldown';

export interface KeyState {
  status: 'auto_disabled' | 'disabled';
  reason: string;
  at: number;
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

/** What health changes of a channel held in memory. */
export interface LiveChannel {
  keys: readonly string[];
  keyState: Record<string, KeyState>;
  status: number;
}

/** A JSON object column, or `dflt` when it is empty or not an object. */
export function jsonObject<T>(s: string | null | undefined, dflt: T): T {
  if (!s) return dflt;
  try {
    const v = JSON.parse(s);
    return v && typeof v === 'object' ? (v as T) : dflt;
  } catch {
    return dflt;
  }
}

export class ChannelHealth {
  /** `${channelId}:${keyIndex}` → cooldown end (unix ms). In memory (shared through Redis): a rate limit is short-lived. */
  private cooldowns = new Map<string, number>();
  private writes = new Map<number, Promise<void>>();
  private listeners: Array<(c: HealthChange) => void> = [];

  constructor(
    private readonly core: Core,
    private readonly live: (channelId: number) => LiveChannel | undefined,
  ) {
    // Cooldowns other nodes set (with Redis): applied here as they are, not sent on again.
    core.cache.onEvent(COOLDOWN_EVENT, (p) => {
      const e = p as { c?: unknown; k?: unknown; u?: unknown };
      if (typeof e.c !== 'number' || typeof e.k !== 'number' || typeof e.u !== 'number') return;
      this.setCooldown(e.c, e.k, e.u);
    });
  }

  /** Adds a listener of the health changes this node writes. */
  onHealth(fn: (c: HealthChange) => void): void {
    this.listeners.push(fn);
  }

  /** Tells the listeners of a change written elsewhere (a low upstream balance). */
  announce(change: HealthChange): void {
    this.emit([change]);
  }

  private emit(changes: HealthChange[]): void {
    for (const c of changes) {
      for (const fn of this.listeners) {
        try {
          fn(c);
        } catch (e) {
          this.core.log.error({ err: (e as Error).message }, 'health listener failed');
        }
      }
    }
  }

  /** When a key's cooldown ends (unix ms), whether or not it has passed; undefined: never cooled. */
  cooldownEnd(channelId: number, keyIndex: number): number | undefined {
    return this.cooldowns.get(`${channelId}:${keyIndex}`);
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
    const ch = this.live(channelId);
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
        const ks = jsonObject<Record<string, KeyState>>(row.key_state, {});
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
      () => this.emit(changes),
    );
  }

  /** Re-enables a key that passed a probe (and its channel when it was auto-disabled). */
  async enableKey(channelId: number, keyIndex: number): Promise<void> {
    const ch = this.live(channelId);
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
        const ks = jsonObject<Record<string, KeyState>>(row.key_state, {});
        if (ks[String(keyIndex)]?.status === 'auto_disabled') {
          delete ks[String(keyIndex)];
          changes.push({ kind: 'key_enabled', channelId, channelName: row.name, keyIndex });
        }
        if (Number(row.status) === 3) changes.push({ kind: 'channel_enabled', channelId, channelName: row.name });
        return { key_state: JSON.stringify(ks), ...(Number(row.status) === 3 ? { status: 1, status_reason: null } : {}) };
      },
      () => this.emit(changes),
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
