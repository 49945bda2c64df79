/**
 * `npm run bench:logs`: the log search, retention and the dashboard's month on a big table. Seeds N log
 * rows over 30 days (default 50,000,000 on PostgreSQL and MySQL, 10,000,000 on SQLite) with the database's
 * own row generator (no row crosses the client), builds the indexes the migrations make, rolls the rows up
 * with the log writer's own function (`rollup`, logs/rollup.ts: the rows read back an hour at a time, each
 * hour's roll-ups and each day's written once; their totals checked against the rows), then measures
 * through the gateway's own code:
 *
 *   search   the first page of the console's log search (`LogAdmin.query`: page and totals) by key id, key
 *            name, user id, user name, model, channel, request id, a day's range, and none; and pages deep
 *            in the list by cursor. p50 / p95 of `--runs` searches, each with other random values.
 *   month    the dashboard's month (`UsageReports`: series, top models/users/channels/keys at once).
 *   retention calls through a gateway on the same database (its compiled build, a loopback upstream), the
 *            call p99 for `--window` seconds without (after a warm-up) and then during a retention run of the oldest days
 *            (stopped after three windows when it lasts longer: the rows it deleted by then are reported).
 *
 *   npm run bench:logs -- [--db sqlite,postgres,mysql] [--rows N] [--runs 40] [--window 20] [--keep]
 *                         [--sqlite-file PATH] [--db-url URL] [--phases seed,search,month,retention]
 *
 * `--rows` applies to every database named; without it each takes its default. PostgreSQL and MySQL are
 * the local test servers (TEST_PG_URL / TEST_MYSQL_URL); their database is dropped after the run unless
 * `--keep`. `--sqlite-file` keeps (and, when it exists, reuses) the SQLite database; `--db-url` (one
 * database kind) runs on the PostgreSQL or MySQL database at that URL, which is kept, and reuses its log
 * rows when it has some (create it first, e.g. `CREATE DATABASE bench_logs`). Markdown on stdout.
 */
import { existsSync } from 'node:fs';
import { sql } from 'kysely';
import { request } from 'undici';
import { openDb, type DbHandle, type Dialect } from '../packages/gateway/src/store/db.ts';
import { migrate } from '../packages/gateway/src/store/migrations/index.ts';
import { DAILY, HOUR_MS, rollup, upsertRollups, type RollupRow, type RollupSource } from '../packages/gateway/src/logs/rollup.ts';
import { LOG_TOTALS_INDEXES } from '../packages/gateway/src/store/migrations/038_log_totals_indexes.ts';
import { LogAdmin } from '../packages/gateway/src/admin/logs.ts';
import { purgeLogs } from '../packages/gateway/src/logs/writer.ts';
import { UsageReports, parseUsageQuery } from '../packages/gateway/src/logs/usage.ts';
import { createTestDatabase, type TestDbKind } from '../packages/gateway/test/harness.ts';
import type { Core } from '../packages/gateway/src/core.ts';
import { UserStore } from '../packages/gateway/src/accounts/user-store.ts';
import { KeyStore } from '../packages/gateway/src/accounts/key-store.ts';
import { ChannelStore } from '../packages/gateway/src/channels/store.ts';
import { CPU_LOAD } from './proc.ts';
import { startSseUpstream } from './sse.ts';
import { gatehouseTarget, CHAT_PATH, chatBody } from './targets.ts';
import { percentile } from './stats.ts';

const args = process.argv.slice(2);
const arg = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : dflt;
};
const DBS = arg('db', 'sqlite').split(',') as TestDbKind[];
const ROWS = arg('rows', '');
const RUNS = Number(arg('runs', '40'));
const WINDOW_S = Number(arg('window', '20'));
const KEEP = args.includes('--keep');
const SQLITE_FILE = arg('sqlite-file', '');
const DB_URL = arg('db-url', '');
const PHASES = arg('phases', 'seed,search,month,retention').split(',');
const DAY = 86_400_000;
const USERS = 1000;
const KEYS_PER_USER = 3;
const MODELS = 12;
const CHANNELS = 20;
/** Bench user N has id N + ID_OFFSET, bench key N id N + ID_OFFSET. */
const ID_OFFSET = 10;
/** Rows per generated INSERT … SELECT (one transaction each). */
const CHUNK = 1_000_000;
const log = (m: string) => process.stderr.write(`[logs ${new Date().toISOString().slice(11, 19)}] ${m}\n`);

