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
 * Sets `cached_tokens` of the existing roll-up rows from the log rows of their hour, one dimension at
 * a time (a row's hour is read through the index led by that dimension's column, or by time). A roll-up
 * row whose log rows are gone (log retention) keeps 0.
 */
async function backfillCachedTokens({ db }: MigrationCtx): Promise<void> {
  // A roll-up key of 0 / '' stands for a log row's null.
  const same = (col: 'user_id' | 'key_id' | 'channel_id') =>
    sql`(l.${sql.raw(col)} = usage_hourly.${sql.raw(col)} or (usage_hourly.${sql.raw(col)} = 0 and l.${sql.raw(col)} is null))`;
  const model = sql`(l.model = usage_hourly.model or (usage_hourly.model = '' and l.model is null))`;
  const dims: Array<[string, ReturnType<typeof sql>[]]> = [
    ['all', []],
    ['user', [same('user_id')]],
    ['key', [same('key_id')]],
    ['model', [model]],
    ['channel', [same('channel_id')]],
    ['', [same('user_id'), same('key_id'), model, same('channel_id')]],
  ];
  for (const [dim, conds] of dims) {
    const match = sql.join(
      [
        sql`(l.type = 'consume' or l.type = 'error')`,
        sql`l.created_at >= usage_hourly.hour`,
        sql`l.created_at < usage_hourly.hour + 3600000`,
        ...conds,
      ],
      sql` and `,
    );
    await sql`update usage_hourly set cached_tokens = (select coalesce(sum(l.cached_tokens), 0) from logs l where ${match})
      where dim = ${sql.lit(dim)}`.execute(db);
  }
}
