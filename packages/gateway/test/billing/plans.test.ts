/**
 * Plans with usage windows (billing/plans.ts, docs/billing.md#plans), driven through the API and real
 * SDK calls: an operator defines a plan, a user buys it from the balance (charged once), a model call
 * draws on the plan's windows instead of the balance, a call past a window is refused with 429 and
 * the window's reset in Retry-After (overflow `refuse`) or charged to the balance (overflow
 * `balance`), and a window at its edge under 50 concurrent calls on two nodes is never passed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { createTestDatabase, startTestGateway, type TestGateway } from '../harness.ts';
import { startFakeOpenAI } from '../fakes/upstreams/openai.ts';
import { balance, createChannel, createKey, createUser, FIXTURE_PASSWORD, setPrice, waitFor } from '../relay-fixtures.ts';
import { AdminClient } from '../admin-client.ts';
import { loadConfigFile } from '../../src/config-file/load.ts';

/** Output only, $1000 per 1M tokens: 500 units a token; the fake upstream reports 7 output tokens. */
const CALL = 7 * 500;

async function user(gw: TestGateway, quota: number) {
  const username = `plan-user-${Math.random().toString(36).slice(2, 8)}`;
  const userId = await createUser(gw, { quota, username });
  const { key } = await createKey(gw, userId);
  return { userId, key, client: await AdminClient.login(gw.url, username, FIXTURE_PASSWORD) };
}

/** A chat call with max_tokens 7: reserved 3,500 units and charged the same. */
function chat(gw: TestGateway, key: string): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'plan-model', max_tokens: 7, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

async function windowSpent(gw: TestGateway): Promise<Array<{ owner: string; spent: number }>> {
  const rows = await gw.core.h.db
    .selectFrom('budget_spend')
    .select(['owner', 'spent'])
    .where('owner', 'like', 'p:%')
    .orderBy('owner')
    .execute();
  return rows.map((r) => ({ owner: r.owner, spent: Number(r.spent) }));
}

async function settled(gw: TestGateway): Promise<void> {
  await waitFor(
    async () => (await gw.core.h.db.selectFrom('budget_reserves').select('ref').execute()).length === 0,
    10_000,
    'no reserves open',
  );
}

