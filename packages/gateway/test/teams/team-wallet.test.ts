/**
 * Teams' money (teams/store.ts, teams/wallet.ts, billing/ledger.ts, docs/limits.md#teams): a call through
 * a key of a team reserves and settles against the team's wallet — never its member's balance — and
 * against the team's budget and the member's budget within the team, exactly under 50 concurrent calls
 * on two nodes of one database; the team's model access and rate limits refuse like a user's; a top-up
 * credits once per ref.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startFakeOpenAI } from '../fakes/upstreams/openai.ts';
import { balance, createChannel, createKey, createUser, setPrice, waitFor } from '../relay-fixtures.ts';
import { startChild, stopChild, type Child } from '../child-gateway.ts';
import { addMember, createTeam, getTeam, updateTeam, type TeamInput } from '../../src/teams/store.ts';
import { teamsChanged, topUpTeam } from '../../src/teams/wallet.ts';
import { Ledger } from '../../src/billing/ledger.ts';
import { AdminClient } from '../admin-client.ts';

/** Output only, $1000 per 1M tokens: 500 units a token; a call reserves and is charged 7 tokens. */
const CALL = 7 * 500;

function chat(url: string, key: string, model = 'team-model'): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: 7, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

async function settled(gw: TestGateway): Promise<void> {
  await gw.services.relay.relay.drain();
  await waitFor(async () => (await gw.core.h.db.selectFrom('open_reserves').select('ref').execute()).length === 0, 15_000, 'settled');
}

const wallet = async (gw: TestGateway, teamId: number) => (await getTeam(gw.core.h.db, teamId))!;

/** A team with a wallet of `quota`, one member (with a balance of their own) and a key of the team. */
async function teamWithKey(
  gw: TestGateway,
  o: { quota: number; member?: { budget_quota: number; budget_period: string }; team?: TeamInput },
): Promise<{ teamId: number; userId: number; key: string; keyId: number }> {
  const userId = await createUser(gw, { quota: 1_000_000 });
  const teamId = await createTeam(gw.core.h, { name: `team-${Math.random().toString(36).slice(2, 8)}`, ...o.team });
  await addMember(gw.core.h.db, teamId, userId, 'member', o.member);
  await topUpTeam(gw.core, gw.services.billing.ledger, teamId, o.quota, `test-topup:${teamId}`);
  const k = await createKey(gw, userId);
  await gw.core.h.db.updateTable('api_keys').set({ team_id: teamId }).where('id', '=', k.id).execute();
  await teamsChanged(gw.core);
  await waitFor(() => gw.services.accounts.keys.authenticate(k.key, '127.0.0.1').teamId === teamId, 5000, 'the key cache');
  return { teamId, userId, key: k.key, keyId: k.id };
}

async function setup(gw: TestGateway) {
  const up = await startFakeOpenAI();
  await createChannel(gw, { baseUrl: up.url, models: ['team-model', 'other-model'] });
  await setPrice(gw, 'team-model', { input: 0, output: 1000 });
  await setPrice(gw, 'other-model', { input: 0, output: 1000 });
  return up;
}

