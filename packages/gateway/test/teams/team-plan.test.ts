/**
 * A team's plan (billing/plans.ts, GET and POST /api/team/:id/plan, docs/billing.md#plans): the team's
 * owners and admins (and operators) buy or renew it from the team's wallet — charged once, exactly under
 * concurrent purchases, audited; members and viewers cannot, another team's admin does not see the team.
 * The calls of the team's keys draw on the team's windows first and past them are refused or (overflow
 * `balance`) paid by the team's wallet; the member's personal keys are not touched by the team's plan.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startFakeOpenAI } from '../fakes/upstreams/openai.ts';
import { AdminClient } from '../admin-client.ts';
import { FIXTURE_PASSWORD, balance, createChannel, createKey, createUser, setPrice, waitFor } from '../relay-fixtures.ts';
import { getTeam } from '../../src/teams/store.ts';
import { teamsChanged, topUpTeam } from '../../src/teams/wallet.ts';

/** Output only, $1000 per 1M tokens: 500 units a token; a call reserves and is charged 7 tokens. */
const CALL = 7 * 500;
const DAY = 86_400_000;

let gw: TestGateway;
let up: Awaited<ReturnType<typeof startFakeOpenAI>>;
let root: AdminClient;
let team = 0;
let other = 0;
const tag = Math.random().toString(36).slice(2, 7);
const c: Record<string, AdminClient> = {};
const ids: Record<string, number> = {};

before(async () => {
  gw = await startTestGateway();
  up = await startFakeOpenAI();
  await createChannel(gw, { baseUrl: up.url, models: ['team-model', 'other-model'] });
  await setPrice(gw, 'team-model', { input: 0, output: 1000 });
  await setPrice(gw, 'other-model', { input: 0, output: 1000 });
  root = await AdminClient.login(gw.url);
  team = (await root.ok('POST', '/api/team', { name: `plan-${tag}` })).id;
  other = (await root.ok('POST', '/api/team', { name: `plan-other-${tag}` })).id;
  for (const [who, role] of [
    ['owner', 'owner'],
    ['admin', 'admin'],
    ['member', 'member'],
    ['viewer', 'viewer'],
    ['outsider', null],
  ] as const) {
    const username = `tp-${who}-${tag}`;
    ids[who] = await createUser(gw, { username, quota: 1_000_000 });
    if (role) await root.ok('POST', `/api/team/${team}/members`, { username, role });
    c[who] = await AdminClient.login(gw.url, username, FIXTURE_PASSWORD);
  }
  // The outsider is an admin — of another team.
  await root.ok('POST', `/api/team/${other}/members`, { username: `tp-outsider-${tag}`, role: 'admin' });
});

after(async () => {
  await gw?.stop();
  await up?.close();
});

const wallet = async (id = team) => (await getTeam(gw.core.h.db, id))!;

async function settled(): Promise<void> {
  await gw.services.relay.relay.drain();
  await waitFor(async () => (await gw.core.h.db.selectFrom('open_reserves').select('ref').execute()).length === 0, 15_000, 'settled');
}

function chat(key: string, model = 'team-model'): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: 7, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

async function planRows(): Promise<Map<string, number>> {
  const rows = await gw.core.h.db.selectFrom('budget_spend').select(['owner', 'spent']).where('owner', 'like', 'p:%').execute();
  const out = new Map<string, number>();
  for (const r of rows) out.set(r.owner, (out.get(r.owner) ?? 0) + Number(r.spent));
  return out;
}

test("owners and admins buy the team's plan from its wallet, once per purchase; members, viewers and other teams' admins cannot", async () => {
  const plan = await root.ok('POST', '/api/plan', {
    name: `Team-${tag}`,
    price_usd: 0.5,
    duration_days: 30,
    windows: [{ every: '5h', quota: 2 * CALL }],
    models: ['team-model'],
    overflow: 'refuse',
  });
  const price = plan.price_quota as number;
  assert.ok(price > 0);
  await topUpTeam(gw.core, gw.services.billing.ledger, team, 3 * price, `tp-topup:${team}`);

  await c.member.fails(403, 'POST', `/api/team/${team}/plan`, { plan_id: plan.id });
  await c.viewer.fails(403, 'POST', `/api/team/${team}/plan`, { plan_id: plan.id });
  await c.outsider.fails(404, 'POST', `/api/team/${team}/plan`, { plan_id: plan.id });
  await c.outsider.fails(404, 'GET', `/api/team/${team}/plan`);
  assert.equal((await wallet()).quota, 3 * price, 'nothing was taken');
  const none = await c.member.ok('GET', `/api/team/${team}/plan`);
  assert.equal(none.plan, null);
  assert.ok((none.on_sale as Array<{ id: number }>).some((p) => p.id === plan.id));

  const bought = await c.admin.ok('POST', `/api/team/${team}/plan`, { plan_id: plan.id });
  assert.equal(bought.plan.id, plan.id);
  assert.equal(bought.subscription.expires_at - bought.subscription.started_at, 30 * DAY);
  assert.equal((await wallet()).quota, 2 * price, 'the price was taken from the wallet once');
  assert.equal(await balance(gw, ids.admin), 1_000_000, "the buyer's own balance paid nothing");
  const seen = await c.member.ok('GET', `/api/team/${team}/plan`);
  assert.equal(seen.plan.id, plan.id);
  assert.deepEqual(
    seen.windows.map((w: { every: string; used: number }) => [w.every, w.used]),
    [['5h', 0]],
  );
  // The admin's own plan is still none: the team's plan is the team's.
  assert.equal((await c.admin.ok('GET', '/api/user/plan')).plan, null);

  // Renewals at once by the owner and the admin: the wallet pays for exactly two more, each extends once.
  const tries = await Promise.all(
    Array.from({ length: 6 }, (_, i) => (i % 2 ? c.owner : c.admin).call('POST', `/api/team/${team}/plan`, { plan_id: plan.id })),
  );
  const okCount = tries.filter((r) => r.status === 200).length;
  assert.equal(okCount, 2, tries.map((r) => `${r.status} ${r.text}`).join('\n'));
  for (const r of tries.filter((x) => x.status !== 200)) assert.match(r.text, /balance is too low/);
  assert.equal((await wallet()).quota, 0);
  const renewed = await c.owner.ok('GET', `/api/team/${team}/plan`);
  assert.equal(renewed.subscription.expires_at, bought.subscription.expires_at + 2 * 30 * DAY);
  const rows = await gw.services.billing.ledger.teamHistory(team, 50, 0);
  assert.equal(rows.rows.filter((x) => x.kind === 'plan').length, 3, 'one ledger row per purchase');
  const audit = await gw.core.h.db
    .selectFrom('audit_log')
    .select('action')
    .where('action', '=', 'team.plan')
    .where('target_id', '=', String(team))
    .execute();
  assert.equal(audit.length, 3);
  // The other team holds no plan.
  assert.equal((await root.ok('GET', `/api/team/${other}/plan`)).plan, null);
});

