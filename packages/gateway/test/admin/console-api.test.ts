/**
 * The API the web console uses: usage reports from the hourly roll-ups (exact totals, series, day
 * buckets in a time zone, groups with labels, filters, percentiles), a user seeing only their own
 * usage and logs, CSV export streamed in pages with proper escaping, own password change, the
 * caller's balance, and the models and prices of the caller's group.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { insertLogs, type NewLog } from '../../src/logs/writer.ts';
import { EXPORT_PAGE } from '../../src/admin/logs.ts';
import { LATENCY_BOUNDS, bucketOf, purgeRollups } from '../../src/logs/rollup.ts';
import { backfill } from '../../src/store/migrations/009_usage_rollup.ts';
import { backfillDaily } from '../../src/store/migrations/034_usage_daily.ts';
import { sql } from 'kysely';

const H = 3_600_000;
const D = 24 * H;

/** RFC 4180 parser for the tests (quoted fields, doubled quotes, CRLF rows). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  assert.equal(field, '', 'CSV ends with CRLF');
  assert.equal(row.length, 0);
  return rows;
}

function log(over: Partial<NewLog> & Pick<NewLog, 'created_at' | 'user_id'>): NewLog {
  return {
    type: 'consume',
    request_id: `req_${Math.random().toString(36).slice(2)}`,
    username: null,
    key_id: null,
    key_name: null,
    group_name: 'default',
    model: 'm-all',
    upstream_model: 'm-all-up',
    channel_id: null,
    endpoint: '/v1/chat/completions',
    status_code: 200,
    prompt_tokens: 0,
    completion_tokens: 0,
    cached_tokens: 0,
    quota: 0,
    latency_ms: 0,
    first_byte_ms: null,
    is_stream: 0,
    attempts: 1,
    content: null,
    other: null,
    ...over,
  };
}

async function session(url: string, username: string, password: string): Promise<{ cookie: string }> {
  const res = await fetch(`${url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return { cookie: res.headers.get('set-cookie')!.split(';')[0] };
}

interface World {
  gw: TestGateway;
  root: AdminClient;
  ann: AdminClient;
  bob: AdminClient;
  ids: { ann: number; bob: number; annKey: number; bobKey: number; c1: number; c2: number };
  day: number;
}

async function setUp(): Promise<World> {
  const gw = await startTestGateway();
  const root = await AdminClient.login(gw.url);
  const annUser = await root.ok('POST', '/api/user', { username: 'ann', password: 'ann-password' });
  const bobUser = await root.ok('POST', '/api/user', { username: 'bob', password: 'bob-password', group: 'vip' });
  const ann = await AdminClient.login(gw.url, 'ann', 'ann-password');
  const bob = await AdminClient.login(gw.url, 'bob', 'bob-password');
  const annKey = (await ann.ok('POST', '/api/token', { name: 'ann-main' })).id;
  const bobKey = (await bob.ok('POST', '/api/token', { name: 'bob-main' })).id;
  const c1 = (
    await root.ok('POST', '/api/channel', {
      name: 'one',
      type: 'openai',
      base_url: 'http://127.0.0.1:9',
      keys: ['sk-one'],
      models: ['m-all', 'm-per-call'],
      groups: ['default', 'vip'],
    })
  ).id;
  const c2 = (
    await root.ok('POST', '/api/channel', {
      name: 'two',
      type: 'openai',
      base_url: 'http://127.0.0.1:9',
      keys: ['sk-two'],
      models: ['m-vip'],
      groups: ['vip'],
    })
  ).id;
  const day = Math.floor(Date.now() / D) * D - 3 * D;
  return { gw, root, ann, bob, ids: { ann: annUser.id, bob: bobUser.id, annKey, bobKey, c1, c2 }, day };
}

test('usage: totals, hour and day series, groups, filters and percentiles from the roll-ups; a user sees only their own', async () => {
  const w = await setUp();
  const { gw, root, ann, bob, ids, day } = w;
  try {
    const writer = gw.services.relay.logs;
    const A = { user_id: ids.ann, username: 'ann', key_id: ids.annKey, key_name: 'ann-main' };
    const B = { user_id: ids.bob, username: 'bob', key_id: ids.bobKey, key_name: 'bob-main' };
    // Through the batch writer (roll-ups in the same transaction).
    writer.write(
      log({
        ...A,
        created_at: day + 10 * 60_000,
        model: 'm-all',
        channel_id: ids.c1,
        prompt_tokens: 100,
        completion_tokens: 50,
        quota: 1000,
        latency_ms: 120,
      }),
    );
    writer.write(
      log({
        ...A,
        created_at: day + 20 * 60_000,
        model: 'm-all',
        channel_id: ids.c1,
        prompt_tokens: 200,
        completion_tokens: 100,
        quota: 2000,
        latency_ms: 900,
      }),
    );
    writer.write(
      log({
        ...A,
        created_at: day + H + 5 * 60_000,
        type: 'error',
        status_code: 502,
        model: 'm-per-call',
        channel_id: ids.c2,
        latency_ms: 30,
      }),
    );
    writer.write(
      log({
        ...B,
        created_at: day + 5 * 60_000,
        model: 'm-all',
        channel_id: ids.c2,
        prompt_tokens: 10,
        completion_tokens: 5,
        quota: 300,
        latency_ms: 2000,
      }),
    );
    writer.write(
      log({
        ...B,
        created_at: day + 25 * H + 5 * 60_000,
        model: 'm-all',
        channel_id: ids.c2,
        prompt_tokens: 1,
        completion_tokens: 1,
        quota: 7,
        latency_ms: 50,
      }),
    );
    writer.write(log({ ...A, created_at: day + 30 * 60_000, type: 'system', quota: 99, latency_ms: 5 }));
    await writer.flush();
    // Task movements (written outside the batch queue): the reserve counts a request, the settle the spend, the refund nothing.
    const task = { ...A, type: 'task', model: 'vid', channel_id: ids.c2, endpoint: '/v1/tasks/vid', status_code: null };
    await insertLogs(gw.core.h, [
      log({ ...task, created_at: day + 2 * H + 60_000, quota: 5000, content: 'task reserve' }),
      log({ ...task, created_at: day + 2 * H + 120_000, quota: 4000, content: 'task settle' }),
    ]);
    await insertLogs(gw.core.h, [log({ ...task, created_at: day + 2 * H + 180_000, quota: -777, content: 'task refund' })]);

    const range = `from=${day}&to=${day + 26 * H}`;
    const all = await root.ok('GET', `/api/usage?${range}&bucket=hour`);
    // These rows have no prompt-cache figures (test/admin/usage-cache.test.ts has them).
    const plain = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([k]) => !k.startsWith('cache')));
    assert.equal(all.totals.cache_hit_rate, 0);
    assert.deepEqual(
      { ...plain(all.totals), p50_ms: undefined, p95_ms: undefined },
      {
        requests: 6,
        errors: 1,
        prompt_tokens: 311,
        completion_tokens: 156,
        quota: 7307,
        quota_usd: 7307 / 500_000,
        p50_ms: undefined,
        p95_ms: undefined,
      },
    );
    // Latencies 30, 50, 120, 900, 2000: p50 is 120 and p95 2000, each reported inside its bucket.
    const inBucket = (got: number, truth: number) => {
      const b = bucketOf(truth);
      const lo = b === 0 ? 0 : LATENCY_BOUNDS[b - 1];
      assert.ok(got >= lo && got <= LATENCY_BOUNDS[b], `${got} is not in the bucket of ${truth}`);
    };
    inBucket(all.totals.p50_ms, 120);
    inBucket(all.totals.p95_ms, 2000);
    assert.equal(all.series.length, 26);
    assert.equal(all.series[0].t, day);
    assert.deepEqual(
      { ...plain(all.series[0]), p50_ms: 0, p95_ms: 0 },
      { t: day, requests: 3, errors: 0, prompt_tokens: 310, completion_tokens: 155, quota: 3300, p50_ms: 0, p95_ms: 0 },
    );
    assert.deepEqual([all.series[1].requests, all.series[1].errors, all.series[1].quota], [1, 1, 0]);
    assert.deepEqual([all.series[2].requests, all.series[2].quota, all.series[2].p50_ms], [1, 4000, null], 'a task has no latency');
    assert.deepEqual([all.series[25].requests, all.series[25].quota], [1, 7]);
    assert.equal(
      all.series.slice(3, 25).reduce((s: number, p: { requests: number }) => s + p.requests, 0),
      0,
      'empty hours are zero',
    );

    // Day buckets at UTC-2: the local day starts at 02:00 UTC.
    const days = await root.ok('GET', `/api/usage?${range}&bucket=day&tz_offset_minutes=-120`);
    assert.deepEqual(
      days.series.map((p: { t: number; requests: number; quota: number }) => [p.t, p.requests, p.quota]),
      [
        [day - D + 2 * H, 4, 3300],
        [day + 2 * H, 2, 4007],
      ],
    );
    const utcDays = await root.ok('GET', `/api/usage?${range}&bucket=day`);
    assert.deepEqual(
      utcDays.series.map((p: { t: number; requests: number }) => [p.t, p.requests]),
      [
        [day, 5],
        [day + D, 1],
      ],
    );
    assert.deepEqual(utcDays.totals, all.totals, 'the same totals whatever the bucket');

    // Groups, top by quota, with labels.
    const byModel = await root.ok('GET', `/api/usage?${range}&group_by=model`);
    assert.deepEqual(byModel.groups.map(plain), [
      { key: 'vid', label: 'vid', requests: 1, errors: 0, prompt_tokens: 0, tokens: 0, quota: 4000, upstream_cost: 0, margin: 4000 },
      {
        key: 'm-all',
        label: 'm-all',
        requests: 4,
        errors: 0,
        prompt_tokens: 311,
        tokens: 467,
        quota: 3307,
        upstream_cost: 0,
        margin: 3307,
      },
      {
        key: 'm-per-call',
        label: 'm-per-call',
        requests: 1,
        errors: 1,
        prompt_tokens: 0,
        tokens: 0,
        quota: 0,
        upstream_cost: 0,
        margin: 0,
      },
    ]);
    const byUser = await root.ok('GET', `/api/usage?${range}&group_by=user`);
    assert.deepEqual(
      byUser.groups.map((g: { key: string; label: string; requests: number; quota: number }) => [g.key, g.label, g.requests, g.quota]),
      [
        [String(ids.ann), 'ann', 4, 7000],
        [String(ids.bob), 'bob', 2, 307],
      ],
    );
    const byChannel = await root.ok('GET', `/api/usage?${range}&group_by=channel&limit=1`);
    assert.deepEqual(
      byChannel.groups.map((g: { key: string; label: string; requests: number; quota: number }) => [g.key, g.label, g.requests, g.quota]),
      [[String(ids.c2), 'two', 4, 4307]],
    );
    const byKey = await root.ok('GET', `/api/usage?${range}&group_by=key`);
    assert.deepEqual(
      byKey.groups.map((g: { label: string; quota: number }) => [g.label, g.quota]),
      [
        ['ann-main', 7000],
        ['bob-main', 307],
      ],
    );

    // Filters: one dimension, two dimensions, a filter with a grouping.
    const annOnly = await root.ok('GET', `/api/usage?${range}&user_id=${ids.ann}`);
    assert.deepEqual([annOnly.totals.requests, annOnly.totals.errors, annOnly.totals.quota], [4, 1, 7000]);
    const annByModel = await root.ok('GET', `/api/usage?${range}&user_id=${ids.ann}&group_by=model`);
    assert.deepEqual(
      annByModel.groups.map((g: { key: string; quota: number }) => [g.key, g.quota]),
      [
        ['vid', 4000],
        ['m-all', 3000],
        ['m-per-call', 0],
      ],
    );
    const twoFilters = await root.ok('GET', `/api/usage?${range}&model=m-all&channel_id=${ids.c2}`);
    assert.deepEqual([twoFilters.totals.requests, twoFilters.totals.quota, twoFilters.totals.prompt_tokens], [2, 307, 11]);
    const byToken = await root.ok('GET', `/api/usage?${range}&token_id=${ids.bobKey}`);
    assert.equal(byToken.totals.requests, 2);
    const narrow = await root.ok('GET', `/api/usage?from=${day + H}&to=${day + 2 * H}`);
    assert.deepEqual([narrow.totals.requests, narrow.series.length], [1, 1], 'whole hours: [from, to)');

    // A user's own usage: the same numbers, never anyone else's.
    const bobSelf = await bob.ok('GET', `/api/usage/self?${range}&group_by=model`);
    assert.deepEqual([bobSelf.totals.requests, bobSelf.totals.quota], [2, 307]);
    assert.deepEqual(
      bobSelf.groups.map((g: { key: string }) => g.key),
      ['m-all'],
    );
    assert.equal(bobSelf.groups[0].upstream_cost, undefined, "what calls cost the operator is not the user's");
    const sneaky = await bob.ok('GET', `/api/usage/self?${range}&user_id=${ids.ann}`);
    assert.equal(sneaky.totals.quota, 307, 'user_id is not a filter of /api/usage/self');
    const othersKey = await bob.ok('GET', `/api/usage/self?${range}&token_id=${ids.annKey}`);
    assert.equal(othersKey.totals.requests, 0);
    const annSelf = await ann.ok('GET', `/api/usage/self?${range}&bucket=day`);
    assert.deepEqual([annSelf.totals.requests, annSelf.totals.quota], [annOnly.totals.requests, annOnly.totals.quota]);
    await bob.fails(400, 'GET', `/api/usage/self?${range}&group_by=channel`, undefined, 'group_by');
    await bob.fails(403, 'GET', `/api/usage?${range}`);

    // Bad input.
    await root.fails(400, 'GET', `/api/usage?from=${day + H}&to=${day}`, undefined, 'from');
    await root.fails(400, 'GET', `/api/usage?from=${day - 401 * D}&to=${day}`, undefined, 'from');
    await root.fails(400, 'GET', '/api/usage?bucket=week', undefined, 'bucket');
    await root.fails(400, 'GET', '/api/usage?tz_offset_minutes=2000', undefined, 'tz_offset_minutes');
    const dflt = await root.ok('GET', '/api/usage');
    assert.equal(dflt.to - dflt.from, D, 'the last 24 hours by default');
  } finally {
    await gw.stop();
  }
});

test('log export: CSV streamed in keyset pages, escaped, own rows only for users, filters for admins', async () => {
  const { gw, root, ann, bob, ids, day } = await setUp();
  try {
    const writer = gw.services.relay.logs;
    const n = EXPORT_PAGE * 2 + 3;
    // Many rows at one instant: the pages must split ties by id without losing or repeating rows.
    for (let i = 0; i < n; i++) {
      writer.write(
        log({
          user_id: ids.bob,
          username: 'bob',
          key_id: ids.bobKey,
          key_name: 'bob-main',
          created_at: day + (i < 700 ? 0 : 1000),
          request_id: `bob_${i}`,
          quota: i,
          channel_id: ids.c1,
        }),
      );
    }
    writer.write(
      log({
        user_id: ids.ann,
        username: 'ann',
        created_at: day + 5,
        request_id: 'ann_1',
        model: 'm-vip',
        channel_id: ids.c2,
        quota: -25,
        content: 'he said "hi", then\r\nleft',
      }),
    );
    writer.write(
      log({
        user_id: ids.ann,
        username: 'ann',
        created_at: day + 6,
        request_id: 'ann_2',
        model: '=HYPERLINK("http://x")',
        type: 'error',
        content: 'a,b',
      }),
    );
    await writer.flush();

    const res = await fetch(`${gw.url}/api/log/self/export`, { headers: { authorization: `Bearer ${bob.token}` } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.match(res.headers.get('content-disposition')!, /^attachment; filename="my-logs-\d{4}-\d{2}-\d{2}\.csv"$/);
    assert.equal(res.headers.get('content-length'), null, 'streamed, not buffered');
    const rows = parseCsv(await res.text());
    const head = rows[0];
    assert.ok(!head.includes('channel_id') && !head.includes('upstream_model'), "routing stays the operator's");
    const body = rows.slice(1);
    assert.equal(body.length, n, 'every row once');
    const rid = head.indexOf('request_id');
    assert.equal(new Set(body.map((r) => r[rid])).size, n);
    assert.ok(
      body.every((r) => r[rid].startsWith('bob_')),
      "only the caller's rows",
    );
    const idCol = head.indexOf('id');
    const created = head.indexOf('created_at');
    for (let i = 1; i < body.length; i++) {
      const [a, b] = [body[i - 1], body[i]];
      assert.ok(
        Number(a[created]) > Number(b[created]) || (a[created] === b[created] && Number(a[idCol]) > Number(b[idCol])),
        'newest first, ties by id',
      );
    }
    assert.equal(body[0][head.indexOf('time')], new Date(day + 1000).toISOString());

    // The stream reads page by page.
    const chunks: string[] = [];
    for await (const c of gw.services.admin.logs.exportCsv({ userId: ids.bob }, true)) chunks.push(String(c));
    assert.equal(chunks.length, 1 + Math.ceil(n / EXPORT_PAGE), 'a header, then one chunk per page');

    // Admin export with filters, escaping, formulas neutralised, negative numbers kept.
    const adminRes = await fetch(`${gw.url}/api/log/export?user_id=${ids.ann}`, { headers: { authorization: `Bearer ${root.token}` } });
    assert.equal(adminRes.status, 200);
    const text = await adminRes.text();
    assert.ok(text.includes('"he said ""hi"", then\r\nleft"'), 'quotes doubled, field quoted across the line break');
    const ar = parseCsv(text);
    const ah = ar[0];
    assert.ok(ah.includes('channel_id'));
    assert.equal(ar.length, 3);
    assert.equal(ar[1][ah.indexOf('model')], '\'=HYPERLINK("http://x")');
    assert.equal(ar[1][ah.indexOf('content')], 'a,b');
    assert.equal(ar[2][ah.indexOf('content')], 'he said "hi", then\r\nleft');
    assert.equal(ar[2][ah.indexOf('quota')], '-25');
    assert.equal(ar[2][ah.indexOf('channel_id')], String(ids.c2));
    const typed = parseCsv(
      await (await fetch(`${gw.url}/api/log/export?type=error`, { headers: { authorization: `Bearer ${root.token}` } })).text(),
    );
    assert.equal(typed.length, 2);

    // A user cannot export another's rows or everything.
    const own = parseCsv(
      await (await fetch(`${gw.url}/api/log/self/export?user_id=${ids.bob}`, { headers: { authorization: `Bearer ${ann.token}` } })).text(),
    );
    assert.deepEqual(
      own.slice(1).map((r) => r[own[0].indexOf('request_id')]),
      ['ann_2', 'ann_1'],
    );
    const refused = await fetch(`${gw.url}/api/log/export`, { headers: { authorization: `Bearer ${ann.token}` } });
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { success: boolean }).success, false);
    const anon = await fetch(`${gw.url}/api/log/self/export`);
    assert.equal(anon.status, 401);
    await anon.text();
    // Keyed and paged log list filters (token_id).
    const paged = await root.ok('GET', `/api/log?token_id=${ids.bobKey}&page=2&page_size=100`);
    assert.deepEqual([paged.total, paged.items.length, paged.page], [n, 100, 2]);
  } finally {
    await gw.stop();
  }
});

test('account: own balance, password change revokes other sessions and the access token, models and prices of the group', async () => {
  const { gw, root, ids } = await setUp();
  try {
    await root.ok('POST', `/api/user/${ids.ann}/quota`, { amount: 12_345 });
    const s1 = await session(gw.url, 'ann', 'ann-password');
    const s2 = await session(gw.url, 'ann', 'ann-password');
    const tok = (
      (await (
        await fetch(`${gw.url}/api/user/token`, {
          method: 'POST',
          headers: { cookie: s2.cookie, 'content-type': 'application/json' },
          body: JSON.stringify({ password: 'ann-password' }),
        })
      ).json()) as {
        data: { access_token: string };
      }
    ).data.access_token;
    const me = async (h: Record<string, string>) => fetch(`${gw.url}/api/user/self`, { headers: h });
    const self = (await (await me({ cookie: s1.cookie })).json()) as { data: Record<string, unknown> };
    assert.deepEqual(self.data, {
      ...self.data,
      id: ids.ann,
      username: 'ann',
      role: 'user',
      group: 'default',
      quota: 12_345,
      quota_usd: 12_345 / 500_000,
      used_quota: 0,
      request_count: 0,
      status: 'enabled',
    });

    const NEW_PW = ' ann new password ';
    const change = (cookie: string, body: unknown) =>
      fetch(`${gw.url}/api/user/self/password`, {
        method: 'PUT',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const wrong = await change(s1.cookie, { old_password: 'not-it-at-all', new_password: NEW_PW });
    assert.equal(wrong.status, 400, 'not 401: the caller is logged in');
    assert.match(((await wrong.json()) as { message: string }).message, /^old_password:/);
    const short = await change(s1.cookie, { old_password: 'ann-password', new_password: 'short' });
    assert.equal(short.status, 400);
    assert.match(((await short.json()) as { message: string }).message, /^new_password:/);
    const extra = await change(s1.cookie, { old_password: 'ann-password', new_password: NEW_PW, role: 'root' });
    assert.equal(extra.status, 400);
    await extra.text();
    assert.equal((await me({ authorization: `Bearer ${tok}` })).status, 200, 'nothing changed by refused attempts');

    const done = await change(s1.cookie, { old_password: 'ann-password', new_password: NEW_PW });
    assert.equal(done.status, 200, await done.clone().text());
    await done.text();
    assert.equal((await me({ cookie: s1.cookie })).status, 200, 'the current session stays');
    assert.equal((await me({ cookie: s2.cookie })).status, 401, 'other sessions are revoked');
    assert.equal((await me({ authorization: `Bearer ${tok}` })).status, 401, 'the access token is revoked');
    const oldLogin = await fetch(`${gw.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'ann', password: 'ann-password' }),
    });
    assert.equal(oldLogin.status, 401);
    await oldLogin.text();
    await session(gw.url, 'ann', NEW_PW);
    const trimmed = await fetch(`${gw.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'ann', password: NEW_PW.trim() }),
    });
    assert.equal(trimmed.status, 401, 'the password is kept as sent, spaces included');
    await trimmed.text();

    // Models and prices: the group's channels, the price book times the group ratio.
    await root.ok('PUT', '/api/price', { model: 'm-all', input: 2, output: 8 });
    await root.ok('PUT', '/api/price', { model: 'm-per-call', per_request: 0.04 });
    await root.ok('PUT', '/api/group_ratio', { group: 'vip', ratio: 1.5 });
    const annModels = await new AdminClient(gw.url, null).call('GET', '/api/user/models');
    assert.equal(annModels.status, 401);
    const s3 = await session(gw.url, 'ann', NEW_PW);
    const annList = ((await (await fetch(`${gw.url}/api/user/models`, { headers: { cookie: s3.cookie } })).json()) as { data: unknown })
      .data;
    assert.deepEqual(annList, {
      group: 'default',
      group_ratio: 1,
      items: [
        { model: 'm-all', priced: true, input: 2, output: 8, cached_input: 2, cache_write_5m: 2.5, cache_write_1h: 4, per_request: null },
        {
          model: 'm-per-call',
          priced: true,
          input: null,
          output: null,
          cached_input: null,
          cache_write_5m: null,
          cache_write_1h: null,
          per_request: 0.04,
        },
      ],
    });
    const bob = await AdminClient.login(gw.url, 'bob', 'bob-password');
    assert.deepEqual(await bob.ok('GET', '/api/user/models'), {
      group: 'vip',
      group_ratio: 1.5,
      items: [
        { model: 'm-all', priced: true, input: 3, output: 12, cached_input: 3, cache_write_5m: 3.75, cache_write_1h: 6, per_request: null },
        {
          model: 'm-per-call',
          priced: true,
          input: null,
          output: null,
          cached_input: null,
          cache_write_5m: null,
          cache_write_1h: null,
          per_request: 0.06,
        },
        {
          model: 'm-vip',
          priced: false,
          input: null,
          output: null,
          cached_input: null,
          cache_write_5m: null,
          cache_write_1h: null,
          per_request: null,
        },
      ],
    });
  } finally {
    await gw.stop();
  }
});

test("openapi: every /api route is in the document the console's client is generated from, and nothing else", async () => {
  const gw = await startTestGateway();
  try {
    const doc = (await (await fetch(`${gw.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    // An alias that the document describes once.
    const alias: Record<string, string> = { 'GET /api/user/logout': 'POST /api/user/logout' };
    const served = new Set<string>();
    for (const r of gw.app.routeTable) {
      if (!r.url.startsWith('/api/') || r.method === 'HEAD' || r.url === '/api/openapi.json') continue;
      const path = r.url.replace(/:([A-Za-z_]+)/g, '{$1}').replace(/\/\*$/, '/{model}');
      const key = `${r.method} ${path}`;
      served.add(alias[key] ?? key);
    }
    assert.ok(
      served.has('GET /api/usage') &&
        served.has('PUT /api/user/{id}') &&
        served.has('POST /api/plugin/task/{key}/dryrun') &&
        served.size > 50,
      `routes seen: ${served.size}`,
    );
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/')) continue;
      for (const m of Object.keys(ops)) documented.add(`${m.toUpperCase()} ${path}`);
    }
    assert.deepEqual([...served].filter((k) => !documented.has(k)).sort(), [], 'served but not in the OpenAPI document');
    assert.deepEqual([...documented].filter((k) => !served.has(k)).sort(), [], 'documented but not served');
    // Every documented JSON answer has a schema that is not a bare object.
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/')) continue;
      for (const [m, o] of Object.entries(
        ops as Record<string, { responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> }>,
      )) {
        const schema = o.responses['200']?.content?.['application/json']?.schema; // a redirect (302) has no 200
        if (schema) assert.notDeepEqual(schema, { type: 'object' }, `${m} ${path} has a loose response schema`);
      }
    }
  } finally {
    await gw.stop();
  }
});

test('migrations 009 and 034 roll up the logs already stored exactly as the log writer does', async () => {
  const gw = await startTestGateway();
  try {
    const writer = gw.services.relay.logs;
    const t0 = Date.UTC(2026, 5, 1, 10);
    const rows: NewLog[] = [];
    for (let i = 0; i < 60; i++) {
      rows.push(
        log({
          created_at: t0 + i * 7 * 60_000,
          user_id: i % 7 === 0 ? null : 1 + (i % 3),
          key_id: i % 5 === 0 ? null : 10 + (i % 4),
          model: i % 11 === 0 ? null : `m${i % 3}`,
          channel_id: i % 6 === 0 ? null : 100 + (i % 2),
          type: i % 9 === 0 ? 'error' : 'consume',
          prompt_tokens: i * 3,
          completion_tokens: i,
          quota: i * 13,
          latency_ms: [3, 12, 40, 99, 100, 700, 1499, 30_000, 200_000][i % 9],
        }),
      );
    }
    rows.push(log({ created_at: t0, user_id: 1, type: 'system', quota: 50 }));
    for (const r of rows) writer.write(r);
    await writer.flush();
    await insertLogs(gw.core.h, [
      log({ created_at: t0 + 5, user_id: 2, type: 'task', model: 'vid', quota: 900, content: 'task reserve' }),
      log({ created_at: t0 + 6, user_id: 2, type: 'task', model: 'vid', quota: 800, content: 'task settle' }),
      log({ created_at: t0 + 7, user_id: 2, type: 'task', model: 'vid', quota: -900, content: 'task refund' }),
    ]);
    const snapshot = async () =>
      (
        await sql<Record<string, unknown>>`select * from usage_hourly order by dim, hour, user_id, key_id, model, channel_id`.execute(
          gw.core.h.db,
        )
      ).rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' ? v : Number(v)])));
    const written = await snapshot();
    assert.ok(written.length > 20);
    await purgeRollups(gw.core.h, Number.MAX_SAFE_INTEGER);
    await backfill({ db: gw.core.h.db, dialect: gw.core.h.dialect });
    await backfillDaily({ db: gw.core.h.db, dialect: gw.core.h.dialect });
    assert.deepEqual(await snapshot(), written);
  } finally {
    await gw.stop();
  }
});
