/**
 * Sign-up through the console: from the login page a visitor opens the sign-up page, creates an
 * account with an e-mail address, opens the verification link from the mail (caught by an SMTP server
 * on loopback) and gets the starting balance; then "forgot password" mails a reset link, the reset
 * page sets a new password and the user logs in with it; the profile shows the verified address.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
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
  eventually,
  type ConsoleGateway,
} from './support.ts';

const L = 'en';

let gw: ConsoleGateway;
let browser: Browser;
let smtp: SMTPServer;
const mails: { to: string[]; raw: string }[] = [];

/** The link to `path` in the `n`th mail to `to` (quoted-printable undone). */
async function linkIn(to: string, path: string, n = 0): Promise<string> {
  return eventually(
    async () => {
      const m = mails.filter((x) => x.to.includes(to))[n];
      assert.ok(m, `no mail ${n} to ${to} yet`);
      const text = m.raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
      const link = new RegExp(`https?://\\S+/${path}\\?token=[A-Za-z0-9_-]+`).exec(text);
      assert.ok(link, `no ${path} link in the mail`);
      return link[0];
    },
    20_000,
    `mail to ${to}`,
  );
}

before(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((x) => x.address), raw: Buffer.concat(chunks).toString('utf8') });
        cb();
      });
    },
  });
  await new Promise<void>((ok) => smtp.listen(0, '127.0.0.1', ok));
  gw = await startConsoleGateway({
    SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
    MAIL_FROM: 'Gatehouse <accounts@gatehouse.test>',
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await gw?.close();
  await new Promise<void>((ok) => (smtp ? smtp.close(() => ok()) : ok()));
});

test('a visitor signs up on the sign-up page, verifies the address from the mail, resets the password and logs in with the new one', async () => {
  const api = await Api.login(gw.url);
  await api.ok('PUT', '/api/option', {
    options: { ServerAddress: gw.url, SignupEnabled: true, SignupEmailVerification: true, QuotaForNewUser: 1_000_000 },
  });

  const ctx = await newContext(browser, gw.url, L);
  const page = await ctx.newPage();
  const problems = new PageProblems(page);
  await page.goto('/login');
  await page.getByRole('link', { name: tr(L, 'signup.createAccount') }).click();
  const form = page.getByRole('form', { name: tr(L, 'signup.title') });
  await form.waitFor();
  await assertAccessible(page, 'sign-up page');
  await form.getByLabel(label(L, 'signup.username')).fill('newcomer');
  await form.getByLabel(label(L, 'signup.email')).fill('newcomer@example.com');
  await form.getByLabel(label(L, 'signup.password')).fill('newcomer-password-1');
  await form.getByLabel(label(L, 'signup.confirmPassword')).fill('newcomer-password-1');
  await screenshot(page, 'en-signup-form');
  await form.getByRole('button', { name: tr(L, 'signup.submit') }).click();
  await expectText(page.getByRole('status'), tr(L, 'signup.createdVerify', { email: 'newcomer@example.com' }));
  await screenshot(page, 'en-signup-created');

  // The verification link from the mail: the address is verified and the starting balance credited.
  await page.goto(await linkIn('newcomer@example.com', 'verify-email'));
  await expectText(page.getByRole('status'), tr(L, 'signup.verified', { email: 'newcomer@example.com' }));
  await assertAccessible(page, 'verify e-mail page');
  const users = await api.ok<{ items: { username: string; quota: number }[] }>('GET', '/api/user?keyword=newcomer');
  assert.equal(users.items.find((u) => u.username === 'newcomer')?.quota, 1_000_000);

  // Forgot password → the mailed link → a new password → log in with it.
  await page.goto('/login');
  await page.getByRole('link', { name: tr(L, 'signup.forgotLink') }).click();
  const forgot = page.getByRole('form', { name: tr(L, 'signup.forgotTitle') });
  await forgot.getByLabel(label(L, 'signup.email')).fill('newcomer@example.com');
  await forgot.getByRole('button', { name: tr(L, 'signup.forgotSubmit') }).click();
  await expectText(page.getByRole('status'), tr(L, 'signup.forgotSent'));
  await assertAccessible(page, 'forgot password page');
  await page.goto(await linkIn('newcomer@example.com', 'reset-password', 1));
  const reset = page.getByRole('form', { name: tr(L, 'signup.resetTitle') });
  await reset.getByLabel(label(L, 'profile.newPassword')).fill('newcomer-password-2');
  await reset.getByLabel(label(L, 'profile.confirmPassword')).fill('newcomer-password-2');
  await assertAccessible(page, 'reset password page');
  await reset.getByRole('button', { name: tr(L, 'signup.resetSubmit') }).click();
  await expectText(page.getByRole('status'), tr(L, 'signup.resetDone'));
  await page.getByRole('link', { name: tr(L, 'signup.goLogin') }).click();
  await login(page, L, 'newcomer', 'newcomer-password-2');
  await expectPage(page, L, 'nav.overview');
  await expectText(page.locator('main'), '$2.00');
  // The profile shows the verified address.
  await page.goto('/profile');
  const card = page.getByRole('region', { name: tr(L, 'signup.emailTitle') });
  await expectText(card, 'newcomer@example.com');
  await expectText(card, tr(L, 'signup.emailVerified'));
  await assertAccessible(page, 'profile with the e-mail card');
  problems.assertNone('sign-up pages');
  await ctx.close();
});
