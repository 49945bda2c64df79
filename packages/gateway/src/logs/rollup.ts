/**
 * Hourly usage roll-ups (table `usage_hourly`): what each log row adds to the hour it belongs to,
 * summed per batch and written by an upsert in the same transaction as the log rows, so a batch and
 * its roll-ups are stored together or not at all (a retried batch cannot count twice).
 *
 * What counts: model calls (`consume` and `error` rows: requests, errors, tokens, quota, latency) and
 * task movements (`task reserve` counts a request, `task settle` the quota charged; reserves and
 * refunds move no spend). A model call also adds its prompt-cache reads and writes and what they cost
 * and saved (quota units at the call's prices, as its log row records them). Latency goes into a
 * histogram of fixed log-scale buckets; p50/p95 are read from summed histograms (`percentile`). The
 * user and key dimensions are also kept per UTC day (`user_day`, `key_day`: the top lists of long
 * ranges). The retention deletes roll-ups of old hours and days (`purgeRollups`).
 * Every statement on the table is here: the usage reports (logs/usage.ts) read through `rollupHours`
 * and `rollupGroups`.
 */
import { sql, type RawBuilder } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import type { DbHandle, DbOrTx, Dialect } from '../store/db.ts';

/** Upper bounds (ms, exclusive) of the latency buckets; the last bucket is open-ended. */
export const LATENCY_BOUNDS = [
  10, 25, 50, 100, 150, 250, 400, 600, 1000, 1500, 2500, 4000, 6000, 10000, 15000, 25000, 40000, 60000, 120000,
] as const;
export const BUCKETS = LATENCY_BOUNDS.length + 1;
export const LAT_COLUMNS = Array.from({ length: BUCKETS }, (_, i) => `lat_${String(i).padStart(2, '0')}`);
export const HOUR_MS = 3_600_000;

export const DAY_MS = 86_400_000;

/**
 * The dimensions: the full key (''), everything ('all'), and one per column, each one row per hour and
 * value; `user_day` and `key_day` are the user and key dimensions per UTC day (`hour` holds the day's
 * start), so that a month's top users or keys groups 30 rows per value rather than 720.
 */
export const DIMS = ['', 'all', 'user', 'key', 'model', 'channel', 'user_day', 'key_day'] as const;
export type Dim = (typeof DIMS)[number];
/** The daily dimensions and the hourly ones they sum. */
export const DAILY: Partial<Record<Dim, Dim>> = { user: 'user_day', key: 'key_day' };

const KEY_COLUMNS = ['dim', 'hour', 'user_id', 'key_id', 'model', 'channel_id'] as const;
/** Prompt-cache reads and writes (tokens), the writes' cost and the reads' saving against the input price (quota units). */
export const CACHE_COLUMNS = ['cached_tokens', 'cache_write_tokens', 'cache_write_quota', 'cache_saving_quota'] as const;
const SUM_COLUMNS = [
  'requests',
  'errors',
  'prompt_tokens',
  'completion_tokens',
  'quota',
  'latency_ms',
  ...LAT_COLUMNS,
  ...CACHE_COLUMNS,
  'upstream_cost',
];
/** Where the cache sums start in RollupRow.sums. */
const CACHE_AT = 6 + BUCKETS;
/** Where the upstream cost of the calls (list price × the channel's cost ratio) is summed. */
const UPSTREAM_COST = SUM_COLUMNS.length - 1;
const COLUMNS = [...KEY_COLUMNS, ...SUM_COLUMNS];

/** The log fields a roll-up reads. */
export interface RollupSource {
  created_at: number;
  type: string;
  user_id?: number | null;
  key_id?: number | null;
  model?: string | null;
  channel_id?: number | null;
  prompt_tokens?: number;
  completion_tokens?: number;
  cached_tokens?: number;
  cache_write_tokens?: number;
  cache_write_quota?: number;
  cache_saving_quota?: number;
  quota?: number;
  latency_ms?: number;
  content?: string | null;
  upstream_cost?: number;
}

