import { bigint, str, type MigrationCtx } from './util.ts';

/**
 * Quota holds: a part of a payer's balance taken by one node in one ledger movement and spent by its
 * requests in memory (billing/allowance.ts). `spent` is written with every flush of those requests'
 * ledger rows; a hold not renewed before `expires_at` is closed by any node, which gives back
 * `amount - spent`.
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await db.schema
    .createTable('quota_holds')
    .addColumn('ref', str(128), (c) => c.primaryKey())
    .addColumn('user_id', bigint(d), (c) => c.notNull())
    .addColumn('key_id', bigint(d))
    .addColumn('key_capped', 'integer', (c) => c.notNull())
    .addColumn('amount', bigint(d), (c) => c.notNull())
    .addColumn('spent', bigint(d), (c) => c.notNull())
    .addColumn('node', str(64), (c) => c.notNull())
    .addColumn('expires_at', bigint(d), (c) => c.notNull())
    .addColumn('closed', 'integer', (c) => c.notNull())
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('quota_holds_open').on('quota_holds').columns(['closed', 'expires_at']).execute();
}
