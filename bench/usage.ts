/**
 * Dashboard aggregation with a million log rows: loads N log rows spread over 30 days (and their
 * hourly roll-ups, through the same code the log writer uses) into a fresh database of each kind,
 * then times the queries the console's dashboard makes over the 30 days (`GET /api/usage`): the
 * series with totals and percentiles, the top models, users, channels and keys, and one user's own
 * report. For comparison it also times one raw GROUP BY over the log rows.
 *
 *   node --no-node-snapshot --import tsx bench/usage.ts                    SQLite, 1,000,000 rows
 *   node --no-node-snapshot --import tsx bench/usage.ts --db sqlite,postgres,mysql --rows 200000
 *
 *   … --db sqlite --sqlite-file /tmp/usage.db    keep the SQLite file; a second run only queries it
 *
 * PostgreSQL and MySQL are the test servers (TEST_PG_URL / TEST_MYSQL_URL); the database is made for
 * the run and dropped after it. Results are printed as a markdown table (docs/benchmarks.md).
 */
import { existsSync } from 'node:fs';
import { sql } from 'kysely';
import { openDb, type DbHandle } from '../packages/gateway/src/store/db.ts';
import { migrate } from '../packages/gateway/src/store/migrations/index.ts';
import { insertLogs, type NewLog } from '../packages/gateway/src/logs/writer.ts';
import { prepareSqliteUpsert, rollup } from '../packages/gateway/src/logs/rollup.ts';
import { UsageReports, parseUsageQuery } from '../packages/gateway/src/logs/usage.ts';
import { createTestDatabase, type TestDbKind } from '../packages/gateway/test/harness.ts';
import type { Core } from '../packages/gateway/src/core.ts';
import { UserStore } from '../packages/gateway/src/accounts/user-store.ts';
import { KeyStore } from '../packages/gateway/src/accounts/key-store.ts';
import { ChannelStore } from '../packages/gateway/src/channels/store.ts';

const args = process.argv.slice(2);
const arg = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : dflt;
};
const DBS = arg('db', 'sqlite').split(',') as TestDbKind[];
const ROWS = Number(arg('rows', '1000000'));
const RUNS = Number(arg('runs', '5'));
const SQLITE_FILE = arg('sqlite-file', '');
const DAY = 86_400_000;
const USERS = 50,
  KEYS_PER_USER = 2,
  MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet', 'claude-haiku', 'gemini-pro', 'gemini-flash', 'o3', 'embed-3'];
const CHANNELS = 6;

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makeRow(i: number, now: number, r: () => number): NewLog {
  const user = 1 + Math.floor(r() ** 2 * USERS); // a few heavy users
  const key = (user - 1) * KEYS_PER_USER + 1 + Math.floor(r() * KEYS_PER_USER);
  const m = Math.floor(r() * MODELS.length);
  const error = r() < 0.03;
  const latency = Math.round(Math.exp(5 + r() * 3 + r() * 1.5)); // ~150 ms … ~13 s
  const prompt = Math.floor(r() * 4000),
    completion = error ? 0 : Math.floor(r() * 1000);
  return {
    created_at: now - 30 * DAY + Math.floor((i / ROWS) * 30 * DAY),
    type: error ? 'error' : 'consume',
    request_id: `req_${i}`,
    user_id: user,
    username: `user${user}`,
    key_id: key,
    key_name: `key${key}`,
    group_name: 'default',
    model: MODELS[m],
    upstream_model: MODELS[m],
    channel_id: 1 + ((m + (r() < 0.3 ? 1 : 0)) % CHANNELS),
    endpoint: '/v1/chat/completions',
    status_code: error ? 502 : 200,
    prompt_tokens: prompt,
    completion_tokens: completion,
    cached_tokens: 0,
    quota: error ? 0 : prompt * 2 + completion * 8,
    latency_ms: latency,
    first_byte_ms: null,
    is_stream: 1,
    attempts: 1,
    content: null,
    other: null,
  };
}

