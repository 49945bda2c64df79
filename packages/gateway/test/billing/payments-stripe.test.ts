/**
 * Online top-up with Stripe: the Stripe SDK in the gateway talks to a loopback HTTP server that answers
 * POST /v1/checkout/sessions as Stripe does (test/fakes/upstreams/stripe.ts); webhook events are signed with the SDK's test-header
 * helper. A payment is credited once however often and however concurrently its event is delivered
 * (to one node or two); a bad signature is a 400 and credits nothing; users see only their payments.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { startChild, stopChild } from '../child-gateway.ts';
import { deliverStripe, sessionEvent, signature, startFakeStripe, type FakeStripe } from '../fakes/upstreams/stripe.ts';

const SECRET_KEY = 'sk_test_gatehouse_0123456789';
const WEBHOOK_SECRET = 'whsec_gatehouse_test_secret';

const event = sessionEvent;
const deliver = (url: string, payload: string, secret = WEBHOOK_SECRET, sig?: string) => deliverStripe(url, payload, secret, sig);

let fake: FakeStripe;
let gw: TestGateway;
let root: AdminClient;
const env = () => ({ STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: fake.url });

before(async () => {
  fake = await startFakeStripe();
  gw = await startTestGateway({ env: env() });
  root = await AdminClient.login(gw.url);
});

after(async () => {
  await gw?.stop();
  await fake?.close();
});

async function newUser(name: string): Promise<{ id: number; client: AdminClient }> {
  const u = await root.ok('POST', '/api/user', { username: name, password: `${name}-password` });
  return { id: u.id, client: await AdminClient.login(gw.url, name, `${name}-password`) };
}
const balance = async (id: number) =>
  Number((await gw.core.h.db.selectFrom('users').select('quota').where('id', '=', id).executeTakeFirstOrThrow()).quota);
const ledgerRows = (ref: string) => gw.core.h.db.selectFrom('ledger').selectAll().where('ref', '=', ref).execute();

test('checkout: the session is created through the SDK with the amount, currency and our trade number; limits are checked', async () => {
  const alice = await newUser('alice');
  const info = await alice.client.ok('GET', '/api/user/topup/info');
  assert.deepEqual(info, { currency: 'usd', quotaPerUnit: 500_000, minAmount: 1, maxAmount: 10000, providers: ['stripe'] });

  const started = await alice.client.ok('POST', '/api/user/stripe/pay', { amount: 5 });
  assert.equal(started.url, `${fake.url}/c/pay/${fake.created.at(-1)!.id}`);
  assert.equal(started.pay_link, started.url);
  assert.equal(started.quota, 2_500_000);
  const sent = fake.created.at(-1)!;
  assert.equal(sent.auth, `Bearer ${SECRET_KEY}`);
  assert.equal(sent.params.get('mode'), 'payment');
  assert.equal(sent.params.get('line_items[0][price_data][unit_amount]'), '500');
  assert.equal(sent.params.get('line_items[0][price_data][currency]'), 'usd');
  assert.equal(sent.params.get('client_reference_id'), started.trade_no);
  assert.match(sent.params.get('success_url')!, /\/wallet\?payment=/);

  await alice.client.fails(400, 'POST', '/api/user/stripe/pay', { amount: 0.5 }, 'amount');
  await alice.client.fails(400, 'POST', '/api/user/stripe/pay', { amount: 20000 }, 'amount');
  await alice.client.fails(400, 'POST', '/api/user/stripe/pay', { amount: 5.555 }, 'amount');
  await alice.client.fails(400, 'POST', '/api/user/stripe/pay', {}, 'amount');

  // The rate and currency are options; a pending payment keeps the quota it was started with.
  await root.ok('PUT', '/api/option', { key: 'TopupQuotaPerUnit', value: '100000' });
  await root.ok('PUT', '/api/option', { key: 'TopupCurrency', value: 'EUR' });
  const eur = await alice.client.ok('POST', '/api/user/stripe/pay', { amount: 2.5 });
  assert.equal(eur.quota, 250_000);
  assert.equal(eur.currency, 'eur');
  assert.equal(fake.created.at(-1)!.params.get('line_items[0][price_data][unit_amount]'), '250');
  await root.ok('PUT', '/api/option', { key: 'TopupQuotaPerUnit', value: '500000' });
  await root.ok('PUT', '/api/option', { key: 'TopupCurrency', value: 'usd' });

  const hist = await alice.client.ok('GET', '/api/user/payments');
  assert.equal(hist.total, 2);
  assert.deepEqual(
    hist.items.map((p: any) => [p.trade_no, p.status, p.amount, p.currency, p.quota]),
    [
      [eur.trade_no, 'pending', 2.5, 'eur', 250_000],
      [started.trade_no, 'pending', 5, 'usd', 2_500_000],
    ],
  );
});

test('webhook: a bad signature is 400 and credits nothing; a paid session delivered twice and 10 at once credits once', async () => {
  const alice = await newUser('alice2');
  const started = await alice.client.ok('POST', '/api/user/stripe/pay', { amount: 3 });
  const sessionId = fake.created.at(-1)!.id;
  const paid = event('checkout.session.completed', {
    id: sessionId,
    client_reference_id: started.trade_no,
    payment_status: 'paid',
    amount_total: 300,
    currency: 'usd',
  });
  const before0 = await balance(alice.id);

  // Bad signatures: another secret, a tampered body, garbage, none.
  assert.equal((await deliver(gw.url, paid, 'whsec_someone_else')).status, 400);
  const goodSig = signature(paid, WEBHOOK_SECRET);
  const tampered = paid.replace('"amount_total":300', '"amount_total":301');
  const t = await deliver(gw.url, tampered, WEBHOOK_SECRET, goodSig);
  assert.equal(t.status, 400);
  assert.equal(t.body.success, false);
  assert.equal((await deliver(gw.url, paid, WEBHOOK_SECRET, 't=1,v1=deadbeef')).status, 400);
  const none = await fetch(`${gw.url}/api/stripe/webhook`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: paid });
  assert.equal(none.status, 400);
  assert.equal(await balance(alice.id), before0);
  assert.equal((await ledgerRows(sessionId)).length, 0);
  assert.equal((await alice.client.ok('GET', `/api/user/payments/${started.trade_no}`)).status, 'pending');

  // Delivered 10 times at once, then twice more: one credit.
  const outs = await Promise.all(Array.from({ length: 10 }, () => deliver(gw.url, paid)));
  for (const o of outs) assert.equal(o.status, 200);
  assert.equal(outs.filter((o) => o.body.message === 'credited').length, 1);
  assert.equal((await deliver(gw.url, paid)).body.message, 'already_credited');
  assert.equal((await deliver(gw.url, paid)).status, 200);
  assert.equal(await balance(alice.id), before0 + 1_500_000);
  const rows = await ledgerRows(sessionId);
  assert.deepEqual(
    rows.map((r) => [r.kind, Number(r.amount), Number(r.user_id)]),
    [['topup', -1_500_000, alice.id]],
  );
  const p = await alice.client.ok('GET', `/api/user/payments/${started.trade_no}`);
  assert.equal(p.status, 'paid');
  assert.ok(p.paid_at > 0);
  // In the user's logs as a top-up.
  const logs = await alice.client.ok('GET', '/api/log/self?type=topup');
  assert.ok(logs.items.some((l: any) => l.quota === 1_500_000 && /stripe/.test(l.content)));

  // Not paid yet (an async method): nothing; amount differing from the checkout: nothing.
  const second = await alice.client.ok('POST', '/api/user/stripe/pay', { amount: 4 });
  const s2 = fake.created.at(-1)!.id;
  assert.equal(
    (
      await deliver(
        gw.url,
        event('checkout.session.completed', {
          id: s2,
          client_reference_id: second.trade_no,
          payment_status: 'unpaid',
          amount_total: 400,
          currency: 'usd',
        }),
      )
    ).body.message,
    'ignored',
  );
  assert.equal(
    (
      await deliver(
        gw.url,
        event('checkout.session.async_payment_succeeded', {
          id: s2,
          client_reference_id: second.trade_no,
          payment_status: 'paid',
          amount_total: 1,
          currency: 'usd',
        }),
      )
    ).body.message,
    'mismatch',
  );
  assert.equal((await ledgerRows(s2)).length, 0);
  // Expired: the payment is marked so; a later expiry never undoes a paid one.
  assert.equal(
    (await deliver(gw.url, event('checkout.session.expired', { id: s2, client_reference_id: second.trade_no, payment_status: 'unpaid' })))
      .body.message,
    'expired',
  );
  assert.equal((await alice.client.ok('GET', `/api/user/payments/${second.trade_no}`)).status, 'expired');
  await deliver(
    gw.url,
    event('checkout.session.expired', { id: sessionId, client_reference_id: started.trade_no, payment_status: 'paid' }),
  );
  assert.equal((await alice.client.ok('GET', `/api/user/payments/${started.trade_no}`)).status, 'paid');
  // Unknown sessions and other events are acknowledged and change nothing.
  assert.equal(
    (
      await deliver(
        gw.url,
        event('checkout.session.completed', {
          id: 'cs_test_unknown',
          client_reference_id: 'pay_nope',
          payment_status: 'paid',
          amount_total: 100,
          currency: 'usd',
        }),
      )
    ).body.message,
    'unknown_payment',
  );
  assert.equal(
    (
      await deliver(
        gw.url,
        JSON.stringify({ id: 'evt_x', object: 'event', type: 'customer.created', data: { object: { object: 'customer' } } }),
      )
    ).body.message,
    'ignored',
  );
  assert.equal(await balance(alice.id), before0 + 1_500_000);
});

test('payments are private: a user sees only their own', async () => {
  const a = await newUser('alice3');
  const b = await newUser('bob3');
  const started = await a.client.ok('POST', '/api/user/stripe/pay', { amount: 1 });
  assert.equal((await b.client.ok('GET', '/api/user/payments')).total, 0);
  await b.client.fails(404, 'GET', `/api/user/payments/${started.trade_no}`);
  assert.equal((await a.client.ok('GET', '/api/user/payments')).items[0].trade_no, started.trade_no);
  const anon = await fetch(`${gw.url}/api/user/payments`);
  assert.equal(anon.status, 401);
});

test('two gateway processes: the same paid event delivered concurrently to both credits once', async () => {
  const child = await startChild(gw.db, 'stripe-b', env());
  try {
    const u = await newUser('multi');
    const before0 = await balance(u.id);
    const started = await u.client.ok('POST', '/api/user/stripe/pay', { amount: 7 });
    const sid = fake.created.at(-1)!.id;
    const paid = event('checkout.session.completed', {
      id: sid,
      client_reference_id: started.trade_no,
      payment_status: 'paid',
      amount_total: 700,
      currency: 'usd',
    });
    const outs = await Promise.all(Array.from({ length: 20 }, (_, i) => deliver(i % 2 ? child.url : gw.url, paid)));
    for (const o of outs) assert.equal(o.status, 200);
    assert.equal(outs.filter((o) => o.body.message === 'credited').length, 1);
    assert.equal(await balance(u.id), before0 + 3_500_000);
    assert.equal((await ledgerRows(sid)).length, 1);
  } finally {
    await stopChild(child);
  }
});

test('not configured: no providers, paying is a clear 400, the webhook path is 404', async () => {
  const bare = await startTestGateway();
  try {
    const r = await AdminClient.login(bare.url);
    assert.deepEqual((await r.ok('GET', '/api/user/topup/info')).providers, []);
    const res = await r.fails(400, 'POST', '/api/user/stripe/pay', { amount: 5 });
    assert.match(res.body.message, /not configured/);
    const hook = await fetch(`${bare.url}/api/stripe/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=x' },
      body: '{}',
    });
    assert.equal(hook.status, 404);
  } finally {
    await bare.stop();
  }
});

test('Stripe refusing the checkout: a clear 502 with its reason, no payment left behind', async () => {
  const u = await newUser('refused');
  fake.refuse = 'Amount must convert to at least 50 cents.';
  try {
    const res = await u.client.fails(502, 'POST', '/api/user/stripe/pay', { amount: 5 });
    assert.match(res.body.message, /Stripe refused to start the checkout: Amount must convert/);
    assert.ok(!res.text.includes(SECRET_KEY));
  } finally {
    fake.refuse = null;
  }
  assert.equal((await u.client.ok('GET', '/api/user/payments')).total, 0);
});

test('an event that arrives before the checkout id was stored is matched by our trade number, once', async () => {
  const u = await newUser('early');
  const started = await u.client.ok('POST', '/api/user/stripe/pay', { amount: 2 });
  const sid = fake.created.at(-1)!.id;
  // State no service makes on purpose: the webhook outran the write of the checkout's id.
  await gw.core.h.db.updateTable('payments').set({ provider_ref: null }).where('trade_no', '=', started.trade_no).execute();
  const before0 = await balance(u.id);
  const paid = event('checkout.session.completed', {
    id: sid,
    client_reference_id: started.trade_no,
    payment_status: 'paid',
    amount_total: 200,
    currency: 'usd',
  });
  const outs = await Promise.all(Array.from({ length: 5 }, () => deliver(gw.url, paid)));
  assert.equal(outs.filter((o) => o.body.message === 'credited').length, 1);
  assert.equal(await balance(u.id), before0 + 1_000_000);
  const row = await gw.core.h.db.selectFrom('payments').selectAll().where('trade_no', '=', started.trade_no).executeTakeFirstOrThrow();
  assert.equal(row.provider_ref, sid);
  assert.equal(row.status, 'paid');
  // Another session naming this trade number is not taken for it.
  const forged = event('checkout.session.completed', {
    id: 'cs_test_other',
    client_reference_id: started.trade_no,
    payment_status: 'paid',
    amount_total: 200,
    currency: 'usd',
  });
  assert.equal((await deliver(gw.url, forged)).body.message, 'unknown_payment');
  assert.equal(await balance(u.id), before0 + 1_000_000);
});
