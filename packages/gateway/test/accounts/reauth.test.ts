/**
 * Changes that would let a thief keep an account need the account's own confirmation, not just a
 * session: a stolen session cookie, a leaked access token or command-line token cannot change the
 * e-mail address (and then reset the password through it), the password, turn the authenticator app
 * off, remove a passkey or replace the access token. The password confirms them (a second-factor code
 * or a recent sign-in for an account without one); the old address hears of a change; wrong passwords
 * count as failed logins. Turning a second factor on ends the access token and the sessions issued
 * before it. A real SMTP server (smtp-server) on loopback catches the mail.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from 'otplib';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { startMailCatcher, type Mail, type MailCatcher } from '../fakes/upstreams/smtp.ts';
import { waitFor } from '../relay-fixtures.ts';
import { UserStore } from '../../src/accounts/user-store.ts';
import { PasskeyStore } from '../../src/accounts/passkey-store.ts';

let gw: TestGateway;
let smtp: MailCatcher;
let root: AdminClient;
let mails: Mail[] = [];
let addr = 0;
const nextAddress = () => `198.51.100.${++addr}`;

interface Res {
  status: number;
  body: { success: boolean; message: string; data: any };
}

async function call(method: string, path: string, body: unknown, auth: Record<string, string>, from = nextAddress()): Promise<Res> {
  const r = await fetch(gw.url + path, {
    method,
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from, ...auth },
    body: JSON.stringify(body ?? {}),
  });
  return { status: r.status, body: (await r.json()) as Res['body'] };
}

/** A user with what a thief could hold: a console session, an access token and a command-line token. */
async function victim(name: string, email?: string) {
  const password = `${name}-password`;
  const u = await root.ok('POST', '/api/user', { username: name, password });
  const login = await fetch(`${gw.url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': nextAddress() },
    body: JSON.stringify({ username: name, password }),
  });
  assert.equal(login.status, 200);
  const cookie = { cookie: login.headers.get('set-cookie')!.split(';')[0] };
  const token = (await call('POST', '/api/user/token', { password }, cookie)).body.data.access_token as string;
  const cli = (await call('POST', '/api/user/cli-session', {}, cookie)).body.data.token as string;
  if (email)
    await new UserStore(gw.core.h).insertEmail({ user_id: u.id, email, verified_at: Date.now(), pending_bonus: 0, updated_at: Date.now() });
  return {
    id: u.id as number,
    name,
    password,
    cookie,
    bearer: { authorization: `Bearer ${token}` },
    cli: { authorization: `Bearer ${cli}` },
  };
}

const emailOf = async (id: number) =>
  (await gw.core.h.db.selectFrom('user_emails').select('email').where('user_id', '=', id).executeTakeFirst())?.email ?? null;
const mailsTo = (to: string) => mails.filter((m) => m.to.includes(to));

before(async () => {
  smtp = await startMailCatcher();
  mails = smtp.mails;
  gw = await startTestGateway({
    env: { TRUST_PROXY: '1', SMTP_URL: smtp.url, MAIL_FROM: 'Gatehouse <accounts@gatehouse.test>' },
  });
  root = await AdminClient.login(gw.url);
  await root.ok('PUT', '/api/option', { options: { ServerAddress: gw.url, SignupEnabled: true } });
});

after(async () => {
  await gw?.stop();
  await smtp?.close();
});

test('a stolen session or token cannot change the e-mail address (the first step of a takeover); the password can, and the old address is told', async () => {
  const v = await victim('vera', 'vera@example.com');
  for (const [how, auth] of [
    ['session cookie', v.cookie],
    ['access token', v.bearer],
    ['command-line token', v.cli],
  ] as const) {
    const r = await call('POST', '/api/user/self/email', { email: 'thief@example.com' }, auth);
    assert.equal(r.status, 403, `${how}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.message, /^password: this change needs your current password/);
    const wrong = await call('POST', '/api/user/self/email', { email: 'thief@example.com', password: 'guess-guess' }, auth);
    assert.equal(wrong.status, 400, `${how}: ${JSON.stringify(wrong.body)}`);
    assert.match(wrong.body.message, /^password: is not the current password/);
  }
  assert.equal(await emailOf(v.id), 'vera@example.com', 'the address did not change');
  // So the reset link still goes to the owner: the takeover chain is cut at its first step.
  assert.equal((await call('POST', '/api/user/password/forgot', { email: 'thief@example.com' }, {})).status, 200);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(mailsTo('thief@example.com').length, 0, 'nothing was mailed to the thief');

  // The owner, with the password: the link goes to the new address and the old one is told.
  const ok = await call('POST', '/api/user/self/email', { email: 'vera.new@example.com', password: v.password }, v.cookie);
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(await emailOf(v.id), 'vera.new@example.com');
  await waitFor(() => mailsTo('vera.new@example.com').length > 0, 10_000, 'the verification link');
  const notice = await waitFor(() => mailsTo('vera@example.com').find((m) => m.raw.includes('being changed')), 10_000, 'the notice');
  assert.match(notice.raw, /vera\.new@example\.com/);
  // Mailing the link again to the same (unverified) address changes nothing: no confirmation needed.
  assert.equal((await call('POST', '/api/user/self/email', {}, v.cookie)).status, 200);
});