export function defaultRows(kind: TestDbKind): number {
  return kind === 'sqlite' ? 10_000_000 : 50_000_000;
}

/** A FROM clause of the integers from..to (inclusive) as `i`, made by the database. */
export function sequence(d: Dialect, from: number, to: number): string {
  if (d === 'postgres') return `generate_series(${from}::bigint, ${to}::bigint) AS s(i)`;
  if (d === 'sqlite') return `(WITH RECURSIVE s(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM s WHERE i < ${to}) SELECT i FROM s) AS s`;
  // MySQL/MariaDB: six digit tables crossed make a million numbers.
  const t = ['a', 'b', 'c', 'e', 'f', 'g'];
  const sum = t.map((x, k) => `${x}.d * ${10 ** k}`).join(' + ');
  return `(SELECT ${from} + ${sum} AS i FROM ${t.map((x) => `bench_digits ${x}`).join(', ')} HAVING i <= ${to}) AS s`;
}

const cat = (d: Dialect, a: string, b: string) => (d === 'mysql' ? `CONCAT(${a}, ${b})` : `(${a} || ${b})`);

/**
 * The INSERT … SELECT that makes log rows from..to: a hash of the row number picks the user (a few
 * heavy ones), one of the user's keys, the model, the channel, the tokens and the latency; 3 % are
 * errors; times rise with the row number over the 30 days before `now`.
 */
export function seedSql(d: Dialect, from: number, to: number, rows: number, now: number): string {
  const step = Math.max(1, Math.floor((30 * DAY) / rows));
  const t0 = now - 30 * DAY;
  const h = `((s.i * 2654435761) % 4294967296)`;
  const user = `(1 + ((((${h} >> 3) % ${USERS}) * ((${h} >> 13) % ${USERS})) >> 10))`;
  const key = `(${user} * ${KEYS_PER_USER} - ((${h} >> 20) % ${KEYS_PER_USER}))`;
  const model = cat(d, `'model-'`, `((${h} >> 7) % ${MODELS})`);
  const err = `((${h} >> 17) % 100 < 3)`;
  const prompt = `((${h} >> 5) % 4000)`;
  const completion = `(CASE WHEN ${err} THEN 0 ELSE ((${h} >> 9) % 1000) END)`;
  // Ids are offset by ID_OFFSET (the gateway's own accounts keep the first ones); names are the bench numbers.
  return `INSERT INTO logs (created_at, type, request_id, user_id, username, key_id, key_name, group_name, model, upstream_model,
    channel_id, endpoint, status_code, prompt_tokens, completion_tokens, cached_tokens, quota, latency_ms, first_byte_ms, is_stream, attempts)
  SELECT ${t0} + s.i * ${step}, CASE WHEN ${err} THEN 'error' ELSE 'consume' END, ${cat(d, `'req-'`, 's.i')},
    ${user} + ${ID_OFFSET}, ${cat(d, `'user-'`, user)}, ${key} + ${ID_OFFSET}, ${cat(d, `'key-'`, key)}, 'default', ${model}, ${model},
    1 + ((${h} >> 11) % ${CHANNELS}), '/v1/chat/completions', CASE WHEN ${err} THEN 502 ELSE 200 END,
    ${prompt}, ${completion}, 0, ${prompt} * 2 + ${completion} * 8, 150 + ((${h} >> 15) % 12000), 50 + ((${h} >> 19) % 500), (${h} >> 2) % 2, 1
  FROM ${sequence(d, from, to)}`;
}

