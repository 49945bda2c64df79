/**
 * Passkeys in the console, with Chromium's virtual authenticator (CDP WebAuthn domain): a user adds a
 * passkey on the profile page (recovery codes shown once), then logs in with the password and the
 * passkey as the second factor, then with the passkey alone (no password). The gateway runs with
 * PUBLIC_URL=http://localhost:<port>, the relying party browsers accept without TLS. An admin who must
 * use a second factor (AdminRequireTwoFactor) is sent to the profile after logging in. A user sets up
 * an authenticator app on the profile and logs in with its code.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { generate } from 'otplib';
import {
  Api,
  assertAccessible,
  expectPage,
  expectText,
  launchBrowser,
  login,
  label,
  newContext,
  PageProblems,
  screenshot,
  startConsoleGateway,
  tr,
  type ConsoleGateway,
} from './support.ts';

const L = 'en';
const USER = { username: 'erin', password: 'erin-password-1' };

let gw: ConsoleGateway;
let browser: Browser;
let origin: string;

/** A port free right now, so PUBLIC_URL can name it before the gateway starts. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

before(async () => {
  const port = await freePort();
  origin = `http://localhost:${port}`;
  gw = await startConsoleGateway({ PORT: String(port), PUBLIC_URL: origin });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await gw?.close();
});

/** A page with a virtual platform authenticator (resident keys, user verification, presence simulated). */
async function pageWithAuthenticator(ctx: BrowserContext): Promise<Page> {
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return page;
}

async function leftLogin(page: Page): Promise<void> {
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
  await expectPage(page, L, 'nav.overview');
}

test('a passkey is added on the profile, then completes a password login as the second factor, then logs in alone', async () => {
  const root = await Api.login(gw.url);
  await root.ok('POST', '/api/user', { username: USER.username, password: USER.password });

  const ctx = await newContext(browser, origin, L);
  const page = await pageWithAuthenticator(ctx);
  const problems = new PageProblems(page);

  // Password only: no second factor yet.
  await page.goto('/login');
  await login(page, L, USER.username, USER.password);
  await leftLogin(page);

  // Add a passkey on the profile page.
  await page.goto('/profile');
  await expectPage(page, L, 'nav.profile');
  const card = page.getByRole('region', { name: tr(L, 'twoFactor.title') });
  await expectText(card, tr(L, 'twoFactor.off'));
  await assertAccessible(page, 'profile with the two-factor card');
  await card.getByLabel(label(L, 'twoFactor.passkeyName')).fill('Laptop');
  await card.getByRole('button', { name: tr(L, 'twoFactor.addPasskey') }).click();
  const list = card.getByRole('list', { name: tr(L, 'twoFactor.passkeys') });
  await expectText(list, 'Laptop');
  const codes = card.getByRole('list', { name: tr(L, 'twoFactor.recoveryCodes') });
  assert.equal(await codes.getByRole('listitem').count(), 10, 'the first second factor brings recovery codes');
  await expectText(card, tr(L, 'twoFactor.on'));
  await screenshot(page, 'en-profile-passkey');

  // The password alone is not enough any more: the passkey completes the login.
  await ctx.clearCookies();
  await page.goto('/login');
  await login(page, L, USER.username, USER.password);
  await page.getByRole('heading', { name: tr(L, 'twoFactor.stepTitle') }).waitFor();
  await assertAccessible(page, 'second-factor step');
  await screenshot(page, 'en-login-second-factor');
  await page.getByRole('button', { name: tr(L, 'twoFactor.usePasskey') }).click();
  await leftLogin(page);

  // No password at all: the passkey logs in by itself.
  await ctx.clearCookies();
  await page.goto('/login');
  await page.getByRole('button', { name: tr(L, 'twoFactor.loginWithPasskey') }).click();
  await leftLogin(page);

  const me = await page.evaluate(async () => (await (await fetch('/api/user/self')).json()) as { data: { username: string } });
  assert.equal(me.data.username, USER.username);
  const keys = await page.evaluate(
    async () => (await (await fetch('/api/user/passkey')).json()) as { data: Array<{ name: string; last_used_at: number | null }> },
  );
  assert.equal(keys.data.length, 1);
  assert.ok(keys.data[0].last_used_at, 'the passkey records its last use');
  problems.assertNone('passkey flows');
  await ctx.close();
});

