import { bigint, double, str, text, type MigrationCtx } from './util.ts';

/**
 * What the channel chores keep on a channel: its `tag` (a free label that bulk actions select by),
 * the upstream's `balance` as its vendor last reported it with `balance_updated_at`, the results of
 * the last "test all models" (`last_test`, JSON) and the recovery probe's back-off per auto-disabled
 * key (`recovery`, JSON `{<key index>: {failures, next_at}}`).
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await db.schema.alterTable('channels').addColumn('tag', str(64)).execute();
  await db.schema.alterTable('channels').addColumn('balance', double(d)).execute();
  await db.schema.alterTable('channels').addColumn('balance_updated_at', bigint(d)).execute();
  await db.schema.alterTable('channels').addColumn('last_test', text(d)).execute();
  await db.schema.alterTable('channels').addColumn('recovery', text(d)).execute();
  await db.schema.createIndex('channels_tag').on('channels').column('tag').execute();
}
