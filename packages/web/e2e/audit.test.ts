/**
 * The audit log and the alert settings in the console: root's writes (a user created, an option set,
 * a secret option set) appear on the Audit log page with actor, action, target and changes — the
 * secret redacted — and the action filter narrows the table; a user sets a low-balance threshold and
 * a webhook on the profile page and sees the generated signing secret once.
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
  screenshot,
  rootSession,
  startConsoleGateway,
  tr,
  type ConsoleGateway,
} from './support.ts';

const L = 'en';
const SECRET = 'console-alert-secret-0123456789';

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

test('root reads and filters the audit log; a user sets a low-balance alert on the profile page', async () => {
  const api = await Api.login(gw.url);
  await api.ok('POST', '/api/user', { username: 'carol', password: 'carol-password-1', quota_usd: 20 });
  await api.ok('PUT', '/api/option', { key: 'RetryTimes', value: 4 });
  await api.ok('PUT', '/api/option', { key: 'AlertWebhookSecret', value: SECRET });

  const { page, problems } = await rootSession(browser, gw.url, L);
  await navLink(page, L, 'nav.audit').click();
  await expectPage(page, L, 'nav.audit');
  const table = page.getByRole('table', { name: tr(L, 'nav.audit') });
  await expectText(table, 'user.create');
  await expectText(table, 'carol');
  await expectText(table, 'RetryTimes');
  await expectText(table, '[redacted]');
  assert.ok(!((await table.textContent()) ?? '').includes(SECRET), 'the secret option never shows');
  await assertAccessible(page, 'audit page');
  await screenshot(page, 'en-audit');

  const filters = page.getByRole('search', { name: tr(L, 'audit.filters') });
  await filters.getByLabel(label(L, 'audit.action')).fill('option.*');
  await filters.getByRole('button', { name: tr(L, 'common.apply') }).click();
  await eventually(
    async () => {
      const text = (await table.textContent()) ?? '';
      if (text.includes('user.create') || !text.includes('option.set')) throw new Error(`not filtered yet: ${text.slice(0, 200)}`);
    },
    undefined,
    'filtered table',
  );
  problems.assertNone('audit page');

  // ---- carol: the low-balance alert on the profile page ----
  const userCtx = await newContext(browser, gw.url, L);
  const user = await userCtx.newPage();
  const userProblems = new PageProblems(user);
  await user.goto('/login');
  await login(user, L, 'carol', 'carol-password-1');
  await expectPage(user, L, 'nav.overview');
  await navLink(user, L, 'nav.profile').click();
  await expectPage(user, L, 'nav.profile');
  const form = user.getByRole('form', { name: tr(L, 'alerts.title') });
  await form.getByLabel(label(L, 'alerts.threshold')).waitFor();
  await assertAccessible(user, 'profile page with alert settings');
  await form.getByLabel(label(L, 'alerts.threshold')).fill('5');
  await form.getByLabel(label(L, 'alerts.webhookUrl')).fill('https://hooks.example.com/gatehouse');
  await form.getByRole('button', { name: tr(L, 'alerts.save') }).click();
  await eventually(
    async () => {
      const v = await form
        .getByRole('textbox', { name: tr(L, 'alerts.webhookSecret') })
        .first()
        .inputValue()
        .catch(() => '');
      if (!/^whsec_/.test(v)) throw new Error(`no secret shown yet (${v})`);
    },
    undefined,
    'generated secret',
  );
  const saved = await (await Api.login(gw.url, 'carol', 'carol-password-1')).ok('GET', '/api/user/self/alerts');
  assert.equal(saved.low_balance_threshold_usd, 5);
  assert.equal(saved.webhook_url, 'https://hooks.example.com/gatehouse');
  assert.equal(saved.webhook_secret_set, true);
  await screenshot(user, 'en-profile-alerts');
  userProblems.assertNone('profile page');
});
