/**
 * Plans paid with Stripe (billing/plans.ts, billing/payments/stripe.ts): the gateway's Stripe SDK talks
 * to a loopback server that answers as Stripe does (test/fakes/upstreams/stripe.ts); webhook events
 * are signed locally with the webhook secret. A plan's checkout is a subscription renewed every
 * period; its completed session grants the plan and each renewal's invoice extends it, once however
 * often (and however concurrently) Stripe delivers the event.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { createUser, FIXTURE_PASSWORD } from '../relay-fixtures.ts';
import { deliverStripe, sessionEvent, startFakeStripe } from '../fakes/upstreams/stripe.ts';

const WEBHOOK_SECRET = 'whsec_gatehouse_plans_secret';
const DAY = 86_400_000;

function invoiceEvent(invoice: Record<string, unknown>): string {
  return JSON.stringify({
    id: `evt_${Math.random().toString(36).slice(2)}`,
    object: 'event',
    type: 'invoice.paid',
    api_version: '2025-01-01',
    created: Math.floor(Date.now() / 1000),
    data: { object: { object: 'invoice', ...invoice } },
  });
}

test('a plan bought with a Stripe subscription: granted by the checkout, renewed by each invoice, once per event', async () => {
  const fake = await startFakeStripe();
  const gw = await startTestGateway({
    env: { STRIPE_SECRET_KEY: 'sk_test_plans_0123456789', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: fake.url },
  });
  try {
    const admin = await AdminClient.login(gw.url);
    const plan = await admin.ok('POST', '/api/plan', {
      name: 'Monthly',
      price_usd: 12,
      duration_days: 30,
      windows: [{ every: '5h', quota_usd: 1 }],
    });
    const username = 'stripe-plan-user';
    const userId = await createUser(gw, { username, quota: 0 });
    const u = await AdminClient.login(gw.url, username, FIXTURE_PASSWORD);
    const deliver = (payload: string) => deliverStripe(gw.url, payload, WEBHOOK_SECRET);

    // The checkout: a subscription recurring every 30 days at the plan's price, the plan in its metadata.
    await u.fails(404, 'POST', '/api/user/plan/stripe/pay', { plan_id: 999 });
    const started = await u.ok('POST', '/api/user/plan/stripe/pay', { plan_id: plan.id, recurring: true });
    assert.equal(started.amount, 12);
    const sent = fake.created.at(-1)!.params;
    assert.equal(sent.get('mode'), 'subscription');
    assert.equal(sent.get('line_items[0][price_data][unit_amount]'), '1200');
    assert.equal(sent.get('line_items[0][price_data][recurring][interval]'), 'day');
    assert.equal(sent.get('line_items[0][price_data][recurring][interval_count]'), '30');
    assert.equal(sent.get('subscription_data[metadata][plan_id]'), String(plan.id));
    assert.equal(sent.get('metadata[user_id]'), String(userId));
    const once = await u.ok('POST', '/api/user/plan/stripe/pay', { plan_id: plan.id });
    assert.equal(fake.created.at(-1)!.params.get('mode'), 'payment');
    assert.equal(once.recurring, false);

    // A delivery that does not verify changes nothing.
    const session = {
      id: fake.created[0].id,
      payment_status: 'paid',
      currency: 'usd',
      amount_total: 1200,
      subscription: 'sub_plans_1',
      client_reference_id: started.trade_no,
      metadata: { plan_id: String(plan.id), user_id: String(userId), trade_no: started.trade_no },
    };
    const completed = sessionEvent('checkout.session.completed', session);
    const forged = await deliverStripe(gw.url, completed, 'whsec_someone_else');
    assert.equal(forged.status, 400);
    assert.equal((await u.ok('GET', '/api/user/plan')).plan, null);

    // The checkout's completion grants one period; Stripe delivering it again grants nothing more.
    const first = await deliver(completed);
    assert.equal(first.body.message, 'granted');
    assert.equal((await deliver(completed)).body.message, 'already_granted');
    const granted = await u.ok('GET', '/api/user/plan');
    assert.equal(granted.plan.name, 'Monthly');
    assert.equal(granted.subscription.stripe_subscription, 'sub_plans_1');
    const end = granted.subscription.expires_at;
    assert.ok(Math.abs(end - granted.subscription.started_at - 30 * DAY) < 1000);

    // A paid amount that is not the plan's price grants nothing.
    const cheap = sessionEvent('checkout.session.completed', { ...session, id: 'cs_cheap', amount_total: 100 });
    assert.equal((await deliver(cheap)).body.message, 'mismatch');

    // The renewal's invoice, delivered three times at once: the plan is extended by one period.
    const invoice = invoiceEvent({
      id: 'in_plans_renewal_1',
      billing_reason: 'subscription_cycle',
      currency: 'usd',
      amount_paid: 1200,
      parent: {
        type: 'subscription_details',
        subscription_details: { subscription: 'sub_plans_1', metadata: { plan_id: String(plan.id), user_id: String(userId) } },
      },
    });
    const outcomes = (await Promise.all([deliver(invoice), deliver(invoice), deliver(invoice)])).map((r) => r.body.message).sort();
    assert.deepEqual(outcomes, ['already_granted', 'already_granted', 'granted']);
    const renewed = await u.ok('GET', '/api/user/plan');
    assert.equal(renewed.subscription.expires_at, end + 30 * DAY);
    assert.equal(renewed.subscription.started_at, granted.subscription.started_at);
    // The subscription's first invoice is the checkout's: it renews nothing.
    const firstInvoice = invoiceEvent({
      id: 'in_plans_first',
      billing_reason: 'subscription_create',
      currency: 'usd',
      amount_paid: 1200,
      parent: { subscription_details: { subscription: 'sub_plans_1', metadata: { plan_id: String(plan.id), user_id: String(userId) } } },
    });
    assert.equal((await deliver(firstInvoice)).body.message, 'ignored');
    assert.equal((await u.ok('GET', '/api/user/plan')).subscription.expires_at, end + 30 * DAY);
    // The balance never moved: the plan was paid with Stripe.
    const q = await gw.core.h.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow();
    assert.equal(Number(q.quota), 0);
  } finally {
    await gw.stop();
    await fake.close();
  }
});
