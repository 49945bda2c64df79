/**
 * The dashboard's top users and keys over ranges of days: they are read from the daily roll-ups for
 * the whole UTC days inside the range and from the hourly ones for the hours at its two ends. Checked
 * against sums made here from the log rows, for ranges starting and ending mid-hour, mid-day, on day
 * boundaries, within one day, and with a time zone; and shown to come from the daily rows (the hourly
 * rows of the middle days removed, the same answer).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startTestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { insertLogs, type NewLog } from '../../src/logs/writer.ts';

const H = 3_600_000;
const D = 24 * H;

test('top users and keys over days: daily rows for whole days, hourly rows at the ends, the sums of the log rows', async () => {
  const gw = await startTestGateway();
  try {
    const root = await AdminClient.login(gw.url);
    const day0 = Math.floor(Date.now() / D) * D - 6 * D;
    const rows: NewLog[] = [];
    // Six days, a call every 97 minutes, spread over three users and five keys.
    for (let i = 0, at = day0 + 13 * 60_000; at < day0 + 6 * D; i++, at += 97 * 60_000) {
      rows.push({
        created_at: at,
        type: i % 13 === 0 ? 'error' : 'consume',
        request_id: `d_${i}`,
        user_id: 1 + (i % 3),
        username: 'u',
        key_id: 10 + (i % 5),
        key_name: 'k',
        group_name: 'default',
        model: 'm',
        upstream_model: 'm',
        channel_id: 1,
        endpoint: '/v1/chat/completions',
        status_code: 200,
        prompt_tokens: 10 + i,
        completion_tokens: 5,
        cached_tokens: 0,
        quota: 100 + 7 * i,
        latency_ms: 50,
        first_byte_ms: 10,
        is_stream: 0,
        attempts: 1,
        content: null,
        other: null,
      });
    }
    for (let i = 0; i < rows.length; i += 50) await insertLogs(gw.core.h, rows.slice(i, i + 50));

    const expected = (by: 'user_id' | 'key_id', from: number, to: number) => {
      const sums = new Map<number, { requests: number; quota: number; tokens: number; errors: number }>();
      for (const r of rows) {
        const hour = r.created_at - (r.created_at % H);
        if (hour < from - (from % H) || hour >= to) continue;
        const s = sums.get(r[by]!) ?? { requests: 0, quota: 0, tokens: 0, errors: 0 };
        s.requests += 1;
        s.errors += r.type === 'error' ? 1 : 0;
        s.quota += r.quota!;
        s.tokens += r.prompt_tokens! + r.completion_tokens!;
        sums.set(r[by]!, s);
      }
      return [...sums.entries()].map(([k, s]) => ({ key: String(k), ...s })).sort((a, b) => b.quota - a.quota || b.requests - a.requests);
    };
    const report = async (by: 'user' | 'key', from: number, to: number, tz = 0, limit = 10) => {
      const res = await root.ok('GET', `/api/usage?from=${from}&to=${to}&bucket=day&group_by=${by}&tz_offset_minutes=${tz}&limit=${limit}`);
      return (res.groups as Array<Record<string, unknown>>).map((g) => ({
        key: String(g.key),
        requests: Number(g.requests),
        quota: Number(g.quota),
        tokens: Number(g.tokens),
        errors: Number(g.errors),
      }));
    };
    const ranges: Array<[string, number, number]> = [
      ['mid-hour to mid-hour over five days', day0 + 5 * H + 20 * 60_000, day0 + 5 * D + 7 * H + 40 * 60_000],
      ['day boundary to day boundary', day0 + D, day0 + 4 * D],
      ['within one day', day0 + 2 * D + 3 * H, day0 + 2 * D + 9 * H + 1],
      ['a day and a bit', day0 + D - H, day0 + 2 * D + H],
    ];
    for (const [name, from, to] of ranges) {
      for (const by of ['user', 'key'] as const) {
        const want = expected(by === 'user' ? 'user_id' : 'key_id', from, to);
        assert.ok(want.length > 0, name);
        assert.deepEqual(await report(by, from, to), want, `${by}: ${name}`);
        assert.deepEqual(await report(by, from, to, 480), want, `${by}: ${name}, UTC+8 (the groups do not depend on it)`);
        assert.deepEqual(await report(by, from, to, 0, 2), want.slice(0, 2), `${by}: ${name}, the top two`);
      }
    }

    // The whole days come from the daily rows: without the hourly rows of those days the answer is the same.
    const [, from, to] = ranges[0];
    const before = { user: await report('user', from, to), key: await report('key', from, to) };
    await sql`delete from usage_hourly where dim in ('user', 'key') and hour >= ${day0 + D} and hour < ${day0 + 5 * D}`.execute(
      gw.core.h.db,
    );
    assert.deepEqual({ user: await report('user', from, to), key: await report('key', from, to) }, before);
    // … and the series, read from the hourly `all` rows, still has them.
    const series = await root.ok('GET', `/api/usage?from=${from}&to=${to}&bucket=day`);
    assert.equal(
      Number((series.totals as { requests: number }).requests),
      expected('user_id', from, to).reduce((a, g) => a + g.requests, 0),
    );
  } finally {
    await gw.stop();
  }
});