test("a call through a team's key is paid by the team's wallet, not its member's balance; a top-up credits once", async () => {
  const gw = await startTestGateway();
  const up = await setup(gw);
  try {
    const t = await teamWithKey(gw, { quota: 100_000 });
    assert.equal((await wallet(gw, t.teamId)).quota, 100_000);
    const again = await topUpTeam(gw.core, gw.services.billing.ledger, t.teamId, 100_000, `test-topup:${t.teamId}`);
    assert.deepEqual(again, { credited: false, quota: 100_000 }, 'a ref credits once');

    const r = await chat(gw.url, t.key);
    assert.equal(r.status, 200, await r.clone().text());
    await settled(gw);
    const w = await wallet(gw, t.teamId);
    assert.deepEqual([w.quota, w.used_quota, w.request_count], [100_000 - CALL, CALL, 1]);
    assert.equal(await balance(gw, t.userId), 1_000_000, "the member's own balance paid nothing");
    const rows = await gw.services.billing.ledger.teamHistory(t.teamId, 10, 0);
    assert.deepEqual(rows.rows.map((x) => x.kind).sort(), ['reserve', 'settle', 'topup']);
    assert.ok(rows.rows.filter((x) => x.kind !== 'topup').every((x) => Number(x.user_id) === t.userId && Number(x.key_id) === t.keyId));

    // A key of a team whose user is no longer its member is refused as unknown.
    const outsider = await createUser(gw, { quota: 1_000_000 });
    const k = await createKey(gw, outsider);
    await gw.core.h.db.updateTable('api_keys').set({ team_id: t.teamId }).where('id', '=', k.id).execute();
    await teamsChanged(gw.core);
    await waitFor(async () => (await chat(gw.url, k.key)).status === 401, 5000, 'the key refused');

    // An empty wallet refuses like an empty balance, while the member still has a balance of their own.
    await topUpTeam(gw.core, gw.services.billing.ledger, t.teamId, -(100_000 - CALL), 'test-empty');
    const refused = await chat(gw.url, t.key);
    assert.equal(refused.status, 429);
    assert.match(((await refused.json()) as any).error.message, /team's balance/);
  } finally {
    await up.close();
    await gw.stop();
  }
});

/** 50 calls at once, alternately on the two nodes; returns how many were served (the rest must be 429). */
async function burst(gw: TestGateway, node2: Child, key: string): Promise<number> {
  const rs = await Promise.all(Array.from({ length: 50 }, (_, i) => chat(i % 2 ? node2.url : gw.url, key)));
  const statuses = rs.map((r) => r.status);
  await Promise.all(rs.map((r) => r.arrayBuffer()));
  assert.ok(
    statuses.every((s) => s === 200 || s === 429),
    JSON.stringify(statuses),
  );
  return statuses.filter((s) => s === 200).length;
}

test("50 concurrent calls on two nodes at the edge of a member's budget and of the team's wallet never go over", async () => {
  const gw = await startTestGateway();
  const up = await setup(gw);
  let node2: Child | undefined;
  try {
    // A member's delegated wallet of 10 calls a day out of a large team wallet.
    const budgeted = await teamWithKey(gw, { quota: 100 * CALL, member: { budget_quota: 10 * CALL, budget_period: 'day' } });
    // A team wallet of exactly 10 calls, no budgets.
    const small = await teamWithKey(gw, { quota: 10 * CALL });
    node2 = await startChild(gw.db, 'teams-2');
    const n2 = node2;
    for (const key of [budgeted.key, small.key]) {
      await waitFor(
        async () => (await fetch(`${n2.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status === 200,
        10_000,
        'node 2 knows the key',
      );
    }

    assert.equal(await burst(gw, n2, budgeted.key), 10);
    await settled(gw);
    const spent = await gw.core.h.db
      .selectFrom('budget_spend')
      .select(['owner', 'spent'])
      .where('owner', '=', `m:${budgeted.teamId}:${budgeted.userId}`)
      .execute();
    assert.deepEqual(
      spent.map((s) => Number(s.spent)),
      [10 * CALL],
    );
    assert.equal((await wallet(gw, budgeted.teamId)).quota, 90 * CALL);
    const late = await chat(gw.url, budgeted.key);
    assert.equal(late.status, 429);
    assert.match(((await late.json()) as any).error.message, /daily budget of the account's share of the team/);

    assert.equal(await burst(gw, n2, small.key), 10);
    await settled(gw);
    const w = await wallet(gw, small.teamId);
    assert.deepEqual([w.quota, w.used_quota, w.request_count], [0, 10 * CALL, 10]);
    assert.equal(await balance(gw, small.userId), 1_000_000);
    assert.equal(await balance(gw, budgeted.userId), 1_000_000);
  } finally {
    await stopChild(node2);
    await up.close();
    await gw.stop();
  }
});

test("a team's model access, rate limits and budget refuse like a user's", async () => {
  const gw = await startTestGateway();
  const up = await setup(gw);
  try {
    const t = await teamWithKey(gw, { quota: 1_000_000, team: { models: ['team-model'], rpm: 2 } });
    const denied = await chat(gw.url, t.key, 'other-model');
    assert.equal(denied.status, 403);
    assert.equal(((await denied.json()) as any).error.code, 'model_not_allowed');
    assert.equal((await chat(gw.url, t.key)).status, 200);
    // The team's rpm counts every key of the team.
    const second = await createKey(gw, t.userId);
    await gw.core.h.db.updateTable('api_keys').set({ team_id: t.teamId }).where('id', '=', second.id).execute();
    await teamsChanged(gw.core);
    await waitFor(() => gw.services.accounts.keys.authenticate(second.key, '127.0.0.1').teamId === t.teamId, 5000, 'the key cache');
    assert.equal((await chat(gw.url, second.key)).status, 200);
    const limited = await chat(gw.url, t.key);
    assert.equal(limited.status, 429);
    assert.match(((await limited.json()) as any).error.message, /this team/);

    // The team's own daily budget of one and a half calls (owner t:<id>), over all its keys.
    await updateTeam(gw.core.h.db, t.teamId, { rpm: 0, models: null, budget_quota: CALL + CALL / 2, budget_period: 'day' });
    await teamsChanged(gw.core);
    await waitFor(() => gw.services.accounts.keys.authenticate(t.key, '127.0.0.1').teamLimits === null, 5000, 'the key cache');
    assert.equal((await chat(gw.url, t.key, 'other-model')).status, 200);
    await settled(gw);
    const over = await chat(gw.url, second.key);
    assert.equal(over.status, 429);
    assert.match(((await over.json()) as any).error.message, /daily budget of the team/);
  } finally {
    await up.close();
    await gw.stop();
  }
});

test("recovery closes a dead node's reserve of a team's key back into the team's wallet and the member's budget", async () => {
  const gw = await startTestGateway();
  try {
    const t = await teamWithKey(gw, { quota: 100_000, member: { budget_quota: 50_000, budget_period: 'day' } });
    const principal = gw.services.accounts.keys.authenticate(t.key, '127.0.0.1');
    const payer = gw.services.billing.budgets.payer(principal, 'team-model');
    assert.equal(payer.teamId, t.teamId);
    // A node process that holds no lease: its open reserve is a dead node's.
    const dead = new Ledger(gw.core);
    await dead.reserve(payer, 'req-dead-team', 20_000, { open: true });
    assert.equal((await wallet(gw, t.teamId)).quota, 80_000);
    const owner = `m:${t.teamId}:${t.userId}`;
    const spent = async () =>
      Number((await gw.core.h.db.selectFrom('budget_spend').select('spent').where('owner', '=', owner).executeTakeFirst())?.spent ?? -1);
    assert.equal(await spent(), 20_000);
    const closed = await gw.services.billing.recovery.round();
    assert.deepEqual(
      closed.map((c) => [c.ref, c.outcome]),
      [['req-dead-team', 'refunded']],
    );
    assert.equal((await wallet(gw, t.teamId)).quota, 100_000);
    assert.equal(await spent(), 0);
    assert.equal(await balance(gw, t.userId), 1_000_000);
    const open = await gw.core.h.db.selectFrom('open_reserves').select('team_id').execute();
    assert.equal(open.length, 0);
  } finally {
    await gw.stop();
  }
});

test("a team's key does not draw on its member's personal plan", async () => {
  const gw = await startTestGateway();
  const up = await setup(gw);
  try {
    const t = await teamWithKey(gw, { quota: 100_000 });
    const admin = await AdminClient.login(gw.url);
    const plan = await admin.ok('POST', '/api/plan', {
      name: 'Personal',
      price_usd: 0,
      windows: [{ every: '5h', quota_usd: 1 }],
      overflow: 'refuse',
    });
    await gw.services.billing.plans.buy(t.userId, plan.id);
    await waitFor(() => gw.services.billing.plans.chargeOf(t.userId, 'team-model'), 5000, 'the plan cache');
    assert.equal(
      gw.services.billing.budgets.payer(gw.services.accounts.keys.authenticate(t.key, '127.0.0.1'), 'team-model').plan,
      undefined,
    );
    assert.equal((await chat(gw.url, t.key)).status, 200);
    await settled(gw);
    assert.equal((await wallet(gw, t.teamId)).quota, 100_000 - CALL);
    const planRows = await gw.core.h.db.selectFrom('budget_spend').select('owner').where('owner', 'like', 'p:%').execute();
    assert.equal(planRows.length, 0, 'nothing was drawn on the plan');
  } finally {
    await up.close();
    await gw.stop();
  }
});
