import { bigint, str, text, withId, type MigrationCtx } from './util.ts';

/**
 * Teams and delegated wallets (teams/store.ts, billing/budgets.ts).
 *
 * `teams`: a team that pays. Its wallet (`quota`, `used_quota`, `request_count`) is a payer in the
 * ledger like a user's balance; `models` (JSON list, null: every model) and `group_name` (null: the
 * key's or member's group) are its model access; `rpm`, `tpm`, `max_concurrency` (0: no limit) and
 * `budget_quota` per `budget_period` (day | week | month; null: none) are its limits, as users have;
 * `settings` is JSON (`allow_admin_topup`, `share_bodies`). `deleted_at` marks a deleted team (its
 * name freed by a suffix), so the ledger and logs that name it keep their meaning.
 * `team_members`: who belongs to a team, with a role (`owner` | `admin` | `member` | `viewer`) and a
 * delegated wallet: at most `budget_quota` of the team's money per `budget_period` (null: no cap).
 * `team_invitations`: a single-use, expiring invitation by email; only the SHA-256 of its token is kept.
 * `api_keys.team_id`: a key paid by the team's wallet (null: by its user).
 * `ledger.team_id`, `open_reserves.team_id`, `tasks.team_id`: the team whose wallet a movement moved
 * (null: the user's balance), so that a settle, refund or recovery far from the reserve pays back the
 * same wallet.
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await withId(db.schema.createTable('teams'), d)
    .addColumn('name', str(64), (c) => c.notNull().unique())
    .addColumn('quota', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('used_quota', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('request_count', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('models', text(d))
    .addColumn('group_name', str(64))
    .addColumn('rpm', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('tpm', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('max_concurrency', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('budget_quota', bigint(d))
    .addColumn('budget_period', str(8))
    .addColumn('settings', text(d))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addColumn('updated_at', bigint(d), (c) => c.notNull())
    .addColumn('deleted_at', bigint(d))
    .execute();
  await withId(db.schema.createTable('team_members'), d)
    .addColumn('team_id', bigint(d), (c) => c.notNull())
    .addColumn('user_id', bigint(d), (c) => c.notNull())
    .addColumn('role', str(16), (c) => c.notNull())
    .addColumn('budget_quota', bigint(d))
    .addColumn('budget_period', str(8))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addUniqueConstraint('team_members_team_user', ['team_id', 'user_id'])
    .execute();
  await db.schema.createIndex('team_members_user').on('team_members').column('user_id').execute();
  await withId(db.schema.createTable('team_invitations'), d)
    .addColumn('team_id', bigint(d), (c) => c.notNull())
    .addColumn('email', str(191), (c) => c.notNull())
    .addColumn('role', str(16), (c) => c.notNull())
    .addColumn('token_hash', str(64), (c) => c.notNull().unique())
    .addColumn('expires_at', bigint(d), (c) => c.notNull())
    .addColumn('accepted_at', bigint(d))
    .addColumn('accepted_by', bigint(d))
    .addColumn('revoked_at', bigint(d))
    .addColumn('created_by', bigint(d))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('team_invitations_team').on('team_invitations').column('team_id').execute();
  await db.schema.alterTable('api_keys').addColumn('team_id', bigint(d)).execute();
  await db.schema.createIndex('api_keys_team').on('api_keys').column('team_id').execute();
  for (const table of ['ledger', 'open_reserves', 'tasks']) await db.schema.alterTable(table).addColumn('team_id', bigint(d)).execute();
  await db.schema.createIndex('ledger_team').on('ledger').columns(['team_id', 'id']).execute();
}
