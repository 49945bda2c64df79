/**
 * Plans' rolling windows (billing/plan-windows.ts, docs/billing.md#plans) driven through real HTTP
 * calls with the plans' test clock: a window frees exactly the spend that has aged out of it, a
 * refusal's Retry-After says when enough has, and My plan shows the windows' used spend and reset
 * times; a call drawn on a plan still takes its key's cap, the user's budget and the key's rate limit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startFakeOpenAI } from '../fakes/upstreams/openai.ts';
import { balance, createChannel, createKey, createUser, FIXTURE_PASSWORD, setPrice, waitFor } from '../relay-fixtures.ts';
import { AdminClient } from '../admin-client.ts';

/** Output only, $1000 per 1M tokens: 500 units a token; the fake upstream reports 7 output tokens. */
const CALL = 7 * 500;
const MIN = 60_000;
const H5 = 5 * 3_600_000;

function chat(gw: TestGateway, key: string): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'plan-model', max_tokens: 7, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

async function settled(gw: TestGateway): Promise<void> {
  await waitFor(async () => (await gw.core.h.db.selectFrom('budget_reserves').select('ref').execute()).length === 0, 10_000, 'settled');
}

async function status(gw: TestGateway, key: string): Promise<{ status: number; retryAfter: number; message: string }> {
  const r = await chat(gw, key);
  const body = (await r.json()) as { error?: { message: string } };
  if (r.status === 200) await settled(gw);
  return { status: r.status, retryAfter: Number(r.headers.get('retry-after') ?? 0), message: body.error?.message ?? '' };
}

async function setup(gw: TestGateway, windows: unknown[]) {
  const up = await startFakeOpenAI();
  await createChannel(gw, { baseUrl: up.url, models: ['plan-model'] });
  await setPrice(gw, 'plan-model', { input: 0, output: 1000 });
  const admin = await AdminClient.login(gw.url);
  const plan = await admin.ok('POST', '/api/plan', { name: 'Rolling', price_usd: 0, windows, overflow: 'refuse' });
  const username = `roll-${Math.random().toString(36).slice(2, 8)}`;
  const userId = await createUser(gw, { quota: 1_000_000, username });
  const client = await AdminClient.login(gw.url, username, FIXTURE_PASSWORD);
  await client.ok('POST', '/api/user/plan', { plan_id: plan.id });
  await waitFor(() => gw.services.billing.plans.chargeOf(userId, 'plan-model'), 5000, 'the plan cache');
  return { up, admin, userId, client };
}

test('a rolling window frees exactly the spend that ages out; Retry-After and My plan say when', async () => {
  const gw = await startTestGateway();
  const plans = gw.services.billing.plans;
  // Two calls fit the 5-hour window; the week is ample.
  const { up, userId, client } = await setup(gw, [
    { every: '5h', quota: 2 * CALL },
    { every: '7d', quota: 100 * CALL },
  ]);
  try {
    const { key } = await createKey(gw, userId);
    const t0 = Math.floor(Date.now() / MIN) * MIN + 10_000;
    let now = t0;
    plans.now = () => now;

    assert.equal((await status(gw, key)).status, 200);
    now = t0 + 2 * MIN;
    assert.equal((await status(gw, key)).status, 200);

    // Full: room again when the first call's minute leaves the window (5 hours after its end).
    const firstOut = t0 - 10_000 + MIN + H5;
    now = t0 + 3 * MIN;
    let r = await status(gw, key);
    assert.equal(r.status, 429);
    assert.equal(r.retryAfter, Math.ceil((firstOut - now) / 1000));
    assert.match(r.message, /5h window of plan "Rolling" .* has no room for this request until/);
    let mine = await client.ok('GET', '/api/user/plan');
    assert.deepEqual(
      [mine.windows[0].used, mine.windows[0].resets_at, mine.windows[0].clears_at, mine.windows[0].started_at],
      [2 * CALL, firstOut, firstOut + 2 * MIN, now - H5],
    );
    assert.equal(mine.windows[1].used, 2 * CALL);

    // A millisecond before it leaves: still refused, Retry-After 1.
    now = firstOut - 1;
    r = await status(gw, key);
    assert.deepEqual([r.status, r.retryAfter], [429, 1]);

    // When it leaves, exactly one call's room is back: one call is served, the next is refused until
    // the second call's minute leaves.
    now = firstOut;
    assert.equal((await status(gw, key)).status, 200);
    now = firstOut + 5_000;
    r = await status(gw, key);
    assert.deepEqual([r.status, r.retryAfter], [429, Math.ceil((firstOut + 2 * MIN - now) / 1000)]);
    mine = await client.ok('GET', '/api/user/plan');
    assert.deepEqual(
      [mine.windows[0].used, mine.windows[0].resets_at, mine.windows[1].used],
      [2 * CALL, firstOut + 2 * MIN, 3 * CALL],
      'the 5-hour window lost the first call; the week still counts it',
    );

    // Past every spend: the window is whole again.
    now = firstOut + 6 * H5;
    mine = await client.ok('GET', '/api/user/plan');
    assert.deepEqual([mine.windows[0].used, mine.windows[0].resets_at, mine.windows[0].clears_at], [0, null, null]);
    assert.equal(await balance(gw, userId), 1_000_000, 'the balance paid nothing');
    assert.equal(up.requests.length, 3);
  } finally {
    plans.now = Date.now;
    await gw.stop();
    await up.close();
  }
});

