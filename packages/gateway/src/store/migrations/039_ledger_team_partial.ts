import { sql } from 'kysely';
import type { MigrationCtx } from './util.ts';

/**
 * `ledger_team` indexes only the rows a team's wallet moved (SQLite, PostgreSQL). Every ledger row of
 * a user's balance has `team_id` null, and as a full index each of them wrote an entry too: one more
 * B-tree, and one more page, in the commit of every reserve and every settle. The team's history
 * (`team_id = ?`) implies `team_id IS NOT NULL`, so it still reads this index. MariaDB has no partial
 * indexes and keeps the full one.
 */
export async function up({ db, dialect }: MigrationCtx): Promise<void> {
  if (dialect === 'mysql') return;
  await db.schema.dropIndex('ledger_team').execute();
  await db.schema.createIndex('ledger_team').on('ledger').columns(['team_id', 'id']).where(sql.ref('team_id'), 'is not', null).execute();
}
