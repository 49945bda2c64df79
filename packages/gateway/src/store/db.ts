/**
 * One Kysely instance over SQLite (better-sqlite3), PostgreSQL (pg) or MySQL/MariaDB (mysql2),
 * chosen by DATABASE_URL. Numbers come back as JS numbers on every dialect (bigint columns hold
 * integer quota units, far below 2^53).
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, sql, type Transaction } from 'kysely';
import type { Database } from './schema.ts';
import { startCheckpointer, type Checkpointer } from './sqlite-checkpointer.ts';
import { DATABASE_URL_EXAMPLES, databaseKind, redactDatabaseUrl } from '../platform/config.ts';

export type Dialect = 'sqlite' | 'postgres' | 'mysql';
export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
export type DbOrTx = Db | Tx;

export interface DbHandle {
  db: Db;
  dialect: Dialect;
  url: string;
  /**
   * SQLite only: the better-sqlite3 connection under Kysely, for hot-path code that runs precompiled
   * statements synchronously (see billing/ledger.ts). It is the same connection Kysely uses, so such
   * code must not run while `inTransaction` is true (a Kysely transaction is open across awaits).
   */
  sqlite?: import('better-sqlite3').Database;
  /** SQLite files opened with `checkpointer`: the worker that checkpoints the WAL. */
  checkpointer?: Checkpointer;
  close(): Promise<void>;
}

/** The dialect of a DATABASE_URL (the rule and its errors are platform/config.ts's). */
export const dialectOf = (url: string): Dialect => databaseKind(url);

export function sqlitePath(url: string): string {
  const p = url.replace(/^sqlite:(\/\/)?/i, '');
  return p === ':memory:' ? p : resolve(p);
}

/** The reason of a failed connection: a connection to `localhost` tried on several addresses fails with all of their errors. */
function reasonOf(e: unknown): string {
  const err = e as Error & { code?: string; errors?: Error[] };
  const parts = err.errors?.length ? err.errors.map((x) => x.message) : [err.message || err.code || String(e)];
  return [...new Set(parts)].join('; ');
}

/** The error of a database that cannot be opened or reached: the setting, what went wrong, and what it should look like. */
function unreachable(url: string, e: unknown): Error {
  if (dialectOf(url) === 'sqlite') {
    return new Error(
      `cannot open the SQLite database ${sqlitePath(url)} of DATABASE_URL=${url}: ${reasonOf(e)}. ` +
        'Check that its folder exists or can be made, and that this user may write there (example: DATABASE_URL=sqlite:./data/gatehouse.db).',
    );
  }
  return new Error(
    `cannot connect to the database of DATABASE_URL=${redactDatabaseUrl(url)}: ${reasonOf(e)}. ` +
      'Check that the server runs at that address, accepts this user and password, and has that database ' +
      `(examples: ${DATABASE_URL_EXAMPLES}).`,
  );
}

/** How a handle is opened. */
export interface OpenOptions {
  /**
   * SQLite files: WAL checkpoints in a worker thread instead of inside the commits of this connection
   * (store/sqlite-checkpointer.ts). The gateway's own handle; short-lived tools keep SQLite's default.
   */
  checkpointer?: boolean;
}

/** Opens the database of `url` and checks that it answers (one `select 1`), so that a wrong address fails here, clearly. */
export async function openDb(url: string, opts: OpenOptions = {}): Promise<DbHandle> {
  const h = await openHandle(url, opts);
  try {
    await sql`select 1`.execute(h.db);
  } catch (e) {
    await h.close().catch(() => undefined);
    throw unreachable(url, e);
  }
  return h;
}