async function load(h: DbHandle, now: number): Promise<number> {
  const r = rng(42);
  const t0 = performance.now();
  const BATCH = h.dialect === 'sqlite' ? 5000 : 1000;
  if (h.sqlite) {
    const conn = h.sqlite;
    const cols = Object.keys(makeRow(0, now, rng(1)));
    const stmt = conn.prepare(`INSERT INTO logs (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
    const upsert = prepareSqliteUpsert(conn);
    const batch = conn.transaction((rows: NewLog[]) => {
      for (const row of rows) stmt.run(cols.map((c) => (row as Record<string, unknown>)[c] ?? null));
      for (const u of rollup(rows as Parameters<typeof rollup>[0])) upsert(u);
    });
    for (let i = 0; i < ROWS; i += BATCH) {
      const rows: NewLog[] = [];
      for (let j = i; j < Math.min(ROWS, i + BATCH); j++) rows.push(makeRow(j, now, r));
      batch.immediate(rows);
    }
  } else {
    for (let i = 0; i < ROWS; i += BATCH) {
      const rows: NewLog[] = [];
      for (let j = i; j < Math.min(ROWS, i + BATCH); j++) rows.push(makeRow(j, now, r));
      await insertLogs(h, rows);
    }
  }
  // Planner statistics, as a running database would have them.
  if (h.dialect === 'postgres') await sql`analyze`.execute(h.db);
  else if (h.dialect === 'mysql') await sql`analyze table logs, usage_hourly`.execute(h.db);
  else await sql`analyze`.execute(h.db);
  return (performance.now() - t0) / 1000;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return ms[Math.floor(ms.length / 2)];
}

async function benchOne(kind: TestDbKind): Promise<string[]> {
  const keep = kind === 'sqlite' && SQLITE_FILE !== '';
  const reuse = keep && existsSync(SQLITE_FILE);
  const tdb = keep ? { url: `sqlite:${SQLITE_FILE}`, drop: async () => {} } : await createTestDatabase(kind);
  const h = await openDb(tdb.url);
  try {
    await migrate(h);
    const now = reuse
      ? Number(
          (
            await h.db
              .selectFrom('logs')
              .select((eb) => eb.fn.max('created_at').as('t'))
              .executeTakeFirstOrThrow()
          ).t,
        ) + 1
      : Date.now();
    const loadS = reuse ? 0 : await load(h, now);
    const count = await h.db
      .selectFrom('usage_hourly')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    process.stderr.write(`${kind}: ${ROWS} log rows and ${Number(count.n)} roll-up rows loaded in ${loadS.toFixed(0)} s\n`);
    const reports = new UsageReports({ h, config: { quotaPerUsd: 500_000 } } as unknown as Core, (g, ids) =>
      g === 'user' ? new UserStore(h).names(ids) : g === 'key' ? new KeyStore(h).names(ids) : new ChannelStore(h).names(ids),
    );
    const range = { from: String(now - 30 * DAY), to: String(now) };
    const q = (extra: Record<string, string>) => parseUsageQuery({ ...range, ...extra }, false, now);
    const dashboard = async () =>
      Promise.all([
        reports.query(q({ bucket: 'day' })),
        reports.query(q({ bucket: 'day', group_by: 'model' })),
        reports.query(q({ bucket: 'day', group_by: 'user' })),
        reports.query(q({ bucket: 'day', group_by: 'channel' })),
        reports.query(q({ bucket: 'day', group_by: 'key' })),
      ]);
    const sequential = async () => {
      for (const g of ['', 'model', 'user', 'channel', 'key'])
        await reports.query(q(g ? { bucket: 'day', group_by: g } : { bucket: 'day' }));
    };
    const results: Array<[string, number]> = [
      ['series + totals + p50/p95, day buckets', await time(() => reports.query(q({ bucket: 'day' })))],
      ['the same, hour buckets (720)', await time(() => reports.query(q({ bucket: 'hour' })))],
      ['top 10 models', await time(() => reports.query(q({ bucket: 'day', group_by: 'model' })))],
      ['top 10 keys', await time(() => reports.query(q({ bucket: 'day', group_by: 'key' })))],
      ['whole dashboard (5 queries, one after another)', await time(sequential)],
      ['whole dashboard (5 queries at once)', await time(dashboard)],
      [
        "one user's overview, hour buckets",
        await time(() => reports.query({ ...q({ bucket: 'hour', group_by: 'model' }), filter: { userId: 7 } })),
      ],
      [
        'admin filter user + model, day buckets',
        await time(() => reports.query({ ...q({ bucket: 'day' }), filter: { userId: 3, model: 'gpt-4o' } })),
      ],
    ];
    const raw = await time(() =>
      sql`select created_at - (created_at % 3600000) as h, count(*) as n, sum(quota) as q, sum(prompt_tokens) as p
      from logs where created_at >= ${now - 30 * DAY} group by created_at - (created_at % 3600000)`.execute(h.db),
    );
    results.push(['for comparison: raw GROUP BY hour over the log rows (no percentiles)', raw]);
    return results.map(([name, ms]) => `| ${kind} | ${name} | ${ms.toFixed(1)} |`);
  } finally {
    await h.close();
    await tdb.drop();
  }
}

const lines = ['| database | query (30 days, ' + ROWS.toLocaleString('en') + ' log rows) | median ms |', '|---|---|---|'];
for (const kind of DBS) lines.push(...(await benchOne(kind)));
process.stdout.write(lines.join('\n') + '\n');
process.exit(0);