test('an authenticator app is set up on the profile with a code, and the login asks for the next one', async () => {
  const root = await Api.login(gw.url);
  await root.ok('POST', '/api/user', { username: 'finn', password: 'finn-password-1' });
  const ctx = await newContext(browser, origin, L);
  const page = await ctx.newPage();
  const problems = new PageProblems(page);
  await page.goto('/login');
  await login(page, L, 'finn', 'finn-password-1');
  await leftLogin(page);
  await page.goto('/profile');
  const card = page.getByRole('region', { name: tr(L, 'twoFactor.title') });
  await card.getByRole('button', { name: tr(L, 'twoFactor.setupApp') }).click();
  const secret = await card.getByLabel(label(L, 'twoFactor.secret')).inputValue();
  assert.match(secret, /^[A-Z2-7]{16,}$/);
  assert.match(await card.getByLabel(label(L, 'twoFactor.uri')).inputValue(), /^otpauth:\/\/totp\/Gatehouse:finn\?/);
  await card.getByLabel(label(L, 'twoFactor.code')).fill(await generate({ secret }));
  await card.getByRole('button', { name: tr(L, 'twoFactor.enable') }).click();
  const codes = card.getByRole('list', { name: tr(L, 'twoFactor.recoveryCodes') });
  await codes.waitFor();
  assert.equal(await codes.getByRole('listitem').count(), 10);
  await expectText(card, tr(L, 'twoFactor.recoveryLeft', { count: 10 }));

  await ctx.clearCookies();
  await page.goto('/login');
  await login(page, L, 'finn', 'finn-password-1');
  await page.getByRole('heading', { name: tr(L, 'twoFactor.stepTitle') }).waitFor();
  // The code of the next step: the one just used for the enrolment is spent.
  await page.getByLabel(label(L, 'twoFactor.code')).fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }));
  await page.getByRole('button', { name: tr(L, 'twoFactor.verify') }).click();
  await leftLogin(page);
  problems.assertNone('authenticator app flows');
  await ctx.close();
});

test('AdminRequireTwoFactor: an admin without a second factor lands on the profile and enrols a passkey there', async () => {
  const root = await Api.login(gw.url);
  await root.ok('POST', '/api/user', { username: 'opal', password: 'opal-password-1', role: 'admin' });
  // Root enrols an authenticator app first, so its own session keeps working under the option.
  const { secret } = await root.ok<{ secret: string }>('POST', '/api/user/2fa/setup');
  await root.ok('POST', '/api/user/2fa/enable', { code: await generate({ secret }) });
  await root.ok('PUT', '/api/option', { key: 'AdminRequireTwoFactor', value: true });
  try {
    const ctx = await newContext(browser, origin, L);
    const page = await pageWithAuthenticator(ctx);
    await page.goto('/login');
    await login(page, L, 'opal', 'opal-password-1');
    await expectPage(page, L, 'nav.profile');
    const card = page.getByRole('region', { name: tr(L, 'twoFactor.title') });
    await expectText(card, tr(L, 'twoFactor.requiredAlert'));
    // Other pages send it back until it has a second factor.
    await page.goto('/dashboard');
    await expectPage(page, L, 'nav.profile');
    await card.getByRole('button', { name: tr(L, 'twoFactor.addPasskey') }).click();
    await expectText(card.getByRole('list', { name: tr(L, 'twoFactor.passkeys') }), 'Passkey');
    await page.goto('/dashboard');
    await expectPage(page, L, 'nav.dashboard');
    await ctx.close();
  } finally {
    await root.ok('PUT', '/api/option', { key: 'AdminRequireTwoFactor', value: false });
  }
});