const LOG_INDEXES = ['logs_request', ...LOG_TOTALS_INDEXES.map((ix) => ix.name)];
/** Builds one of the log indexes the migrations make (LOG_TOTALS_INDEXES: led by the time, user, key, model, channel). */
const createIndex = (h: DbHandle, lead: string) => {
  const ix = LOG_TOTALS_INDEXES.find((x) => x.columns[0] === lead)!;
  return sql.raw(`CREATE INDEX ${ix.name} ON logs (${ix.columns.join(', ')})`).execute(h.db);
};

async function seed(h: DbHandle, rows: number, now: number): Promise<Record<string, number>> {
  const d = h.dialect;
  const took: Record<string, number> = {};
  let t = performance.now();
  // Users and keys, so that names are searched through their ids as in a real gateway.
  for (let start = 1; start <= USERS; start += 500) {
    const batch = Array.from({ length: Math.min(500, USERS - start + 1) }, (_, k) => start + k);
    await h.db
      .insertInto('users')
      .values(
        batch.map((u) => ({ id: u + ID_OFFSET, username: `user-${u}`, password_hash: 'x', created_at: now, updated_at: now })) as never,
      )
      .execute();
    await h.db
      .insertInto('api_keys')
      .values(
        batch.flatMap((u) =>
          Array.from({ length: KEYS_PER_USER }, (_, k) => {
            const key = u * KEYS_PER_USER - k;
            return {
              id: key + ID_OFFSET,
              user_id: u + ID_OFFSET,
              name: `key-${key}`,
              key_hash: `bench-${key}`,
              key_hint: 'sk-…',
              created_at: now,
            };
          }),
        ) as never,
      )
      .execute();
  }
  // Load without the secondary indexes, then build them once (as a migration on a big table would).
  for (const ix of LOG_INDEXES) await sql.raw(d === 'mysql' ? `DROP INDEX ${ix} ON logs` : `DROP INDEX ${ix}`).execute(h.db);
  if (d === 'mysql') {
    await sql`CREATE TABLE IF NOT EXISTS bench_digits (d INT NOT NULL PRIMARY KEY)`.execute(h.db);
    await sql`INSERT IGNORE INTO bench_digits VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)`.execute(h.db);
  }
  if (d === 'sqlite') await sql`PRAGMA synchronous = OFF`.execute(h.db);
  for (let from = 0; from < rows; from += CHUNK) {
    const to = Math.min(rows, from + CHUNK) - 1;
    await sql.raw(seedSql(d, from, to, rows, now)).execute(h.db);
    log(`${d}: ${(to + 1).toLocaleString('en')} of ${rows.toLocaleString('en')} rows (${((performance.now() - t) / 1000).toFixed(0)} s)`);
  }
  took.rows = (performance.now() - t) / 1000;
  t = performance.now();
  await createIndex(h, 'created_at');
  await createIndex(h, 'user_id');
  await sql`CREATE INDEX logs_request ON logs (request_id)`.execute(h.db);
  took.indexesBefore = (performance.now() - t) / 1000;
  t = performance.now();
  await createIndex(h, 'key_id');
  await createIndex(h, 'model');
  await createIndex(h, 'channel_id');
  took.indexesNew = (performance.now() - t) / 1000;
  t = performance.now();
  await rollUp(h, rows, now);
  took.rollups = (performance.now() - t) / 1000;
  if (d === 'sqlite') await sql`PRAGMA synchronous = NORMAL`.execute(h.db);
  await analyze(h);
  return took;
}

/** The log columns `rollup` reads. */
const ROLLUP_SOURCE = [
  'created_at',
  'type',
  'user_id',
  'key_id',
  'model',
  'channel_id',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'cache_write_quota',
  'cache_saving_quota',
  'quota',
  'latency_ms',
  'content',
  'upstream_cost',
] as const;

/**
 * The dashboard's roll-ups of the seeded rows, made by the log writer's `rollup`: the rows are read back
 * one hour at a time (the time index), each hour's rows of the dimensions the dashboard reads are written
 * once, and the daily ones once their day has passed. The full-key rows (dim '', for filtered reports)
 * grow almost with the rows themselves and are left out. The `requests` of every dimension must add up
 * to the rows seeded (each is a model call), or the seed fails. A whole-table `INSERT … SELECT … GROUP BY`
 * per dimension (the migrations' backfill) took over 20 minutes a dimension on MySQL at 50 M rows.
 */