test('plans: defined by admins, bought from the balance once, calls draw on the windows, refused or charged to the balance past one', async () => {
  const gw = await startTestGateway();
  const up = await startFakeOpenAI();
  try {
    await createChannel(gw, { baseUrl: up.url, models: ['plan-model', 'other-model'] });
    await setPrice(gw, 'plan-model', { input: 0, output: 1000 });
    await setPrice(gw, 'other-model', { input: 0, output: 1000 });
    const admin = await AdminClient.login(gw.url);

    // Bad definitions are refused with the field named.
    await admin.fails(400, 'POST', '/api/plan', { name: 'x', price_usd: 1, windows: [] }, 'windows');
    await admin.fails(
      400,
      'POST',
      '/api/plan',
      { name: 'x', price_usd: 1, windows: [{ every: '5 hours', quota_usd: 1 }] },
      'windows[0].every',
    );
    await admin.fails(
      400,
      'POST',
      '/api/plan',
      { name: 'x', price_usd: 1, windows: [{ every: '5h', quota_usd: 1 }], overflow: 'later' },
      'overflow',
    );
    await admin.fails(400, 'POST', '/api/plan', { name: 'x', windows: [{ every: '5h', quota_usd: 1 }] }, 'price_usd');

    // $0.01 per 5 hours (5,000 units: one call of 3,500 fits, two do not), $1 a week; $2 for 30 days.
    const plan = await admin.ok('POST', '/api/plan', {
      name: 'Coder',
      price_usd: 2,
      windows: [
        { every: '5h', quota_usd: 0.01 },
        { every: '7d', quota_usd: 1 },
      ],
      models: ['plan-model'],
      overflow: 'refuse',
    });
    assert.deepEqual(
      [plan.price_quota, plan.duration_days, plan.windows.map((w: { quota: number }) => w.quota), plan.overflow],
      [1_000_000, 30, [5_000, 500_000], 'refuse'],
    );
    await admin.fails(409, 'POST', '/api/plan', { name: 'Coder', price_usd: 1, windows: [{ every: '5h', quota_usd: 1 }] });
    assert.equal((await admin.ok('GET', '/api/plan')).length, 1);

    // A user without enough balance is refused and nothing moves.
    const poor = await user(gw, 999_999);
    const r = await poor.client.fails(400, 'POST', '/api/user/plan', { plan_id: plan.id });
    assert.match(r.body.message, /balance is too low/);
    assert.equal(await balance(gw, poor.userId), 999_999);
    assert.equal((await poor.client.ok('GET', '/api/user/plan')).plan, null);

    // Bought from the balance: charged the price once, in one ledger row.
    const u = await user(gw, 3_000_000);
    await u.client.fails(404, 'POST', '/api/user/plan', { plan_id: 9999 });
    const mine = await u.client.ok('POST', '/api/user/plan', { plan_id: plan.id });
    assert.equal(mine.plan.name, 'Coder');
    assert.equal(await balance(gw, u.userId), 2_000_000);
    const rows = await gw.core.h.db
      .selectFrom('ledger')
      .select(['kind', 'amount'])
      .where('user_id', '=', u.userId)
      .where('kind', '=', 'plan')
      .execute();
    assert.deepEqual(
      rows.map((x) => [x.kind, Number(x.amount)]),
      [['plan', 1_000_000]],
    );
    const days30 = 30 * 86_400_000;
    assert.ok(Math.abs(mine.subscription.expires_at - mine.subscription.started_at - days30) < 1000);
    const subs = await admin.ok('GET', `/api/plan/${plan.id}/subscribers`);
    assert.deepEqual(
      subs.map((s: { user_id: number }) => s.user_id),
      [u.userId],
    );

    // The first call draws on the plan: the balance does not move, both windows count it.
    const firstAt = Date.now();
    const first = await chat(gw, u.key);
    assert.equal(first.status, 200, await first.clone().text());
    await settled(gw);
    assert.equal(await balance(gw, u.userId), 2_000_000);
    assert.deepEqual(
      (await windowSpent(gw)).map((w) => w.spent),
      [CALL],
    );
    const view = await u.client.ok('GET', '/api/user/plan');
    assert.deepEqual(
      view.windows.map((w: { every: string; used: number }) => [w.every, w.used]),
      [
        ['5h', CALL],
        ['7d', CALL],
      ],
    );
    // Rolling: the oldest spend leaves the 5-hour window 5 hours after the end of its minute.
    const minute = Math.floor(firstAt / 60_000) * 60_000;
    assert.ok([minute, minute + 60_000].map((m) => m + 60_000 + 5 * 3_600_000).includes(view.windows[0].resets_at));
    assert.equal(view.windows[0].clears_at, view.windows[0].resets_at);
    assert.equal(view.windows[1].resets_at - view.windows[0].resets_at, 7 * 86_400_000 - 5 * 3_600_000);

    // The second does not fit the 5-hour window: 429, the window's reset in Retry-After, nothing charged.
    const before = up.requests.length;
    const refused = await chat(gw, u.key);
    assert.equal(refused.status, 429);
    const after = Number(refused.headers.get('retry-after'));
    const expected = Math.ceil((view.windows[0].resets_at - Date.now()) / 1000);
    assert.ok(after <= expected + 1 && after >= expected - 5, `Retry-After ${after}, expected about ${expected}`);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'insufficient_quota');
    assert.match(body.error.message, /5h window of plan "Coder" \(\$0\.01\) has no room for this request until/);
    assert.equal(up.requests.length, before, 'refused before the upstream');
    assert.equal(await balance(gw, u.userId), 2_000_000);

    // A model the plan does not cover is charged to the balance as ever.
    const other = await new OpenAI({ apiKey: u.key, baseURL: `${gw.url}/v1`, maxRetries: 0 }).chat.completions.create({
      model: 'other-model',
      max_tokens: 7,
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(other.usage?.completion_tokens, 7);
    await settled(gw);
    await waitFor(async () => (await balance(gw, u.userId)) === 2_000_000 - CALL, 5000, 'the balance charged');

    // Overflow `balance`: past the window the call is charged to the balance; the windows stay as they were.
    await admin.ok('PUT', `/api/plan/${plan.id}`, { overflow: 'balance' });
    await waitFor(() => gw.services.billing.plans.chargeOf(u.userId, 'plan-model')?.overflow === 'balance', 5000, 'the plan cache');
    const over = await chat(gw, u.key);
    assert.equal(over.status, 200);
    await settled(gw);
    await waitFor(async () => (await balance(gw, u.userId)) === 2_000_000 - 2 * CALL, 5000, 'the balance charged');
    assert.deepEqual(
      (await windowSpent(gw)).map((w) => w.spent),
      [CALL],
    );

    // Renewing the same plan extends it from its end; a plan held by someone cannot be deleted.
    const renewed = await u.client.ok('POST', '/api/user/plan', { plan_id: plan.id });
    assert.equal(renewed.subscription.expires_at, mine.subscription.expires_at + days30);
    assert.equal(renewed.subscription.started_at, mine.subscription.started_at);
    await waitFor(async () => (await balance(gw, u.userId)) === 1_000_000 - 2 * CALL, 5000, 'the renewal charged');
    await admin.fails(409, 'DELETE', `/api/plan/${plan.id}`);
  } finally {
    await gw.stop();
    await up.close();
  }
});

test("a plan's 5-hour window at its edge: 50 concurrent calls on two nodes never pass it", { timeout: 120_000 }, async () => {
  const db = await createTestDatabase();
  const a = await startTestGateway({ db });
  let b: TestGateway | null = null;
  const up = await startFakeOpenAI();
  up.delayMs = 50;
  try {
    b = await startTestGateway({ db });
    await createChannel(a, { baseUrl: up.url, models: ['plan-model'] });
    await setPrice(a, 'plan-model', { input: 0, output: 1000 });
    const admin = await AdminClient.login(a.url);
    // Ten calls of 3,500 units fit the 5-hour window exactly; the week is ample.
    const plan = await admin.ok('POST', '/api/plan', {
      name: 'Edge',
      price_usd: 0,
      windows: [
        { every: '5h', quota: 10 * CALL },
        { every: '7d', quota: 1000 * CALL },
      ],
      overflow: 'refuse',
    });
    const u = await user(a, 1_000_000);
    await u.client.ok('POST', '/api/user/plan', { plan_id: plan.id });
    await waitFor(() => b!.services.billing.plans.chargeOf(u.userId, 'plan-model'), 5000, 'the plan on node b');
    await waitFor(() => b!.services.relay.channels.modelsFor('default').includes('plan-model'), 5000, 'the channel on node b');
    await waitFor(() => b!.services.accounts.keys.size > 0, 5000, 'the key on node b');

    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => chat(i % 2 ? a : b!, u.key)));
    const statuses = results.map((r) => r.status);
    const odd = results.find((r) => r.status !== 200 && r.status !== 429);
    if (odd) assert.fail(`${odd.status}: ${await odd.text()}`);
    assert.equal(statuses.filter((s) => s === 200).length, 10, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 429).length, 40, statuses.join(','));
    // Room again when the calls' minute leaves the 5-hour window: about 5 hours and a minute from now.
    for (const r of results.filter((x) => x.status === 429)) {
      const after = Number(r.headers.get('retry-after'));
      assert.ok(after > 5 * 3600 && after <= 5 * 3600 + 120, `Retry-After ${after}`);
    }
    await Promise.all(results.map((r) => r.body?.cancel()));
    await settled(a);
    const spent = await windowSpent(a);
    assert.deepEqual(
      spent.map((w) => w.spent),
      [10 * CALL],
      'the window is full and not over',
    );
    assert.equal(await balance(a, u.userId), 1_000_000, 'the balance paid nothing');
    assert.equal(up.requests.length, 10);
  } finally {
    if (b) await b.stop({ keepDb: true });
    await a.stop();
    await up.close();
  }
});

