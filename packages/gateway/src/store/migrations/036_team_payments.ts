import { bigint, type MigrationCtx } from './util.ts';

/**
 * `payments.team_id`: a checkout that tops up a team's wallet (billing/payments/); null: the paying user's
 * own balance.
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await db.schema.alterTable('payments').addColumn('team_id', bigint(d)).execute();
}
