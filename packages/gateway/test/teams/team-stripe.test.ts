/**
 * Stripe checkout into a team's wallet (POST /api/team/:id/stripe/pay): the Stripe SDK in the gateway
 * talks to a loopback server that answers as Stripe does (test/fakes/upstreams/stripe.ts) and events are
 * signed with the SDK's helper. The team's owners and admins start one (members cannot, outsiders do not
 * see the team); the paid event credits the team's wallet — not the payer's balance — once however often
 * and however concurrently it is delivered; the checkout returns to the team's page.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { FIXTURE_PASSWORD, createUser } from '../relay-fixtures.ts';
import { deliverStripe, sessionEvent, startFakeStripe, type FakeStripe } from '../fakes/upstreams/stripe.ts';

const SECRET_KEY = 'sk_test_gatehouse_team_0123456789';
const WEBHOOK_SECRET = 'whsec_gatehouse_team_secret';

let fake: FakeStripe;
let gw: TestGateway;
let root: AdminClient;
let team = 0;
const c: Record<string, { id: number; client: AdminClient }> = {};
const tag = Math.random().toString(36).slice(2, 7);

before(async () => {
  fake = await startFakeStripe();
  gw = await startTestGateway({ env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: fake.url } });
  root = await AdminClient.login(gw.url);
  team = (await root.ok('POST', '/api/team', { name: `paying-${tag}` })).id;
  for (const [who, role] of [
    ['owner', 'owner'],
    ['member', 'member'],
    ['outsider', null],
  ] as const) {
    const username = `${who}-${tag}`;
    const id = await createUser(gw, { username, quota: 0 });
    if (role) await root.ok('POST', `/api/team/${team}/members`, { username, role });
    c[who] = { id, client: await AdminClient.login(gw.url, username, FIXTURE_PASSWORD) };
  }
});

after(async () => {
  await gw?.stop();
  await fake?.close();
});

const wallet = async () => Number((await root.ok('GET', `/api/team/${team}`)).quota);
const balance = async (id: number) =>
  Number((await gw.core.h.db.selectFrom('users').select('quota').where('id', '=', id).executeTakeFirstOrThrow()).quota);

test("a paid checkout credits the team's wallet once, not the payer's balance", async () => {
  await c.member.client.fails(403, 'POST', `/api/team/${team}/stripe/pay`, { amount: 5 });
  await c.outsider.client.fails(404, 'POST', `/api/team/${team}/stripe/pay`, { amount: 5 });
  await c.owner.client.fails(400, 'POST', `/api/team/${team}/stripe/pay`, { amount: 0.5 }, 'amount');

  const started = await c.owner.client.ok('POST', `/api/team/${team}/stripe/pay`, { amount: 4 });
  assert.equal(started.quota, 2_000_000);
  const session = fake.created.at(-1)!;
  assert.equal(started.url, `${fake.url}/c/pay/${session.id}`);
  assert.match(session.params.get('success_url')!, new RegExp(`/team/${team}\\?payment=`));

  const paid = sessionEvent('checkout.session.completed', {
    id: session.id,
    client_reference_id: started.trade_no,
    payment_status: 'paid',
    amount_total: 400,
    currency: 'usd',
  });
  const outs = await Promise.all(Array.from({ length: 8 }, () => deliverStripe(gw.url, paid, WEBHOOK_SECRET)));
  for (const o of outs) assert.equal(o.status, 200);
  assert.equal(outs.filter((o) => o.body.message === 'credited').length, 1);
  assert.equal((await deliverStripe(gw.url, paid, WEBHOOK_SECRET)).body.message, 'already_credited');
  assert.equal(await wallet(), 2_000_000);
  assert.equal(await balance(c.owner.id), 0);
  const rows = await gw.core.h.db.selectFrom('ledger').selectAll().where('ref', '=', session.id).execute();
  assert.deepEqual(
    rows.map((r) => [r.kind, Number(r.amount), Number(r.team_id)]),
    [['topup', -2_000_000, team]],
  );
  // The payer sees the payment among theirs.
  assert.equal((await c.owner.client.ok('GET', `/api/user/payments/${started.trade_no}`)).status, 'paid');
});