test('a wrong password when confirming counts as a failed login of the address', async () => {
  const v = await victim('walt');
  await root.ok('PUT', '/api/option', { options: { LoginAttemptLimit: 2 } });
  try {
    const from = '198.51.100.250';
    for (let i = 0; i < 2; i++)
      assert.equal((await call('POST', '/api/user/token', { password: `wrong-${i}-password` }, v.cookie, from)).status, 400);
    const blocked = await call('POST', '/api/user/token', { password: v.password }, v.cookie, from);
    assert.equal(blocked.status, 429);
    assert.match(blocked.body.message, /too many failed logins/);
  } finally {
    await root.ok('PUT', '/api/option', { options: { LoginAttemptLimit: 10 } });
  }
});

test('a new password, a new access token, turning the app off and removing a passkey each need the password', async () => {
  const v = await victim('xena');
  // Password: the current one is required even with a valid session.
  const pw = await call('PUT', '/api/user/self/password', { new_password: 'xena-new-password' }, v.cookie);
  assert.equal(pw.status, 403, JSON.stringify(pw.body));
  assert.match(pw.body.message, /^old_password: /);
  // Access token: not replaced without the password; the old one keeps working.
  const tok = await call('POST', '/api/user/token', {}, v.bearer);
  assert.equal(tok.status, 403, JSON.stringify(tok.body));
  assert.equal((await fetch(`${gw.url}/api/user/self`, { headers: v.bearer })).status, 200);
  const tok2 = await call('POST', '/api/user/token', { password: v.password }, v.cookie);
  assert.equal(tok2.status, 200);
  assert.match(tok2.body.data.access_token, /^gh-/);

  // The authenticator app: a current code alone no longer turns it off.
  const setup = await call('POST', '/api/user/2fa/setup', {}, v.cookie);
  const secret = setup.body.data.secret as string;
  const on = await call('POST', '/api/user/2fa/enable', { code: await generate({ secret }) }, v.cookie);
  assert.equal(on.status, 200);
  const rc = on.body.data.recovery_codes as string[];
  const off = await call('POST', '/api/user/2fa/disable', { code: rc[0] }, v.cookie);
  assert.equal(off.status, 403, JSON.stringify(off.body));
  const status = (await (await fetch(`${gw.url}/api/user/2fa/status`, { headers: v.cookie })).json()) as {
    data: { totp_enabled: boolean; recovery_codes_left: number };
  };
  assert.equal(status.data.totp_enabled, true);
  assert.equal(status.data.recovery_codes_left, 10, 'the refused attempt spent no code');
  // With the password and a recovery code it goes off.
  assert.equal((await call('POST', '/api/user/2fa/disable', { code: rc[0], password: v.password }, v.cookie)).status, 200);

  // A passkey: removed only with the password. (Registration needs an authenticator: the row is written
  // through the passkey store as a ceremony would, then read back by its credential id.)
  const passkeys = new PasskeyStore(gw.core.h);
  await passkeys.insert({
    user_id: v.id,
    credential_id: 'cred-xena',
    public_key: 'x',
    counter: 0,
    transports: '',
    name: 'Laptop',
    created_at: Date.now(),
    last_used_at: null,
  });
  const pkId = Number((await passkeys.byCredential('cred-xena'))!.id);
  assert.equal((await call('DELETE', `/api/user/passkey/${pkId}`, {}, v.cookie)).status, 403);
  assert.equal((await call('DELETE', `/api/user/passkey/${pkId}`, { password: 'wrong-password' }, v.cookie)).status, 400);
  assert.ok(await gw.core.h.db.selectFrom('user_passkeys').select('id').where('id', '=', pkId).executeTakeFirst(), 'still there');
  assert.equal((await call('DELETE', `/api/user/passkey/${pkId}`, { password: v.password }, v.cookie)).status, 200);
});

