/**
 * Rows keyed by an id that the relay writes after a call (Responses ids, converted conversations),
 * gathered over one turn of the event loop and written together at the end of it: a burst of calls
 * costs one statement (on SQLite one commit), not one each. The first row added for an id is the one
 * written; an id already stored is kept as it is (the caller's insert ignores it). When a statement
 * fails, its rows are written again one by one, so a bad row fails only its own call. Writes run one at
 * a time, in order; a closing node writes what is still pending.
 */
import type { Core } from '../core.ts';

interface Waiting<R> {
  row: R;
  done: Array<{ resolve: () => void; reject: (e: unknown) => void }>;
}

export interface TurnWritesOptions<R> {
  /** Writes the rows (a statement that keeps an id already stored). */
  insert: (rows: Array<[string, R]>) => Promise<unknown>;
  /** The most rows one statement writes. */
  maxRows: number;
  /** The size of a row (its bytes, roughly), and the most one statement carries: a row over it goes alone. */
  size?: (row: R) => number;
  maxSize?: number;
}

export class TurnWrites<R> {
  private pending = new Map<string, Waiting<R>>();
  private scheduled = false;
  /** The write under way, if any (a closing node waits for it). */
  private writing: Promise<void> | null = null;

  constructor(
    core: Core,
    private readonly o: TurnWritesOptions<R>,
  ) {
    core.onClose(async () => {
      await this.writing;
      await this.flush();
    });
  }

  /** Adds the row of `id` (resolves once it is written with the others of this turn). */
  add(id: string, row: R): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const p = this.pending.get(id);
      // The first row of an id is the one kept, as in the table.
      if (p) p.done.push({ resolve, reject });
      else this.pending.set(id, { row, done: [{ resolve, reject }] });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          const w = (this.writing ?? Promise.resolve()).then(() => this.flush());
          this.writing = w;
          void w.finally(() => {
            if (this.writing === w) this.writing = null;
          });
        });
      }
    });
  }

  /** Writes every pending row, at most `maxRows` (and `maxSize`, when given) to a statement. */
  private async flush(): Promise<void> {
    this.scheduled = false;
    const { size, maxSize = Infinity, maxRows } = this.o;
    while (this.pending.size) {
      const batch: Array<[string, Waiting<R>]> = [];
      let bytes = 0;
      for (const e of this.pending) {
        const s = size ? size(e[1].row) : 0;
        if (batch.length && (batch.length >= maxRows || bytes + s > maxSize)) break;
        batch.push(e);
        bytes += s;
      }
      for (const [id] of batch) this.pending.delete(id);
      try {
        await this.o.insert(batch.map(([id, w]) => [id, w.row]));
        for (const [, w] of batch) for (const d of w.done) d.resolve();
      } catch (e) {
        if (batch.length === 1) for (const d of batch[0][1].done) d.reject(e);
        // One bad row fails only itself, as when each was written alone.
        else for (const one of batch) await this.writeOne(one);
      }
    }
  }

  private async writeOne([id, w]: [string, Waiting<R>]): Promise<void> {
    try {
      await this.o.insert([[id, w.row]]);
      for (const d of w.done) d.resolve();
    } catch (e) {
      for (const d of w.done) d.reject(e);
    }
  }
}
