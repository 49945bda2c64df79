/** Column types that differ between SQLite, PostgreSQL and MySQL, for migrations. */
import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import type { Dialect } from '../db.ts';

export interface MigrationCtx {
  db: Kysely<any>;
  dialect: Dialect;
}

export function withId<T extends string>(tb: CreateTableBuilder<T, never>, dialect: Dialect): CreateTableBuilder<T, 'id'> {
  if (dialect === 'postgres') return tb.addColumn('id', 'bigserial', (c) => c.primaryKey());
  if (dialect === 'mysql') return tb.addColumn('id', 'bigint', (c) => c.primaryKey().autoIncrement());
  return tb.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

/** 64-bit integer. */
export const bigint = (d: Dialect) => (d === 'sqlite' ? 'integer' : 'bigint');
/** Short indexed string. */
export const str = (len = 191) => sql`varchar(${sql.raw(String(len))})`;
/** Unbounded text (MySQL TEXT stops at 64 KiB, so LONGTEXT there). */
export const text = (d: Dialect) => (d === 'mysql' ? sql`longtext` : sql`text`);
export const double = (d: Dialect) => (d === 'postgres' ? sql`double precision` : d === 'mysql' ? sql`double` : sql`real`);
