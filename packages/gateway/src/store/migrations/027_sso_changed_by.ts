import { sql } from 'kysely';
import { bigint, str, type MigrationCtx } from './util.ts';

/**
 * Who last changed each single sign-on provider: `changed_by` (the user, null for the configuration
 * file) and `changed_by_role` (that user's role then; the file counts as root). A sign-in through a
 * provider never lands in an account whose role is at or above its changer's unless root made the
 * change (docs/sso.md#which-account). Existing providers take the actor of their latest create or
 * update in the audit log; one with none (made by the configuration file) counts as root's.
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await db.schema.alterTable('sso_providers').addColumn('changed_by', bigint(d)).execute();
  await db.schema
    .alterTable('sso_providers')
    .addColumn('changed_by_role', str(16), (c) => c.notNull().defaultTo('admin'))
    .execute();
  const latest = (col: string) =>
    sql.raw(
      `(SELECT a.${col} FROM audit_log a WHERE a.target_type = 'sso_provider' AND a.target_id = sso_providers.id ` +
        `AND a.action IN ('sso_provider.create', 'sso_provider.update') ORDER BY a.id DESC LIMIT 1)`,
    );
  await sql`UPDATE sso_providers SET changed_by = ${latest('actor_id')}, changed_by_role = COALESCE(${latest('actor_role')}, 'root')`.execute(
    db,
  );
  // The audit log's `system` (the configuration file) has root's authority.
  await sql`UPDATE sso_providers SET changed_by_role = 'root' WHERE changed_by_role NOT IN ('user', 'admin', 'root')`.execute(db);
}
