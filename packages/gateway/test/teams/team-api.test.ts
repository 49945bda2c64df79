/**
 * The team API end to end (http/team-routes.ts, teams/access.ts, admin/teams.ts, admin/team-activity.ts):
 * two teams with a member in both; nobody reaches the other team's anything (every route, table-driven,
 * 404 so ids do not leak); roles inside a team (viewers read usage only, members their own keys and
 * logs); a team admin cannot escalate (top up without the operator's leave, grant or take the owner
 * role, touch another team); an invitation is accepted exactly once under concurrency, an expired one
 * is refused by name; logs and CSV export hide other members' text unless the operator allows it;
 * usage per member and day; every write leaves an audit row.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { FIXTURE_PASSWORD, createUser } from '../relay-fixtures.ts';
import { insertLogs } from '../../src/logs/writer.ts';

let gw: TestGateway;
let root: AdminClient;
const u: Record<string, { id: number; name: string; c: AdminClient }> = {};
let A = 0;
let B = 0;
const keyOf: Record<string, number> = {};

const tag = Math.random().toString(36).slice(2, 7);
async function person(label: string) {
  const name = `${label}-${tag}`;
  const id = await createUser(gw, { username: name, quota: 0 });
  u[label] = { id, name, c: await AdminClient.login(gw.url, name, FIXTURE_PASSWORD) };
}

before(async () => {
  gw = await startTestGateway();
  root = await AdminClient.login(gw.url);
  for (const p of ['ownerA', 'adminA', 'memberA', 'viewerA', 'ownerB', 'memberB', 'both', 'outsider', 'late', 'stranger']) await person(p);
  A = (await root.ok('POST', '/api/team', { name: `alpha-${tag}`, budget_usd: 50, budget_period: 'month' })).id;
  B = (await root.ok('POST', '/api/team', { name: `beta-${tag}` })).id;
  await root.ok('POST', `/api/team/${A}/members`, { username: u.ownerA.name, role: 'owner' });
  await root.ok('POST', `/api/team/${B}/members`, { username: u.ownerB.name, role: 'owner' });
  // The owners add the rest: by username, by user id.
  await u.ownerA.c.ok('POST', `/api/team/${A}/members`, { username: u.adminA.name, role: 'admin' });
  await u.ownerA.c.ok('POST', `/api/team/${A}/members`, { user_id: u.memberA.id, role: 'member', budget_usd: 5, budget_period: 'day' });
  await u.ownerA.c.ok('POST', `/api/team/${A}/members`, { username: u.viewerA.name, role: 'viewer' });
  await u.ownerA.c.ok('POST', `/api/team/${A}/members`, { username: u.both.name, role: 'member' });
  await u.ownerB.c.ok('POST', `/api/team/${B}/members`, { username: u.memberB.name, role: 'member' });
  await u.ownerB.c.ok('POST', `/api/team/${B}/members`, { username: u.both.name, role: 'member' });
  for (const [who, team] of [
    ['ownerA', A],
    ['memberA', A],
    ['both', A],
    ['ownerB', B],
    ['memberB', B],
  ] as const) {
    const k = await u[who].c.ok('POST', `/api/team/${team}/keys`, { name: `${who}-key` });
    assert.equal(k.team_id, team);
    assert.match(k.key, /^sk-/);
    keyOf[who] = k.id;
  }
});

after(async () => {
  await gw?.stop();
});

test('operators only create, list, change and delete teams; a member sees their teams with their role', async () => {
  await u.ownerA.c.fails(403, 'POST', '/api/team', { name: 'mine' });
  await u.ownerA.c.fails(403, 'GET', '/api/team');
  await u.ownerA.c.fails(403, 'PUT', `/api/team/${A}`, { rpm: 5 });
  await u.ownerA.c.fails(403, 'DELETE', `/api/team/${A}`);
  await root.fails(409, 'POST', '/api/team', { name: `alpha-${tag}` });
  await root.fails(400, 'POST', '/api/team', { name: 'x', budget_usd: 5 }, 'budget_period');
  const bad = await root.call('POST', '/api/team', { name: 'x', rpm: -1 });
  assert.equal(bad.status, 400);
  const list = await root.ok('GET', `/api/team?keyword=${tag}`);
  assert.deepEqual(list.items.map((t: { id: number }) => t.id).sort(), [A, B].sort());
  const mine = await u.both.c.ok('GET', '/api/user/teams');
  assert.deepEqual(
    mine.map((t: { id: number; my_role: string }) => [t.id, t.my_role]).sort(),
    [
      [A, 'member'],
      [B, 'member'],
    ].sort(),
  );
  assert.equal((await u.viewerA.c.ok('GET', `/api/team/${A}`)).my_role, 'viewer');
  assert.deepEqual(await u.outsider.c.ok('GET', '/api/user/teams'), []);
});

test('nobody reaches a team they do not belong to: every team route answers 404', async () => {
  const routes = (t: number, other: { member: number; key: number }): Array<[string, string, unknown?]> => [
    ['GET', `/api/team/${t}`],
    ['POST', `/api/team/${t}/quota`, { quota_usd: 1, ref: 'x' }],
    ['GET', `/api/team/${t}/members`],
    ['POST', `/api/team/${t}/members`, { username: u.outsider.name, role: 'member' }],
    ['PUT', `/api/team/${t}/members/${other.member}`, { role: 'viewer' }],
    ['DELETE', `/api/team/${t}/members/${other.member}`],
    ['GET', `/api/team/${t}/invitations`],
    ['POST', `/api/team/${t}/invitations`, { email: 'x@example.com', role: 'member' }],
    ['DELETE', `/api/team/${t}/invitations/1`],
    ['GET', `/api/team/${t}/keys`],
    ['POST', `/api/team/${t}/keys`, { name: 'sneak' }],
    ['DELETE', `/api/team/${t}/keys/${other.key}`],
    ['GET', `/api/team/${t}/usage`],
    ['GET', `/api/team/${t}/logs`],
    ['GET', `/api/team/${t}/logs/export`],
    ['POST', `/api/team/${t}/redeem`, { key: 'not-a-code' }],
    ['GET', `/api/team/${t}/plan`],
    ['POST', `/api/team/${t}/plan`, { plan_id: 1 }],
  ];
  const cases: Array<[string, number, { member: number; key: number }]> = [
    ['ownerA', B, { member: u.memberB.id, key: keyOf.memberB }],
    ['adminA', B, { member: u.memberB.id, key: keyOf.memberB }],
    ['memberA', B, { member: u.memberB.id, key: keyOf.ownerB }],
    ['viewerA', B, { member: u.ownerB.id, key: keyOf.ownerB }],
    ['ownerB', A, { member: u.memberA.id, key: keyOf.memberA }],
    ['memberB', A, { member: u.ownerA.id, key: keyOf.ownerA }],
    ['outsider', A, { member: u.memberA.id, key: keyOf.memberA }],
    ['outsider', 999_999, { member: u.memberA.id, key: keyOf.memberA }],
  ];
  for (const [who, team, other] of cases) {
    for (const [method, path, body] of routes(team, other)) {
      const r = await u[who].c.call(method, path, body);
      assert.equal(r.status, 404, `${who} ${method} ${path}: ${r.text}`);
    }
  }
  // A member of both teams cannot reach one team's key through the other.
  await u.both.c.fails(404, 'DELETE', `/api/team/${A}/keys/${keyOf.memberB}`);
  await u.ownerA.c.fails(404, 'DELETE', `/api/team/${A}/keys/${keyOf.ownerB}`);
  // Nothing was changed by any of it.
  const bMembers = await u.ownerB.c.ok('GET', `/api/team/${B}/members`);
  assert.deepEqual(bMembers.map((m: { user_id: number }) => m.user_id).sort(), [u.ownerB.id, u.memberB.id, u.both.id].sort());
  const bKeys = await u.ownerB.c.ok('GET', `/api/team/${B}/keys`);
  assert.deepEqual(bKeys.items.map((k: { id: number }) => k.id).sort(), [keyOf.ownerB, keyOf.memberB].sort());
});

test('roles inside a team: owners and admins see every key, members their own, viewers usage only', async () => {
  const all = await u.adminA.c.ok('GET', `/api/team/${A}/keys`);
  assert.deepEqual(all.items.map((k: { id: number }) => k.id).sort(), [keyOf.ownerA, keyOf.memberA, keyOf.both].sort());
  const own = await u.memberA.c.ok('GET', `/api/team/${A}/keys`);
  assert.deepEqual(
    own.items.map((k: { id: number }) => k.id),
    [keyOf.memberA],
  );
  await u.viewerA.c.fails(403, 'GET', `/api/team/${A}/keys`);
  await u.viewerA.c.fails(403, 'POST', `/api/team/${A}/keys`, { name: 'v' });
  await u.viewerA.c.fails(403, 'GET', `/api/team/${A}/members`);
  await u.viewerA.c.fails(403, 'GET', `/api/team/${A}/logs`);
  await u.viewerA.c.ok('GET', `/api/team/${A}/usage`);
  await u.memberA.c.fails(403, 'POST', `/api/team/${A}/members`, { username: u.outsider.name, role: 'member' });
  await u.memberA.c.fails(403, 'GET', `/api/team/${A}/invitations`);
  await u.memberA.c.fails(404, 'DELETE', `/api/team/${A}/keys/${keyOf.ownerA}`);
  await u.memberA.c.fails(400, 'POST', `/api/team/${A}/keys`, { name: 'for-someone', user_id: u.ownerA.id }, 'user_id');
  // An admin revokes a member's key.
  const k = await u.memberA.c.ok('POST', `/api/team/${A}/keys`, { name: 'short-lived' });
  await u.adminA.c.ok('DELETE', `/api/team/${A}/keys/${k.id}`);
  assert.deepEqual(
    (await u.memberA.c.ok('GET', `/api/team/${A}/keys`)).items.map((x: { id: number }) => x.id),
    [keyOf.memberA],
  );
  // Budgets: an admin sets a member's delegated wallet; a budget needs its period.
  const m = await u.adminA.c.ok('PUT', `/api/team/${A}/members/${u.memberA.id}`, { budget_usd: 2.5, budget_period: 'week' });
  assert.deepEqual([m.budget_usd, m.budget_period], [2.5, 'week']);
  await u.adminA.c.fails(400, 'PUT', `/api/team/${A}/members/${u.memberA.id}`, { budget_usd: 1 }, 'budget_period');
  const bad = await u.adminA.c.call('PUT', `/api/team/${A}/members/${u.memberA.id}`, { role: 'king' });
  assert.equal(bad.status, 400);
});

test('a team admin cannot escalate: no top-up without leave, no owner role, no other team', async () => {
  const adm = u.adminA.c;
  await adm.fails(403, 'POST', `/api/team/${A}/quota`, { quota_usd: 10, ref: 'r1' });
  await u.ownerA.c.fails(403, 'POST', `/api/team/${A}/quota`, { quota_usd: 10, ref: 'r1' });
  await u.memberA.c.fails(403, 'POST', `/api/team/${A}/quota`, { quota_usd: 10, ref: 'r1' });
  await adm.fails(403, 'PUT', `/api/team/${A}/members/${u.adminA.id}`, { role: 'owner' });
  await adm.fails(403, 'PUT', `/api/team/${A}/members/${u.ownerA.id}`, { role: 'member' });
  await adm.fails(403, 'DELETE', `/api/team/${A}/members/${u.ownerA.id}`);
  await adm.fails(403, 'POST', `/api/team/${A}/members`, { username: u.outsider.name, role: 'owner' });
  await adm.fails(403, 'POST', `/api/team/${A}/invitations`, { email: 'boss@example.com', role: 'owner' });
  await adm.fails(404, 'PUT', `/api/team/${B}/members/${u.adminA.id}`, { role: 'owner' });
  // The last owner stays.
  const last = await u.ownerA.c.fails(409, 'PUT', `/api/team/${A}/members/${u.ownerA.id}`, { role: 'admin' });
  assert.equal(last.body.message.includes('owner'), true);
  const members = await root.ok('GET', `/api/team/${A}/members`);
  assert.equal(members.find((m: { user_id: number }) => m.user_id === u.ownerA.id).role, 'owner');
  assert.equal(members.find((m: { user_id: number }) => m.user_id === u.adminA.id).role, 'admin');

  // The operator tops up, once per ref.
  const t1 = await root.ok('POST', `/api/team/${A}/quota`, { quota_usd: 10, ref: 'op-1' });
  const t2 = await root.ok('POST', `/api/team/${A}/quota`, { quota_usd: 10, ref: 'op-1' });
  assert.equal(t1.quota_usd, 10);
  assert.equal(t2.quota_usd, 10, 'the same ref credits once');
  // With the operator's leave, the team's admins top up too.
  await root.ok('PUT', `/api/team/${A}`, { settings: { allow_admin_topup: true } });
  const t3 = await adm.ok('POST', `/api/team/${A}/quota`, { quota_usd: 2, ref: 'adm-1' });
  assert.equal(t3.quota_usd, 12);
  await u.memberA.c.fails(403, 'POST', `/api/team/${A}/quota`, { quota_usd: 2, ref: 'm-1' });
  await root.ok('PUT', `/api/team/${A}`, { settings: { allow_admin_topup: false } });
  await adm.fails(403, 'POST', `/api/team/${A}/quota`, { quota_usd: 2, ref: 'adm-2' });
  // An owner may make another owner; then the first can step down.
  await u.ownerA.c.ok('PUT', `/api/team/${A}/members/${u.adminA.id}`, { role: 'owner' });
  await u.ownerA.c.ok('PUT', `/api/team/${A}/members/${u.adminA.id}`, { role: 'admin' });
});

test('an invitation is accepted exactly once, even by many at once; expired and revoked ones are refused', async () => {
  const inv = await u.ownerA.c.ok('POST', `/api/team/${A}/invitations`, { email: 'New.Person@Example.com', role: 'member' });
  assert.equal(inv.mailed, false);
  assert.equal(inv.invitation.email, 'new.person@example.com');
  const token = new URL(inv.link, gw.url).searchParams.get('token')!;
  assert.ok(token.length > 20);
  assert.ok(!JSON.stringify(await u.ownerA.c.ok('GET', `/api/team/${A}/invitations`)).includes(token), 'the token is never listed');
  const racers = ['outsider', 'late', 'memberB', 'ownerB', 'viewerA'];
  const answers = await Promise.all(racers.map((r) => u[r].c.call('POST', '/api/team/invitations/accept', { token })));
  const won = answers.filter((a) => a.status === 200);
  assert.equal(won.length, 1, answers.map((a) => `${a.status} ${a.text}`).join('\n'));
  assert.ok(
    answers.every((a) => a.status === 200 || a.status === 409),
    answers.map((a) => a.status).join(),
  );
  const members = await root.ok('GET', `/api/team/${A}/members`);
  const joined = racers.filter((r) => r !== 'viewerA' && members.some((m: { user_id: number }) => m.user_id === u[r].id));
  assert.ok(joined.length <= 1);

  const old = await u.ownerA.c.ok('POST', `/api/team/${A}/invitations`, { email: 'late@example.com', role: 'viewer' });
  await gw.core.h.db
    .updateTable('team_invitations')
    .set({ expires_at: Date.now() - 1000 })
    .where('id', '=', old.invitation.id)
    .execute();
  const expired = await u.late.c.fails(410, 'POST', '/api/team/invitations/accept', {
    token: new URL(old.link, gw.url).searchParams.get('token'),
  });
  assert.match(expired.body.message, /expired/);

  const revoked = await u.ownerA.c.ok('POST', `/api/team/${A}/invitations`, { email: 'late@example.com', role: 'viewer' });
  await u.ownerA.c.ok('DELETE', `/api/team/${A}/invitations/${revoked.invitation.id}`);
  await u.late.c.fails(409, 'POST', '/api/team/invitations/accept', { token: new URL(revoked.link, gw.url).searchParams.get('token') });
  await u.late.c.fails(400, 'POST', '/api/team/invitations/accept', { token: 'ti_nonsense' });
  await u.late.c.fails(400, 'POST', '/api/team/invitations/accept', {}, 'token');
  await u.ownerA.c.fails(400, 'POST', `/api/team/${A}/invitations`, { email: 'not-an-address', role: 'member' }, 'email');
});

test("team logs and CSV: the team keys' rows only; others' text hidden unless the operator allows; usage per member and day", async () => {
  const day = 86_400_000;
  const t0 = Math.floor(Date.now() / day) * day - 2 * day + 3_600_000;
  const row = (who: string, at: number, quota: number, content: string) => ({
    created_at: at,
    type: 'consume',
    request_id: `req-${who}-${at}`,
    user_id: u[who].id,
    username: u[who].name,
    key_id: keyOf[who],
    key_name: `${who}-key`,
    model: 'm',
    prompt_tokens: 10,
    completion_tokens: 5,
    quota,
    content,
    latency_ms: 100,
    cached_tokens: 0,
    is_stream: 0,
    attempts: 1,
  });
  await insertLogs(gw.core.h, [
    row('ownerA', t0, 100, 'owner text'),
    row('memberA', t0 + 1000, 200, 'member secret'),
    row('memberA', t0 + day, 300, 'member secret 2'),
    row('memberB', t0 + 2000, 999, 'team b text'),
  ]);
  const owner = await u.ownerA.c.ok('GET', `/api/team/${A}/logs`);
  assert.equal(owner.items.length, 3);
  assert.ok(owner.items.every((r: { key_id: number }) => [keyOf.ownerA, keyOf.memberA].includes(r.key_id)));
  const contents = owner.items.map((r: { user_id: number; content: string | null }) => [r.user_id === u.ownerA.id, r.content]);
  assert.deepEqual(
    contents.filter((c: [boolean, unknown]) => !c[0]).map((c: [boolean, unknown]) => c[1]),
    [null, null],
  );
  assert.ok(contents.some((c: [boolean, unknown]) => c[1] === 'owner text'));
  // A filter by another team's key name finds nothing of it.
  assert.equal((await u.ownerA.c.ok('GET', `/api/team/${A}/logs?key_name=memberB-key`)).items.length, 0);
  const member = await u.memberA.c.ok('GET', `/api/team/${A}/logs`);
  assert.deepEqual(member.items.map((r: { content: string }) => r.content).sort(), ['member secret', 'member secret 2']);

  const csv = await fetch(`${gw.url}/api/team/${A}/logs/export`, { headers: { authorization: `Bearer ${u.adminA.c.token}` } });
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get('content-type')!, /text\/csv/);
  const text = await csv.text();
  const lines = text.trim().split('\r\n');
  assert.equal(lines.length, 4, text);
  assert.ok(lines[0].startsWith('id,time,'));
  assert.ok(!text.includes('member secret') && !text.includes('owner text') && !text.includes('team b'), text);
  // Someone in no team (the invitation race above may have let any of its racers into team A).
  const outsiderCsv = await fetch(`${gw.url}/api/team/${A}/logs/export`, { headers: { authorization: `Bearer ${u.stranger.c.token}` } });
  assert.equal(outsiderCsv.status, 404);

  await root.ok('PUT', `/api/team/${A}`, { settings: { share_bodies: true } });
  const shared = await u.adminA.c.ok('GET', `/api/team/${A}/logs`);
  assert.deepEqual(shared.items.map((r: { content: string }) => r.content).sort(), ['member secret', 'member secret 2', 'owner text']);
  await root.ok('PUT', `/api/team/${A}`, { settings: { share_bodies: false } });

  const usage = await u.viewerA.c.ok('GET', `/api/team/${A}/usage?from=${t0 - day}&to=${t0 + 2 * day}`);
  assert.equal(usage.totals.quota, 600);
  assert.equal(usage.totals.calls, 3);
  assert.deepEqual(
    usage.members.map((m: { user_id: number; quota: number }) => [m.user_id, m.quota]),
    [
      [u.memberA.id, 500],
      [u.ownerA.id, 100],
    ],
  );
  assert.deepEqual(
    usage.days.map((d: { day: number; quota: number }) => [d.day, d.quota]),
    [
      [t0 - 3_600_000, 300],
      [t0 - 3_600_000 + day, 300],
    ],
  );
  await u.viewerA.c.fails(400, 'GET', `/api/team/${A}/usage?from=${t0}&to=${t0 - 1}`, undefined, 'from');
});

test('members leave, are removed or made viewers (their team keys stop); deleting a team disables its keys; every write is audited', async () => {
  const k = await u.both.c.ok('POST', `/api/team/${B}/keys`, { name: 'leaving' });
  await u.both.c.ok('DELETE', `/api/team/${B}/members/${u.both.id}`);
  const status = async (id: number) =>
    Number((await gw.core.h.db.selectFrom('api_keys').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status);
  assert.equal(await status(k.id), 2);
  await u.both.c.fails(404, 'GET', `/api/team/${B}/keys`);
  await u.ownerB.c.fails(409, 'DELETE', `/api/team/${B}/members/${u.ownerB.id}`);
  // A member made a viewer keeps no working team key.
  const mk = await u.memberB.c.ok('POST', `/api/team/${B}/keys`, { name: 'demoted' });
  await u.ownerB.c.ok('PUT', `/api/team/${B}/members/${u.memberB.id}`, { role: 'viewer' });
  assert.equal(await status(mk.id), 2);
  assert.equal(await status(keyOf.memberB), 2);
  const c = await root.ok('POST', '/api/team', { name: `gamma-${tag}` });
  await root.ok('POST', `/api/team/${c.id}/members`, { username: u.outsider.name, role: 'owner' });
  const ck = await u.outsider.c.ok('POST', `/api/team/${c.id}/keys`, { name: 'c' });
  await root.ok('DELETE', `/api/team/${c.id}`);
  assert.equal(await status(ck.id), 2);
  await u.outsider.c.fails(404, 'GET', `/api/team/${c.id}`);
  await root.fails(404, 'GET', `/api/team/${c.id}`);

  const rows = await gw.core.h.db
    .selectFrom('audit_log')
    .select(['action', 'target_id', 'actor_id'])
    .where('target_type', '=', 'team')
    .execute();
  const actions = new Set(rows.map((r) => r.action));
  for (const a of [
    'team.create',
    'team.update',
    'team.delete',
    'team.topup',
    'team.member.add',
    'team.member.update',
    'team.member.remove',
    'team.invitation.create',
    'team.invitation.revoke',
    'team.invitation.accept',
  ])
    assert.ok(actions.has(a), `audit ${a}`);
  const adds = rows.filter((r) => r.action === 'team.member.add' && Number(r.target_id) === A);
  assert.ok(
    adds.some((r) => Number(r.actor_id) === u.ownerA.id),
    'writes by team owners are audited as theirs',
  );
  const keyRows = await gw.core.h.db
    .selectFrom('audit_log')
    .select('action')
    .where('target_type', '=', 'key')
    .where('action', 'in', ['key.create', 'key.delete'])
    .execute();
  assert.ok(keyRows.length >= 6);
});
