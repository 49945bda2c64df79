/**
 * Single sign-on in the console: root adds an OpenID provider (a real `oidc-provider` on loopback) on
 * the SSO providers page; the login page then shows its button, and a person clicks it, logs in and
 * consents on the provider's own pages, and lands in the console signed in to a new account. A
 * refused sign-on comes back to the login page with the reason.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import {
  Api,
  assertAccessible,
  expectPage,
  expectText,
  launchBrowser,
  navLink,
  label,
  newContext,
  screenshot,
  rootSession,
  startConsoleGateway,
  tr,
  type ConsoleGateway,
} from './support.ts';
import { startOidcProvider } from '../../gateway/test/fakes/upstreams/sso-providers.ts';

const L = 'en';
const SECRET = 'e2e-oidc-client-secret-0123456789';

let gw: ConsoleGateway;
let op: Awaited<ReturnType<typeof startOidcProvider>>;
let browser: Browser;

before(async () => {
  gw = await startConsoleGateway();
  op = await startOidcProvider([{ client_id: 'console', client_secret: SECRET, redirect_uris: [`${gw.url}/api/sso/corp/callback`] }], {
    dana: { email: 'dana@example.com', email_verified: true, name: 'Dana Scully', preferred_username: 'dana' },
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await gw?.close();
  await op?.close();
});

test('root adds an OpenID provider; its button on the login page completes a sign-in at the provider', async () => {
  // Root adds the provider through the console.
  const { ctx, page, problems } = await rootSession(browser, gw.url, L);
  await navLink(page, L, 'nav.sso').click();
  await expectPage(page, L, 'nav.sso');
  await page.getByRole('button', { name: tr(L, 'sso.create') }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel(label(L, 'sso.id')).fill('corp');
  await dialog.getByLabel(label(L, 'sso.name')).fill('Corp ID');
  await dialog.getByLabel(label(L, 'sso.issuer')).fill(op.issuer);
  await dialog.getByLabel(label(L, 'sso.clientId')).fill('console');
  await dialog.getByLabel(label(L, 'sso.clientSecret')).fill(SECRET);
  await dialog.getByRole('button', { name: tr(L, 'common.save') }).click();
  await dialog.waitFor({ state: 'detached' });
  const table = page.getByRole('table', { name: tr(L, 'sso.tableLabel') });
  await expectText(table, 'Corp ID');
  await expectText(table, `${gw.url}/api/sso/corp/callback`);
  assert.ok(!(await page.content()).includes(SECRET), 'the client secret is never shown');
  // Afresh, without the "saved" notification.
  await page.reload();
  await expectText(table, 'Corp ID');
  await assertAccessible(page, 'SSO providers page');
  await screenshot(page, 'en-sso-providers');
  problems.assertNone('SSO providers page');
  await ctx.close();

  // Someone else signs in with the button.
  const ctx2 = await newContext(browser, gw.url, L);
  const p2 = await ctx2.newPage();
  await p2.goto('/login');
  const button = p2.getByRole('link', { name: tr(L, 'sso.signInWith', { name: 'Corp ID' }) });
  await button.waitFor();
  await assertAccessible(p2, 'login page with SSO buttons');
  await screenshot(p2, 'en-login-sso');
  await button.click();
  // The provider's own login and consent pages.
  await p2.waitForURL((u) => u.href.startsWith(op.issuer));
  await p2.locator('input[name="login"]').fill('dana');
  await p2.locator('input[name="password"]').fill('any-password');
  await p2.locator('button[type="submit"]').click();
  await p2.locator('input[name="prompt"][value="consent"]').waitFor({ state: 'attached' });
  await p2.locator('button[type="submit"]').click();
  // Back in the console, signed in to a new account.
  await expectPage(p2, L, 'nav.overview');
  const api = await Api.login(gw.url);
  const users = await api.ok<{ items: Array<{ username: string; display_name: string }> }>('GET', '/api/user?keyword=dana');
  assert.equal(users.items[0]?.display_name, 'Dana Scully');
  const self = await p2.evaluate(async () => (await (await fetch('/api/user/self')).json()) as { data: { username: string } });
  assert.equal(self.data.username, 'dana');
  await ctx2.close();

  // A callback that was not started in this browser: back on the login page with the reason.
  const ctx3 = await newContext(browser, gw.url, L);
  const p3 = await ctx3.newPage();
  await p3.goto('/api/sso/corp/callback?code=forged&state=forged');
  await p3.waitForURL(/\/login\?sso_error=sso_invalid_state/);
  await expectText(p3.getByRole('alert'), tr(L, 'sso.error.sso_invalid_state'));
  await screenshot(p3, 'en-login-sso-refused');
  await ctx3.close();
});
