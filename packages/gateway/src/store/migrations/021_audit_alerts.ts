import { bigint, str, text, withId, type MigrationCtx } from './util.ts';

/**
 * The administrative audit log and the alert outbox.
 *
 * `audit_log`: one row per administrative write — who (`actor_id`, `actor_name`, `actor_role`; the
 * configuration file and other system writes have no id and the name `system`), when, the action
 * (`user.update`, `channel.delete` …), the target (`target_type`, `target_id`) and a JSON diff of
 * the fields that changed, secrets removed (admin/audit.ts).
 *
 * `alerts`: an outbox of alert deliveries. `id` is the idempotency id sent with every attempt;
 * `target` is `operator` or `user:<id>`, `transport` `webhook` or `email`; `status` pending →
 * delivered, or failed after the last attempt. A worker under a lease sends what is due.
 *
 * `user_alert_settings`: a user's low-balance threshold (0 = off) with where to send it, and
 * `low_balance_armed` (1: the next crossing below the threshold alerts; 0: alerted, re-armed when
 * the balance is back at or above the threshold).
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await withId(db.schema.createTable('audit_log'), d)
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addColumn('actor_id', bigint(d))
    .addColumn('actor_name', str(64), (c) => c.notNull())
    .addColumn('actor_role', str(16), (c) => c.notNull())
    .addColumn('action', str(64), (c) => c.notNull())
    .addColumn('target_type', str(32), (c) => c.notNull())
    .addColumn('target_id', str(191), (c) => c.notNull())
    .addColumn('diff', text(d), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_created').on('audit_log').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('audit_log_actor').on('audit_log').columns(['actor_name', 'created_at']).execute();
  await db.schema.createIndex('audit_log_target').on('audit_log').columns(['target_type', 'created_at']).execute();
  await db.schema.createIndex('audit_log_action').on('audit_log').columns(['action', 'created_at']).execute();

  await db.schema
    .createTable('alerts')
    .addColumn('id', str(64), (c) => c.primaryKey())
    .addColumn('kind', str(64), (c) => c.notNull())
    .addColumn('target', str(64), (c) => c.notNull())
    .addColumn('transport', str(16), (c) => c.notNull())
    .addColumn('payload', text(d), (c) => c.notNull())
    .addColumn('status', str(16), (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', bigint(d), (c) => c.notNull())
    .addColumn('delivered_at', bigint(d))
    .addColumn('last_error', str(500))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alerts_due').on('alerts').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('alerts_created').on('alerts').columns(['created_at']).execute();

  await db.schema
    .createTable('user_alert_settings')
    .addColumn('user_id', bigint(d), (c) => c.primaryKey())
    .addColumn('low_balance_threshold', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('email', str(254))
    .addColumn('webhook_url', str(1000))
    .addColumn('webhook_secret_sealed', text(d))
    .addColumn('low_balance_armed', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('updated_at', bigint(d), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_alert_settings_threshold').on('user_alert_settings').column('low_balance_threshold').execute();
}