export interface RollupRow {
  dim: Dim;
  hour: number;
  user_id: number;
  key_id: number;
  model: string;
  channel_id: number;
  /** requests, errors, prompt_tokens, completion_tokens, quota, latency_ms, the buckets, then the cache sums (CACHE_COLUMNS). */
  sums: number[];
}

/** The histogram bucket of a latency. */
export function bucketOf(ms: number): number {
  let i = 0;
  while (i < LATENCY_BOUNDS.length && ms >= LATENCY_BOUNDS[i]) i++;
  return i;
}

/**
 * The p-quantile (0 < p ≤ 1) of a histogram, interpolated linearly inside its bucket; null when the
 * histogram is empty. The answer lies in the bucket holding the true value.
 */
export function percentile(hist: ArrayLike<number>, p: number): number | null {
  let total = 0;
  for (let i = 0; i < hist.length; i++) total += hist[i];
  if (total === 0) return null;
  const rank = p * total;
  let before = 0;
  for (let i = 0; i < hist.length; i++) {
    const c = hist[i];
    if (c > 0 && before + c >= rank) {
      const lo = i === 0 ? 0 : LATENCY_BOUNDS[i - 1];
      if (i >= LATENCY_BOUNDS.length) return lo;
      const hi = LATENCY_BOUNDS[i];
      return Math.round(lo + ((hi - lo) * Math.max(0, rank - before)) / c);
    }
    before += c;
  }
  return LATENCY_BOUNDS[LATENCY_BOUNDS.length - 1];
}

/** What one log row adds (null: nothing), as the sums of RollupRow. */
function contribution(r: RollupSource): number[] | null {
  const isCall = r.type === 'consume' || r.type === 'error' || r.type === 'mcp';
  const reserve = r.type === 'task' && r.content === 'task reserve';
  const settle = r.type === 'task' && r.content === 'task settle';
  if (!isCall && !reserve && !settle) return null;
  const s = new Array<number>(SUM_COLUMNS.length).fill(0);
  s[0] = isCall || reserve ? 1 : 0;
  s[1] = r.type === 'error' ? 1 : 0;
  s[2] = Number(r.prompt_tokens ?? 0);
  s[3] = Number(r.completion_tokens ?? 0);
  s[4] = reserve ? 0 : Number(r.quota ?? 0);
  if (isCall) {
    const ms = Math.max(0, Number(r.latency_ms ?? 0));
    s[5] = ms;
    s[6 + bucketOf(ms)] = 1;
    s[CACHE_AT] = Number(r.cached_tokens ?? 0);
    s[CACHE_AT + 1] = Number(r.cache_write_tokens ?? 0);
    s[CACHE_AT + 2] = Number(r.cache_write_quota ?? 0);
    s[CACHE_AT + 3] = Number(r.cache_saving_quota ?? 0);
    s[UPSTREAM_COST] = Number(r.upstream_cost ?? 0);
  }
  return s;
}

