/**
 * Period budgets of keys and users (billing/budgets.ts, docs/limits.md#budgets): reserved in the same
 * transaction as the balance, refused like an empty balance, corrected at settle, and a new period is a
 * new row (moved across a boundary with the budgets' injectable clock).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { startGatedUpstream, type GatedUpstream } from '../fakes/upstreams/gated.ts';
import { createCaller, createChannel, createKey, setPrice, waitFor } from '../relay-fixtures.ts';
import { AdminClient } from '../admin-client.ts';
import { periodEnd, periodStart } from '../../src/billing/budgets.ts';

/** Output only, $1000 per 1M tokens: 500 units a token at QUOTA_PER_USD 500,000. */
const UNITS_PER_TOKEN = 500;

const ask = (gw: TestGateway, key: string, maxTokens = 16) =>
  new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 }).chat.completions.create({
    model: 'b-model',
    max_tokens: maxTokens,
    messages: [{ role: 'user', content: 'hi' }],
  });

async function refusal(p: Promise<unknown>): Promise<{ status: number; code?: string; message: string }> {
  try {
    await p;
  } catch (e) {
    const err = e as { status?: number; code?: string; message: string };
    return { status: err.status ?? 0, code: err.code, message: err.message };
  }
  assert.fail('the call should have been refused');
}

async function setup(gw: TestGateway): Promise<{ up: FakeOpenAI; gated: GatedUpstream; admin: AdminClient }> {
  const up = await startFakeOpenAI();
  const gated = await startGatedUpstream();
  await createChannel(gw, { baseUrl: up.url, models: ['b-model'] });
  await createChannel(gw, { baseUrl: gated.up.url, models: ['b-stream'] });
  await setPrice(gw, 'b-model', { input: 0, output: 1000 });
  await setPrice(gw, 'b-stream', { input: 0, output: 1000 });
  return { up, gated, admin: await AdminClient.login(gw.url) };
}

async function spendRows(gw: TestGateway, owner: string): Promise<Array<[number, number]>> {
  const rows = await gw.core.h.db
    .selectFrom('budget_spend')
    .select(['period_start', 'spent'])
    .where('owner', '=', owner)
    .orderBy('period_start')
    .execute();
  return rows.map((r) => [Number(r.period_start), Number(r.spent)]);
}

/** Until every settle and log row of the calls so far is written. */
async function settled(gw: TestGateway): Promise<void> {
  await waitFor(
    async () => (await gw.core.h.db.selectFrom('budget_reserves').select('ref').execute()).length === 0,
    5000,
    'no reserves open',
  );
}

test('periods are calendar days, weeks from Monday and months, at an offset from UTC', () => {
  const t = Date.parse('2026-03-04T10:00:00Z'); // a Wednesday
  assert.equal(new Date(periodStart('day', t)).toISOString(), '2026-03-04T00:00:00.000Z');
  assert.equal(new Date(periodStart('week', t)).toISOString(), '2026-03-02T00:00:00.000Z');
  assert.equal(new Date(periodStart('month', t)).toISOString(), '2026-03-01T00:00:00.000Z');
  assert.equal(new Date(periodEnd('month', periodStart('month', t))).toISOString(), '2026-04-01T00:00:00.000Z');
  assert.equal(
    new Date(periodStart('week', Date.parse('2026-03-02T00:00:00Z'))).toISOString(),
    '2026-03-02T00:00:00.000Z',
    'Monday starts its own week',
  );
  assert.equal(
    new Date(periodStart('week', Date.parse('2026-03-01T23:59:59Z'))).toISOString(),
    '2026-02-23T00:00:00.000Z',
    'Sunday ends the week',
  );
  // UTC+8: 20:00 UTC on the 31st is 04:00 on the 1st there.
  const off = 8 * 3600_000;
  const late = Date.parse('2026-03-31T20:00:00Z');
  assert.equal(new Date(periodStart('month', late, off)).toISOString(), '2026-03-31T16:00:00.000Z');
  assert.equal(new Date(periodStart('day', late, off)).toISOString(), '2026-03-31T16:00:00.000Z');
  assert.equal(new Date(periodEnd('month', periodStart('month', late, off), off)).toISOString(), '2026-04-30T16:00:00.000Z');
});

