/**
 * Plans through the console: root creates a plan with two usage windows on the Plans page; a user
 * buys it from the balance on My plan (in Chinese too), sees its rolling windows — empty, then what a
 * call spent with when that spend leaves them — and renews it; root sees the subscriber.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../../gateway/test/fakes/upstreams/openai.ts';
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
let vendor: FakeOpenAI;

before(async () => {
  vendor = await startFakeOpenAI();
  gw = await startConsoleGateway();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await gw?.close();
  await vendor?.close();
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
  const fiveHours = user.getByRole('group', { name: tr(L, 'plans.windowOf', { every: '5h' }) });
  await expectText(fiveHours, tr(L, 'plans.rollingEmpty', { every: '5h' }));
  const pat = await Api.login(gw.url, 'pat', 'pat-password-1');
  assert.equal((await pat.ok<{ quota_usd: number }>('GET', '/api/user/self')).quota_usd, 30);

  // ---- one call drawn on the plan (7 output tokens at $1000 per 1M: $0.007): the windows show it ----
  await api.ok('POST', '/api/channel', {
    name: 'loopback',
    type: 'openai',
    base_url: `${vendor.url}/v1`,
    keys: ['sk-vendor'],
    models: ['agent-model'],
    groups: ['default'],
  });
  await api.ok('PUT', '/api/price', { model: 'agent-model', input: 0, output: 1000 });
  const patKey = (await pat.ok<{ key: string }>('POST', '/api/token', { name: 'agent' })).key;
  const called = await pat.call(
    'POST',
    '/v1/chat/completions',
    { model: 'agent-model', max_tokens: 7, messages: [{ role: 'user', content: 'hi' }] },
    { authorization: `Bearer ${patKey}` },
  );
  assert.equal(called.status, 200, JSON.stringify(called.body));
  const spent = await eventually(async () => {
    const v = await pat.ok<{ windows: Array<{ used_usd: number; resets_at: number; clears_at: number }> }>('GET', '/api/user/plan');
    assert.equal(v.windows[0].used_usd, 0.007);
    return v.windows[0];
  });
  const at = (ms: number) =>
    user.evaluate((m) => new Intl.DateTimeFormat('en-US', { dateStyle: 'short', timeStyle: 'medium' }).format(new Date(m)), ms);
  await user.reload();
  await expectText(fiveHours, tr(L, 'plans.used', { used: '$0.007', quota: '$2.00' }));
  await expectText(fiveHours, tr(L, 'plans.resets', { time: await at(spent.resets_at), clears: await at(spent.clears_at) }));
  assert.equal((await pat.ok<{ quota_usd: number }>('GET', '/api/user/self')).quota_usd, 30, 'the plan paid the call');
  await assertAccessible(user, 'my plan page');
  await screenshot(user, 'en-my-plan');
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