test("a call drawn on a plan still takes its key's cap, the user's budget and the key's rate limit", async () => {
  const gw = await startTestGateway();
  const { up, admin, userId, client } = await setup(gw, [{ every: '5h', quota: 100 * CALL }]);
  try {
    // A key capped at one and a half calls: the first is served and taken from the cap at the plan price.
    const capped = await createKey(gw, userId, { cap: CALL + CALL / 2 });
    assert.equal((await status(gw, capped.key)).status, 200);
    const view = await admin.ok('GET', `/api/token/${capped.id}`);
    assert.deepEqual([view.remain_quota, view.used_quota], [CALL / 2, CALL]);
    const r = await status(gw, capped.key);
    assert.equal(r.status, 429);
    assert.match(r.message, /quota/);
    assert.equal((await client.ok('GET', '/api/user/plan')).windows[0].used, CALL, 'the refused call took nothing from the window');

    // The user's daily budget of $0.01 (5,000 units): it counts the plan call at the plan price.
    await admin.ok('PUT', `/api/user/${userId}`, { budget_usd: 0.01, budget_period: 'day' });
    const open = await createKey(gw, userId);
    await waitFor(() => gw.services.accounts.keys.authenticate(open.key, '127.0.0.1').budgets !== null, 5000, 'the key cache');
    assert.equal((await status(gw, open.key)).status, 200);
    const refused = await status(gw, open.key);
    assert.equal(refused.status, 429);
    assert.match(refused.message, /daily budget of the account/);
    const spend = await gw.core.h.db.selectFrom('budget_spend').select(['owner', 'spent']).where('owner', '=', `u:${userId}`).execute();
    assert.deepEqual(
      spend.map((s) => Number(s.spent)),
      [CALL],
    );
    assert.equal((await client.ok('GET', '/api/user/plan')).windows[0].used, 2 * CALL);

    // A key's rate limit of one request a minute.
    await admin.ok('PUT', `/api/user/${userId}`, { budget_usd: null });
    const limited = await createKey(gw, userId);
    await admin.ok('PUT', `/api/token/${limited.id}`, { rpm: 1 });
    await waitFor(() => gw.services.accounts.keys.authenticate(limited.key, '127.0.0.1').budgets === null, 5000, 'the key cache');
    await waitFor(async () => (await status(gw, limited.key)).status === 200, 5000, 'the first call of the minute');
    const limitedAgain = await chat(gw, limited.key);
    assert.equal(limitedAgain.status, 429);
    assert.ok(Number(limitedAgain.headers.get('retry-after')) > 0);
    assert.equal(await balance(gw, userId), 1_000_000, 'the balance paid nothing');
  } finally {
    await gw.stop();
    await up.close();
  }
});
