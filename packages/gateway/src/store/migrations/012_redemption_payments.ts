import { bigint, str, text, withId, type MigrationCtx } from './util.ts';

/**
 * Redemption codes and online payments.
 *
 * `redemptions`: a code is found by the SHA-256 of its text (`code_hash`, unique); the text itself is
 * kept sealed (`code_sealed`, core.secrets) so admins can list and export it. status 1 enabled,
 * 2 disabled, 3 used; `expires_at` 0 = never. Redeeming changes status 1 → 3 in the same transaction
 * as the ledger's `topup` row (billing/ledger.ts).
 *
 * `payments`: one row per checkout started by a user. `trade_no` is ours (sent to the provider),
 * `provider_ref` the provider's id of the checkout (the ledger ref of its credit). status pending →
 * paid (once, in the credit's transaction) or expired.
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await withId(db.schema.createTable('redemptions'), d)
    .addColumn('name', str(128), (c) => c.notNull())
    .addColumn('note', str(500), (c) => c.notNull().defaultTo(''))
    .addColumn('code_hash', str(64), (c) => c.notNull().unique())
    .addColumn('code_sealed', text(d), (c) => c.notNull())
    .addColumn('quota', bigint(d), (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('created_by', bigint(d))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addColumn('expires_at', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('used_user_id', bigint(d))
    .addColumn('redeemed_at', bigint(d))
    .execute();
  await db.schema.createIndex('redemptions_status').on('redemptions').columns(['status', 'id']).execute();

  await withId(db.schema.createTable('payments'), d)
    .addColumn('trade_no', str(64), (c) => c.notNull().unique())
    .addColumn('user_id', bigint(d), (c) => c.notNull())
    .addColumn('provider', str(32), (c) => c.notNull())
    .addColumn('provider_ref', str(191))
    .addColumn('currency', str(8), (c) => c.notNull())
    .addColumn('amount_minor', bigint(d), (c) => c.notNull())
    .addColumn('quota', bigint(d), (c) => c.notNull())
    .addColumn('status', str(16), (c) => c.notNull())
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addColumn('updated_at', bigint(d), (c) => c.notNull())
    .addColumn('paid_at', bigint(d))
    .addUniqueConstraint('payments_provider_ref', ['provider', 'provider_ref'])
    .execute();
  await db.schema.createIndex('payments_user').on('payments').columns(['user_id', 'id']).execute();
}