test('a plan by redemption code: claimed and granted once, however often it is redeemed at once', async () => {
  const gw = await startTestGateway();
  try {
    const admin = await AdminClient.login(gw.url);
    await admin.ok('POST', '/api/plan', { name: 'Gift', price_usd: 5, duration_days: 7, windows: [{ every: '5h', quota_usd: 1 }] });
    await admin.fails(400, 'POST', '/api/redemption', { name: 'gift', plan_id: 'Nope' }, 'plan_id');
    const [code] = await admin.ok('POST', '/api/redemption', { name: 'gift', plan_id: 'Gift', count: 1 });
    const u = await user(gw, 1_000);
    const answers = await Promise.all(Array.from({ length: 8 }, () => u.client.call('POST', '/api/user/topup', { key: code })));
    const granted = answers.filter((a) => a.status === 200);
    assert.equal(granted.length, 1, answers.map((a) => a.text).join('\n'));
    for (const a of answers.filter((x) => x.status !== 200)) assert.match(a.body.message, /already used/);
    assert.equal(await balance(gw, u.userId), 1_000, 'a plan code credits no quota and charges nothing');
    const mine = await u.client.ok('GET', '/api/user/plan');
    assert.equal(mine.plan.name, 'Gift');
    assert.ok(Math.abs(mine.subscription.expires_at - mine.subscription.started_at - 7 * 86_400_000) < 1000);
    assert.equal(mine.on_sale.length, 1);
    await waitFor(() => gw.services.billing.plans.chargeOf(u.userId, 'any-model'), 5000, 'the plan cache');
  } finally {
    await gw.stop();
  }
});

