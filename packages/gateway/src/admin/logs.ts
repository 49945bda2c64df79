/**
 * Log queries (filters, keyset pages, totals), CSV export (streamed in keyset pages, never the whole
 * result in memory) and retention: with LOG_RETENTION_SECONDS > 0 a daily job deletes older rows in small
 * batches so the table never grows without bound and no single statement holds a long lock.
 *
 * Every page is read newest first through an index led by the filter's column (user, key, model,
 * channel, request id) or by the time, so its cost does not grow with the table: a page is the rows
 * after a cursor (`next_cursor` of the page before: created_at and id of its last row), or — for the
 * first TOTALS_CAP rows — an offset. Names (user, key) are looked up first and searched by id. The
 * totals count and sum at most TOTALS_CAP rows, the newest, and say when the filter matches more.
 */
import { Readable } from 'node:stream';
import type { Core } from '../core.ts';
import { KeyStore } from '../accounts/key-store.ts';
import { UserStore } from '../accounts/user-store.ts';
import { csvLine } from '../logs/csv.ts';
import { purgeRollups } from '../logs/rollup.ts';
import { logPage, logTotals, logsBefore, purgeLogs, type LogFilter } from '../logs/writer.ts';
import { ChannelStore } from '../channels/store.ts';
import type { Selectable } from 'kysely';
import type { LogRow } from '../store/schema-core.ts';
import { Reader, fieldError, paging, type Obj, type Page } from '../platform/validate.ts';

export const LOG_TYPES = ['consume', 'error', 'task', 'system', 'topup', 'mcp'] as const;

export type { LogFilter };

export interface LogTotals {
  /** Rows of the filter. */
  count: number;
  /** Model calls and task submissions among them. */
  calls: number;
  /** What those calls spent (quota units). */
  quota: number;
  /** Top-ups, adjustments and system credits among them. */
  movements: number;
  /** Their net amount (quota units; a deduction is negative). */
  moved_quota: number;
  prompt_tokens: number;
  completion_tokens: number;
}

/** The most rows the totals count, and the deepest row an offset page reaches (beyond it: cursors). */
export const TOTALS_CAP = 10_000;

/** A position in the newest-first order: created_at and id of a page's last row. */
export interface LogCursor {
  at: number;
  id: number;
}

export function encodeCursor(c: LogCursor): string {
  return `${c.at}.${c.id}`;
}

/** Reads a cursor from a query (null when absent); a malformed one is a 400 on `cursor`. */
export function decodeCursor(v: string | undefined): LogCursor | null {
  if (!v) return null;
  const m = /^(\d{1,15})\.(\d{1,15})$/.exec(v);
  if (!m) throw fieldError('cursor', 'is not a cursor of this list (use next_cursor of the page before)');
  return { at: Number(m[1]), id: Number(m[2]) };
}

/** A log row; admins also get the name of the channel that served it. */
export type LogView = Omit<Selectable<LogRow>, 'id'> & { id: number; channel_name?: string | null };

/** Rows per page of a CSV export. */
export const EXPORT_PAGE = 500;
const EXPORT_COLUMNS = [
  'id',
  'time',
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
  'quota_usd',
  'latency_ms',
  'first_byte_ms',
  'is_stream',
  'attempts',
  'content',
];
const ADMIN_ONLY = new Set(['channel_id', 'upstream_model']);

/** Whose rows keep their `content` (what was asked and answered): `bodiesOf` set, only that user's. */
export interface RowPrivacy {
  bodiesOf?: number;
}
const hidesContent = (o: RowPrivacy, userId: unknown) => o.bodiesOf !== undefined && Number(userId) !== o.bodiesOf;

export class LogAdmin {
  private timer: NodeJS.Timeout | null = null;

  /** The totals' cap (a property, so that tests can lower it). */
  totalsCap = TOTALS_CAP;

  constructor(private readonly core: Core) {}

  /** Reads filters from a query string. `self` hides admin-only filters. */
  parseQuery(q: Obj, self: boolean): { filter: LogFilter; page: number; pageSize: number; offset: number; cursor: LogCursor | null } {
    const r = new Reader(q);
    const f: LogFilter = {};
    f.type = r.oneOf('type', LOG_TYPES);
    if (!self) {
      f.userId = r.num('user_id', { int: true, min: 1 });
      f.username = r.str('username', { max: 64 }) || undefined;
      f.channelId = r.num('channel_id', { int: true, min: 1 });
    }
    f.keyName = r.str('key_name', { max: 128 }) || undefined;
    f.keyId = r.num('token_id', { int: true, min: 1 }) ?? r.num('key_id', { int: true, min: 1 });
    f.model = r.str('model', { max: 191 }) || undefined;
    f.requestId = r.str('request_id', { max: 64 }) || undefined;
    f.start = r.time('start') ?? undefined;
    f.end = r.time('end') ?? undefined;
    if (f.start !== undefined && f.end !== undefined && f.start > f.end) throw fieldError('start', 'must not be after end');
    const cursor = decodeCursor(r.str('cursor', { max: 40 }) || undefined);
    const p = paging(q);
    if (!cursor && p.offset + p.pageSize > this.totalsCap)
      throw fieldError('page', `reaches past the newest ${this.totalsCap} rows: page on with cursor (next_cursor of the page before)`);
    return { filter: f, ...p, cursor };
  }

  /**
   * The filter with the ids of the named user and keys, so that the search goes through their indexes
   * (the names are still compared: a row keeps the name it was written with).
   */
  private async withIds(f: LogFilter): Promise<LogFilter> {
    const out = { ...f };
    if (f.username) {
      const id = await new UserStore(this.core.h).idByName(f.username);
      if (id !== null) out.userIdIn = [id];
    }
    if (f.keyName) {
      const ids = await new KeyStore(this.core.h).idsNamed(f.keyName, f.userId);
      if (ids.length) out.keyIdIn = ids;
    }
    return out;
  }

