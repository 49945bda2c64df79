import { bigint, str, text, withId, type MigrationCtx } from './util.ts';

/**
 * Task completion callbacks: one delivery per task (the URL the caller gave, or its key's default),
 * retried with back-off until delivered or given up; and on API keys the default callback URL and
 * the sealed secret that signs the deliveries.
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await withId(db.schema.createTable('task_callbacks'), d)
    .addColumn('task_id', bigint(d), (c) => c.notNull().unique())
    .addColumn('public_task_id', str(64), (c) => c.notNull())
    .addColumn('key_id', bigint(d))
    .addColumn('url', text(d), (c) => c.notNull())
    .addColumn('delivery_id', str(64), (c) => c.notNull().unique())
    .addColumn('status', str(16), (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', bigint(d))
    .addColumn('lease_owner', str(64))
    .addColumn('lease_until', bigint(d))
    .addColumn('first_attempt_at', bigint(d))
    .addColumn('last_attempt_at', bigint(d))
    .addColumn('last_status', 'integer')
    .addColumn('last_error', text(d))
    .addColumn('history', text(d))
    .addColumn('payload', text(d))
    .addColumn('delivered_at', bigint(d))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('task_callbacks_due').on('task_callbacks').columns(['status', 'next_attempt_at']).execute();
  await db.schema.alterTable('api_keys').addColumn('callback_url', text(d)).execute();
  await db.schema.alterTable('api_keys').addColumn('callback_secret', text(d)).execute();
}