async function rollUp(h: DbHandle, rows: number, now: number): Promise<void> {
  const d = h.dialect;
  const days = new Map<string, RollupRow>();
  const dayDims = new Set(Object.values(DAILY));
  const flushDays = async (before: number) => {
    const done = [...days.entries()].filter(([, r]) => r.hour < before);
    for (const [id] of done) days.delete(id);
    await upsertRollups(
      h.db,
      d,
      done.map(([, r]) => r),
    );
  };
  const first = now - 30 * DAY - ((now - 30 * DAY) % HOUR_MS);
  for (let hour = first; hour < now; hour += HOUR_MS) {
    const source = (await h.db
      .selectFrom('logs')
      .select([...ROLLUP_SOURCE])
      .where('created_at', '>=', hour)
      .where('created_at', '<', hour + HOUR_MS)
      .execute()) as RollupSource[];
    for (const r of source) r.created_at = Number(r.created_at);
    const hourly: RollupRow[] = [];
    for (const r of rollup(source)) {
      if (r.dim === '') continue;
      if (!dayDims.has(r.dim)) {
        hourly.push(r);
        continue;
      }
      const id = `${r.dim}\u0000${r.hour}\u0000${r.user_id}\u0000${r.key_id}`;
      const had = days.get(id);
      if (!had) days.set(id, r);
      else for (let i = 0; i < r.sums.length; i++) had.sums[i] += r.sums[i];
    }
    await upsertRollups(h.db, d, hourly);
    await flushDays(hour + HOUR_MS - ((hour + HOUR_MS) % DAY));
    if (((hour - first) / HOUR_MS) % 48 === 47) log(`${d}: roll-ups to ${new Date(hour + HOUR_MS).toISOString()}`);
  }
  await flushDays(Infinity);
  const totals = await h.db
    .selectFrom('usage_hourly')
    .select(['dim', (eb) => eb.fn.sum<number>('requests').as('n')])
    .groupBy('dim')
    .execute();
  for (const dim of ['all', 'user', 'key', 'model', 'channel', 'user_day', 'key_day']) {
    const n = Number(totals.find((t) => t.dim === dim)?.n ?? 0);
    if (n !== rows) throw new Error(`roll-ups: dimension ${dim} counts ${n} requests, the seed made ${rows}`);
  }
}

async function analyze(h: DbHandle): Promise<void> {
  if (h.dialect === 'postgres') await sql`analyze`.execute(h.db);
  else if (h.dialect === 'mysql') await sql`analyze table logs, usage_hourly`.execute(h.db);
  else await sql`analyze`.execute(h.db);
}

/** Runs `fn` `RUNS` times (after one warm-up) with the run's number; p50 and p95 in ms. */
async function time(fn: (k: number) => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  await fn(-1);
  const ms: number[] = [];
  for (let k = 0; k < RUNS; k++) {
    const t = performance.now();
    await fn(k);
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95) };
}

/** Deterministic choices per run (the same searches on every database). */
const pick = (k: number, n: number, salt: number) => 1 + ((((k + 7) * 2654435761 + salt * 40503) % 4294967296) % n);