  async query(
    filter: LogFilter,
    p: { page: number; pageSize: number; offset: number; cursor?: LogCursor | null },
    self: boolean,
    opts: RowPrivacy = {},
  ): Promise<Page<LogView> & { totals: LogTotals; totals_capped: boolean; next_cursor: string | null }> {
    const f = await this.withIds(filter);
    const [t, found] = await Promise.all([
      logTotals(this.core.h, f, this.totalsCap),
      // One row more than the page: whether there is a next page.
      p.cursor ? logsBefore(this.core.h, f, p.cursor, p.pageSize + 1) : logPage(this.core.h, f, p.pageSize + 1, p.offset),
    ]);
    const rows: Selectable<LogRow>[] = found.slice(0, p.pageSize);
    const last = rows[rows.length - 1];
    const next = found.length > p.pageSize && last ? encodeCursor({ at: Number(last.created_at), id: Number(last.id) }) : null;
    const items = rows.map((r) => {
      const v: Record<string, unknown> = {};
      for (const [k, val] of Object.entries(r)) v[k] = typeof val === 'bigint' ? Number(val) : val;
      for (const k of [
        'id',
        'created_at',
        'user_id',
        'key_id',
        'channel_id',
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
      ]) {
        if (v[k] !== null && v[k] !== undefined) v[k] = Number(v[k]);
      }
      if (self) {
        // What routing did is the operator's business.
        delete v.channel_id;
        delete v.upstream_model;
        delete v.other;
      }
      if (hidesContent(opts, v.user_id)) v.content = null;
      return v as unknown as LogView;
    });
    if (!self) {
      const ids = [...new Set(items.map((v) => v.channel_id).filter((x): x is number => typeof x === 'number'))];
      const names = new Map((ids.length ? await new ChannelStore(this.core.h).names(ids) : []).map((c) => [c.id, c.name]));
      for (const v of items) v.channel_name = v.channel_id == null ? null : (names.get(v.channel_id) ?? null);
    }
    const { capped, ...totals } = t;
    return { items, total: totals.count, page: p.page, page_size: p.pageSize, totals, totals_capped: capped, next_cursor: next };
  }

  /**
   * The rows of a filter as CSV, newest first, read in keyset pages of EXPORT_PAGE rows (created_at,
   * id) as the consumer asks for them. `self` leaves out what routing did (channel, upstream model).
   */
  exportCsv(filter: LogFilter, self: boolean, opts: RowPrivacy = {}): Readable {
    const withIds = this.withIds(filter);
    const cols = self ? EXPORT_COLUMNS.filter((c) => !ADMIN_ONLY.has(c)) : EXPORT_COLUMNS;
    const perUsd = this.core.config.quotaPerUsd;
    const h = this.core.h;
    async function* lines(): AsyncGenerator<string> {
      yield csvLine(cols);
      const f = await withIds;
      let after: { at: number; id: number } | null = null;
      for (;;) {
        const rows = await logsBefore(h, f, after, EXPORT_PAGE);
        let chunk = '';
        for (const r of rows) {
          const v = r as unknown as Record<string, unknown>;
          chunk += csvLine(
            cols.map((c) => {
              if (c === 'time') return new Date(Number(r.created_at)).toISOString();
              if (c === 'quota_usd') return Math.round((Number(r.quota) / perUsd) * 1e6) / 1e6;
              if (c === 'content' && hidesContent(opts, r.user_id)) return null;
              const x = v[c];
              return typeof x === 'bigint' ? Number(x) : x;
            }),
          );
        }
        if (chunk) yield chunk;
        if (rows.length < EXPORT_PAGE) return;
        const last = rows[rows.length - 1];
        after = { at: Number(last.created_at), id: Number(last.id) };
      }
    }
    return Readable.from(lines(), { objectMode: false });
  }

  /** Deletes rows older than `days` in batches; returns how many. */
  async purgeOlderThan(days: number, now = Date.now()): Promise<number> {
    return purgeLogs(this.core.h, now - days * 86_400_000);
  }

  /** Deletes hourly usage roll-ups of hours that ended more than `days` ago; returns how many. */
  async purgeRollupsOlderThan(days: number, now = Date.now()): Promise<number> {
    return purgeRollups(this.core.h, now - days * 86_400_000);
  }

  /**
   * Starts the daily retention job when LOG_RETENTION_SECONDS or USAGE_RETENTION_SECONDS is > 0 (first run a
   * minute after start). Each node runs it; a delete that another node already made deletes nothing.
   */
  startRetention(): void {
    const { logRetentionDays: days, usageRetentionDays: usageDays } = this.core.config;
    if (!(days > 0) && !(usageDays > 0)) return;
    const run = () => {
      if (days > 0)
        this.purgeOlderThan(days)
          .then((n) => {
            if (n > 0) this.core.log.info({ deleted: n, days }, 'old log rows deleted');
          })
          .catch((e) => this.core.log.warn({ err: (e as Error).message }, 'log retention failed'));
      if (usageDays > 0)
        this.purgeRollupsOlderThan(usageDays)
          .then((n) => {
            if (n > 0) this.core.log.info({ deleted: n, days: usageDays }, 'old usage roll-ups deleted');
          })
          .catch((e) => this.core.log.warn({ err: (e as Error).message }, 'usage roll-up retention failed'));
    };
    const first = setTimeout(() => {
      run();
      this.timer = setInterval(run, 86_400_000);
      this.timer.unref();
    }, 60_000);
    first.unref();
    this.core.onClose(() => {
      clearTimeout(first);
      if (this.timer) clearInterval(this.timer);
    });
  }
}
