/**
 * Request logs written off the hot path: rows are queued in memory and inserted in batches every
 * ~200 ms or when 500 are waiting. `close()` writes what is left (called on shutdown).
 *
 * Each batch is written with its hourly usage roll-ups (logs/rollup.ts) in one transaction: on SQLite
 * statements prepared once (no query building per row); elsewhere, and while a Kysely transaction is
 * open on the SQLite connection, one multi-row INSERT and one multi-row upsert. A failed batch is
 * tried once more (nothing of it was stored, so it cannot count twice).
 *
 * Every SQL statement on the `logs` table lies in this file: the inserts, the retention's deletes
 * (`purgeLogs`) and the reads of the log lists, CSV exports, top-up notes and relay recovery.
 */
import { sql, type Insertable, type Selectable } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import type { Core } from '../core.ts';
import type { LogRow } from '../store/schema-core.ts';
import { withTx, type DbHandle } from '../store/db.ts';
import { prepareSqliteUpsert, rollup, upsertRollups } from './rollup.ts';

export type NewLog = Insertable<LogRow>;

/** Filters of the log lists and exports. */
export interface LogFilter {
  type?: string;
  userId?: number;
  username?: string;
  keyName?: string;
  keyId?: number;
  model?: string;
  channelId?: number;
  requestId?: string;
  start?: number;
  end?: number;
  /**
   * The ids of the users named `username` and of the keys named `keyName`, when known: the rows are then
   * found through the (user_id, created_at) and (key_id, created_at) indexes, the name still checked.
   */
  userIdIn?: number[];
  keyIdIn?: number[];
  /** Only rows of these keys, whatever else the filter says (a team's keys); empty: no rows. */
  keyIdWithin?: number[];
}

function filtered(h: DbHandle, f: LogFilter) {
  let q = h.db.selectFrom('logs');
  if (f.type) q = q.where('type', '=', f.type);
  if (f.userId !== undefined) q = q.where('user_id', '=', f.userId);
  if (f.userIdIn?.length) q = q.where('user_id', 'in', f.userIdIn);
  if (f.keyIdIn?.length) q = q.where('key_id', 'in', f.keyIdIn);
  if (f.keyIdWithin) q = f.keyIdWithin.length ? q.where('key_id', 'in', f.keyIdWithin) : q.where(sql<boolean>`1 = 0`);
  if (f.username) q = q.where('username', '=', f.username);
  if (f.keyName) q = q.where('key_name', '=', f.keyName);
  if (f.keyId !== undefined) q = q.where('key_id', '=', f.keyId);
  if (f.model) q = q.where('model', '=', f.model);
  if (f.channelId !== undefined) q = q.where('channel_id', '=', f.channelId);
  if (f.requestId) q = q.where('request_id', '=', f.requestId);
  if (f.start !== undefined) q = q.where('created_at', '>=', f.start);
  if (f.end !== undefined) q = q.where('created_at', '<=', f.end);
  return q;
}

/** One member's calls of one UTC day through a set of keys (a team's usage, admin/team-activity.ts). */
export interface KeyUsageRow {
  user_id: number;
  username: string;
  /** The UTC day's start (unix ms). */
  day: number;
  calls: number;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
}

/**
 * What the calls through `keyIds` in [from, to) spent, per user and UTC day: calls (model calls, MCP
 * calls and task submissions), quota (what they were charged) and tokens. Read from the log rows
 * through the (key_id, created_at) index.
 */
export async function usageByUserDay(h: DbHandle, keyIds: readonly number[], from: number, to: number): Promise<KeyUsageRow[]> {
  if (!keyIds.length) return [];
  const day = sql<number>`(created_at - (created_at % 86400000))`;
  const rows = await h.db
    .selectFrom('logs')
    .where('key_id', 'in', keyIds as number[])
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .select((eb) => {
      const reserve = eb.and([eb('type', '=', 'task'), eb('content', '=', 'task reserve')]);
      const settle = eb.and([eb('type', '=', 'task'), eb('content', '=', 'task settle')]);
      const call = eb.or([eb('type', 'in', ['consume', 'error', 'mcp']), reserve]);
      const spend = eb.or([eb('type', 'in', ['consume', 'error', 'mcp']), settle]);
      return [
        'user_id',
        eb.fn.max('username').as('username'),
        day.as('day'),
        eb.fn.coalesce(eb.fn.sum<number>(eb.case().when(call).then(1).else(0).end()), eb.lit(0)).as('calls'),
        eb.fn.coalesce(eb.fn.sum<number>(eb.case().when(spend).then(eb.ref('quota')).else(0).end()), eb.lit(0)).as('quota'),
        eb.fn.coalesce(eb.fn.sum<number>('prompt_tokens'), eb.lit(0)).as('prompt_tokens'),
        eb.fn.coalesce(eb.fn.sum<number>('completion_tokens'), eb.lit(0)).as('completion_tokens'),
      ];
    })
    .groupBy(['user_id', day])
    .execute();
  return rows.map((r) => ({
    user_id: Number(r.user_id),
    username: String(r.username ?? ''),
    day: Number(r.day),
    calls: Number(r.calls),
    quota: Number(r.quota),
    prompt_tokens: Number(r.prompt_tokens),
    completion_tokens: Number(r.completion_tokens),
  }));
}

