/**
 * Upgrades of a database that already holds money: the rows every model call writes (`ledger`,
 * `open_reserves`) survive the migration that rebuilds those tables, ids go on where they were, and
 * the constraints the ledger's exactness rests on still hold; the usage roll-ups gain the prompt-cache
 * figures without counting anything twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { TEST_DB, createTestDatabase } from '../harness.ts';
import { openDb } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrations/index.ts';
import { backfill, LAT_COLUMNS } from '../../src/store/migrations/009_usage_rollup.ts';
import { purgeRollups, rollup, upsertRollups } from '../../src/logs/rollup.ts';

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

    // Up to 025 (later migrations add columns, which are not what this checks).
    await migrate(h, '025_call_pages');

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

test('migration 028 adds the cache figures: old rows read 0, the cache reads of the logs still kept are rolled up as the log writer does', async () => {
  const tdb = await createTestDatabase(TEST_DB);
  const h = await openDb(tdb.url);
  try {
    await migrate(h, '027_sso_changed_by');
    const db = h.db;
    const t0 = Date.UTC(2026, 5, 1, 10);
    const rows = Array.from({ length: 40 }, (_, i) => ({
      created_at: t0 + i * 9 * 60_000,
      type: i % 8 === 0 ? 'error' : i % 13 === 0 ? 'system' : 'consume',
      request_id: `r${i}`,
      user_id: i % 7 === 0 ? null : 1 + (i % 3),
      key_id: i % 5 === 0 ? null : 10 + (i % 4),
      model: i % 11 === 0 ? null : `m${i % 3}`,
      channel_id: i % 6 === 0 ? null : 100 + (i % 2),
      prompt_tokens: 100 * i,
      completion_tokens: i,
      cached_tokens: i % 8 === 0 ? 0 : 40 * i,
      quota: i * 13,
      latency_ms: 50 * i,
      is_stream: 0,
      attempts: 1,
    }));
    await db.insertInto('logs').values(rows).execute();
    // The roll-ups as the gateway kept them before (the frozen copy of migration 009), and an hour whose logs are gone.
    await backfill({ db, dialect: h.dialect });
    const lat = Object.fromEntries(LAT_COLUMNS.map((c) => [c, 0]));
    const gone = { dim: 'all', hour: t0 - 5 * 3_600_000, user_id: 0, key_id: 0, model: '', channel_id: 0 };
    // Written as a node before 028 writes it: without the cache columns (hence `as never` below).
    const sums = { requests: 3, errors: 0, prompt_tokens: 300, completion_tokens: 3, quota: 9, latency_ms: 0 };
    await db
      .insertInto('usage_hourly')
      .values({ ...gone, ...sums, ...lat } as never)
      .execute();

    await migrate(h);

    const snapshot = async () =>
      (
        await sql<Record<string, unknown>>`select * from usage_hourly order by dim, hour, user_id, key_id, model, channel_id`.execute(db)
      ).rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' ? v : Number(v)])));
    const migrated = await snapshot();
    const old = migrated.find((r) => r.dim === 'all' && r.hour === gone.hour)!;
    assert.deepEqual(
      [old.cached_tokens, old.cache_write_tokens, old.cache_write_quota, old.cache_saving_quota, old.requests],
      [0, 0, 0, 0, 3],
    );
    const logged = await db.selectFrom('logs').select(['cache_write_tokens', 'cache_write_quota', 'cache_saving_quota']).execute();
    assert.ok(logged.every((r) => Number(r.cache_write_tokens) + Number(r.cache_write_quota) + Number(r.cache_saving_quota) === 0));
    const all = migrated.filter((r) => r.dim === 'all').reduce((a, r) => a + Number(r.cached_tokens), 0);
    assert.equal(
      all,
      rows.filter((r) => r.type !== 'system').reduce((a, r) => a + r.cached_tokens, 0),
    );

    // The log writer's roll-ups of the same rows, every dimension, are what the migration left.
    await purgeRollups(h, Number.MAX_SAFE_INTEGER);
    await upsertRollups(db, h.dialect, rollup(rows));
    await db
      .insertInto('usage_hourly')
      .values({ ...gone, ...sums, ...lat } as never)
      .execute();
    assert.deepEqual(migrated, await snapshot());
  } finally {
    await h.close();
    await tdb.drop();
  }
});
