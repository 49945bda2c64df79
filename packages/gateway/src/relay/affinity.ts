/**
 * Session affinity: the calls of one conversation go to the channel and the upstream key that served
 * it last, so the vendor's prompt cache hits (vendors keep a cache per key, so the key matters as much
 * as the channel). A conversation is named by what the caller sends — OpenAI's `prompt_cache_key`, a
 * `session_id` / `session-id` header, Anthropic's `metadata.user_id` (Claude Code puts its session
 * there) — per user and model; a long prompt that names none is named by its head (its tools, system
 * prompt and first user message). Its record is an AffinityRecord (channel id and key index); an entry
 * lives `RELAY_AFFINITY_TTL_SECONDS` after its last use, is dropped when its channel fails, and is
 * skipped when the channel or key is disabled or cooling down. With Redis the entries are shared by
 * every node; without it (or while it is unavailable, platform/redis-health.ts) each node keeps its
 * own. Keys are hashes: no caller text is stored.
 *
 * It applies whenever a call has a choice: several channels, or one channel with several keys.
 */
import { createHash } from 'node:crypto';
import type { Core } from '../core.ts';

/** Where a conversation was served: the channel and the index of the upstream key in its key list. */
export interface AffinityRecord {
  channelId: number;
  keyIndex: number;
}

/** The record as stored (Redis value): `<channel id>:<key index>`. */
export function formatAffinity(r: AffinityRecord): string {
  return `${r.channelId}:${r.keyIndex}`;
}

/** A stored record read back; null when it is not one. */
export function parseAffinity(v: string | null | undefined): AffinityRecord | null {
  const m = v ? /^(\d+):(\d+)$/.exec(v) : null;
  return m ? { channelId: Number(m[1]), keyIndex: Number(m[2]) } : null;
}

const MAX_LOCAL = 100_000;

/**
 * The conversation key of a call, or null when the caller names none. `head`, asked only then, names
 * the conversation by what every turn of it repeats (a long prompt's tools, system prompt and first user
 * message), so that callers who cannot name their conversation keep it on one channel and key as well.
 */
export function affinityKey(
  userId: number,
  model: string,
  body: Record<string, unknown>,
  headers?: Record<string, string>,
  head?: () => string | null,
): string | null {
  let id: string | undefined;
  if (typeof body.prompt_cache_key === 'string' && body.prompt_cache_key) id = `p:${body.prompt_cache_key}`;
  else if (headers?.session_id || headers?.['session-id']) id = `s:${headers.session_id ?? headers['session-id']}`;
  else {
    const m = body.metadata as Record<string, unknown> | undefined;
    if (m && typeof m === 'object' && typeof m.user_id === 'string' && m.user_id) id = `u:${m.user_id}`;
  }
  if (!id) {
    const h = head?.();
    if (!h) return null;
    id = `h:${h}`;
  }
  return createHash('sha256').update(`${userId}\n${model}\n${id}`).digest('base64url').slice(0, 32);
}

export class Affinity {
  private local = new Map<string, { value: string; exp: number }>();

  constructor(
    private readonly core: Core,
    private readonly ttlMs: number,
  ) {}

  /** The Redis key of conversation `k`; null without Redis or while it is unavailable (this node's map then). */
  private redisKey(k: string): string | null {
    const p = this.core.cache.redisPrefix;
    if (!this.core.redis || !p) return null;
    const health = this.core.redisHealth;
    if (health && !health.usable()) {
      health.fellBack('affinity');
      return null;
    }
    return `${p}aff:${k}`;
  }

  private readonly failed = (e: unknown): void => {
    this.core.redisHealth?.failed('affinity', e);
  };

  /** The channel and key that served the conversation `k`, if it is still remembered. */
  async get(k: string): Promise<AffinityRecord | null> {
    const rk = this.redisKey(k);
    if (rk) {
      // With Redis every node reads the one shared entry (a move made by another node is seen at once).
      try {
        return parseAffinity(await this.core.redis!.get(rk));
      } catch (e) {
        this.failed(e);
      }
    }
    const hit = this.local.get(k);
    return hit && hit.exp > Date.now() ? parseAffinity(hit.value) : null;
  }

  /** Remembers (or refreshes) that `r` served the conversation `k`. */
  set(k: string, r: AffinityRecord): void {
    const rk = this.redisKey(k);
    if (rk) {
      // A lost write only costs a cache miss.
      this.core.redis!.set(rk, formatAffinity(r), 'PX', this.ttlMs).catch(this.failed);
      return;
    }
    if (this.local.size >= MAX_LOCAL && !this.local.has(k)) this.local.delete(this.local.keys().next().value as string);
    this.local.set(k, { value: formatAffinity(r), exp: Date.now() + this.ttlMs });
  }

  /** Forgets the conversation `k` (its channel failed). */
  drop(k: string): void {
    const rk = this.redisKey(k);
    // The entry expires anyway if the delete is lost.
    if (rk) this.core.redis!.del(rk).catch(this.failed);
    this.local.delete(k);
  }
}
