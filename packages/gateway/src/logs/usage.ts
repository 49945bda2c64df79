/**
 * Usage reports for the dashboard (`GET /api/usage`, `GET /api/usage/self`): totals, a time series in
 * hour or day buckets and the top groups by quota, read from the hourly roll-ups (logs/rollup.ts),
 * never from the log rows. A query without filters reads the `all` rows (one per hour); a query with
 * one filter reads that dimension's rows (one per hour); anything else reads the full-key rows through
 * an index on (filter column, dim, hour). The top users and keys read the daily rows of those two
 * dimensions for the whole UTC days of the range (`ranges`).
 *
 * Every series point, total and group carries the prompt cache's reads and writes (tokens), the hit
 * rate (cached ÷ prompt tokens), the writes' cost and the reads' saving against the uncached input
 * price (quota units, summed from each call's log row at the prices of that call).
 *
 * Ranges are whole hours: an hour counts when it starts in [from rounded down to the hour, to). Day
 * buckets sum the hours whose start falls in the day at `tz_offset_minutes` east of UTC.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Core } from '../core.ts';
import { Reader, fieldError, quotaToUsd, type Obj } from '../platform/validate.ts';
import { BUCKETS, CACHE_COLUMNS, DAILY, DAY_MS, HOUR_MS, LAT_COLUMNS, percentile, rollupGroups, rollupHours, type Dim } from './rollup.ts';

export const GROUP_BYS = ['model', 'user', 'channel', 'key'] as const;
export type GroupBy = (typeof GROUP_BYS)[number];
const SERIES_COLUMNS = ['requests', 'errors', 'prompt_tokens', 'completion_tokens', 'quota', ...CACHE_COLUMNS, ...LAT_COLUMNS];
export const MAX_RANGE_DAYS = 400;

export interface UsageFilter {
  userId?: number;
  keyId?: number;
  model?: string;
  channelId?: number;
}

export interface UsageQuery {
  from: number;
  to: number;
  bucket: 'hour' | 'day';
  groupBy?: GroupBy;
  /** Minutes east of UTC for day buckets (UTC+8: 480). */
  tzOffsetMinutes: number;
  /** How many groups (top by quota). */
  limit: number;
  filter: UsageFilter;
}

export interface UsagePoint {
  t: number;
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  quota: number;
  p50_ms: number | null;
  p95_ms: number | null;
  /** Prompt tokens read from the vendor's prompt cache, and written to it (both part of prompt_tokens). */
  cached_tokens: number;
  cache_write_tokens: number;
  /** What the cache writes cost, and what the cache reads saved against the uncached input price (quota units, prices of each call). */
  cache_write_quota: number;
  cache_saving_quota: number;
  /** cached_tokens ÷ prompt_tokens; null without prompt tokens. */
  cache_hit_rate: number | null;
}

export interface UsageGroup {
  key: string;
  label: string;
  requests: number;
  errors: number;
  prompt_tokens: number;
  tokens: number;
  /** Revenue: what callers were charged (quota units). */
  quota: number;
  cached_tokens: number;
  cache_write_tokens: number;
  cache_write_quota: number;
  cache_saving_quota: number;
  cache_hit_rate: number | null;
  /** What the calls cost upstream: list price × the channel's cost ratio (quota units); administrators' reports only. */
  upstream_cost?: number;
  /** quota − upstream_cost. */
  margin?: number;
}

export interface UsageReport {
  from: number;
  to: number;
  bucket: 'hour' | 'day';
  group_by: GroupBy | null;
  totals: Omit<UsagePoint, 't'> & { quota_usd: number; cache_write_usd: number; cache_saving_usd: number };
  series: UsagePoint[];
  groups: UsageGroup[];
}

/** Filter column and roll-up dimension of each filter and group. */
const DIM_COLUMN: Record<GroupBy, { dim: Dim; col: string }> = {
  user: { dim: 'user', col: 'user_id' },
  key: { dim: 'key', col: 'key_id' },
  model: { dim: 'model', col: 'model' },
  channel: { dim: 'channel', col: 'channel_id' },
};