async function openHandle(url: string, opts: OpenOptions): Promise<DbHandle> {
  const dialect = dialectOf(url);
  let db: Db;
  let raw: import('better-sqlite3').Database | undefined;
  let checkpointer: Checkpointer | null = null;
  if (dialect === 'sqlite') {
    const { default: Sqlite } = await import('better-sqlite3');
    const file = sqlitePath(url);
    let conn: import('better-sqlite3').Database;
    try {
      if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
      conn = new Sqlite(file);
    } catch (e) {
      throw unreachable(url, e);
    }
    conn.pragma('journal_mode = WAL');
    conn.pragma('synchronous = NORMAL');
    conn.pragma('busy_timeout = 10000');
    conn.pragma('foreign_keys = ON');
    // Every model call writes to the ledger's indexes: keep their pages in memory (64 MB page cache)
    // and read the file through a memory map instead of a read call per page.
    conn.pragma('cache_size = -65536');
    conn.pragma('mmap_size = 268435456');
    raw = conn;
    if (opts.checkpointer && file !== ':memory:') checkpointer = startCheckpointer(conn, file);
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: conn }) });
  } else if (dialect === 'postgres') {
    const pg = (await import('pg')).default;
    pg.types.setTypeParser(20, (v: string) => Number(v)); // int8
    pg.types.setTypeParser(1700, (v: string) => Number(v)); // numeric
    const pool = new pg.Pool({ connectionString: url, max: 20 });
    // A connection that the server closes (restart, failover) must not crash the process: idle ones
    // report on the pool, checked-out ones on the client (their query fails and is answered as such).
    pool.on('error', () => {});
    pool.on('connect', (client) => {
      client.on('error', () => {});
      // No JIT compilation: the gateway's statements are short, and a plan whose estimated cost passes
      // PostgreSQL's thresholds (a log search's totals on a big table, whose newest rows the statistics
      // do not know yet) spent 0.5–2 s compiling a statement that runs in 40 ms (docs/benchmarks.md,
      // Big tables). Queued before any statement of the connection; refused by servers without JIT.
      client.query('SET jit = off').catch(() => {});
    });
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  } else {
    const mysql = await import('mysql2');
    const u = new URL(url.replace(/^mariadb:/i, 'mysql:'));
    const pool = mysql.createPool({
      host: u.hostname,
      port: Number(u.port || 3306),
      user: decodeURIComponent(u.username || 'root'),
      password: decodeURIComponent(u.password || ''),
      database: decodeURIComponent(u.pathname.replace(/^\//, '')),
      connectionLimit: 20,
      supportBigNumbers: true,
      bigNumberStrings: false,
      decimalNumbers: true,
      charset: 'utf8mb4',
      timezone: 'Z',
    });
    db = new Kysely<Database>({ dialect: new MysqlDialect({ pool }) });
  }
  const close = async () => {
    await checkpointer?.stop();
    await db.destroy();
  };
  return { db, dialect, url, sqlite: raw, ...(checkpointer ? { checkpointer } : {}), close };
}

/** Inserts one row and returns its auto-increment id on every dialect. */
export async function insertId<T extends keyof Database & string>(
  db: DbOrTx,
  dialect: Dialect,
  table: T,
  values: Record<string, unknown>,
): Promise<number> {
  if (dialect === 'postgres') {
    const row = await (db.insertInto(table) as any).values(values).returning('id').executeTakeFirstOrThrow();
    return Number(row.id);
  }
  const res = await (db.insertInto(table) as any).values(values).executeTakeFirstOrThrow();
  return Number(res.insertId);
}

/** True when an error is a unique-constraint violation on any dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errno?: number; message?: string };
  return (
    e?.code === '23505' ||
    e?.code === 'ER_DUP_ENTRY' ||
    e?.errno === 1062 ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    /UNIQUE constraint failed|duplicate key/i.test(e?.message ?? '')
  );
}

/**
 * Runs `fn` in a transaction. On SQLite the transaction starts with BEGIN IMMEDIATE, so a second
 * process writing the same file waits for the lock (busy_timeout) instead of failing half-way with
 * SQLITE_BUSY when a read lock is upgraded.
 */
export async function withTx<T>(h: DbHandle, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (h.dialect !== 'sqlite') return h.db.transaction().execute(fn);
  return h.db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const out = await fn(conn as unknown as Tx);
      await sql`commit`.execute(conn);
      return out;
    } catch (e) {
      await sql`rollback`.execute(conn).catch(() => {});
      throw e;
    }
  });
}

export { sql };