test('turning a second factor on ends the access token and the command-line sessions issued before it', async () => {
  const v = await victim('yuri');
  assert.equal((await fetch(`${gw.url}/api/user/self`, { headers: v.bearer })).status, 200);
  assert.equal((await fetch(`${gw.url}/api/user/self`, { headers: v.cli })).status, 200);
  const setup = await call('POST', '/api/user/2fa/setup', {}, v.cookie);
  const on = await call('POST', '/api/user/2fa/enable', { code: await generate({ secret: setup.body.data.secret }) }, v.cookie);
  assert.equal(on.status, 200);
  assert.equal((await fetch(`${gw.url}/api/user/self`, { headers: v.bearer })).status, 401, 'the old access token ended');
  assert.equal((await fetch(`${gw.url}/api/user/self`, { headers: v.cli })).status, 401, 'the old command-line session ended');
  // It cannot mint new command-line sessions either; the session that turned it on goes on.
  assert.equal((await call('POST', '/api/user/cli-session', {}, v.bearer)).status, 401);
  assert.equal((await fetch(`${gw.url}/api/user/self`, { headers: v.cookie })).status, 200);
});

test('an account without a password (made by single sign-on) confirms with a second-factor code, or a recent sign-in when it has none', async () => {
  const id = await gw.services.accounts.users.create({ username: 'zoe', password: null });
  const cookieOf = async () => ({ cookie: `gatehouse_session=${await gw.services.accounts.users.openSession(id)}` });
  const fresh = await cookieOf();
  const self = (await (await fetch(`${gw.url}/api/user/self`, { headers: fresh })).json()) as { data: { reauth: string } };
  assert.equal(self.data.reauth, 'recent_sign_in');
  // No password works for it, not even an empty one, at login or here.
  assert.equal((await call('POST', '/api/user/login', { username: 'zoe', password: '' }, {})).status, 401);
  // Signed in minutes ago: the sign-in is the confirmation.
  const tok = await call('POST', '/api/user/token', {}, fresh);
  assert.equal(tok.status, 200, JSON.stringify(tok.body));
  // A session older than ten minutes (a stolen cookie) is not.
  const old = await cookieOf();
  await gw.core.h.db
    .updateTable('sessions')
    .set({ created_at: Date.now() - 11 * 60_000 })
    .where('user_id', '=', id)
    .execute();
  const late = await call('POST', '/api/user/token', {}, old);
  assert.equal(late.status, 403, JSON.stringify(late.body));
  assert.match(late.body.message, /recent sign-in/);
  // With an authenticator app, its codes confirm (and only right ones).
  const setup = await call('POST', '/api/user/2fa/setup', {}, old);
  const secret = setup.body.data.secret as string;
  const on = await call('POST', '/api/user/2fa/enable', { code: await generate({ secret }) }, old);
  assert.equal(on.status, 200);
  const rc = on.body.data.recovery_codes as string[];
  const self2 = (await (await fetch(`${gw.url}/api/user/self`, { headers: old })).json()) as { data: { reauth: string } };
  assert.equal(self2.data.reauth, 'second_factor');
  assert.equal((await call('POST', '/api/user/token', {}, old)).status, 403);
  assert.equal((await call('POST', '/api/user/token', { code: '000000' }, old)).status, 400);
  const next = await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });
  assert.equal((await call('POST', '/api/user/token', { code: next }, old)).status, 200);
  // It may set a password with a code; from then on the password confirms.
  const pw = await call('PUT', '/api/user/self/password', { new_password: 'zoe-first-password', code: rc[0] }, old);
  assert.equal(pw.status, 200, JSON.stringify(pw.body));
  assert.equal((await call('POST', '/api/user/token', { code: rc[1] }, old)).status, 403, 'a code no longer replaces the password');
  assert.equal((await call('POST', '/api/user/token', { password: 'zoe-first-password' }, old)).status, 200);
});
