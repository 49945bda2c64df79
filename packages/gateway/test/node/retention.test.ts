/**
 * Retention of what grows with traffic besides the log rows: hourly usage roll-ups
 * (USAGE_RETENTION_DAYS) and the stored conversations of converted Responses calls
 * (RESPONSES_RETENTION_DAYS). Old rows go, newer ones and other users' rows stay, and a purged
 * conversation can no longer be continued.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startTestGateway } from '../harness.ts';
import { insertLogs } from '../../src/logs/writer.ts';

const H = 3_600_000;
const D = 24 * H;

test('usage roll-ups of hours and days that ended before the cutoff are deleted, in every dimension; later ones stay', async () => {
  const gw = await startTestGateway();
  try {
    const now = Math.floor(Date.now() / H) * H + 30 * 60_000;
    const row = (at: number, model: string) => ({
      created_at: at,
      type: 'consume',
      request_id: `r_${at}_${model}`,
      user_id: 1,
      username: 'root',
      key_id: 1,
      key_name: 'k',
      group_name: 'default',
      model,
      upstream_model: model,
      channel_id: 3,
      endpoint: '/v1/chat/completions',
      status_code: 200,
      prompt_tokens: 10,
      completion_tokens: 5,
      cached_tokens: 0,
      quota: 100,
      latency_ms: 50,
      first_byte_ms: 10,
      is_stream: 0,
      attempts: 1,
      content: null,
      other: null,
    });
    // Ten days ago, three days ago, and the hour that contains the cutoff (two days ago, plus half an hour).
    await insertLogs(gw.core.h, [row(now - 10 * D, 'old'), row(now - 3 * D, 'old'), row(now - 2 * D, 'edge'), row(now - H, 'new')]);
    const hours = async () =>
      (await sql<{ dim: string; hour: number }>`select dim, hour from usage_hourly`.execute(gw.core.h.db)).rows.map((r) => ({
        dim: r.dim,
        hour: Number(r.hour),
      }));
    const before = await hours();
    const daily = (r: { dim: string }) => r.dim.endsWith('_day');
    assert.equal(before.filter((r) => !daily(r)).length, 4 * 6, 'six hourly roll-up rows per hour');
    assert.equal(before.filter(daily).length, 4 * 2, 'two daily rows per day (the four hours are on four UTC days)');

    const deleted = await gw.services.admin.logs.purgeRollupsOlderThan(2, now);
    assert.equal(deleted, 2 * 6 + 2 * 2, 'the two hours and the two days that ended before the cutoff, in all dimensions');
    const after = await hours();
    assert.equal(after.length, 2 * 6 + 2 * 2);
    assert.ok(
      after.every((r) => (daily(r) ? r.hour + D > now - 2 * D : r.hour + H > now - 2 * D)),
      'only hours and days that end after the cutoff remain',
    );
    assert.equal(await gw.services.admin.logs.purgeRollupsOlderThan(2, now), 0, 'a second run deletes nothing');
    // The log rows themselves are the log retention's business.
    const logs = await sql<{ n: number }>`select count(*) as n from logs`.execute(gw.core.h.db);
    assert.equal(Number(logs.rows[0]!.n), 4);
  } finally {
    await gw.stop();
  }
});

test('Responses conversations stored before the cutoff are deleted in batches and cannot be continued', async () => {
  const gw = await startTestGateway();
  try {
    const conv = gw.services.relay.relay.conversations;
    const now = Date.now();
    const messages = JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
    const rows = [];
    for (let i = 0; i < 1200; i++)
      rows.push({ response_id: `resp_old_${i}`, user_id: 1, model: 'm', messages, created_at: now - 40 * D + i });
    rows.push({ response_id: 'resp_new', user_id: 1, model: 'm', messages, created_at: now - D });
    // Conversations kept long ago: no service writes a past time, so the rows are written as they would stand.
    for (let i = 0; i < rows.length; i += 200)
      await gw.core.h.db
        .insertInto('relay_conversations')
        .values(rows.slice(i, i + 200))
        .execute();

    assert.equal(await conv.purgeBefore(now - 30 * D), 1200);
    await assert.rejects(conv.load('resp_old_7', 1), (e: Error & { status?: number }) => e.status === 404);
    const kept = await conv.load('resp_new', 1);
    assert.equal(kept.length, 1);
    assert.equal(await conv.purgeBefore(now - 30 * D), 0);
  } finally {
    await gw.stop();
  }
});