/** Log types that move money without a call: top-ups, adjustments, system credits. */
export const MONEY_LOG_TYPES = ['topup', 'system'] as const;

/** What logTotals sums. */
export interface LogSums {
  count: number;
  /** Model calls and task submissions. */
  calls: number;
  /** What those calls spent (quota units). */
  quota: number;
  /** Top-ups, adjustments and system credits, and their net amount (quota units). */
  movements: number;
  moved_quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  capped: boolean;
}

/**
 * The count and sums of the newest `cap` rows a filter matches, and whether it matches more (`capped`).
 * The rows are read newest first through the same index as a page, so the cost is bounded by `cap`
 * whatever the table's size: a count over tens of millions of rows would take seconds. That index carries
 * the summed columns (migration 038), so the rows themselves are not read (but for tasks'). Calls and money
 * movements are summed apart: `quota` is what calls spent, counted as the usage roll-ups count it (rollup.ts:
 * chat calls and task settlements; a task's reserve row counts the call, not the money), `moved_quota` the net
 * of top-ups and adjustments.
 */
export async function logTotals(h: DbHandle, f: LogFilter, cap: number): Promise<LogSums> {
  // The cap-th newest row (and whether there is one more): the totals stop at it.
  const edge = await filtered(h, f)
    .select(['created_at', 'id'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(cap - 1)
    .limit(2)
    .execute();
  const window = () => {
    let q = filtered(h, f);
    if (edge.length) {
      const at = Number(edge[0].created_at);
      const id = Number(edge[0].id);
      // PostgreSQL plans the OR as two bitmap scans and reads the rows from the table (10,000 random
      // pages on a big one, 0.3–0.7 s); the row comparison, the same rows, is a range of the index.
      if (h.dialect === 'postgres') q = q.where(sql<boolean>`(created_at, id) >= (${at}, ${id})`);
      else q = q.where((eb) => eb.or([eb('created_at', '>', at), eb.and([eb('created_at', '=', at), eb('id', '>=', id)])]));
    }
    return q;
  };
  // The columns summed here are in the filter's index (migration 038), so this reads no table row. A
  // task's rows are told apart by their content, which no index carries: they are summed apart below.
  const t = await window()
    .select((eb) => {
      const money = eb('type', 'in', MONEY_LOG_TYPES);
      const call = eb('type', 'in', ['consume', 'error', 'mcp']);
      const count = (when: typeof money, alias: string) =>
        eb.fn.coalesce(eb.fn.sum<number>(eb.case().when(when).then(1).else(0).end()), eb.lit(0)).as(alias);
      const quota = (when: typeof money, alias: string) =>
        eb.fn.coalesce(eb.fn.sum<number>(eb.case().when(when).then(eb.ref('quota')).else(0).end()), eb.lit(0)).as(alias);
      return [
        eb.fn.countAll<number>().as('count'),
        count(call, 'calls'),
        quota(call, 'quota'),
        count(eb('type', '=', 'task'), 'tasks'),
        count(money, 'movements'),
        quota(money, 'moved_quota'),
        eb.fn.coalesce(eb.fn.sum<number>('prompt_tokens'), eb.lit(0)).as('prompt_tokens'),
        eb.fn.coalesce(eb.fn.sum<number>('completion_tokens'), eb.lit(0)).as('completion_tokens'),
      ];
    })
    .executeTakeFirstOrThrow();
  let calls = Number(t.calls);
  let quota = Number(t.quota);
  if (Number(t.tasks) > 0) {
    // A task's reserve row counts the call, its settle row the money (as the usage roll-ups count them).
    const k = await window()
      .where('type', '=', 'task')
      .select((eb) => [
        eb.fn.coalesce(eb.fn.sum<number>(eb.case().when('content', '=', 'task reserve').then(1).else(0).end()), eb.lit(0)).as('calls'),
        eb.fn
          .coalesce(eb.fn.sum<number>(eb.case().when('content', '=', 'task settle').then(eb.ref('quota')).else(0).end()), eb.lit(0))
          .as('quota'),
      ])
      .executeTakeFirstOrThrow();
    calls += Number(k.calls);
    quota += Number(k.quota);
  }
  return {
    count: Number(t.count),
    calls,
    quota,
    movements: Number(t.movements),
    moved_quota: Number(t.moved_quota),
    prompt_tokens: Number(t.prompt_tokens),
    completion_tokens: Number(t.completion_tokens),
    capped: edge.length > 1,
  };
}

/** One page of the rows a filter matches, newest first. */
export function logPage(h: DbHandle, f: LogFilter, limit: number, offset: number): Promise<Selectable<LogRow>[]> {
  return filtered(h, f).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute();
}

/** Up to `limit` rows a filter matches, newest first, older than the keyset `after` (created_at, id) when given. */
export function logsBefore(
  h: DbHandle,
  f: LogFilter,
  after: { at: number; id: number } | null,
  limit: number,
): Promise<Selectable<LogRow>[]> {
  let q = filtered(h, f).selectAll();
  if (after) {
    const a = after;
    q = q.where((eb) => eb.or([eb('created_at', '<', a.at), eb.and([eb('created_at', '=', a.at), eb('id', '<', a.id)])]));
  }
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** The texts of the top-up rows of these refs (a top-up's or adjustment's reason). */
export function topupNotes(h: DbHandle, refs: string[]) {
  return h.db.selectFrom('logs').select(['request_id', 'content']).where('type', '=', 'topup').where('request_id', 'in', refs).execute();
}

/** The `consume` (or MCP tool call, `mcp`) rows of one request (what a call produced and was charged). */
export function consumeRowsOf(h: DbHandle, ref: string) {
  return h.db
    .selectFrom('logs')
    .select(['quota', 'model', 'group_name', 'prompt_tokens', 'completion_tokens', 'cached_tokens'])
    .where('request_id', '=', ref)
    .where('type', 'in', ['consume', 'mcp'])
    .execute();
}

const MAX_BATCH = 500;

/** Every column of `logs` but the id, in the order of the prepared statement. */
export const COLUMNS = [
  'created_at',
  'type',
  'request_id',
  'user_id',
  'username',
  'key_id',
  'key_name',
  'group_name',
  'model',
  'upstream_model',
  'channel_id',
  'endpoint',
  'status_code',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'cache_write_quota',
  'cache_saving_quota',
  'quota',
  'latency_ms',
  'first_byte_ms',
  'is_stream',
  'attempts',
  'content',
  'other',
  'upstream_cost',
] as const satisfies readonly (keyof NewLog)[];
const FLUSH_MS = 200;

/**
 * A row's values in the order of COLUMNS. Each property is read by its name: a loop over the column
 * names would read every value through a generic keyed lookup, once per column of every call's row.
 */
export function logValues(r: NewLog): unknown[] {
  return [
    r.created_at ?? null,
    r.type ?? null,
    r.request_id ?? null,
    r.user_id ?? null,
    r.username ?? null,
    r.key_id ?? null,
    r.key_name ?? null,
    r.group_name ?? null,
    r.model ?? null,
    r.upstream_model ?? null,
    r.channel_id ?? null,
    r.endpoint ?? null,
    r.status_code ?? null,
    r.prompt_tokens ?? null,
    r.completion_tokens ?? null,
    r.cached_tokens ?? null,
    r.cache_write_tokens ?? 0,
    r.cache_write_quota ?? 0,
    r.cache_saving_quota ?? 0,
    r.quota ?? null,
    r.latency_ms ?? null,
    r.first_byte_ms ?? null,
    r.is_stream ?? null,
    r.attempts ?? null,
    r.content ?? null,
    r.other ?? null,
    r.upstream_cost ?? 0,
  ];
}

/**
 * Inserts log rows and their roll-ups in one transaction, through Kysely (for writers outside the
 * batch queue: task movements).
 */
export async function insertLogs(h: DbHandle, rows: NewLog[]): Promise<void> {
  if (rows.length === 0) return;
  const sums = rollup(rows as Parameters<typeof rollup>[0]);
  await withTx(h, async (tx) => {
    await tx.insertInto('logs').values(rows).execute();
    await upsertRollups(tx, h.dialect, sums);
  });
}

/**
 * The log row of a balance credited or taken outside a call (a top-up, a redemption, a payment, a starting
 * balance): type `topup`, no key, model or channel, no tokens.
 */
export function topupLog(o: {
  at: number;
  ref: string;
  userId: number;
  username: string | null;
  group: string | null;
  quota: number;
  content: string;
  other: Record<string, unknown>;
}): NewLog {
  return {
    created_at: o.at,
    type: 'topup',
    request_id: o.ref,
    user_id: o.userId,
    username: o.username,
    key_id: null,
    key_name: null,
    group_name: o.group,
    model: null,
    upstream_model: null,
    channel_id: null,
    endpoint: null,
    status_code: null,
    prompt_tokens: 0,
    completion_tokens: 0,
    cached_tokens: 0,
    quota: o.quota,
    latency_ms: 0,
    first_byte_ms: null,
    is_stream: 0,
    attempts: 0,
    content: o.content,
    other: JSON.stringify(o.other),
  };
}

/**
 * Rows deleted by the first retention statement, how long one may take, the least pause after it, and
 * how many times its time the pause lasts at least.
 */
export const RETENTION_BATCH = 500;
export const RETENTION_BATCH_MS = 2;
export const RETENTION_PAUSE_MS = 20;
export const RETENTION_PAUSE_FACTOR = 10;

/**
 * Deletes log rows created before `cutoff` (unix ms) in batches (the oldest first, found through the
 * created_at index, deleted by primary key); returns how many it deleted. A batch starts at `batch`
 * rows and is halved while one takes longer than RETENTION_BATCH_MS (doubled, up to four times `batch`,
 * while it takes less than half of that), and after each the purge pauses ten times as long as the
 * batch took (at least `pauseMs`): no statement holds the table (on SQLite, the database's write lock
 * and the event loop) for more than a few milliseconds, and the deletes take at most a tenth of the
 * time. That still deletes about a thousand rows a second on SQLite with 2,000,000 rows here, tens of
 * millions a day (docs/benchmarks.md, Big tables). Several nodes may run it at once: a row another node
 * deleted first is not deleted twice, and the counts add up to the rows that were old.
 */
export async function purgeLogs(h: DbHandle, cutoff: number, batch = RETENTION_BATCH, pauseMs = RETENTION_PAUSE_MS): Promise<number> {
  const db = h.db;
  let deleted = 0;
  let size = batch;
  for (;;) {
    const t0 = performance.now();
    const ids = await db
      .selectFrom('logs')
      .select('id')
      .where('created_at', '<', cutoff)
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .limit(size)
      .execute();
    if (ids.length === 0) break;
    const res = await db
      .deleteFrom('logs')
      .where(
        'id',
        'in',
        ids.map((r) => Number(r.id)),
      )
      .executeTakeFirst();
    deleted += Number(res.numDeletedRows);
    if (ids.length < size) break;
    const took = performance.now() - t0;
    if (took > RETENTION_BATCH_MS && size > 20) size = Math.max(20, Math.floor(size / 2));
    else if (took < RETENTION_BATCH_MS / 2 && size < batch * 4) size *= 2;
    await new Promise((r) => setTimeout(r, Math.max(pauseMs, took * RETENTION_PAUSE_FACTOR)));
  }
  return deleted;
}

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
  constructor(
    private readonly core: Core,
    private readonly flushMs = FLUSH_MS,
    private readonly accept?: (row: NewLog) => boolean,
  ) {
    const conn = core.h.sqlite;
    if (conn) {
      const stmt = conn.prepare(`INSERT INTO logs (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`);
      const upsert = prepareSqliteUpsert(conn);
      this.insertMany = conn.transaction((rows: NewLog[]) => {
        for (const r of rows) stmt.run(logValues(r));
        for (const r of rollup(rows as Parameters<typeof rollup>[0])) upsert(r);
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
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.flushMs);
      this.timer.unref();
    }
  }

  /** Writes everything queued so far; resolves when it is in the database. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.queue;
    this.queue = [];
    this.flushing = this.flushing.then(async () => {
      for (let i = 0; i < batch.length; i += MAX_BATCH) {
        const part = batch.slice(i, i + MAX_BATCH);
        for (let attempt = 1; ; attempt++) {
          try {
            const conn = this.core.h.sqlite;
            if (this.insertMany && conn?.open && !conn.inTransaction) this.insertMany.immediate(part);
            else await insertLogs(this.core.h, part);
            break;
          } catch (e) {
            // A deadlock or lock time-out between nodes upserting the same roll-ups: the
            // transaction rolled back whole, so one more try is safe.
            if (attempt < 2) {
              await new Promise((r) => setTimeout(r, 50));
              continue;
            }
            this.core.log.error({ err: (e as Error).message, rows: part.length }, 'log batch insert failed');
            break;
          }
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
