/**
 * The ledger's driver on SQLite (billing/ledger.ts): runs the movements of ledger-statements.ts on the
 * better-sqlite3 connection with statements prepared once, synchronously, committed in groups (see
 * SqliteDriver).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { sqlFor, type Ops, type Q, type Res } from './ledger-statements.ts';

interface Pending {
  make(): Ops<unknown>;
  resolve(v: unknown): void;
  reject(e: unknown): void;
  fallback(): Promise<unknown>;
  done: boolean;
  value?: unknown;
  error?: unknown;
}

/** Thrown inside a group commit when a movement failed after it had written: the group is run again with savepoints. */
class PartlyWritten extends Error {}

/**
 * The most movements one commit takes. A group runs synchronously: many hundreds of calls starting or
 * ending in the same turn (a burst of streams) would hold the event loop for tens of milliseconds, so
 * the rest wait for the next turn (after the I/O that came meanwhile). Each commit has a fixed cost (its
 * WAL write), so the bound is well above the groups of a busy node's ordinary turns: at 24, a node at
 * its maximum rate (50 calls in flight) served about a fifth fewer calls per CPU-second (docs/benchmarks.md).
 */
export const GROUP_MAX = 128;

/** How long a group that found another process's write lock waits before it tries again. */
const BUSY_RETRY_MS = 1;

/** Forgets what a rolled-back run of `items` did (it will run again). */
function reset(items: Pending[]): void {
  for (const it of items) {
    it.done = false;
    it.value = it.error = undefined;
  }
}

/**
 * Runs movements on the better-sqlite3 connection with statements prepared once, committing them in
 * groups: the movements asked for during one turn of the event loop (up to `GROUP_MAX`; the rest in the
 * next turn) run in one `BEGIN IMMEDIATE … COMMIT`. A movement that fails (insufficient quota, already done) must leave nothing behind while
 * the others commit. Most fail, if at all, at their first write — the ledger row that already exists
 * — and SQLite undoes a failed statement by itself, so the movements run without savepoints; one that
 * fails after a write has succeeded rolls the whole group back, and the group is run again with each
 * movement in its own savepoint, rolled back to it alone. Every promise settles only after the
 * COMMIT, so a caller never acts on a movement that is not written. One commit (and one write of the
 * few pages involved) then serves many requests.
 *
 * With several workers (`sharedWriters`), the others hold the file's write lock now and then.
 * SQLite's busy handler would wait for it by sleeping on this thread, stalling every request of the
 * process for a millisecond or more; the group's `BEGIN IMMEDIATE` therefore does not wait there
 * (busy_timeout 0 around it), and a group that finds the lock held is queued again and retried
 * `BUSY_RETRY_MS` later with whatever joined it meanwhile, for as long as the connection's own
 * busy timeout would have waited. (Setting the pragma twice costs about as much as a small group's
 * statements, so a process that writes the file alone keeps the busy handler.)
 */
export class SqliteDriver {
  private readonly stmts = new Map<Q, BetterSqlite3.Statement>();
  /** The connection's busy timeout (store/db.ts), set again after each group. */
  private readonly busyLimitMs: number;
  /** When the group being retried first found the write lock held (0: not retrying). */
  private busySince = 0;
  private readonly one: BetterSqlite3.Transaction<(ops: Ops<unknown>) => unknown>;
  /** The group without savepoints (PartlyWritten when a movement failed after a write). */
  private readonly group: BetterSqlite3.Transaction<(items: Pending[]) => void>;
  /** The group with a savepoint per movement. */
  private readonly guarded: BetterSqlite3.Transaction<(items: Pending[]) => void>;
  private queue: Pending[] = [];
  /** A flush at the end of this event-loop turn is scheduled. */
  private scheduled = false;
  /** A deferred flush is scheduled. */
  private timer: NodeJS.Timeout | null = null;
  /** Write statements completed by the movement being driven. */
  private writes = 0;

  constructor(
    private readonly conn: BetterSqlite3.Database,
    private readonly shared: boolean,
  ) {
    this.busyLimitMs = Number(conn.pragma('busy_timeout', { simple: true })) || 0;
    // Called inside `guarded`, better-sqlite3 runs `one` as a savepoint.
    this.one = conn.transaction((ops: Ops<unknown>) => this.drive(ops));
    this.group = conn.transaction((items: Pending[]) => {
      for (const it of items) {
        this.writes = 0;
        try {
          it.value = this.drive(it.make());
          it.done = true;
        } catch (e) {
          // Written in part (or the transaction ended under it): nothing of this try may commit.
          if (this.writes > 0 || !conn.inTransaction) throw this.writes > 0 ? new PartlyWritten() : e;
          it.error = e;
        }
      }
    });
    this.guarded = conn.transaction((items: Pending[]) => {
      for (const it of items) {
        try {
          it.value = this.one(it.make());
          it.done = true;
        } catch (e) {
          it.error = e;
        }
      }
    });
  }

