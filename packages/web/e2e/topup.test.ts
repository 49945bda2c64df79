/**
 * Money in through the console: root creates a batch of redemption codes on the Redemption codes page
 * and copies them from the dialog; a user redeems one on the Wallet page and sees the balance go up
 * (and a second redemption refused); root sees the code used and exports the list as CSV. Then the
 * user tops up online: Pay opens the (loopback) Stripe checkout, which comes back to the wallet; the
 * signed webhook credits it and the payment shows as paid with the new balance.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { deliverStripe, sessionEvent, startFakeStripe, type FakeStripe } from '../../gateway/test/fakes/upstreams/stripe.ts';
import {
  Api,
  assertAccessible,
  expectPage,
  expectText,
  launchBrowser,
  login,
  navLink,
  label,
  newContext,
  PageProblems,
  ROOT_USER,
  screenshot,
  startConsoleGateway,
  tr,
  type ConsoleGateway,
} from './support.ts';

const L = 'en';
const WEBHOOK_SECRET = 'whsec_console_test';

let gw: ConsoleGateway;
let stripe: FakeStripe;
let browser: Browser;

before(async () => {
  stripe = await startFakeStripe();
  gw = await startConsoleGateway({
    STRIPE_SECRET_KEY: 'sk_test_console',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE: stripe.url,
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await gw?.close();
  await stripe?.close();
});

test('admin creates codes, a user redeems one and sees the balance change, then tops up with Stripe', async () => {
  const api = await Api.login(gw.url);
  await api.ok('POST', '/api/user', { username: 'alice', password: 'alice-password-1', quota_usd: 1 });

  // ---- root: create two codes of $5 ----
  const adminCtx = await newContext(browser, gw.url, L);
  const admin = await adminCtx.newPage();
  const adminProblems = new PageProblems(admin);
  await admin.goto('/login');
  await login(admin, L, ROOT_USER.username, ROOT_USER.password);
  await expectPage(admin, L, 'nav.dashboard');
  await navLink(admin, L, 'topup.navCodes').click();
  await expectPage(admin, L, 'topup.navCodes');
  await admin.getByRole('button', { name: tr(L, 'topup.createTitle') }).click();
  const form = admin.getByRole('dialog', { name: tr(L, 'topup.createTitle') });
  await form.getByLabel(label(L, 'topup.name')).fill('welcome');
  await form.getByLabel(label(L, 'topup.amountUsd')).fill('5');
  await form.getByLabel(label(L, 'topup.count')).fill('2');
  await form.getByLabel(label(L, 'topup.note')).fill('for new customers');
  await form.getByRole('button', { name: tr(L, 'topup.create') }).click();
  const shown = admin.getByRole('dialog', { name: tr(L, 'topup.createdTitle', { count: 2 }) });
  const codes = (await shown.getByLabel(tr(L, 'topup.newCodes')).inputValue()).split('\n');
  assert.equal(codes.length, 2);
  for (const c of codes) assert.match(c, /^[0-9a-f]{32}$/);
  await screenshot(admin, 'en-redemption-created');
  await shown.getByRole('button', { name: tr(L, 'keys.stored') }).click();
  await expectText(admin.getByRole('table', { name: tr(L, 'topup.navCodes') }), codes[1]);
  await assertAccessible(admin, 'redemption codes page');

  // ---- alice: redeem one on the wallet page ----
  const userCtx = await newContext(browser, gw.url, L);
  const user = await userCtx.newPage();
  const userProblems = new PageProblems(user);
  userProblems.allow('/api/user/topup', 400);
  await user.goto('/login');
  await login(user, L, 'alice', 'alice-password-1');
  await expectPage(user, L, 'nav.overview');
  await navLink(user, L, 'topup.navWallet').click();
  await expectPage(user, L, 'topup.navWallet');
  await expectText(user.locator('main'), '$1.00');
  await assertAccessible(user, 'wallet page');
  const redeemForm = user.getByRole('form', { name: tr(L, 'topup.redeemTitle') });
  await redeemForm.getByLabel(label(L, 'topup.code')).fill(codes[0]);
  await redeemForm.getByRole('button', { name: tr(L, 'topup.redeem') }).click();
  await expectText(redeemForm.getByRole('status'), tr(L, 'topup.redeemed', { amount: '$5.00' }));
  await expectText(user.locator('main'), '$6.00');
  // The same code again: refused with the server's reason; the balance stays.
  await redeemForm.getByLabel(label(L, 'topup.code')).fill(codes[0]);
  await redeemForm.getByRole('button', { name: tr(L, 'topup.redeem') }).click();
  await expectText(redeemForm.getByRole('alert'), /already used/);
  const aliceApi = await Api.login(gw.url, 'alice', 'alice-password-1');
  assert.equal((await aliceApi.ok<{ quota_usd: number }>('GET', '/api/user/self')).quota_usd, 6);
  await screenshot(user, 'en-wallet-redeemed');

  // ---- root: the code is used; export the list ----
  await admin.reload();
  await expectPage(admin, L, 'topup.navCodes');
  const table = admin.getByRole('table', { name: tr(L, 'topup.navCodes') });
  await expectText(table.getByRole('row').filter({ hasText: codes[0] }), tr(L, 'topup.codeStatus.used'));
  const [download] = await Promise.all([admin.waitForEvent('download'), admin.getByRole('link', { name: tr(L, 'topup.export') }).click()]);
  const csv = readFileSync((await download.path())!, 'utf8');
  assert.ok(csv.startsWith('id,name,code,'), csv.slice(0, 100));
  for (const c of codes) assert.ok(csv.includes(c));
  adminProblems.assertNone('redemption codes page');

  // ---- alice: top up $10 with Stripe ----
  const payForm = user.getByRole('form', { name: tr(L, 'topup.payTitle') });
  await payForm.getByLabel(label(L, 'topup.amount', { currency: 'USD' })).fill('10');
  await payForm.getByRole('button', { name: tr(L, 'topup.pay') }).click();
  // The checkout page sends the browser back to the wallet.
  await user.waitForURL(/\/wallet\?payment=pay_/);
  await expectText(user.getByRole('status').filter({ hasText: tr(L, 'topup.returned').slice(0, 20) }), tr(L, 'topup.returned'));
  const history = user.getByRole('table', { name: tr(L, 'topup.history') });
  await expectText(history, tr(L, 'topup.payment.pending'));
  const session = stripe.created.at(-1)!;
  const paid = sessionEvent('checkout.session.completed', {
    id: session.id,
    client_reference_id: session.params.get('client_reference_id'),
    payment_status: 'paid',
    amount_total: 1000,
    currency: 'usd',
  });
  assert.equal((await deliverStripe(gw.url, paid, WEBHOOK_SECRET)).body.message, 'credited');
  assert.equal((await deliverStripe(gw.url, paid, WEBHOOK_SECRET)).body.message, 'already_credited');
  await user.reload();
  await expectText(user.getByRole('table', { name: tr(L, 'topup.history') }), tr(L, 'topup.payment.paid'));
  await expectText(user.locator('main'), '$16.00');
  await screenshot(user, 'en-wallet-paid');
  userProblems.assertNone('wallet page');
  await adminCtx.close();
  await userCtx.close();
});