test("a key's daily budget: reserved with the balance, refused like an empty balance, corrected at settle; a new day is a new row", async () => {
  const gw = await startTestGateway();
  const { up, gated, admin } = await setup(gw);
  const budgets = gw.services.billing.budgets;
  let now = Date.parse('2026-03-31T23:50:00Z');
  budgets.now = () => now;
  try {
    const c = await createCaller(gw, { quota: 100_000_000 });
    await admin.fails(400, 'PUT', `/api/token/${c.keyId}`, { budget_usd: 0.02 }, 'budget_period');
    await admin.fails(400, 'PUT', `/api/token/${c.keyId}`, { budget_period: 'fortnight' }, 'budget_period');
    // $0.02 a day = 10,000 units; a call reserves 16 × 500 = 8,000 and is charged 7 × 500 = 3,500.
    const view = await admin.ok('PUT', `/api/token/${c.keyId}`, { budget_usd: 0.02, budget_period: 'day' });
    assert.deepEqual([view.budget, view.budget_usd, view.budget_period, view.budget_spent], [10_000, 0.02, 'day', 0]);
    assert.equal(view.budget_resets_at, Date.parse('2026-04-01T00:00:00Z'));
    await waitFor(() => gw.services.accounts.keys.authenticate(c.key, '127.0.0.1').budgets !== null, 5000, 'the key cache');
    const owner = `k:${c.keyId}`;
    const day1 = Date.parse('2026-03-31T00:00:00Z');

    await ask(gw, c.key);
    await settled(gw);
    assert.deepEqual(await spendRows(gw, owner), [[day1, 7 * UNITS_PER_TOKEN]]);
    // 3,500 + 8,000 > 10,000: the reserve would pass the budget. max_tokens cannot be lowered below 16, so refused.
    const before = up.requests.length;
    const r = await refusal(ask(gw, c.key));
    assert.equal(r.status, 429);
    assert.equal(r.code, 'insufficient_quota');
    assert.match(r.message, /daily budget of this API key \(\$0\.02\) is used up until 2026-04-01T00:00:00Z/);
    const viaAnthropic = await refusal(
      new Anthropic({ apiKey: c.key, baseURL: gw.url, maxRetries: 0 }).messages.create({
        model: 'b-model',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    assert.equal(viaAnthropic.status, 429);
    assert.match(viaAnthropic.message, /billing_error/);
    assert.equal(up.requests.length, before, 'refused before the upstream');
    // A smaller call fits what is left: max_tokens 13 → 6,500.
    await ask(gw, c.key, 13);
    await settled(gw);
    assert.deepEqual(await spendRows(gw, owner), [[day1, 2 * 7 * UNITS_PER_TOKEN]]);

    // A stream started before midnight is charged to the day it started in, whenever it ends.
    const stream = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'b-stream', stream: true, max_tokens: 5, messages: [{ role: 'user', content: 'late' }] }),
    });
    assert.equal(stream.status, 200);
    const reader = stream.body!.getReader();
    await reader.read();
    // Midnight: a new period, a new row; nothing reset anything.
    now = Date.parse('2026-04-01T00:00:05Z');
    const day2 = Date.parse('2026-04-01T00:00:00Z');
    await ask(gw, c.key);
    await waitFor(
      async () => (await spendRows(gw, owner)).some(([start, spent]) => start === day2 && spent === 7 * UNITS_PER_TOKEN),
      5000,
      'the call to settle',
    );
    const fresh = await admin.ok('GET', `/api/token/${c.keyId}`);
    assert.equal(fresh.budget_spent, 7 * UNITS_PER_TOKEN);
    assert.equal(fresh.budget_resets_at, Date.parse('2026-04-02T00:00:00Z'));
    gated.open('late');
    while (!(await reader.read()).done);
    await settled(gw);
    // The upstream reported more output (2,000 tokens) than the stream was reserved for: the balance
    // is charged what is due, and the budget of the day the stream started in counts it (past its
    // limit: the call has happened). The new day's row is untouched.
    const rows = await spendRows(gw, owner);
    assert.deepEqual(
      rows.map(([start]) => start),
      [day1, day2],
    );
    assert.equal(rows[1][1], 7 * UNITS_PER_TOKEN);
    const streamLog = () =>
      gw.core.h.db.selectFrom('logs').select('quota').where('model', '=', 'b-stream').where('type', '=', 'consume').executeTakeFirst();
    await waitFor(async () => !!(await streamLog()), 5000, "the stream's log row");
    const streamCharge = Number((await streamLog())!.quota);
    assert.ok(streamCharge > 5 * UNITS_PER_TOKEN, String(streamCharge));
    assert.equal(rows[0][1], 2 * 7 * UNITS_PER_TOKEN + streamCharge);
    // The balance was charged exactly what the budgets counted.
    const used = await gw.core.h.db.selectFrom('api_keys').select('used_quota').where('id', '=', c.keyId).executeTakeFirstOrThrow();
    assert.equal(Number(used.used_quota), rows[0][1] + rows[1][1]);

    // Lifting the budget: refused calls are served again.
    await admin.ok('PUT', `/api/token/${c.keyId}`, { budget_usd: null });
    await waitFor(() => gw.services.accounts.keys.authenticate(c.key, '127.0.0.1').budgets === null, 5000, 'the key cache');
    for (let i = 0; i < 3; i++) await ask(gw, c.key);
  } finally {
    await gw.stop();
    await up.close();
    await gated.up.close();
  }
});