/** Reads a usage query from a query string. `self`: no user or channel filters, no grouping by user or channel. */
export function parseUsageQuery(q: Obj, self: boolean, now = Date.now()): UsageQuery {
  const r = new Reader(q);
  const to = r.time('to') ?? now;
  const from = r.time('from') ?? to - DAY_MS;
  if (from >= to) throw fieldError('from', 'must be before to');
  if (to - from > MAX_RANGE_DAYS * DAY_MS) throw fieldError('from', `the range must be at most ${MAX_RANGE_DAYS} days`);
  const bucket = r.oneOf('bucket', ['hour', 'day'] as const) ?? 'hour';
  const groupBy = r.oneOf('group_by', self ? (['model', 'key'] as const) : GROUP_BYS);
  const tzOffsetMinutes = r.num('tz_offset_minutes', { int: true, min: -840, max: 840 }) ?? 0;
  const limit = r.num('limit', { int: true, min: 1, max: 50 }) ?? 10;
  const filter: UsageFilter = {};
  if (!self) {
    filter.userId = r.num('user_id', { int: true, min: 1 });
    filter.channelId = r.num('channel_id', { int: true, min: 1 });
  }
  filter.keyId = r.num('token_id', { int: true, min: 1 }) ?? r.num('key_id', { int: true, min: 1 });
  filter.model = r.str('model', { max: 191 }) || undefined;
  for (const k of Object.keys(filter) as (keyof UsageFilter)[]) if (filter[k] === undefined) delete filter[k];
  return { from, to, bucket, groupBy, tzOffsetMinutes, limit, filter };
}

type Sums = {
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  quota: number;
  cached_tokens: number;
  cache_write_tokens: number;
  cache_write_quota: number;
  cache_saving_quota: number;
  hist: number[];
};
const emptySums = (): Sums => ({
  requests: 0,
  errors: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  quota: 0,
  cached_tokens: 0,
  cache_write_tokens: 0,
  cache_write_quota: 0,
  cache_saving_quota: 0,
  hist: new Array<number>(BUCKETS).fill(0),
});

/** The share of prompt tokens read from the cache; null without prompt tokens. */
const hitRate = (cached: number, prompt: number): number | null => (prompt > 0 ? cached / prompt : null);

function add(into: Sums, r: Record<string, unknown>): void {
  into.requests += Number(r.requests);
  into.errors += Number(r.errors);
  into.prompt_tokens += Number(r.prompt_tokens);
  into.completion_tokens += Number(r.completion_tokens);
  into.quota += Number(r.quota);
  for (const c of CACHE_COLUMNS) into[c] += Number(r[c]);
  for (let i = 0; i < BUCKETS; i++) into.hist[i] += Number(r[LAT_COLUMNS[i]]);
}

const point = (s: Sums) => ({
  requests: s.requests,
  errors: s.errors,
  prompt_tokens: s.prompt_tokens,
  completion_tokens: s.completion_tokens,
  quota: s.quota,
  p50_ms: percentile(s.hist, 0.5),
  p95_ms: percentile(s.hist, 0.95),
  cached_tokens: s.cached_tokens,
  cache_write_tokens: s.cache_write_tokens,
  cache_write_quota: s.cache_write_quota,
  cache_saving_quota: s.cache_saving_quota,
  cache_hit_rate: hitRate(s.cached_tokens, s.prompt_tokens),
});

/** Display names of users, keys or channels by id (the areas that own those tables answer; missing ids are left out). */
export type NameLookup = (g: Exclude<GroupBy, 'model'>, ids: number[]) => Promise<Array<{ id: number; name: string | null }>>;

export class UsageReports {
  constructor(
    private readonly core: Core,
    private readonly names: NameLookup,
  ) {}

  /** The roll-up rows that answer `filter` (see the file comment): a dimension, or '' for the full-key rows. */
  private dimFor(filter: UsageFilter, forGroup?: GroupBy): Dim {
    const set = this.filters(filter);
    if (set.length === 0) return forGroup ? DIM_COLUMN[forGroup].dim : 'all';
    if (set.length === 1 && (!forGroup || forGroup === set[0][0])) return DIM_COLUMN[set[0][0]].dim;
    return '';
  }

  private filters(filter: UsageFilter): Array<[GroupBy, number | string]> {
    return (
      [
        ['user', filter.userId],
        ['key', filter.keyId],
        ['model', filter.model],
        ['channel', filter.channelId],
      ] as const
    ).filter(([, v]) => v !== undefined) as Array<[GroupBy, number | string]>;
  }

