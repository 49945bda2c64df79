/**
 * Redemption codes into a team's wallet (POST /api/team/:id/redeem): the team's owners and admins (and
 * operators) redeem; members and viewers cannot, outsiders do not see the team; a code credits once
 * however many redeem it at once; a code that grants a plan is refused and stays unused; guesses of codes
 * that do not exist count as for a person's redemption.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { FIXTURE_PASSWORD, createUser } from '../relay-fixtures.ts';

let gw: TestGateway;
let root: AdminClient;
let team = 0;
const tag = Math.random().toString(36).slice(2, 7);
const c: Record<string, AdminClient> = {};

before(async () => {
  gw = await startTestGateway();
  root = await AdminClient.login(gw.url);
  team = (await root.ok('POST', '/api/team', { name: `redeem-${tag}` })).id;
  for (const [who, role] of [
    ['owner', 'owner'],
    ['admin', 'admin'],
    ['member', 'member'],
    ['viewer', 'viewer'],
    ['outsider', null],
  ] as const) {
    const username = `${who}-${tag}`;
    await createUser(gw, { username, quota: 0 });
    if (role) await root.ok('POST', `/api/team/${team}/members`, { username, role });
    c[who] = await AdminClient.login(gw.url, username, FIXTURE_PASSWORD);
  }
});

after(async () => {
  await gw?.close();
});

const code = async (usd: number, more: Record<string, unknown> = {}) =>
  ((await root.ok('POST', '/api/redemption', { name: `c-${tag}`, quota_usd: usd, ...more })) as string[])[0];
const wallet = async () => (await root.ok('GET', `/api/team/${team}`)).quota_usd as number;

test("owners and admins redeem a code into the team's wallet; members, viewers and outsiders cannot", async () => {
  const ten = await code(10);
  await c.member.fails(403, 'POST', `/api/team/${team}/redeem`, { key: ten });
  await c.viewer.fails(403, 'POST', `/api/team/${team}/redeem`, { key: ten });
  await c.outsider.fails(404, 'POST', `/api/team/${team}/redeem`, { key: ten });
  assert.equal(await wallet(), 0);
  const r = await c.owner.ok('POST', `/api/team/${team}/redeem`, { key: ten });
  assert.equal(r.quota_usd, 10);
  assert.equal(await wallet(), 10);
  // The owner's own balance is untouched; the code is used, by the owner.
  assert.equal((await c.owner.ok('GET', '/api/user/self')).quota_usd, 0);
  const again = await c.admin.fails(400, 'POST', `/api/team/${team}/redeem`, { key: ten });
  assert.match(again.text, /used/);
  await c.admin.ok('POST', `/api/team/${team}/redeem`, { key: await code(2.5) });
  assert.equal(await wallet(), 12.5);
  const audit = await gw.core.h.db.selectFrom('audit_log').select('action').where('target_type', '=', 'team').execute();
  assert.ok(audit.some((a) => a.action === 'team.redeem'));
});

test('a code credits the team once however many redeem it at once', async () => {
  const before = await wallet();
  const one = await code(7);
  const answers = await Promise.all(
    Array.from({ length: 12 }, (_, i) => (i % 2 ? c.owner : c.admin).call('POST', `/api/team/${team}/redeem`, { key: one })),
  );
  assert.equal(answers.filter((a) => a.status === 200).length, 1);
  assert.ok(answers.every((a) => a.status === 200 || a.status === 400));
  assert.equal(await wallet(), before + 7);
});

test('a code that grants a plan is refused for a team and stays unused', async () => {
  const plan = await root.ok('POST', '/api/plan', {
    name: `p-${tag}`,
    price_usd: 0,
    windows: [{ every: '5h', quota_usd: 1 }],
    overflow: 'refuse',
  });
  const planCode = await code(0, { plan_id: plan.id, quota_usd: undefined });
  const before = await wallet();
  await c.owner.fails(400, 'POST', `/api/team/${team}/redeem`, { key: planCode }, 'key');
  assert.equal(await wallet(), before);
  // Still redeemable by a person.
  await c.owner.ok('POST', '/api/user/topup', { key: planCode });
});

test('guesses of codes that do not exist are limited as for a person', async () => {
  await root.ok('PUT', '/api/option', { key: 'RedemptionAttemptLimit', value: '2' });
  try {
    for (let i = 0; i < 2; i++) await c.admin.fails(400, 'POST', `/api/team/${team}/redeem`, { key: `GH-NOPE${i}-AAAA-BBBB` });
    await c.admin.fails(429, 'POST', `/api/team/${team}/redeem`, { key: await code(1) });
  } finally {
    await root.ok('PUT', '/api/option', { key: 'RedemptionAttemptLimit', value: '10' });
  }
});
