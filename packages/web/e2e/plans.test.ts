/**
 * Plans through the console: root creates a plan with two usage windows on the Plans page; a user
 * buys it from the balance on My plan (in Chinese too), sees its windows and renews it; root sees the
 * subscriber.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import {
  Api,
  assertAccessible,
  eventually,
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

let gw: ConsoleGateway;
let browser: Browser;

before(async () => {
  gw = await startConsoleGateway();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await gw?.close();
});

test('root creates a plan; a user buys and renews it from the balance and sees its windows', async () => {
  const L = 'en';
  const api = await Api.login(gw.url);
  await api.ok('POST', '/api/user', { username: 'pat', password: 'pat-password-1', quota_usd: 50 });

  // ---- root: a plan of $20 with a 5-hour and a 7-day window ----
  const adminCtx = await newContext(browser, gw.url, L);
  const admin = await adminCtx.newPage();
  const adminProblems = new PageProblems(admin);
  await admin.goto('/login');
  await login(admin, L, ROOT_USER.username, ROOT_USER.password);
  await expectPage(admin, L, 'nav.dashboard');
  await navLink(admin, L, 'nav.plans').click();
  await expectPage(admin, L, 'nav.plans');
  await admin.getByRole('button', { name: tr(L, 'plans.createTitle') }).click();
  const form = admin.getByRole('dialog', { name: tr(L, 'plans.createTitle') });
  await form.getByLabel(label(L, 'plans.name')).fill('Agent Pro');
  await form.getByLabel(label(L, 'plans.price')).fill('20');
  await form.getByLabel(label(L, 'plans.windowQuota')).first().fill('2');
  await form.getByRole('button', { name: tr(L, 'plans.addWindow') }).click();
  await form.getByLabel(label(L, 'plans.windowQuota')).nth(1).fill('30');
  await form.getByRole('button', { name: tr(L, 'common.create') }).click();
  const table = admin.getByRole('table', { name: tr(L, 'nav.plans') });
  await expectText(table, 'Agent Pro');
  await expectText(table, '$2.00 / 5h, $30.00 / 7d');
  await assertAccessible(admin, 'plans page');
  await screenshot(admin, 'en-plans');
  const plans = await api.ok<Array<{ name: string; windows: Array<{ every: string; quota_usd: number }>; price_usd: number }>>(
    'GET',
    '/api/plan',
  );
  assert.deepEqual(
    plans.map((p) => [p.name, p.price_usd, p.windows.map((w) => [w.every, w.quota_usd])]),
    [
      [
        'Agent Pro',
        20,
        [
          ['5h', 2],
          ['7d', 30],
        ],
      ],
    ],
  );

  // ---- pat: buy it from the balance, see the windows, renew ----
  const userCtx = await newContext(browser, gw.url, L);
  const user = await userCtx.newPage();
  const userProblems = new PageProblems(user);
  await user.goto('/login');
  await login(user, L, 'pat', 'pat-password-1');
  await expectPage(user, L, 'nav.overview');
  await navLink(user, L, 'nav.myPlan').click();
  await expectPage(user, L, 'nav.myPlan');
  await expectText(user.locator('main'), tr(L, 'plans.none'));
  const card = user.getByRole('article', { name: 'Agent Pro' });
  await card.getByRole('button', { name: tr(L, 'plans.buy') }).click();
  await expectText(
    user.getByRole('group', { name: tr(L, 'plans.windowOf', { every: '5h' }) }),
    tr(L, 'plans.used', { used: '$0.00', quota: '$2.00' }),
  );
  await expectText(
    user.getByRole('group', { name: tr(L, 'plans.windowOf', { every: '7d' }) }),
    tr(L, 'plans.used', { used: '$0.00', quota: '$30.00' }),
  );
  await assertAccessible(user, 'my plan page');
  await screenshot(user, 'en-my-plan');
  const pat = await Api.login(gw.url, 'pat', 'pat-password-1');
  assert.equal((await pat.ok<{ quota_usd: number }>('GET', '/api/user/self')).quota_usd, 30);
  const first = await pat.ok<{ subscription: { expires_at: number } }>('GET', '/api/user/plan');
  await card.getByRole('button', { name: tr(L, 'plans.renew') }).click();
  await eventually(
    async () =>
      assert.equal(
        (await pat.ok<{ subscription: { expires_at: number } }>('GET', '/api/user/plan')).subscription.expires_at,
        first.subscription.expires_at + 30 * 86_400_000,
      ),
    undefined,
    'the renewal',
  );
  assert.equal((await pat.ok<{ quota_usd: number }>('GET', '/api/user/self')).quota_usd, 10);
  userProblems.assertNone('my plan page');

  // ---- root: pat is a subscriber ----
  await admin.getByRole('button', { name: tr(L, 'plans.subscribersOf', { name: 'Agent Pro' }) }).click();
  await expectText(admin.getByRole('table', { name: tr(L, 'plans.subscribers') }), 'pat');
  adminProblems.assertNone('plans page');

  // ---- the same page in Chinese ----
  const zhCtx = await newContext(browser, gw.url, 'zh-CN');
  const zh = await zhCtx.newPage();
  await zh.goto('/login');
  await login(zh, 'zh-CN', 'pat', 'pat-password-1');
  await expectPage(zh, 'zh-CN', 'nav.overview');
  await navLink(zh, 'zh-CN', 'nav.myPlan').click();
  await expectPage(zh, 'zh-CN', 'nav.myPlan');
  await expectText(zh.getByRole('article', { name: 'Agent Pro' }), tr('zh-CN', 'plans.renew'));
  await screenshot(zh, 'zh-my-plan');
  await Promise.all([adminCtx.close(), userCtx.close(), zhCtx.close()]);
});