/** Sums a batch of log rows into roll-up rows (every dimension, hourly and daily), sorted by key so concurrent writers lock in one order. */
export function rollup(rows: readonly RollupSource[]): RollupRow[] {
  const acc = new Map<string, RollupRow>();
  for (const r of rows) {
    const s = contribution(r);
    if (!s) continue;
    const hour = r.created_at - (r.created_at % HOUR_MS);
    const day = r.created_at - (r.created_at % DAY_MS);
    const u = Number(r.user_id ?? 0),
      k = Number(r.key_id ?? 0),
      m = r.model ?? '',
      c = Number(r.channel_id ?? 0);
    const keys: Array<[Dim, number, number, number, string, number]> = [
      ['', hour, u, k, m, c],
      ['all', hour, 0, 0, '', 0],
      ['user', hour, u, 0, '', 0],
      ['key', hour, 0, k, '', 0],
      ['model', hour, 0, 0, m, 0],
      ['channel', hour, 0, 0, '', c],
      ['user_day', day, u, 0, '', 0],
      ['key_day', day, 0, k, '', 0],
    ];
    for (const [dim, at, uu, kk, mm, cc] of keys) {
      const id = `${dim}\u0000${at}\u0000${uu}\u0000${kk}\u0000${cc}\u0000${mm}`;
      const row = acc.get(id);
      if (row) for (let i = 0; i < s.length; i++) row.sums[i] += s[i];
      else acc.set(id, { dim, hour: at, user_id: uu, key_id: kk, model: mm, channel_id: cc, sums: s.slice() });
    }
  }
  return [...acc.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((e) => e[1]);
}

const rowValues = (r: RollupRow): unknown[] => [r.dim, r.hour, r.user_id, r.key_id, r.model, r.channel_id, ...r.sums];

/** `INSERT … ON CONFLICT DO UPDATE` (SQLite, PostgreSQL) adding to an existing row. */
function conflictClause(dialect: Dialect): string {
  if (dialect === 'mysql') return `ON DUPLICATE KEY UPDATE ${SUM_COLUMNS.map((c) => `${c} = ${c} + VALUES(${c})`).join(', ')}`;
  return `ON CONFLICT (${KEY_COLUMNS.join(', ')}) DO UPDATE SET ${SUM_COLUMNS.map((c) => `${c} = usage_hourly.${c} + excluded.${c}`).join(', ')}`;
}

/** A better-sqlite3 statement that adds one roll-up row (prepared once by the log writer). */
export function prepareSqliteUpsert(conn: BetterSqlite3.Database): (r: RollupRow) => void {
  const stmt = conn.prepare(
    `INSERT INTO usage_hourly (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')}) ${conflictClause('sqlite')}`,
  );
  return (r) => {
    stmt.run(rowValues(r));
  };
}

/** Rows per statement: SQLite takes at most 32,766 parameters per statement (PostgreSQL and MySQL 65,535). */
const CHUNK = Math.floor(32_766 / COLUMNS.length);

/** Adds roll-up rows through Kysely (call inside the transaction that inserts their log rows). */
export async function upsertRollups(db: DbOrTx, dialect: Dialect, rows: readonly RollupRow[]): Promise<void> {
  const tail = sql.raw(conflictClause(dialect));
  const cols = sql.raw(COLUMNS.join(', '));
  for (let i = 0; i < rows.length; i += CHUNK) {
    const tuples: RawBuilder<unknown>[] = rows.slice(i, i + CHUNK).map((r) => sql`(${sql.join(rowValues(r))})`);
    await sql`INSERT INTO usage_hourly (${cols}) VALUES ${sql.join(tuples)} ${tail}`.execute(db);
  }
}

/**
 * Deletes the hourly roll-ups of hours, and the daily ones of UTC days, that ended before `cutoff`
 * (unix ms), one dimension at a time (each delete reads a range of the primary key); returns how many
 * rows went. The day holding the cutoff keeps its daily rows until it has ended before a later cutoff.
 */
export async function purgeRollups(h: DbHandle, cutoff: number): Promise<number> {
  let deleted = 0;
  for (const dim of DIMS) {
    const res = await h.db
      .deleteFrom('usage_hourly')
      .where('dim', '=', dim)
      .where('hour', '<=', cutoff - (dim === 'user_day' || dim === 'key_day' ? DAY_MS : HOUR_MS))
      .executeTakeFirst();
    deleted += Number(res.numDeletedRows);
    await new Promise((r) => setImmediate(r));
  }
  return deleted;
}

/**
 * The roll-up rows of each hour that match `where` (the usage reports, logs/usage.ts), with `columns`;
 * `sum`: summed per hour (the full-key rows, many per hour), else as stored (one per hour).
 */
export async function rollupHours(
  db: DbOrTx,
  columns: readonly string[],
  where: RawBuilder<unknown>,
  sum: boolean,
): Promise<Record<string, unknown>[]> {
  const q = sum
    ? sql<
        Record<string, unknown>
      >`select hour, ${sql.join(columns.map((c) => sql`sum(${sql.ref(c)}) as ${sql.ref(c)}`))} from usage_hourly where ${where} group by hour`
    : sql<Record<string, unknown>>`select hour, ${sql.join(columns.map((c) => sql.ref(c)))} from usage_hourly where ${where}`;
  return (await q.execute(db)).rows;
}

/** The sums of a group (rollupGroups). */
export interface GroupSums {
  k: string | number;
  requests: number;
  errors: number;
  prompt_tokens: number;
  tokens: number;
  quota: number;
  cached_tokens: number;
  cache_write_tokens: number;
  cache_write_quota: number;
  cache_saving_quota: number;
  upstream_cost: number;
}

/**
 * The top `limit` values of column `col` by quota (then requests, then the value) among the rows of
 * `ranges` (disjoint WHERE clauses, each a range of the primary key, read as one UNION ALL), with their
 * sums. Two steps: the ranking reads two columns of every row; the sums are then read for the top
 * values alone, through the index led by `col`. (On SQLite, summing eleven columns of every row of a
 * month's keys costs several times the ranking.) `byRange`: the ranges select by dim and hour alone
 * (no filter), so that on MySQL/MariaDB the ranking reads the narrow index of migration 040.
 */
export async function rollupGroups(
  db: DbOrTx,
  dialect: Dialect,
  col: string,
  ranges: readonly RawBuilder<unknown>[],
  limit: number,
  byRange = false,
): Promise<GroupSums[]> {
  const c = sql.ref(col);
  const rows = (cols: RawBuilder<unknown>, extra?: RawBuilder<unknown>) =>
    sql.join(
      ranges.map((w) => sql`select ${cols} from usage_hourly where ${w}${extra ?? sql``}`),
      sql` union all `,
    );
  // MySQL/MariaDB, a dimension's rows (ranges of dim and hour alone): one SELECT over the ranges
  // (disjoint, so the same rows as the UNION ALL) from the narrow index of migration 040, grouped once;
  // the UNION ALL is first copied whole into a temporary table, and MariaDB reads the range from the
  // clustered rows when the index is not named.
  const ranking =
    byRange && dialect === 'mysql'
      ? sql`select ${c} as k, sum(quota) as q, sum(requests) as r from usage_hourly force index (usage_hourly_rank)
        where ${sql.join(
          ranges.map((w) => sql`(${w})`),
          sql` or `,
        )} group by ${c}`
      : sql`select k, sum(quota) as q, sum(requests) as r from (${rows(sql`${c} as k, quota, requests`)}) t group by k`;
  const top = (await sql<{ k: string | number }>`${ranking} order by q desc, r desc, k asc limit ${limit}`.execute(db)).rows.map(
    (x) => x.k,
  );
  if (top.length === 0) return [];
  const cols = sql.raw(['requests', 'errors', 'prompt_tokens', 'completion_tokens', 'quota', ...CACHE_COLUMNS, 'upstream_cost'].join(', '));
  const cache = sql.join(CACHE_COLUMNS.map((x) => sql`sum(${sql.ref(x)}) as ${sql.ref(x)}`));
  const sums = (
    await sql<GroupSums>`
    select k, sum(requests) as requests, sum(errors) as errors, sum(prompt_tokens) as prompt_tokens,
      sum(prompt_tokens) + sum(completion_tokens) as tokens, sum(quota) as quota, ${cache}, sum(upstream_cost) as upstream_cost
    from (${rows(sql`${c} as k, ${cols}`, sql` and ${c} in (${sql.join(top)})`)}) t group by k`.execute(db)
  ).rows;
  const byKey = new Map(sums.map((x) => [String(x.k), x]));
  return top.map((k) => byKey.get(String(k))!);
}
