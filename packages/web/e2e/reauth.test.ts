/**
 * Confirming sensitive changes on the profile page, in Chromium: issuing a new personal access token
 * opens a dialog that asks for the current password; a wrong one shows the server's refusal and issues
 * nothing, the right one shows the new token once. Turning the authenticator app off asks for the
 * password too (besides the code).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from 'otplib';
import type { Browser } from 'playwright-core';
import {
  assertAccessible,
  expectPage,
  expectText,
  label,
  launchBrowser,
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

test('a new access token and turning the authenticator app off ask for the current password in a dialog', async () => {
  const { ctx, page, problems } = await rootSession(browser, gw.url, L);
  await page.goto('/profile');
  await expectPage(page, L, 'nav.profile');
  const tokenCard = page.getByRole('region', { name: tr(L, 'profile.token') });
  await tokenCard.getByRole('button', { name: tr(L, 'profile.issueToken') }).click();
  const dialog = page.getByRole('dialog', { name: tr(L, 'profile.issueToken') });
  await dialog.getByLabel(label(L, 'reauth.password')).waitFor();
  await assertAccessible(page, 'the confirmation dialog');
  // A wrong password: refused, shown, nothing issued.
  problems.allow('/api/user/token', 400);
  await dialog.getByLabel(label(L, 'reauth.password')).fill('not-the-password');
  await dialog.getByRole('button', { name: tr(L, 'profile.issueToken') }).click();
  await expectText(tokenCard.getByRole('alert'), /not the current password/);
  // The right one: the token, shown once.
  await tokenCard.getByRole('button', { name: tr(L, 'profile.issueToken') }).click();
  await dialog.getByLabel(label(L, 'reauth.password')).fill(ROOT_USER.password);
  await dialog.getByRole('button', { name: tr(L, 'profile.issueToken') }).click();
  const shown = tokenCard.getByLabel(tr(L, 'profile.token'));
  await shown.waitFor();
  const token = await shown.inputValue();
  assert.match(token, /^gh-/);
  const me = await fetch(`${gw.url}/api/user/self`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(me.status, 200);

  // The authenticator app: set up on the profile, then off with a code and the password.
  const security = page.getByRole('region', { name: tr(L, 'twoFactor.title') });
  await security.getByRole('button', { name: tr(L, 'twoFactor.setupApp') }).click();
  const secret = await security.getByLabel(tr(L, 'twoFactor.secret')).inputValue();
  await security.getByLabel(label(L, 'twoFactor.code')).fill(await generate({ secret }));
  await security.getByRole('button', { name: tr(L, 'twoFactor.enable') }).click();
  await expectText(security, tr(L, 'twoFactor.on'));
  await security.getByLabel(label(L, 'twoFactor.code')).fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }));
  await security.getByRole('button', { name: tr(L, 'twoFactor.disable') }).click();
  const off = page.getByRole('dialog', { name: tr(L, 'twoFactor.disable') });
  await off.getByLabel(label(L, 'reauth.password')).fill(ROOT_USER.password);
  await off.getByRole('button', { name: tr(L, 'twoFactor.disable') }).click();
  await expectText(security, tr(L, 'twoFactor.off'));
  const status = await (await page.request.get('/api/user/2fa/status')).json();
  assert.equal(status.data.totp_enabled, false);
  problems.assertNone('confirmations on the profile');
  await ctx.close();
});