async function searches(h: DbHandle, rows: number, now: number): Promise<Array<[string, { p50: number; p95: number }]>> {
  const admin = new LogAdmin({ h, config: { quotaPerUsd: 500_000 }, log: console } as unknown as Core);
  const page = { page: 1, pageSize: 20, offset: 0, cursor: null };
  const q = (f: Record<string, unknown>) => admin.query(f, page, false);
  const out: Array<[string, { p50: number; p95: number }]> = [];
  const user = (k: number) => pick(k, 300, 1); // users the generator made (the low numbers are the busy ones)
  out.push(['no filter (newest 20)', await time(() => q({}))]);
  out.push(['by key id', await time((k) => q({ keyId: user(k) * KEYS_PER_USER + ID_OFFSET }))]);
  out.push(['by key name', await time((k) => q({ keyName: `key-${user(k) * KEYS_PER_USER - 1}` }))]);
  out.push(['by user id', await time((k) => q({ userId: user(k) + ID_OFFSET }))]);
  out.push(['by user name', await time((k) => q({ username: `user-${user(k)}` }))]);
  out.push(['by model', await time((k) => q({ model: `model-${pick(k, MODELS, 2) - 1}` }))]);
  out.push(['by channel', await time((k) => q({ channelId: pick(k, CHANNELS, 3) }))]);
  out.push(['by request id', await time((k) => q({ requestId: `req-${pick(k, rows, 4) - 1}` }))]);
  out.push([
    "a day's range",
    await time((k) => {
      const end = now - pick(k, 29, 5) * DAY;
      return q({ start: end - DAY, end });
    }),
  ]);
  out.push([
    "a day's range and a model",
    await time((k) => {
      const end = now - pick(k, 29, 6) * DAY;
      return q({ start: end - DAY, end, model: `model-${pick(k, MODELS, 7) - 1}` });
    }),
  ]);
  // Deep pages: ten pages on by cursor from a random point, by model.
  out.push([
    'by model, 10 pages on by cursor (each page)',
    await time(async (k) => {
      const f = { model: `model-${pick(k, MODELS, 8) - 1}`, end: now - pick(k, 25, 9) * DAY };
      let p = await admin.query(f, page, false);
      for (let n = 0; n < 10 && p.next_cursor; n++) {
        const [at, id] = p.next_cursor.split('.').map(Number);
        p = await admin.query(f, { ...page, cursor: { at, id } }, false);
      }
    }).then((t) => ({ p50: t.p50 / 11, p95: t.p95 / 11 })),
  ]);
  return out;
}

async function month(h: DbHandle, now: number): Promise<{ p50: number; p95: number }> {
  const reports = new UsageReports({ h, config: { quotaPerUsd: 500_000 } } as unknown as Core, (g, ids) =>
    g === 'user' ? new UserStore(h).names(ids) : g === 'key' ? new KeyStore(h).names(ids) : new ChannelStore(h).names(ids),
  );
  const range = { from: String(now - 30 * DAY), to: String(now) };
  const q = (extra: Record<string, string>) => parseUsageQuery({ ...range, ...extra }, false, now);
  return time(() =>
    Promise.all(
      ['', 'model', 'user', 'channel', 'key'].map((g) => reports.query(q(g ? { bucket: 'day', group_by: g } : { bucket: 'day' }))),
    ),
  );
}

