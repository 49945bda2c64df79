/**
 * Request logs written off the hot path: rows are queued in memory and inserted in batches every
 * ~200 ms or when 500 are waiting. `close()` writes what is left (called on shutdown).
 */
import type { Insertable } from 'kysely';
import type { Core } from '../core.ts';
import type { LogRow } from '../store/schema-core.ts';

export type NewLog = Insertable<LogRow>;

const MAX_BATCH = 500;
const FLUSH_MS = 200;

export class LogWriter {
  private queue: NewLog[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly core: Core, private readonly flushMs = FLUSH_MS) {}

  write(row: NewLog): void {
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
          await this.core.h.db.insertInto('logs').values(part).execute();
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
