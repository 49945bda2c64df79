/**
 * The dashboard's top lists ranked from a narrow index (MySQL/MariaDB). Ranking a month's top users or
 * keys sums the quota and the requests of every roll-up row of the range (logs/rollup.ts
 * `rollupGroups`: about 130,000 rows of keys at 5,000,000 log rows), and MariaDB read them from its
 * clustered primary key, whole rows of some forty columns (about 1,700 pages of 16 KB for a month of key
 * days, beside a buffer pool of 128 MB by default that the log table competes for). `usage_hourly_rank`
 * holds the range's key and the two sums — InnoDB appends the rest of the primary key (the user, key,
 * model and channel) to every secondary index — in a fifth of the pages; the ranking names it, as
 * MariaDB otherwise prefers the primary key on the same range. The price: each roll-up upsert also
 * moves the row's entry in this index (its sums changed). PostgreSQL and SQLite keep their plans: there
 * the index would need the group columns too, and on PostgreSQL an indexed sum turns every upsert of a
 * roll-up row into a write of each of the table's indexes (no heap-only update).
 */
import type { MigrationCtx } from './util.ts';

export async function up({ db, dialect }: MigrationCtx): Promise<void> {
  if (dialect !== 'mysql') return;
  await db.schema.createIndex('usage_hourly_rank').on('usage_hourly').columns(['dim', 'hour', 'quota', 'requests']).execute();
}
