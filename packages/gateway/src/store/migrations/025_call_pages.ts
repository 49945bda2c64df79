import { sql } from 'kysely';
import type { MigrationCtx } from './util.ts';

/**
 * Fewer B-trees written by every model call. A call written through the ledger as installed inserts
 * and deletes its `open_reserves` row and adds three `ledger` rows; each B-tree those touch is more
 * work per statement and one more page in every commit.
 *
 * - `open_reserves` loses its index on `node`: the table holds only the calls in flight, so
 *   recovery's reads by node scan a few rows.
 * - SQLite: `open_reserves` becomes a WITHOUT ROWID table keyed by its ref (one B-tree instead of
 *   a table and its primary-key index), and `ledger` loses AUTOINCREMENT, which wrote
 *   `sqlite_sequence` on every insert. Ledger rows are never deleted, so an id is still never
 *   reused. Both tables are rebuilt: the ledger is copied once, in this migration's transaction.
 */
export async function up({ db, dialect }: MigrationCtx): Promise<void> {
  const drop = db.schema.dropIndex('open_reserves_node');
  await (dialect === 'mysql' ? drop.on('open_reserves') : drop).execute();
  if (dialect !== 'sqlite') return;
  await sql`CREATE TABLE open_reserves_new (
    ref varchar(128) NOT NULL PRIMARY KEY,
    user_id integer NOT NULL,
    key_id integer,
    key_capped integer NOT NULL,
    node varchar(64) NOT NULL,
    created_at integer NOT NULL
  ) WITHOUT ROWID`.execute(db);
  await sql`INSERT INTO open_reserves_new SELECT ref, user_id, key_id, key_capped, node, created_at FROM open_reserves`.execute(db);
  await sql`DROP TABLE open_reserves`.execute(db);
  await sql`ALTER TABLE open_reserves_new RENAME TO open_reserves`.execute(db);

  await sql`CREATE TABLE ledger_new (
    id integer NOT NULL PRIMARY KEY,
    user_id integer NOT NULL,
    key_id integer,
    ref varchar(128) NOT NULL,
    kind varchar(32) NOT NULL,
    amount integer NOT NULL,
    created_at integer NOT NULL,
    CONSTRAINT ledger_ref_kind UNIQUE (ref, kind)
  )`.execute(db);
  await sql`INSERT INTO ledger_new SELECT id, user_id, key_id, ref, kind, amount, created_at FROM ledger ORDER BY id`.execute(db);
  await sql`DROP TABLE ledger`.execute(db);
  await sql`ALTER TABLE ledger_new RENAME TO ledger`.execute(db);
  await db.schema.createIndex('ledger_user').on('ledger').columns(['user_id', 'created_at']).execute();
}
