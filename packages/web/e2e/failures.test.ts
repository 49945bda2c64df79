/**
 * The console when things go wrong: a session that ended on the server sends the user to the login
 * page and, after logging in, back to the page they asked for; a gateway that cannot be reached shows
 * a visible error with Retry, and Retry works once the gateway is back.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import {
  expectPage,
  expectText,
  launchBrowser,
  login,
  navLink,
  newContext,
  ROOT_USER,
  rootSession,
  startConsoleGateway,
  tr,
  type ConsoleGateway,
} from './support.ts';

const L = 'en';
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

test('an ended session returns to the login page, and back to the page asked for after logging in', async () => {
  const { ctx, page, problems } = await rootSession(browser, gw.url, L);
  await navLink(page, L, 'nav.users').click();
  await expectPage(page, L, 'nav.users');

  // the session ends on the server (as when it expires or is revoked): the browser still holds the cookie
  const cookie = (await ctx.cookies()).find((c) => c.name === 'gatehouse_session');
  assert.ok(cookie, 'the login set a session cookie');
  const out = await fetch(`${gw.url}/api/user/logout`, {
    method: 'POST',
    headers: { cookie: `${cookie.name}=${cookie.value}`, 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(out.status, 200);
  problems.clear();
  problems.allow('/api/', 401);

  await navLink(page, L, 'nav.channels').click();
  await page.waitForURL((u) => u.pathname === '/login' && u.searchParams.get('next') === '/channels');
  await page.getByRole('heading', { name: tr(L, 'login.title') }).waitFor();
  await login(page, L, ROOT_USER.username, ROOT_USER.password);
  await expectPage(page, L, 'nav.channels');
  assert.equal(new URL(page.url()).pathname, '/channels');
  problems.assertNone('session end and login again');
  await ctx.close();
});

test('an unreachable gateway shows a visible error with Retry; Retry loads the page once it is back', async () => {
  const ctx = await newContext(browser, gw.url, L);
  const page = await ctx.newPage();
  await page.goto('/login?next=%2Fusers');
  await login(page, L, ROOT_USER.username, ROOT_USER.password);
  await expectPage(page, L, 'nav.users');
  const table = page.getByRole('table', { name: tr(L, 'nav.users') });
  await expectText(table, 'root');

  await gw.stop();
  await page.getByRole('button', { name: tr(L, 'common.apply') }).click();
  const alert = page.getByRole('alert').filter({ hasText: tr(L, 'error.network') });
  await expectText(alert, tr(L, 'error.networkBody'));
  const retry = alert.getByRole('button', { name: tr(L, 'common.retry') });
  await retry.waitFor();
  await expectPage(page, L, 'nav.users'); // the page stays, with its last rows: not a blank page
  await expectText(table, 'root');

  await gw.restart();
  await retry.click();
  await alert.waitFor({ state: 'detached' });
  await expectText(table, 'root');
  await ctx.close();
});