test('plans in the configuration file: created at start, a second start changes nothing, bad entries name the field', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-plans-'));
  const path = join(dir, 'plans.yaml');
  writeFileSync(
    path,
    `
plans:
  - name: Pro
    price_usd: 20
    windows:
      - { every: 5h, quota_usd: 2 }
      - { every: 7d, quota_usd: 30 }
    models: [gpt-4o, claude-sonnet-4]
    overflow: balance
`,
  );
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, 'plans:\n  - name: X\n    price_usd: 1\n    windows: [{ every: 5x, quota_usd: 1 }]\n');
  assert.throws(() => loadConfigFile(bad, { quotaPerUsd: 500_000 }), /plans\[0\]\.windows\[0\]\.every: must be a length/);
  const db = await createTestDatabase();
  let gw = await startTestGateway({ db, env: { GATEHOUSE_CONFIG: path } });
  try {
    const admin = await AdminClient.login(gw.url);
    const [plan] = await admin.ok('GET', '/api/plan');
    assert.deepEqual(
      [plan.name, plan.price_usd, plan.windows, plan.models, plan.overflow],
      [
        'Pro',
        20,
        [
          { every: '5h', quota: 1_000_000, quota_usd: 2 },
          { every: '7d', quota: 15_000_000, quota_usd: 30 },
        ],
        ['gpt-4o', 'claude-sonnet-4'],
        'balance',
      ],
    );
    await gw.stop({ keepDb: true });
    gw = await startTestGateway({ db, env: { GATEHOUSE_CONFIG: path } });
    const [again] = await (await AdminClient.login(gw.url)).ok('GET', '/api/plan');
    assert.deepEqual(again, plan, 'applying the same file again changes nothing');
  } finally {
    await gw.stop();
  }
});
