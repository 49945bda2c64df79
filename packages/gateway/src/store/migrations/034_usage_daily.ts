import { sql } from 'kysely';
import type { MigrationCtx } from './util.ts';

/**
 * Daily roll-ups of the user and key dimensions (`usage_hourly` rows with `dim` `user_day` and
 * `key_day`, `hour` holding the start of the UTC day): the dashboard's top users and keys over a month
 * group 30 rows per user or key instead of 720. No schema change; the days of the hourly rows already
 * kept are summed once here, and the log writer adds to both from now on.
 */
export async function up(ctx: MigrationCtx): Promise<void> {
  await backfillDaily(ctx);
}

const LAT_COLUMNS = Array.from({ length: 20 }, (_, i) => `lat_${String(i).padStart(2, '0')}`);
const SUMS = [
  'requests',
  'errors',
  'prompt_tokens',
  'completion_tokens',
  'quota',
  'latency_ms',
  ...LAT_COLUMNS,
  'cached_tokens',
  'cache_write_tokens',
  'cache_write_quota',
  'cache_saving_quota',
  'upstream_cost',
];

/** Sums the hourly `user` and `key` rows into their UTC days (one INSERT … SELECT … GROUP BY each; also bench/logs.ts). */
export async function backfillDaily({ db }: MigrationCtx): Promise<void> {
  const day = sql`(hour - (hour % 86400000))`;
  const cols = sql.join(['dim', 'hour', 'user_id', 'key_id', 'model', 'channel_id', ...SUMS].map((c) => sql.ref(c)));
  const sums = sql.join(SUMS.map((c) => sql`sum(${sql.ref(c)})`));
  await sql`insert into usage_hourly (${cols})
    select 'user_day', ${day}, user_id, 0, '', 0, ${sums} from usage_hourly where dim = 'user' group by ${day}, user_id`.execute(db);
  await sql`insert into usage_hourly (${cols})
    select 'key_day', ${day}, 0, key_id, '', 0, ${sums} from usage_hourly where dim = 'key' group by ${day}, key_id`.execute(db);
}
