import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { insertLogs } from '../../src/logs/writer.ts';

test('logs: filters, paging, totals for the filter, own logs for users, retention in batches', async () => {
  const gw = await startTestGateway();
  try {
    const root = await AdminClient.login(gw.url);
    const u = await root.ok('POST', '/api/user', { username: 'lena', password: 'lena-password' });
    const lena = await AdminClient.login(gw.url, 'lena', 'lena-password');
    const t0 = Date.UTC(2026, 0, 1);
    const rows = [];
    for (let i = 0; i < 25; i++) {
      const mine = i % 5 !== 0; // 20 rows for lena, 5 for root
      rows.push({
        created_at: t0 + i * 60_000,
        type: i === 3 ? 'error' : 'consume',
        request_id: `req_${i}`,
        user_id: mine ? u.id : 1,
        username: mine ? 'lena' : 'root',
        key_id: 1,
        key_name: i % 2 ? 'odd' : 'even',
        group_name: 'default',
        model: i < 10 ? 'gpt-4o' : 'gpt-4o-mini',
        upstream_model: 'gpt-4o-2024-08-06',
        channel_id: i % 3 === 0 ? 7 : 8,
        endpoint: '/v1/chat/completions',
        status_code: 200,
        prompt_tokens: 10,
        completion_tokens: i,
        cached_tokens: 0,
        quota: 100 + i,
        latency_ms: 50,
        first_byte_ms: 10,
        is_stream: 0,
        attempts: 1,
        content: null,
        other: JSON.stringify({ tried: [7, 8] }),
      });
    }
    await insertLogs(gw.core.h, rows);

    const all = await root.ok('GET', '/api/log?page_size=10');
    assert.equal(all.total, 25);
    assert.equal(all.items.length, 10);
    assert.equal(all.items[0].request_id, 'req_24', 'newest first');
    assert.deepEqual(all.totals, {
      count: 25,
      calls: 25,
      quota: 25 * 100 + 300,
      movements: 0,
      moved_quota: 0,
      prompt_tokens: 250,
      completion_tokens: 300,
    });
    assert.equal(all.items[0].channel_name, null, 'a channel that does not exist has no name');
    // A top-up is a money movement, not spending: the calls' total stays, the movement is counted apart.
    await root.ok('POST', `/api/user/${u.id}/quota`, { amount_usd: 20 });
    const withTopup = await root.ok('GET', '/api/log?page_size=10');
    assert.equal(withTopup.totals.count, 26);
    assert.equal(withTopup.totals.calls, 25);
    assert.equal(withTopup.totals.quota, 25 * 100 + 300);
    assert.equal(withTopup.totals.movements, 1);
    assert.equal(withTopup.totals.moved_quota, 20 * 500_000);
    await gw.core.h.db.deleteFrom('logs').where('type', '=', 'topup').execute();
    // A task's rows are told apart by their content (no index carries it): the reserve counts a call,
    // the settle the spend, the refund neither; a task row's quota is never summed as a call's.
    const task = { ...rows[0], type: 'task', model: 'vid', endpoint: '/v1/tasks/vid', status_code: null, other: null };
    await insertLogs(gw.core.h, [
      { ...task, created_at: t0 + 30 * 60_000, request_id: 'task_1', quota: 900, content: 'task reserve' },
      { ...task, created_at: t0 + 31 * 60_000, request_id: 'task_2', quota: 800, content: 'task settle' },
      { ...task, created_at: t0 + 32 * 60_000, request_id: 'task_3', quota: -900, content: 'task refund' },
    ]);
    // Each filter through another index: the whole table, root's rows (i = 0, 5, 10, 15, 20), the model, the type.
    const before: Record<string, { count: number; calls: number; quota: number }> = {
      '': { count: 25, calls: 25, quota: 25 * 100 + 300 },
      '&user_id=1': { count: 5, calls: 5, quota: 5 * 100 + 50 },
      '&model=vid': { count: 0, calls: 0, quota: 0 },
      '&type=task': { count: 0, calls: 0, quota: 0 },
    };
    for (const [q, want] of Object.entries(before)) {
      const { totals } = await root.ok('GET', `/api/log?page_size=10${q}`);
      assert.equal(totals.count, want.count + 3, `count${q}`);
      assert.equal(totals.calls, want.calls + 1, `calls${q}: the reserve counts the call`);
      assert.equal(totals.quota, want.quota + 800, `quota${q}: the settle counts the spend`);
    }
    await gw.core.h.db.deleteFrom('logs').where('type', '=', 'task').execute();
    const last = await root.ok('GET', '/api/log?page_size=10&page=3');
    assert.equal(last.items.length, 5);
    assert.equal(last.items[4].request_id, 'req_0');

    const f = await root.ok('GET', `/api/log?model=gpt-4o&user_id=${u.id}&type=consume`);
    // i < 10, not multiple of 5, not 3: 1,2,4,6,7,8,9
    assert.equal(f.total, 7);
    assert.equal(
      f.totals.quota,
      [1, 2, 4, 6, 7, 8, 9].reduce((s, i) => s + 100 + i, 0),
    );
    assert.equal((await root.ok('GET', '/api/log?channel_id=7')).total, 9);
    assert.equal((await root.ok('GET', '/api/log?key_name=odd')).total, 12);
    assert.equal((await root.ok('GET', '/api/log?request_id=req_3')).items[0].type, 'error');
    const range = await root.ok('GET', `/api/log?start=${t0 + 10 * 60_000}&end=${new Date(t0 + 14 * 60_000).toISOString()}`);
    assert.equal(range.total, 5);
    assert.equal((await root.ok('GET', '/api/log?username=root')).total, 5);
    await root.fails(400, 'GET', '/api/log?page_size=101', undefined, 'page_size');
    await root.fails(400, 'GET', '/api/log?type=bogus', undefined, 'type');
    await root.fails(400, 'GET', `/api/log?start=${t0 + 1000}&end=${t0}`, undefined, 'start');

    // Users see only their own rows, without routing details; admin-only endpoint refused.
    await lena.fails(403, 'GET', '/api/log');
    const mine = await lena.ok('GET', '/api/log/self?page_size=100&user_id=1');
    assert.equal(mine.total, 20);
    assert.ok(mine.items.every((r: any) => r.user_id === u.id));
    assert.ok(mine.items.every((r: any) => !('channel_id' in r) && !('other' in r) && !('upstream_model' in r)));
    assert.equal((await lena.ok('GET', '/api/log/self?model=gpt-4o-mini')).total, 12);

    // Retention: rows older than the cutoff go, in batches; newer stay.
    const now = t0 + 24 * 60_000 + 86_400_000 * 2;
    const deleted = await gw.services.admin.logs.purgeOlderThan(2, now - 12 * 60_000 + 1);
    // cutoff = t0 + 12min + 1ms - ... : rows 0..12 are older
    assert.equal(deleted, 13);
    assert.equal((await root.ok('GET', '/api/log')).total, 12);
  } finally {
    await gw.stop();
  }
});