/** Call p99 through a gateway on this database for WINDOW_S seconds, without and during retention of the oldest days. */
async function retention(
  url: string,
  h: DbHandle,
  now: number,
): Promise<{ without: number; during: number; deleted: number; seconds: number; finished: boolean }> {
  const up = await startSseUpstream(CPU_LOAD);
  const target = gatehouseTarget('gatehouse-logs', {}, { databaseUrl: url });
  const gw = await target.start({ upstream: `http://127.0.0.1:${up.port}`, installPortkey: false, log });
  try {
    const body = chatBody(false);
    const calls = async (until: () => boolean): Promise<number[]> => {
      const ms: number[] = [];
      const worker = async () => {
        while (!until()) {
          const t = performance.now();
          const r = await request(`${gw.url}${CHAT_PATH}`, { method: 'POST', headers: gw.headers, body });
          await r.body.dump();
          if (r.statusCode !== 200) throw new Error(`call: HTTP ${r.statusCode}`);
          ms.push(performance.now() - t);
          await new Promise((res) => setTimeout(res, 20));
        }
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
      return ms.sort((a, b) => a - b);
    };
    // A warm-up first (the gateway's first calls open connections and compile): the window without
    // retention must not be the slower for coming first.
    const warm = Date.now() + Math.min(10, WINDOW_S) * 1000;
    await calls(() => Date.now() > warm);
    const end = Date.now() + WINDOW_S * 1000;
    const before = await calls(() => Date.now() > end);
    const cutoff = now - 30 * DAY + 3 * DAY;
    const older = async () =>
      Number(
        (
          await h.db
            .selectFrom('logs')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('created_at', '<', cutoff)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const had = await older();
    let done = false;
    const t = performance.now();
    // The oldest days, in the gateway's batches, from its own connections (another node). A retention
    // longer than three windows (a big table) is stopped there: its connections close under it.
    const ph = await openDb(url, { checkpointer: true });
    const purge = purgeLogs(ph, cutoff).then(
      () => true,
      () => false,
    );
    void purge.then(() => (done = true));
    const started = Date.now();
    const during = await calls(() => done || Date.now() - started > WINDOW_S * 3000);
    const seconds = (performance.now() - t) / 1000;
    await ph.close();
    const finished = await purge;
    const deleted = had - (await older());
    return { without: percentile(before, 99), during: percentile(during, 99), deleted, seconds, finished };
  } finally {
    await gw.stop();
    await up.proc.stop();
  }
}

async function benchOne(kind: TestDbKind): Promise<string[]> {
  const rows = ROWS ? Number(ROWS) : defaultRows(kind);
  const keep = (kind === 'sqlite' && SQLITE_FILE !== '') || (kind !== 'sqlite' && DB_URL !== '');
  let reuse = kind === 'sqlite' && keep && existsSync(SQLITE_FILE);
  const url = kind === 'sqlite' ? `sqlite:${SQLITE_FILE}` : DB_URL;
  const tdb = keep ? { url, drop: async () => {} } : await createTestDatabase(kind);
  const h = await openDb(tdb.url);
  const out: string[] = [];
  try {
    await migrate(h);
    if (kind !== 'sqlite' && keep) reuse = (await h.db.selectFrom('logs').select('id').limit(1).execute()).length > 0;
    let now = Date.now();
    if (reuse || !PHASES.includes('seed')) {
      const max = await h.db
        .selectFrom('logs')
        .select((eb) => eb.fn.max('created_at').as('t'))
        .executeTakeFirstOrThrow();
      now = Number(max.t ?? now) + 1;
    } else {
      const took = await seed(h, rows, now);
      out.push(
        `| ${kind} | seeding ${rows.toLocaleString('en')} rows / the three earlier indexes / the three new ones / the dashboard's roll-ups | ${took.rows.toFixed(0)} s / ${took.indexesBefore.toFixed(0)} s / ${took.indexesNew.toFixed(0)} s / ${took.rollups.toFixed(0)} s | |`,
      );
    }
    if (PHASES.includes('search'))
      for (const [name, t] of await searches(h, rows, now))
        out.push(`| ${kind} | search: ${name} | ${t.p50.toFixed(1)} | ${t.p95.toFixed(1)} |`);
    if (PHASES.includes('month')) {
      const t = await month(h, now);
      out.push(`| ${kind} | dashboard month (5 queries at once) | ${t.p50.toFixed(1)} | ${t.p95.toFixed(1)} |`);
    }
    if (PHASES.includes('retention')) {
      const r = await retention(tdb.url, h, now);
      out.push(
        `| ${kind} | call p99 without / during retention (${r.deleted.toLocaleString('en')} rows in ${r.seconds.toFixed(0)} s${r.finished ? '' : ', stopped'}) | ${r.without.toFixed(1)} / ${r.during.toFixed(1)} (${(r.during / r.without).toFixed(2)}×) | |`,
      );
    }
    for (const l of out) log(l);
    return out;
  } finally {
    await h.close();
    if (!KEEP) await tdb.drop();
  }
}

const lines = ['| database | measurement | p50 ms (or value) | p95 ms |', '|---|---|---:|---:|'];
for (const kind of DBS) lines.push(...(await benchOne(kind)));
process.stdout.write(`${lines.join('\n')}\n`);
process.exit(0);
