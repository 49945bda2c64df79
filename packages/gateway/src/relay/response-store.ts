/**
 * Responses ids created through the relay, with the channel and key that created them, so reads,
 * deletes and cancels of that id go back to the same upstream account. Recent ids are also held in
 * memory (a read right after a create needs no database round trip).
 *
 * The ids remembered during one turn of the event loop are written in one statement at the end of it
 * (an id already stored is kept as it is; relay/turn-writes.ts): a burst of Responses calls costs one
 * insert, not one each. A node that closes writes what is still pending first.
 */
import type { Core } from '../core.ts';
import { TurnWrites } from './turn-writes.ts';

export interface StoredResponse {
  userId: number;
  channelId: number;
  keyIndex: number;
  model: string;
}

const MEMORY = 2000;

/** The most ids one statement writes (well under every dialect's limit on parameters). */
const BATCH = 500;

export class ResponseStore {
  private recent = new Map<string, StoredResponse>();
  private readonly writes: TurnWrites<StoredResponse & { createdAt: number }>;

  constructor(private readonly core: Core) {
    this.writes = new TurnWrites(core, { insert: (rows) => this.insert(rows), maxRows: BATCH });
  }

  /** Remembers `id` (resolves once it is written with the others of this turn). */
  remember(id: string, r: StoredResponse): Promise<void> {
    if (!id || id.length > 191) return Promise.resolve();
    this.recent.set(id, r);
    if (this.recent.size > MEMORY) this.recent.delete(this.recent.keys().next().value as string);
    return this.writes.add(id, { ...r, createdAt: Date.now() });
  }

  private insert(batch: Array<[string, StoredResponse & { createdAt: number }]>): Promise<unknown> {
    const { db, dialect } = this.core.h;
    const rows = batch.map(([id, row]) => ({
      response_id: id,
      user_id: row.userId,
      channel_id: row.channelId,
      key_index: row.keyIndex,
      model: row.model,
      created_at: row.createdAt,
    }));
    const q = db.insertInto('relay_responses').values(rows);
    return dialect === 'mysql' ? q.ignore().execute() : q.onConflict((oc) => oc.column('response_id').doNothing()).execute();
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
