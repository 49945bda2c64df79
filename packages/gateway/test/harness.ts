/**
 * Integration-test harness: a gateway in this process on a free port, over a database made for the
 * test and dropped after it. TEST_DB picks the server: sqlite (default, a temporary file), postgres
 * (127.0.0.1:5432) or mysql (127.0.0.1:3306); each test gets its own randomly named database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startGateway, type Gateway, type StartOptions } from '../src/gateway.ts';
import { createLogger } from '../src/platform/logger.ts';
import type { Config } from '../src/platform/config.ts';
import { checkApiAnswers } from './api-conformance.ts';

export type TestDbKind = 'sqlite' | 'postgres' | 'mysql';
export const TEST_DB: TestDbKind = (process.env.TEST_DB as TestDbKind) || 'sqlite';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

const PG_ADMIN = process.env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';
const MY_ADMIN = process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test';

/** Creates an empty database of the kind under test, with a random name. */
export async function createTestDatabase(kind: TestDbKind = TEST_DB): Promise<TestDatabase> {
  const name = `gh_t_${randomBytes(6).toString('hex')}`;
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-'));
    return { url: `sqlite:${join(dir, 'test.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (kind === 'postgres') {
    const pg = (await import('pg')).default;
    const admin = new pg.Client({ connectionString: PG_ADMIN });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(PG_ADMIN);
    u.pathname = `/${name}`;
    return {
      url: u.toString(),
      drop: async () => {
        const c = new pg.Client({ connectionString: PG_ADMIN });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    };
  }
  const mysql = await import('mysql2/promise');
  const u = new URL(MY_ADMIN);
  const opts = {
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username || 'root'),
    password: decodeURIComponent(u.password),
  };
  const c = await mysql.createConnection(opts);
  await c.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await c.end();
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const d = await mysql.createConnection(opts);
      await d.query(`DROP DATABASE IF EXISTS ${name}`);
      await d.end();
    },
  };
}

export const TEST_ROOT_PASSWORD = 'root-test-password';
export const TEST_CRYPTO_SECRET = 'test-crypto-secret-0123456789abcdef';

export interface TestGateway extends Gateway {
  db: TestDatabase;
  /** Stops the gateway; `keepDb` leaves the database for a restart. */
  stop(opts?: { keepDb?: boolean }): Promise<void>;
}

/** Starts a gateway on a free loopback port over `db` (a fresh one when omitted). */
export async function startTestGateway(
  opts: { db?: TestDatabase; config?: Partial<Config>; env?: NodeJS.ProcessEnv } & Pick<StartOptions, 'listen'> = {},
): Promise<TestGateway> {
  const db = opts.db ?? (await createTestDatabase());
  const env: NodeJS.ProcessEnv = {
    CRYPTO_SECRET: TEST_CRYPTO_SECRET,
    GATEHOUSE_ROOT_PASSWORD: TEST_ROOT_PASSWORD,
    CACHE_SYNC_INTERVAL_SECONDS: '0.2',
    // No console build is needed: a test that serves the console sets CONSOLE_ENABLED/CONSOLE_DIR.
    CONSOLE_ENABLED: 'false',
    ...opts.env,
    DATABASE_URL: db.url,
  };
  const gw = await startGateway({
    env,
    config: { port: 0, host: '127.0.0.1', ...opts.config },
    log: createLogger(process.env.TEST_LOG_LEVEL || 'silent'),
    listen: opts.listen,
  });
  // Every /api answer the test receives is checked against the gateway's OpenAPI document.
  if (gw.url) checkApiAnswers(gw.url);
  return Object.assign(gw, {
    db,
    async stop(o: { keepDb?: boolean } = {}) {
      await gw.close();
      if (!o.keepDb) await db.drop();
    },
  });
}
