/**
 * The log search on the path a large table takes: every filter (user by id and by name, key by id and by
 * name, model, channel, request id, time range) paged by cursor gives exactly the matching rows, newest
 * first, with no row twice or missed, and the same rows as the numbered pages; totals count up to their
 * cap and say when they stop; a malformed cursor or a page past the cap is a 400 that names the field.
 * Retention run by two nodes at once deletes each old row once, leaves the newer ones and the usage
 * roll-ups, and deletes nothing on a second run.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { insertLogs, purgeLogs, type NewLog } from '../../src/logs/writer.ts';

const H = 3_600_000;
const D = 24 * H;

let gw: TestGateway;
let root: AdminClient;
const rows: (NewLog & { id?: number })[] = [];
let users: { id: number; username: string }[] = [];
const keys: { id: number; user_id: number; name: string }[] = [];
const now = Date.now();

before(async () => {
  gw = await startTestGateway();
  root = await AdminClient.login(gw.url);
  for (const username of ['ana', 'bo']) {
    const u = await root.ok('POST', '/api/user', { username, password: `${username}-password-1`, quota_usd: 1 });
    users.push({ id: u.id, username });
  }
  users = [{ id: 1, username: 'root' }, ...users];
  for (const [i, u] of users.entries()) {
    for (const name of ['main', `side-${i}`]) {
      const k = await root.ok('POST', '/api/token', { user_id: u.id, name });
      keys.push({ id: k.id, user_id: u.id, name });
    }
  }
  // 420 rows over ten days; some share a created_at (the cursor must order them by id).
  for (let i = 0; i < 420; i++) {
    const k = keys[(i * 7) % keys.length];
    const u = users.find((x) => x.id === k.user_id)!;
    rows.push({
      created_at: now - Math.floor(i / 3) * 37 * 60_000,
      type: i % 10 === 9 ? 'error' : 'consume',
      request_id: `req-${i % 100}`,
      user_id: u.id,
      username: u.username,
      key_id: k.id,
      key_name: k.name,
      group_name: 'default',
      model: ['m-a', 'm-b', 'm-c'][i % 3],
      upstream_model: 'up',
      channel_id: 1 + (i % 4),
      endpoint: '/v1/chat/completions',
      status_code: i % 10 === 9 ? 502 : 200,
      prompt_tokens: i,
      completion_tokens: 2 * i,
      cached_tokens: 0,
      quota: 10 + i,
      latency_ms: 100,
      first_byte_ms: 10,
      is_stream: i % 2,
      attempts: 1,
      content: null,
      other: null,
    });
  }
  await insertLogs(gw.core.h, rows);
  const ids = await sql<{ id: number; request_id: string; created_at: number; quota: number }>`
    select id, request_id, created_at, quota from logs`.execute(gw.core.h.db);
  // Rows were inserted in order: the i-th inserted row has the i-th smallest id.
  const sorted = ids.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  rows.forEach((r, i) => (r.id = sorted[i]));
});

after(async () => {
  await gw?.stop();
});

const newestFirst = (a: NewLog & { id?: number }, b: NewLog & { id?: number }) =>
  Number(b.created_at) - Number(a.created_at) || b.id! - a.id!;

async function walk(path: string, query: Record<string, string | number>, pageSize: number): Promise<number[]> {
  const seen: number[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const qs = new URLSearchParams({
      ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])),
      page_size: String(pageSize),
    });
    if (cursor) qs.set('cursor', cursor);
    const page = await root.ok('GET', `${path}?${qs}`);
    seen.push(...page.items.map((r: { id: number }) => r.id));
    cursor = page.next_cursor;
    if (!cursor) return seen;
  }
  throw new Error('no last page');
}

test('every filter, paged by cursor: exactly the matching rows, newest first, each once', async () => {
  const [ana] = users.filter((u) => u.username === 'ana');
  const anaMain = keys.find((k) => k.user_id === ana.id && k.name === 'main')!;
  const cases: [Record<string, string | number>, (r: NewLog) => boolean][] = [
    [{}, () => true],
    [{ user_id: ana.id }, (r) => r.user_id === ana.id],
    [{ username: 'bo' }, (r) => r.username === 'bo'],
    [{ token_id: anaMain.id }, (r) => r.key_id === anaMain.id],
    [{ key_name: 'main' }, (r) => r.key_name === 'main'],
    [{ model: 'm-b' }, (r) => r.model === 'm-b'],
    [{ channel_id: 3 }, (r) => r.channel_id === 3],
    [{ request_id: 'req-42' }, (r) => r.request_id === 'req-42'],
    [{ start: now - 3 * D, end: now - D }, (r) => Number(r.created_at) >= now - 3 * D && Number(r.created_at) <= now - D],
    [{ model: 'm-a', channel_id: 1, type: 'consume' }, (r) => r.model === 'm-a' && r.channel_id === 1 && r.type === 'consume'],
    [{ username: 'nobody' }, () => false],
  ];
  for (const [query, match] of cases) {
    const want = rows.filter(match).sort(newestFirst);
    const got = await walk('/api/log', query, 9);
    assert.deepEqual(
      got,
      want.map((r) => r.id),
      `filter ${JSON.stringify(query)}`,
    );
    // The numbered pages hold the same rows, and the totals are the filter's.
    const second = await root.ok(
      'GET',
      `/api/log?${new URLSearchParams({ ...query, page: '2', page_size: '9' } as Record<string, string>)}`,
    );
    assert.deepEqual(
      second.items.map((r: { id: number }) => r.id),
      want.slice(9, 18).map((r) => r.id),
      `page 2 of ${JSON.stringify(query)}`,
    );
    assert.equal(second.total, want.length);
    assert.equal(second.totals_capped, false);
    assert.equal(
      second.totals.quota,
      want.reduce((n, r) => n + Number(r.quota), 0),
    );
    assert.equal(
      second.totals.completion_tokens,
      want.reduce((n, r) => n + Number(r.completion_tokens), 0),
    );
  }
});

test('own logs: a key name finds only the caller’s own rows', async () => {
  const ana = new AdminClient(gw.url, null);
  const login = await fetch(`${gw.url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'ana', password: 'ana-password-1' }),
  });
  const cookie = login.headers
    .getSetCookie()
    .find((c) => c.startsWith('gatehouse_session='))!
    .split(';')[0];
  const r = await fetch(`${ana.url}/api/log/self?key_name=main&page_size=100`, { headers: { cookie } });
  const page = ((await r.json()) as { data: { items: { id: number; username: string }[]; next_cursor: string | null } }).data;
  const want = rows.filter((x) => x.username === 'ana' && x.key_name === 'main').sort(newestFirst);
  assert.ok(want.length > 0);
  assert.deepEqual(
    page.items.map((x) => x.id),
    want.slice(0, 100).map((x) => x.id),
  );
});

test('totals stop at their cap and say so; numbered pages stop there too, cursors go on', async () => {
  const logs = gw.services.admin.logs;
  const cap = logs.totalsCap;
  logs.totalsCap = 50;
  try {
    const p = await root.ok('GET', '/api/log?model=m-c&page_size=10');
    const want = rows.filter((r) => r.model === 'm-c').sort(newestFirst);
    assert.equal(p.total, 50);
    assert.equal(p.totals_capped, true);
    assert.equal(
      p.totals.quota,
      want.slice(0, 50).reduce((n, r) => n + Number(r.quota), 0),
      'the newest 50 rows',
    );
    const exact = await root.ok('GET', `/api/log?request_id=req-7&page_size=10`);
    assert.equal(exact.totals_capped, false, 'a filter under the cap is counted exactly');
    await root.fails(400, 'GET', '/api/log?model=m-c&page=6&page_size=10', undefined, 'page');
    assert.deepEqual(
      await walk('/api/log', { model: 'm-c' }, 40),
      want.map((r) => r.id),
      'cursors reach every row',
    );
  } finally {
    logs.totalsCap = cap;
  }
  await root.fails(400, 'GET', '/api/log?cursor=12x', undefined, 'cursor');
  await root.fails(400, 'GET', '/api/log?cursor=1.2.3', undefined, 'cursor');
});

test('retention by two nodes at once deletes each old row once and keeps the rest; a second run deletes nothing', async () => {
  const second = await startTestGateway({ db: gw.db });
  try {
    const { id: _id, ...base } = rows[0];
    const old = (i: number): NewLog => ({ ...base, created_at: now - 40 * D - i * 1000, request_id: `old-${i}` });
    const oldRows = Array.from({ length: 1200 }, (_, i) => old(i));
    for (let i = 0; i < oldRows.length; i += 400) await insertLogs(gw.core.h, oldRows.slice(i, i + 400));
    const count = async () => Number((await sql<{ n: number }>`select count(*) as n from logs`.execute(gw.core.h.db)).rows[0].n);
    const rollups = async () => Number((await sql<{ n: number }>`select count(*) as n from usage_hourly`.execute(gw.core.h.db)).rows[0].n);
    const before = await count();
    const rollupsBefore = await rollups();
    const cutoff = now - 30 * D;
    // Small batches without pauses, so the two nodes' batches interleave.
    const [a, b] = await Promise.all([purgeLogs(gw.core.h, cutoff, 50, 0), purgeLogs(second.core.h, cutoff, 50, 0)]);
    assert.equal(a + b, 1200, `deleted ${a} + ${b}`);
    assert.equal(await count(), before - 1200);
    assert.equal(await rollups(), rollupsBefore, 'the usage roll-ups keep the old hours (their own retention)');
    assert.deepEqual(
      await walk('/api/log', {}, 100),
      [...rows].sort(newestFirst).map((r) => r.id),
      'every newer row is still there',
    );
    const again = await Promise.all([gw.services.admin.logs.purgeOlderThan(30, now), second.services.admin.logs.purgeOlderThan(30, now)]);
    assert.deepEqual(again, [0, 0]);
  } finally {
    await second.stop({ keepDb: true });
  }
});
