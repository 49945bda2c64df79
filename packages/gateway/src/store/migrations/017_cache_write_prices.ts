import { double, type MigrationCtx } from './util.ts';

/**
 * Prices of prompt-cache writes (USD per 1M tokens), per model: `cache_write_5m` for writes kept five
 * minutes, `cache_write_1h` for one hour. Null: 1.25× and 2× the input price (billing/prices.ts).
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await db.schema.alterTable('prices').addColumn('cache_write_5m', double(d)).execute();
  await db.schema.alterTable('prices').addColumn('cache_write_1h', double(d)).execute();
}