  /**
   * Queues a movement for the next group commit. `fallback` runs it on its own when the connection is
   * busy. `deferMs` > 0: the movement may wait that long for company (it joins any commit that
   * happens sooner); 0: it is committed at the end of this event-loop turn.
   */
  run<T>(make: () => Ops<T>, fallback: () => Promise<T>, deferMs = 0): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ make, resolve: resolve as (v: unknown) => void, reject, fallback, done: false });
      if (deferMs <= 0) {
        if (!this.scheduled) {
          this.scheduled = true;
          setImmediate(this.flush);
        }
      } else if (!this.scheduled && !this.timer) {
        this.timer = setTimeout(this.flush, deferMs);
      }
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.queue.length === 0) return;
    let items = this.queue;
    this.queue = [];
    if (items.length > GROUP_MAX) {
      this.queue = items.slice(GROUP_MAX);
      items = items.slice(0, GROUP_MAX);
      this.scheduled = true;
      setImmediate(this.flush);
    }
    if (!this.conn.open || this.conn.inTransaction) {
      // A Kysely transaction is open on this connection across awaits: wait for it like any query.
      for (const it of items) Promise.resolve().then(it.fallback).then(it.resolve, it.reject);
      return;
    }
    if (items.length === 1) {
      // Alone: its own transaction, no savepoint needed.
      const it = items[0];
      let value: unknown;
      try {
        value = this.unwaited(() => this.one.immediate(it.make()));
      } catch (e) {
        if (this.retryBusy(items, e)) return;
        it.reject(e);
        return;
      }
      this.busySince = 0;
      it.resolve(value);
      return;
    }
    try {
      this.unwaited(() => {
        try {
          this.group.immediate(items);
        } catch (e) {
          if (!(e instanceof PartlyWritten)) throw e;
          // Rolled back whole: again, each movement in a savepoint of its own.
          reset(items);
          this.guarded.immediate(items);
        }
      });
    } catch (e) {
      // BEGIN or COMMIT failed: nothing of the group is written.
      if (this.retryBusy(items, e)) return;
      for (const it of items) it.reject(e);
      return;
    }
    this.busySince = 0;
    for (const it of items) {
      if (it.done) it.resolve(it.value);
      else it.reject(it.error);
    }
  };

  /** Runs `fn` with the connection's busy handler off (see the class comment). */
  private unwaited<T>(fn: () => T): T {
    if (!this.shared) return fn();
    // SQLite applies this pragma when it is compiled, so a prepared statement could not be reused.
    this.conn.pragma('busy_timeout = 0');
    try {
      return fn();
    } finally {
      this.conn.pragma(`busy_timeout = ${this.busyLimitMs}`);
    }
  }

  /**
   * The write lock was held by another process: queues `items` (nothing of them is written) to be
   * tried again shortly, ahead of what came since. False when `e` is another error, or when the lock
   * has been held for longer than the busy timeout.
   */
  private retryBusy(items: Pending[], e: unknown): boolean {
    if ((e as { code?: string }).code !== 'SQLITE_BUSY') return false;
    const now = Date.now();
    if (this.busySince === 0) this.busySince = now;
    else if (now - this.busySince >= this.busyLimitMs) {
      this.busySince = 0;
      return false;
    }
    reset(items);
    this.queue = items.concat(this.queue);
    if (!this.scheduled) {
      this.scheduled = true;
      setTimeout(this.flush, BUSY_RETRY_MS);
    }
    return true;
  }

  private stmt(q: Q): BetterSqlite3.Statement {
    let s = this.stmts.get(q);
    if (!s) {
      s = this.conn.prepare(sqlFor('sqlite', q));
      this.stmts.set(q, s);
    }
    return s;
  }

  private drive<T>(ops: Ops<T>): T {
    let r = ops.next();
    while (!r.done) {
      const s = this.stmt(r.value.q);
      let res: Res;
      if (s.reader) res = { changes: 0, rows: s.all(...r.value.params) as Record<string, unknown>[] };
      else {
        res = { changes: s.run(...r.value.params).changes, rows: [] };
        this.writes++;
      }
      r = ops.next(res);
    }
    return r.value;
  }
}
