import { sql } from 'kysely';
import { bigint, type MigrationCtx } from './util.ts';

/**
 * Prompt-cache analytics. Each call's log row gets its cache-write tokens (until now only in `other`),
 * what those writes cost (`cache_write_quota`) and what its cache reads saved against the uncached
 * input price (`cache_saving_quota`), both in quota units at the prices of the call. The hourly
 * roll-ups sum the cache-read tokens (`cached_tokens`) and those three.
 *
 * Every new column is NOT NULL DEFAULT 0, so a row written before (or by a node not yet upgraded)
 * reads as no cache activity and nothing counts twice. The cache reads of the log rows still kept are
 * then rolled up once: each roll-up row's `cached_tokens` is set from the model calls of its hour
 * and key. Cache writes and money are not: before this migration the writes were kept only in the
 * row's `other` text and the money was never recorded, and today's prices would not be the call's.
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  for (const col of ['cache_write_tokens', 'cache_write_quota', 'cache_saving_quota']) {
    await db.schema
      .alterTable('logs')
      .addColumn(col, bigint(d), (c) => c.notNull().defaultTo(0))
      .execute();
  }
  for (const col of ['cached_tokens', 'cache_write_tokens', 'cache_write_quota', 'cache_saving_quota']) {
    await db.schema
      .alterTable('usage_hourly')
      .addColumn(col, bigint(d), (c) => c.notNull().defaultTo(0))
      .execute();
  }
  await backfillCachedTokens({ db, dialect: d });
}

/**
 * Sets `cached_tokens` of the existing roll-up rows from the log rows of their hour, one dimension at a
 * time: the model calls with cache reads are summed per hour and key in one pass over the logs (as
 * migration 009 rolled them up), and each sum is joined to its roll-up row by primary key. A roll-up row
 * whose log rows are gone (log retention) keeps 0.
 */
async function backfillCachedTokens({ db, dialect }: MigrationCtx): Promise<void> {
  const hour = sql`(created_at - (created_at % 3600000))`;
  const u = sql`coalesce(user_id, 0)`,
    k = sql`coalesce(key_id, 0)`,
    m = sql`coalesce(model, '')`,
    c = sql`coalesce(channel_id, 0)`;
  const zero = sql`0`,
    none = sql`''`;
  const dims: Array<[string, ReturnType<typeof sql>[]]> = [
    ['all', [zero, zero, none, zero]],
    ['user', [u, zero, none, zero]],
    ['key', [zero, k, none, zero]],
    ['model', [zero, zero, m, zero]],
    ['channel', [zero, zero, none, c]],
    ['', [u, k, m, c]],
  ];
  for (const [dim, [su, sk, sm, sc]] of dims) {
    const groupBy = [hour, su, sk, sm, sc].filter((x) => x !== zero && x !== none);
    const sums = sql`(select ${hour} as h, ${su} as u, ${sk} as k, ${sm} as m, ${sc} as c, sum(cached_tokens) as n
      from logs where (type = 'consume' or type = 'error') and cached_tokens > 0 group by ${sql.join(groupBy)}) s`;
    const on = sql`usage_hourly.dim = ${sql.lit(dim)} and usage_hourly.hour = s.h and usage_hourly.user_id = s.u
      and usage_hourly.key_id = s.k and usage_hourly.model = s.m and usage_hourly.channel_id = s.c`;
    if (dialect === 'mysql') await sql`update usage_hourly join ${sums} on ${on} set usage_hourly.cached_tokens = s.n`.execute(db);
    else await sql`update usage_hourly set cached_tokens = s.n from ${sums} where ${on}`.execute(db);
  }
}
