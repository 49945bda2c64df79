import { withId, bigint, str, text, type MigrationCtx } from './util.ts';

/** Task lifecycle tables. */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await withId(db.schema.createTable('tasks'), d)
    .addColumn('public_id', str(64), (c) => c.notNull().unique())
    .addColumn('plugin_key', str(64), (c) => c.notNull())
    .addColumn('plugin_version', str(64), (c) => c.notNull())
    .addColumn('user_id', bigint(d), (c) => c.notNull())
    .addColumn('key_id', bigint(d))
    .addColumn('key_unlimited', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('channel_id', bigint(d))
    .addColumn('channel_key_index', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('group_name', str(64), (c) => c.notNull())
    .addColumn('model', str(191), (c) => c.notNull())
    .addColumn('upstream_model', str(191), (c) => c.notNull())
    .addColumn('action', str(128), (c) => c.notNull().defaultTo(''))
    .addColumn('status', str(16), (c) => c.notNull())
    .addColumn('progress', str(16), (c) => c.notNull().defaultTo('0%'))
    .addColumn('fail_reason', text(d))
    .addColumn('upstream_task_id', str(512))
    .addColumn('data', text(d))
    .addColumn('state', text(d))
    .addColumn('retain', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('quota_reserved', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('quota_final', bigint(d))
    .addColumn('billing_status', str(16), (c) => c.notNull().defaultTo('none'))
    .addColumn('billing', text(d))
    .addColumn('poll_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_poll_at', bigint(d))
    .addColumn('lease_owner', str(64))
    .addColumn('lease_until', bigint(d))
    .addColumn('submitted_at', bigint(d))
    .addColumn('started_at', bigint(d))
    .addColumn('finished_at', bigint(d))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addColumn('updated_at', bigint(d), (c) => c.notNull())
    .addColumn('flagged', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('flag_reason', text(d))
    .execute();
  await db.schema.createIndex('tasks_due').on('tasks').columns(['next_poll_at']).execute();
  await db.schema.createIndex('tasks_user_created').on('tasks').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('tasks_billing').on('tasks').columns(['billing_status', 'status']).execute();
  await db.schema.createIndex('tasks_status_created').on('tasks').columns(['status', 'created_at']).execute();
}