test("a team key's calls draw on the team's windows, then are refused or paid by the team's wallet; personal keys are untouched", async () => {
  const sub = await gw.core.h.db
    .selectFrom('plan_subscriptions')
    .select(['id', 'plan_id'])
    .where('team_id', '=', team)
    .executeTakeFirstOrThrow();
  const owner = `p:${sub.id}`;
  await topUpTeam(gw.core, gw.services.billing.ledger, team, 100_000, `tp-topup2:${team}`);
  const teamKey = await createKey(gw, ids.member);
  await gw.core.h.db.updateTable('api_keys').set({ team_id: team }).where('id', '=', teamKey.id).execute();
  await teamsChanged(gw.core);
  await waitFor(() => gw.services.accounts.keys.authenticate(teamKey.key, '127.0.0.1').teamId === team, 5000, 'the key cache');
  await waitFor(() => gw.services.billing.plans.chargeOfTeam(team, 'team-model'), 5000, 'the plan cache');
  const personal = await createKey(gw, ids.member);
  const before = await wallet();

  // Two calls fill the 5-hour window; the wallet does not move, the team counts the calls.
  for (let i = 0; i < 2; i++) assert.equal((await chat(teamKey.key)).status, 200);
  await settled();
  assert.equal((await planRows()).get(owner), 2 * CALL);
  let w = await wallet();
  assert.equal(w.quota, before.quota);
  assert.deepEqual([w.used_quota - before.used_quota, w.request_count - before.request_count], [2 * CALL, 2]);
  const view = await c.admin.ok('GET', `/api/team/${team}/plan`);
  assert.equal(view.windows[0].used, 2 * CALL);

  // Past the window: refused (overflow `refuse`), with the window's reset.
  const refused = await chat(teamKey.key);
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
  assert.match(((await refused.json()) as { error: { message: string } }).error.message, /5h window of plan "Team-/);

  // A model the plan does not cover is paid by the team's wallet.
  assert.equal((await chat(teamKey.key, 'other-model')).status, 200);
  await settled();
  assert.equal((await wallet()).quota, before.quota - CALL);

  // The member's personal key: the team's plan does not apply; their own balance pays.
  assert.equal((await chat(personal.key)).status, 200);
  await settled();
  assert.equal(await balance(gw, ids.member), 1_000_000 - CALL);
  assert.equal((await planRows()).get(owner), 2 * CALL, "the personal call left the team's window alone");

  // The member's own plan does not apply to the team key either.
  const mine = await root.ok('POST', '/api/plan', { name: `Mine-${tag}`, price_usd: 0, windows: [{ every: '5h', quota: 100 * CALL }] });
  await c.member.ok('POST', '/api/user/plan', { plan_id: mine.id });
  await waitFor(() => gw.services.billing.plans.chargeOf(ids.member, 'team-model'), 5000, 'the plan cache');
  assert.equal((await chat(teamKey.key)).status, 429, "the team key is held to the team's window, not the member's plan");

  // Overflow `balance`: past the window the team's wallet pays; the window stays as it was.
  await root.ok('PUT', `/api/plan/${sub.plan_id}`, { overflow: 'balance' });
  await waitFor(() => gw.services.billing.plans.chargeOfTeam(team, 'team-model')?.overflow === 'balance', 5000, 'the plan cache');
  assert.equal((await chat(teamKey.key)).status, 200);
  await settled();
  w = await wallet();
  assert.equal(w.quota, before.quota - 2 * CALL);
  assert.equal((await planRows()).get(owner), 2 * CALL);
  assert.equal(await balance(gw, ids.member), 1_000_000 - CALL, "the member's balance paid nothing for team calls");
});
