/**
 * Responses ids created through the relay, with the channel and key that created them, so reads,
 * deletes and cancels of that id go back to the same upstream account. Recent ids are also held in
 * memory (a read right after a create needs no database round trip).
 */
import type { Core } from '../core.ts';
import { isUniqueViolation } from '../store/db.ts';

export interface StoredResponse {
  userId: number;
  channelId: number;
  keyIndex: number;
  model: string;
}

const MEMORY = 2000;

export class ResponseStore {
  private recent = new Map<string, StoredResponse>();

  constructor(private readonly core: Core) {}

  async remember(id: string, r: StoredResponse): Promise<void> {
    if (!id || id.length > 191) return;
    this.recent.set(id, r);
    if (this.recent.size > MEMORY) this.recent.delete(this.recent.keys().next().value as string);
    try {
      await this.core.h.db
        .insertInto('relay_responses')
        .values({
          response_id: id,
          user_id: r.userId,
          channel_id: r.channelId,
          key_index: r.keyIndex,
          model: r.model,
          created_at: Date.now(),
        })
        .execute();
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
    }
  }

  /** The record of `id` when `userId` created it, else null. */
  async lookup(id: string, userId: number): Promise<StoredResponse | null> {
    if (!id || id.length > 191) return null;
    let r = this.recent.get(id) ?? null;
    if (!r) {
      const row = await this.core.h.db.selectFrom('relay_responses').selectAll().where('response_id', '=', id).executeTakeFirst();
      if (row) r = { userId: Number(row.user_id), channelId: Number(row.channel_id), keyIndex: Number(row.key_index), model: row.model };
    }
    return r && r.userId === userId ? r : null;
  }
}
