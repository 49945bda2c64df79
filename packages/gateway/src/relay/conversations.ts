/**
 * Conversations of Responses calls served by another vendor's format: the canonical messages in and
 * the answer out, kept under the Response id so that `previous_response_id` can continue them (each
 * call then sends the whole conversation to the upstream, which has no memory of its own). Only the
 * user who made a Response can continue it. Conversations larger than MAX_BYTES are not kept; those older
 * than RESPONSES_RETENTION_SECONDS are deleted by a daily job (`startRetention`).
 */
import type { Core } from '../core.ts';
import { echo, fail } from '../platform/errors.ts';
import { TurnWrites } from './turn-writes.ts';
import type { Message } from './providers/index.ts';

const MAX_BYTES = 8 * 1024 * 1024;
const PURGE_BATCH = 500;
const DAY_MS = 86_400_000;
/** Conversations kept in memory too, so the next turn on this node finds one whose row is still being written. */
const RECENT = 500;
/** The most conversations one statement writes, and the most of their text (a larger one goes alone). */
const WRITE_ROWS = 200;
const WRITE_BYTES = 1024 * 1024;

interface ConversationRow {
  response_id: string;
  user_id: number;
  model: string;
  messages: string;
  created_at: number;
}

export class Conversations {
  private recent = new Map<string, { userId: number; json: string }>();
  /** The conversations kept in one turn are written in one statement (relay/turn-writes.ts). */
  private readonly writes: TurnWrites<ConversationRow>;

  constructor(private readonly core: Core) {
    this.writes = new TurnWrites(core, {
      insert: (rows) => this.insert(rows),
      maxRows: WRITE_ROWS,
      size: (r) => r.messages.length,
      maxSize: WRITE_BYTES,
    });
  }

  /**
   * Keeps the conversation of `responseId` (input and answer, without system messages): in memory at
   * once (before the caller has the answer), in the database when the write completes.
   */
  async keep(responseId: string, userId: number, model: string, messages: Message[]): Promise<void> {
    const json = JSON.stringify(messages.filter((m) => m.role !== 'system'));
    if (json.length > MAX_BYTES) return;
    this.recent.set(responseId, { userId, json });
    if (this.recent.size > RECENT) this.recent.delete(this.recent.keys().next().value as string);
    await this.writes.add(responseId, { response_id: responseId, user_id: userId, model, messages: json, created_at: Date.now() });
  }

  /** One statement for the conversations of a turn; a response id already stored keeps its row. */
  private insert(rows: Array<[string, ConversationRow]>): Promise<unknown> {
    const { db, dialect } = this.core.h;
    const q = db.insertInto('relay_conversations').values(rows.map(([, r]) => r));
    return dialect === 'mysql'
      ? q.onDuplicateKeyUpdate((eb) => ({ response_id: eb.ref('relay_conversations.response_id') })).execute()
      : q.onConflict((oc) => oc.column('response_id').doNothing()).execute();
  }

  /** The messages of `responseId` for `userId`; 404 (`previous_response_not_found`) when there is none of theirs. */
  async load(responseId: string, userId: number): Promise<Message[]> {
    const mem = this.recent.get(responseId);
    if (mem) {
      if (mem.userId !== userId) throw notFound(responseId);
      return JSON.parse(mem.json) as Message[];
    }
    const row =
      responseId.length <= 191
        ? await this.core.h.db
            .selectFrom('relay_conversations')
            .select(['user_id', 'messages'])
            .where('response_id', '=', responseId)
            .executeTakeFirst()
        : undefined;
    if (!row || Number(row.user_id) !== userId) throw notFound(responseId);
    return JSON.parse(row.messages) as Message[];
  }

  /** Deletes conversations stored before `cutoff` (unix ms), in batches; returns how many. */
  async purgeBefore(cutoff: number): Promise<number> {
    const db = this.core.h.db;
    let deleted = 0;
    for (;;) {
      const ids = await db
        .selectFrom('relay_conversations')
        .select('response_id')
        .where('created_at', '<', cutoff)
        .limit(PURGE_BATCH)
        .execute();
      if (ids.length === 0) break;
      const res = await db
        .deleteFrom('relay_conversations')
        .where(
          'response_id',
          'in',
          ids.map((r) => r.response_id),
        )
        .executeTakeFirst();
      deleted += Number(res.numDeletedRows);
      if (ids.length < PURGE_BATCH) break;
      await new Promise((r) => setImmediate(r));
    }
    return deleted;
  }

  /** Starts the daily deletion of conversations older than RESPONSES_RETENTION_SECONDS (0: kept forever). */
  startRetention(): void {
    const days = this.core.config.responsesRetentionDays;
    if (!(days > 0)) return;
    const run = () => {
      this.purgeBefore(Date.now() - days * DAY_MS)
        .then((n) => {
          if (n > 0) this.core.log.info({ deleted: n, days }, 'old Responses conversations deleted');
        })
        .catch((e) => this.core.log.warn({ err: (e as Error).message }, 'Responses conversation retention failed'));
    };
    const first = setTimeout(() => {
      run();
      const every = setInterval(run, DAY_MS);
      every.unref();
      this.core.onClose(() => clearInterval(every));
    }, 60_000);
    first.unref();
    this.core.onClose(() => clearTimeout(first));
  }
}

const notFound = (id: string) => fail('previous_response_not_found', { id: echo(id) });
