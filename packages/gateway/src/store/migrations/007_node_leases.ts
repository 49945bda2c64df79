import { bigint, str, type MigrationCtx } from './util.ts';

/**
 * Named leases between the nodes of one deployment (store/leases.ts): a job that should run on one
 * node at a time (the relay's recovery probe) runs on the node holding its lease until `expires_at`.
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await db.schema
    .createTable('node_leases')
    .addColumn('name', str(64), (c) => c.primaryKey())
    .addColumn('holder', str(64), (c) => c.notNull())
    .addColumn('expires_at', bigint(d), (c) => c.notNull())
    .execute();
}
