/**
 * Request logs written off the hot path: rows are queued in memory and inserted in batches every
 * ~200 ms or when 500 are waiting. `close()` writes what is left (called on shutdown).
 *
 * On SQLite a batch is one transaction of a statement prepared once (no query building per row);
 * elsewhere, and while a Kysely transaction is open on the SQLite connection, one multi-row INSERT.
 */
import type { Insertable } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import type { Core } from '../core.ts';
import type { LogRow } from '../store/schema-core.ts';

export type NewLog = Insertable<LogRow>;

const MAX_BATCH = 500;

/** Every column of `logs` but the id, in the order of the prepared statement. */
const COLUMNS = [
  'created_at', 'type', 'request_id', 'user_id', 'username', 'key_id', 'key_name', 'group_name', 'model',
  'upstream_model', 'channel_id', 'endpoint', 'status_code', 'prompt_tokens', 'completion_tokens',
  'cached_tokens', 'quota', 'latency_ms', 'first_byte_ms', 'is_stream', 'attempts', 'content', 'other',
] as const satisfies readonly (keyof NewLog)[];
const FLUSH_MS = 200;

export class LogWriter {
  private queue: NewLog[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;
  private insertMany: BetterSqlite3.Transaction<(rows: NewLog[]) => void> | null = null;

  /**
   * `accept` decides per row whether it is written at all (the relay passes the LogConsumeEnabled /
   * LogErrorEnabled switches); a refused row is dropped before it is queued.
   */
  constructor(private readonly core: Core, private readonly flushMs = FLUSH_MS, private readonly accept?: (row: NewLog) => boolean) {
    const conn = core.h.sqlite;
    if (conn) {
      const stmt = conn.prepare(`INSERT INTO logs (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`);
      const values = new Array<unknown>(COLUMNS.length);
      this.insertMany = conn.transaction((rows: NewLog[]) => {
        for (const r of rows) {
          for (let i = 0; i < COLUMNS.length; i++) values[i] = r[COLUMNS[i]] ?? null;
          stmt.run(values);
        }
      });
    }
  }

  write(row: NewLog): void {
    this.core.metrics.call(row);
    if (this.accept && !this.accept(row)) return;
    if (this.closed) {
      this.core.log.warn({ requestId: row.request_id }, 'log written after shutdown; dropped');
      return;
    }
    this.queue.push(row);
    if (this.queue.length >= MAX_BATCH) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => { this.timer = null; void this.flush(); }, this.flushMs);
      this.timer.unref();
    }
  }

  /** Writes everything queued so far; resolves when it is in the database. */
  flush(): Promise<void> {
    if (this.timer) { clearTimeout(this.timer); this.timer = null; }
    const batch = this.queue;
    this.queue = [];
    this.flushing = this.flushing.then(async () => {
      for (let i = 0; i < batch.length; i += MAX_BATCH) {
        const part = batch.slice(i, i + MAX_BATCH);
        try {
          const conn = this.core.h.sqlite;
          if (this.insertMany && conn?.open && !conn.inTransaction) this.insertMany.immediate(part);
          else await this.core.h.db.insertInto('logs').values(part).execute();
        } catch (e) {
          this.core.log.error({ err: (e as Error).message, rows: part.length }, 'log batch insert failed');
        }
      }
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }
}