test("a user's monthly budget covers all their keys and is exact under concurrency, quota allowances on or not", async () => {
  const gw = await startTestGateway();
  const { up, gated, admin } = await setup(gw);
  try {
    await gw.services.admin.options.set('QuotaAllowanceEnabled', true);
    const c = await createCaller(gw, { quota: 1_000_000_000 });
    const second = await createKey(gw, c.userId);
    // 100,000 units a month: at most 12 reserves of 8,000 in flight at once.
    const view = await admin.ok('PUT', `/api/user/${c.userId}`, { budget: 100_000, budget_period: 'month' });
    assert.equal(view.budget_usd, 0.2);
    await waitFor(() => gw.services.accounts.keys.authenticate(second.key, '127.0.0.1').budgets?.length === 1, 5000, 'the key cache');
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => ask(gw, i % 2 ? c.key : second.key)));
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.filter((r) => r.status === 'rejected');
    for (const r of refused) assert.equal((r as PromiseRejectedResult).reason.status, 429);
    await settled(gw);
    const [[, spent]] = await spendRows(gw, `u:${c.userId}`);
    assert.equal(spent, ok * 7 * UNITS_PER_TOKEN);
    assert.ok(ok >= 12 && spent <= 100_000, `${ok} calls, ${spent} spent`);
    // Until the budget is used up: then every call is refused. A call is settled after its answer is
    // sent, so each one is waited for: otherwise the next reserve can still meet the last one's 8,000.
    for (let i = 0; i < 40; i++) {
      try {
        await ask(gw, c.key);
        await settled(gw);
      } catch (e) {
        assert.equal((e as { status: number }).status, 429);
        break;
      }
    }
    await settled(gw);
    const [[, total]] = await spendRows(gw, `u:${c.userId}`);
    assert.ok(total <= 100_000 && total > 100_000 - 8_000, String(total));
    const u = await admin.ok('GET', `/api/user/${c.userId}`);
    assert.equal(u.budget_spent, total);
    assert.equal(u.used_quota, total);
    assert.equal(gw.services.relay.allowances.snapshot().length, 0, 'no quota hold was taken for a budgeted payer');
  } finally {
    await gw.stop();
    await up.close();
    await gated.up.close();
  }
});