  /**
   * The WHERE clauses of the rows that answer `filter`, each a range of the primary key. The top users or
   * keys (`forGroup`, a dimension kept per day too) read the daily rows of the whole UTC days inside the
   * range and the hourly rows of the hours before and after them: the same sums from a thirtieth of the
   * rows over a month. Everything else is one range of hourly rows.
   */
  private ranges(filter: UsageFilter, from: number, to: number, forGroup?: GroupBy): RawBuilder<unknown>[] {
    const set = this.filters(filter);
    const dim = this.dimFor(filter, forGroup);
    const same = set.map(([g, v]) => sql`${sql.ref(DIM_COLUMN[g].col)} = ${v}`);
    // The hours counted: [first, end), both whole hours.
    const first = from - (from % HOUR_MS);
    const end = Math.ceil(to / HOUR_MS) * HOUR_MS;
    const range = (d: Dim, a: number, b: number) => sql.join([sql`dim = ${d}`, sql`hour >= ${a}`, sql`hour < ${b}`, ...same], sql` and `);
    const daily = forGroup ? DAILY[dim] : undefined;
    const d0 = Math.ceil(first / DAY_MS) * DAY_MS;
    const d1 = Math.floor(end / DAY_MS) * DAY_MS;
    if (!daily || d0 >= d1) return [range(dim, first, end)];
    const parts = [range(daily, d0, d1)];
    if (first < d0) parts.push(range(dim, first, d0));
    if (d1 < end) parts.push(range(dim, d1, end));
    return parts;
  }

  /** `withCosts`: the groups carry their upstream cost and margin (administrators' reports). */
  async query(q: UsageQuery, withCosts = true): Promise<UsageReport> {
    const db = this.core.h.db;
    const [where] = this.ranges(q.filter, q.from, q.to);
    // A dimension has one row per hour and value: read the rows (the sums are made below, in the
    // buckets). The full-key rows are many per hour: the database sums them per hour.
    const rows = await rollupHours(db, SERIES_COLUMNS, where, this.dimFor(q.filter) === '');

    // Buckets over the whole range (empty ones too), keyed by their start.
    const off = q.tzOffsetMinutes * 60_000;
    const bucketOf = (hour: number) => (q.bucket === 'hour' ? hour : Math.floor((hour + off) / DAY_MS) * DAY_MS - off);
    const buckets = new Map<number, Sums>();
    const firstHour = q.from - (q.from % HOUR_MS);
    for (let h = firstHour; h < q.to; h += HOUR_MS) {
      const b = bucketOf(h);
      if (!buckets.has(b)) buckets.set(b, emptySums());
    }
    const total = emptySums();
    for (const r of rows) {
      const b = buckets.get(bucketOf(Number(r.hour)));
      if (b) add(b, r);
      add(total, r);
    }
    const series = [...buckets.entries()].sort((a, b) => a[0] - b[0]).map(([t, s]) => ({ t, ...point(s) }));

    let groups: UsageGroup[] = [];
    if (q.groupBy) {
      const g = await rollupGroups(
        db,
        this.core.h.dialect,
        DIM_COLUMN[q.groupBy].col,
        this.ranges(q.filter, q.from, q.to, q.groupBy),
        q.limit,
        this.filters(q.filter).length === 0,
      );
      const labels = await this.labels(
        q.groupBy,
        g.map((x) => x.k),
      );
      groups = g.map((x) => ({
        key: String(x.k),
        label: labels.get(String(x.k)) ?? String(x.k),
        requests: Number(x.requests),
        errors: Number(x.errors),
        prompt_tokens: Number(x.prompt_tokens),
        tokens: Number(x.tokens),
        quota: Number(x.quota),
        cached_tokens: Number(x.cached_tokens),
        cache_write_tokens: Number(x.cache_write_tokens),
        cache_write_quota: Number(x.cache_write_quota),
        cache_saving_quota: Number(x.cache_saving_quota),
        cache_hit_rate: hitRate(Number(x.cached_tokens), Number(x.prompt_tokens)),
        ...(withCosts ? { upstream_cost: Number(x.upstream_cost ?? 0), margin: Number(x.quota) - Number(x.upstream_cost ?? 0) } : {}),
      }));
    }
    const perUsd = this.core.config.quotaPerUsd;
    return {
      from: q.from,
      to: q.to,
      bucket: q.bucket,
      group_by: q.groupBy ?? null,
      totals: {
        ...point(total),
        quota_usd: quotaToUsd(total.quota, perUsd),
        cache_write_usd: quotaToUsd(total.cache_write_quota, perUsd),
        cache_saving_usd: quotaToUsd(total.cache_saving_quota, perUsd),
      },
      series,
      groups,
    };
  }

  /** Display names of group keys: usernames, key names, channel names; '' / 0 is "(none)". */
  private async labels(g: GroupBy, keys: Array<string | number>): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const k of keys) if (k === '' || (g !== 'model' && Number(k) === 0)) out.set(String(k), '(none)');
    const ids = keys.map(Number).filter((n) => Number.isInteger(n) && n > 0);
    if (g === 'model' || ids.length === 0) return out;
    const rows = await this.names(g, ids);
    for (const r of rows) out.set(String(Number(r.id)), r.name || `#${Number(r.id)}`);
    for (const id of ids) if (!out.has(String(id))) out.set(String(id), `#${id} (deleted)`);
    return out;
  }
}
