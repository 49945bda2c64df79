import { sql } from 'kysely';
import { bigint, str, type MigrationCtx } from './util.ts';

/**
 * Hourly usage roll-ups (logs/rollup.ts keeps them from the log writer, in the same transaction as the
 * log rows). One row per hour and `dim`:
 *   ''        the full key (user, key, model, channel): answers filtered queries
 *   'all'     one row per hour: the unfiltered dashboard
 *   'model' | 'user' | 'key' | 'channel'   one row per hour and value of that dimension
 * Missing values are 0 / ''. `lat_00`…`lat_19` count model calls per latency bucket (fixed log-scale
 * bounds, below), so percentiles come from summed histograms.
 *
 * The existing log rows are rolled up here once. The bounds and counting rules are a frozen copy of
 * logs/rollup.ts as of this migration.
 */
const BOUNDS = [10, 25, 50, 100, 150, 250, 400, 600, 1000, 1500, 2500, 4000, 6000, 10000, 15000, 25000, 40000, 60000, 120000];
export const LAT_COLUMNS = Array.from({ length: BOUNDS.length + 1 }, (_, i) => `lat_${String(i).padStart(2, '0')}`);

export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  let t = db.schema
    .createTable('usage_hourly')
    .addColumn('dim', str(8), (c) => c.notNull())
    .addColumn('hour', bigint(d), (c) => c.notNull())
    .addColumn('user_id', bigint(d), (c) => c.notNull())
    .addColumn('key_id', bigint(d), (c) => c.notNull())
    .addColumn('model', str(191), (c) => c.notNull())
    .addColumn('channel_id', bigint(d), (c) => c.notNull())
    .addColumn('requests', bigint(d), (c) => c.notNull())
    .addColumn('errors', bigint(d), (c) => c.notNull())
    .addColumn('prompt_tokens', bigint(d), (c) => c.notNull())
    .addColumn('completion_tokens', bigint(d), (c) => c.notNull())
    .addColumn('quota', bigint(d), (c) => c.notNull())
    .addColumn('latency_ms', bigint(d), (c) => c.notNull());
  for (const col of LAT_COLUMNS) t = t.addColumn(col, bigint(d), (c) => c.notNull());
  t = t.addPrimaryKeyConstraint('usage_hourly_pk', ['dim', 'hour', 'user_id', 'key_id', 'model', 'channel_id']);
  // Rows stored in key order (as InnoDB does anyway): the rows of one dimension and range are adjacent.
  if (d === 'sqlite') t = t.modifyEnd(sql`without rowid`);
  await t.execute();
  // Filters on the full-key rows. The filter column leads, so the dimension reports (dim, hour range)
  // keep reading the primary key in order.
  for (const col of ['user_id', 'key_id', 'model', 'channel_id']) {
    await db.schema.createIndex(`usage_hourly_${col}`).on('usage_hourly').columns([col, 'dim', 'hour']).execute();
  }

  await backfill({ db, dialect: d });
}

/**
 * Rolls up the log rows already stored (one INSERT … SELECT … GROUP BY per dimension; `only`: these
 * dimensions alone, as bench/logs.ts does for the dashboard's).
 */
export async function backfill({ db }: MigrationCtx, only?: readonly string[]): Promise<void> {
  const call = sql`(type = 'consume' or type = 'error')`;
  const counted = sql`(type = 'consume' or type = 'error' or (type = 'task' and (content = 'task settle' or content = 'task reserve')))`;
  const sums = [
    sql`sum(case when ${call} or content = 'task reserve' then 1 else 0 end)`,
    sql`sum(case when type = 'error' then 1 else 0 end)`,
    sql`sum(prompt_tokens)`,
    sql`sum(completion_tokens)`,
    sql`sum(case when type = 'task' and content <> 'task settle' then 0 else quota end)`,
    sql`sum(case when ${call} then latency_ms else 0 end)`,
    ...LAT_COLUMNS.map((_, i) => {
      const lo = i === 0 ? 0 : BOUNDS[i - 1];
      const hi = i < BOUNDS.length ? sql` and latency_ms < ${sql.lit(BOUNDS[i])}` : sql``;
      return sql`sum(case when ${call} and latency_ms >= ${sql.lit(lo)}${hi} then 1 else 0 end)`;
    }),
  ];
  const hour = sql`(created_at - (created_at % 3600000))`;
  const u = sql`coalesce(user_id, 0)`,
    k = sql`coalesce(key_id, 0)`,
    m = sql`coalesce(model, '')`,
    c = sql`coalesce(channel_id, 0)`;
  const zero = sql`0`,
    none = sql`''`;
  const dims: Array<[string, ReturnType<typeof sql>[]]> = [
    ['', [u, k, m, c]],
    ['all', [zero, zero, none, zero]],
    ['user', [u, zero, none, zero]],
    ['key', [zero, k, none, zero]],
    ['model', [zero, zero, m, zero]],
    ['channel', [zero, zero, none, c]],
  ];
  const cols = [
    'dim',
    'hour',
    'user_id',
    'key_id',
    'model',
    'channel_id',
    'requests',
    'errors',
    'prompt_tokens',
    'completion_tokens',
    'quota',
    'latency_ms',
    ...LAT_COLUMNS,
  ];
  for (const [dim, keys] of dims) {
    if (only && !only.includes(dim)) continue;
    const groupBy = [hour, ...keys.filter((x) => x !== zero && x !== none)];
    await sql`insert into usage_hourly (${sql.join(cols.map((x) => sql.ref(x)))})
      select ${sql.lit(dim)}, ${hour}, ${sql.join(keys)}, ${sql.join(sums)}
      from logs where ${counted} group by ${sql.join(groupBy)}`.execute(db);
  }
}
