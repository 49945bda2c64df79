import { bigint, str, type MigrationCtx } from './util.ts';

/**
 * Open relay reserves (billing/recovery.ts): a row per model call whose reserve is taken and not yet
 * settled or refunded, naming the node process that holds it. Written in the reserve's transaction
 * and deleted in the settle's or refund's, so a row outlives its call only when its node died; then
 * recovery closes the reserve once that node's lease (`node_leases`, `node:<node>`) has expired.
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await db.schema
    .createTable('open_reserves')
    .addColumn('ref', str(128), (c) => c.primaryKey())
    .addColumn('user_id', bigint(d), (c) => c.notNull())
    .addColumn('key_id', bigint(d))
    .addColumn('key_capped', 'integer', (c) => c.notNull())
    .addColumn('node', str(64), (c) => c.notNull())
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('open_reserves_node').on('open_reserves').column('node').execute();
}
