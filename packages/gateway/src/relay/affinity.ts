/**
 * Session affinity: the calls of one conversation go to the channel and key that served it last, so
 * the vendor's prompt cache hits. A conversation is named by what the caller sends — OpenAI's
 * `prompt_cache_key`, a `session_id` / `session-id` header, Anthropic's `metadata.user_id` (Claude
 * Code puts its session there) — per user and model. An entry lives `RELAY_AFFINITY_TTL_SECONDS`
 * after its last use, is dropped when its channel fails, and is skipped when the channel or key is
 * disabled or cooling down. With Redis the entries are shared by every node; without it each node
 * keeps its own. Keys are hashes: no caller text is stored.
 */
import { createHash } from 'node:crypto';
import type { Core } from '../core.ts';

export interface Sticky {
  channel: number;
  keyIndex: number;
}

const MAX_LOCAL = 100_000;

/** The conversation key of a call, or null when the caller names none. */
export function affinityKey(userId: number, model: string, body: Record<string, unknown>, headers?: Record<string, string>): string | null {
  let id: string | undefined;
  if (typeof body.prompt_cache_key === 'string' && body.prompt_cache_key) id = `p:${body.prompt_cache_key}`;
  else if (headers?.session_id || headers?.['session-id']) id = `s:${headers.session_id ?? headers['session-id']}`;
  else {
    const m = body.metadata as Record<string, unknown> | undefined;
    if (m && typeof m === 'object' && typeof m.user_id === 'string' && m.user_id) id = `u:${m.user_id}`;
  }
  if (!id) return null;
  return createHash('sha256').update(`${userId}\n${model}\n${id}`).digest('base64url').slice(0, 32);
}

export class Affinity {
  private local = new Map<string, Sticky & { exp: number }>();

  constructor(
    private readonly core: Core,
    private readonly ttlMs: number,
  ) {}

  private redisKey(k: string): string | null {
    const p = this.core.cache.redisPrefix;
    return this.core.redis && p ? `${p}aff:${k}` : null;
  }

  /** The channel and key that served the conversation `k`, if it is still remembered. */
  async get(k: string): Promise<Sticky | null> {
    const rk = this.redisKey(k);
    if (!rk) {
      const hit = this.local.get(k);
      return hit && hit.exp > Date.now() ? { channel: hit.channel, keyIndex: hit.keyIndex } : null;
    }
    // With Redis every node reads the one shared entry (a move made by another node is seen at once).
    try {
      const v = await this.core.redis!.get(rk);
      if (!v) return null;
      const [c, i] = v.split(':').map(Number);
      return Number.isInteger(c) && Number.isInteger(i) ? { channel: c, keyIndex: i } : null;
    } catch {
      return null;
    }
  }

  /** Remembers (or refreshes) that `s` served the conversation `k`. */
  set(k: string, s: Sticky): void {
    const rk = this.redisKey(k);
    if (rk) {
      this.core.redis!.set(rk, `${s.channel}:${s.keyIndex}`, 'PX', this.ttlMs).catch(() => {
        /* a lost write only costs a cache miss */
      });
      return;
    }
    if (this.local.size >= MAX_LOCAL && !this.local.has(k)) this.local.delete(this.local.keys().next().value as string);
    this.local.set(k, { ...s, exp: Date.now() + this.ttlMs });
  }

  /** Forgets the conversation `k` (its channel failed). */
  drop(k: string): void {
    const rk = this.redisKey(k);
    if (rk)
      this.core.redis!.del(rk).catch(() => {
        /* the entry expires anyway */
      });
    else this.local.delete(k);
  }
}
