/**
 * Upgrades of a database that already holds money: the rows every model call writes (`ledger`,
 * `open_reserves`) survive the migration that rebuilds those tables, ids go on where they were, and
 * the constraints the ledger's exactness rests on still hold.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { TEST_DB, createTestDatabase } from '../harness.ts';
import { openDb } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrations/index.ts';

test('migration 025 keeps ledger rows and open reserves, their ids and their uniqueness', async () => {
  const tdb = await createTestDatabase(TEST_DB);
  const h = await openDb(tdb.url);
  try {
    await migrate(h, '024_two_factor');
    const db = h.db;
    const row = (ref: string, kind: string, amount: number) => ({ user_id: 7, key_id: 9, ref, kind, amount, created_at: 1000 });
    await db
      .insertInto('ledger')
      .values([row('a', 'reserve', 300), row('a', 'close', 0), row('a', 'settle', -120), row('b', 'reserve', 50)])
      .execute();
    await db
      .insertInto('open_reserves')
      .values({ ref: 'b', user_id: 7, key_id: 9, key_capped: 1, node: 'n1.abcd', created_at: 1000 })
      .execute();
    const before = await db.selectFrom('ledger').selectAll().orderBy('id').execute();

    await migrate(h);

    assert.deepEqual(await db.selectFrom('ledger').selectAll().orderBy('id').execute(), before);
    const open = await db.selectFrom('open_reserves').selectAll().execute();
    assert.deepEqual(
      open.map((r) => ({ ...r, user_id: Number(r.user_id), key_id: Number(r.key_id), created_at: Number(r.created_at) })),
      [{ ref: 'b', user_id: 7, key_id: 9, key_capped: 1, node: 'n1.abcd', created_at: 1000 }],
    );
    // New rows continue after the highest id.
    await db
      .insertInto('ledger')
      .values(row('b', 'close', 0))
      .execute();
    const last = await db.selectFrom('ledger').select('id').where('ref', '=', 'b').where('kind', '=', 'close').executeTakeFirstOrThrow();
    assert.equal(Number(last.id), Math.max(...before.map((r) => Number(r.id))) + 1);
    // A movement is still written once: (ref, kind) and the open reserve's ref stay unique.
    await assert.rejects(
      db
        .insertInto('ledger')
        .values(row('a', 'settle', -1))
        .execute(),
    );
    await assert.rejects(
      db.insertInto('open_reserves').values({ ref: 'b', user_id: 7, key_id: 9, key_capped: 1, node: 'n2', created_at: 1 }).execute(),
    );
    // Recovery still finds a node's open reserves, without the index on node.
    const mine = await db.selectFrom('open_reserves').select('ref').where('node', '=', 'n1.abcd').execute();
    assert.deepEqual(mine, [{ ref: 'b' }]);

    const indexes =
      h.dialect === 'sqlite'
        ? (await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'open_reserves'`.execute(db)).rows
        : h.dialect === 'postgres'
          ? (await sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes WHERE tablename = 'open_reserves'`.execute(db)).rows
          : (
              await sql<{
                name: string;
              }>`SELECT DISTINCT index_name AS name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'open_reserves'`.execute(
                db,
              )
            ).rows;
    assert.ok(!indexes.some((i) => i.name === 'open_reserves_node'), 'the node index is gone');
    if (h.dialect === 'sqlite') {
      const ddl = (name: string) =>
        sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE name = ${name}`.execute(db).then((r) => r.rows[0].sql);
      assert.match(await ddl('open_reserves'), /WITHOUT ROWID/);
      assert.doesNotMatch(await ddl('ledger'), /AUTOINCREMENT/i);
      // One B-tree for the open reserves: no separate primary-key index.
      assert.deepEqual(indexes, []);
    }
  } finally {
    await h.close();
    await tdb.drop();
  }
});
