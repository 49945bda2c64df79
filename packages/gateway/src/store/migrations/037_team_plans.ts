import { bigint, type MigrationCtx } from './util.ts';

/**
 * `plan_subscriptions.team_id`: a plan held by a team (billing/plans.ts), paid from and drawn on by the
 * team's wallet and keys; null: a user's own plan. A team's row keeps `user_id` (not null and unique, one
 * row per user) at the negative of its team id, so no user's row and no other team's row collides with it;
 * its unique index keeps one row per team.
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await db.schema.alterTable('plan_subscriptions').addColumn('team_id', bigint(d)).execute();
  await db.schema.createIndex('plan_subscriptions_team').on('plan_subscriptions').column('team_id').unique().execute();
}
