/**
 * Sign-up and e-mail links end to end: a real SMTP server (smtp-server) on loopback catches the mail
 * and the test follows the link in it. Sign-up is off by default; an invitation code; the starting
 * balance credited once through the ledger; e-mail verification; password reset then login with the
 * new password; used and expired links refused; a reset for an unknown address answers like one for a
 * known address; sign-ups throttled per client address; a clear refusal without mail configured.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { waitFor } from '../relay-fixtures.ts';
import { sha256Hex } from '../../src/platform/crypto.ts';

interface Mail {
  to: string[];
  raw: string;
}

let gw: TestGateway;
let smtp: SMTPServer;
let root: AdminClient;
const mails: Mail[] = [];
let addr = 0;
/** A client address of its own for each caller, so the sign-up throttle of one test does not reach another. */
const nextAddress = () => `203.0.113.${++addr}`;

/** The decoded text of a mail (quoted-printable soft breaks and escapes undone). */
function body(m: Mail): string {
  const text = m.raw.slice(m.raw.indexOf('\r\n\r\n') + 4);
  return text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** The one link of the mail to `to` whose path is `path`, and its token. */
async function linkTo(to: string, path: string, seen = 0): Promise<{ url: URL; token: string }> {
  const m = await waitFor(
    () => mails.filter((x) => x.to.includes(to) && body(x).includes(`/${path}?token=`))[seen],
    10_000,
    `mail to ${to}`,
  );
  const url = new URL(/https?:\/\/\S+/.exec(body(m).slice(body(m).indexOf('http')))![0]);
  assert.equal(url.pathname, `/${path}`);
  assert.equal(url.origin, gw.url, 'the link is built from ServerAddress');
  return { url, token: url.searchParams.get('token')! };
}

async function post(path: string, payload: unknown, from = nextAddress(), headers: Record<string, string> = {}) {
  const r = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from, ...headers },
    body: JSON.stringify(payload),
  });
  return {
    status: r.status,
    retryAfter: r.headers.get('retry-after'),
    body: (await r.json()) as { success: boolean; message: string; data: any },
  };
}

async function login(username: string, password: string) {
  const r = await fetch(`${gw.url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': nextAddress() },
    body: JSON.stringify({ username, password }),
  });
  return { status: r.status, cookie: r.headers.get('set-cookie')?.split(';')[0] ?? '' };
}

const setOptions = (options: Record<string, unknown>) => root.ok('PUT', '/api/option', { options });
const balance = async (id: number) => (await root.ok<{ quota: number }>('GET', `/api/user/${id}`)).quota;
const signupRows = (id: number) => gw.core.h.db.selectFrom('ledger').select(['kind', 'amount']).where('ref', '=', `signup:${id}`).execute();

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
  const port = (smtp.server.address() as AddressInfo).port;
  gw = await startTestGateway({
    env: { TRUST_PROXY: '1', SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Gatehouse <accounts@gatehouse.test>' },
  });
  root = await AdminClient.login(gw.url);
  await setOptions({ ServerAddress: gw.url });
});

after(async () => {
  await gw?.stop();
  await new Promise<void>((ok) => (smtp ? smtp.close(() => ok()) : ok()));
});

test('sign-up is off by default and refused with a clear error', async () => {
  const s = (await fetch(`${gw.url}/api/user/signup`).then((r) => r.json())) as { data: { enabled: boolean; email_configured: boolean } };
  assert.equal(s.data.enabled, false);
  assert.equal(s.data.email_configured, true);
  const r = await post('/api/user/register', { username: 'early', password: 'early-password' });
  assert.equal(r.status, 403);
  assert.equal(r.body.success, false);
  assert.match(r.body.message, /sign-up is turned off/);
  assert.equal((await login('early', 'early-password')).status, 401, 'no account was made');
});

test('sign-up with a required invitation code: missing or wrong codes are refused; the starting balance is credited once through the ledger', async () => {
  await setOptions({ SignupEnabled: true, SignupInvitationCode: 'open-sesame', QuotaForNewUser: 5000 });
  try {
    const list = await root.ok<{ key: string; value: string }[]>('GET', '/api/option');
    assert.equal(list.find((o) => o.key === 'SignupInvitationCode')!.value, '[set]', 'the code is never listed');
    const missing = await post('/api/user/register', { username: 'invited', password: 'invited-password' });
    assert.equal(missing.status, 403);
    assert.match(missing.body.message, /^invitation_code: /);
    const wrong = await post('/api/user/register', { username: 'invited', password: 'invited-password', invitation_code: 'open-sesame!' });
    assert.equal(wrong.status, 403);
    assert.match(wrong.body.message, /^invitation_code: is not a valid invitation code/);

    // New API's body: its verification and affiliate codes are accepted and ignored.
    const ok = await post('/api/user/register', {
      username: 'invited',
      password: 'invited-password',
      invitation_code: 'open-sesame',
      verification_code: '',
      aff_code: '',
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const id = ok.body.data.id as number;
    assert.equal(ok.body.data.credited, 5000);
    assert.equal(await balance(id), 5000);
    assert.deepEqual(
      (await signupRows(id)).map((r) => [r.kind, Number(r.amount)]),
      [['topup', -5000]],
      'one top-up row (the ledger counts credits negative)',
    );
    const user = await root.ok<{ role: string; group: string }>('GET', `/api/user/${id}`);
    assert.equal(user.role, 'user');
    assert.equal(user.group, 'default');

    const again = await post('/api/user/register', { username: 'invited', password: 'another-password', invitation_code: 'open-sesame' });
    assert.equal(again.status, 409, 'a taken name');
    assert.equal(await balance(id), 5000);
    assert.equal((await signupRows(id)).length, 1);
    assert.equal((await login('invited', 'invited-password')).status, 200);
  } finally {
    await setOptions({ SignupInvitationCode: '' });
  }
});

test('e-mail verification: the link in the mail verifies the address and credits the starting balance once; a used link is refused', async () => {
  await setOptions({ SignupEnabled: true, SignupEmailVerification: true, QuotaForNewUser: 7000 });
  try {
    const noEmail = await post('/api/user/register', { username: 'verifier', password: 'verifier-password' });
    assert.equal(noEmail.status, 400);
    assert.match(noEmail.body.message, /^email: is required/);
    const r = await post('/api/user/register', { username: 'verifier', password: 'verifier-password', email: 'Verifier@Example.com' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data.verification_sent, true);
    assert.equal(r.body.data.email, 'verifier@example.com');
    const id = r.body.data.id as number;
    assert.equal(await balance(id), 0, 'nothing before the address is verified');

    const { token } = await linkTo('verifier@example.com', 'verify-email');
    const row = await gw.core.h.db.selectFrom('email_tokens').selectAll().where('user_id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.token_hash, sha256Hex(token), 'stored hashed');
    assert.ok(!JSON.stringify(row).includes(token));

    const v = await post('/api/user/email/verify', { token });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    assert.equal(v.body.data.credited, 7000);
    assert.equal(await balance(id), 7000);

    const used = await post('/api/user/email/verify', { token });
    assert.equal(used.status, 400);
    assert.match(used.body.message, /invalid, already used or expired/);

    // A second link for the same account (the address changed and back) credits nothing more.
    const { cookie } = await login('verifier', 'verifier-password');
    const me = (await fetch(`${gw.url}/api/user/self/email`, { headers: { cookie } }).then((x) => x.json())) as {
      data: { email: string; verified: boolean };
    };
    assert.deepEqual(me.data, { email: 'verifier@example.com', verified: true });
    const already = await post('/api/user/self/email', {}, nextAddress(), { cookie });
    assert.equal(already.status, 409);
    const changed = await post('/api/user/self/email', { email: 'verifier2@example.com' }, nextAddress(), { cookie });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const second = await linkTo('verifier2@example.com', 'verify-email');
    const v2 = await post('/api/user/email/verify', { token: second.token });
    assert.equal(v2.status, 200);
    assert.equal(v2.body.data.credited, 0);
    assert.equal(await balance(id), 7000);
    assert.deepEqual(
      (await signupRows(id)).map((x) => [x.kind, Number(x.amount)]),
      [['topup', -7000]],
    );

    const taken = await post('/api/user/register', { username: 'copycat', password: 'copycat-password', email: 'verifier2@example.com' });
    assert.equal(taken.status, 409);
    assert.match(taken.body.message, /^email: /);
    // Deleting the account frees its address.
    await root.ok('DELETE', `/api/user/${id}`);
    assert.equal(
      (await post('/api/user/register', { username: 'copycat', password: 'copycat-password', email: 'verifier2@example.com' })).status,
      200,
    );
  } finally {
    await setOptions({ SignupEmailVerification: false, QuotaForNewUser: 0 });
  }
});

test('password reset: the link sets a new password, ends sessions, works once; an unknown address gets the same answer and no mail', async () => {
  await setOptions({ SignupEnabled: true });
  const r = await post('/api/user/register', { username: 'forgetful', password: 'first-password', email: 'forgetful@example.com' });
  assert.equal(r.status, 200);
  const { cookie } = await login('forgetful', 'first-password');

  const unknown = await post('/api/user/password/forgot', { email: 'nobody@example.com' });
  const known = await post('/api/user/password/forgot', { email: 'Forgetful@example.com' });
  assert.equal(known.status, 200);
  assert.deepEqual(unknown, known, 'the same answer for a known and an unknown address');

  const { token } = await linkTo('forgetful@example.com', 'reset-password');
  assert.equal(mails.filter((m) => m.to.includes('nobody@example.com')).length, 0);

  const short = await post('/api/user/password/reset', { token, password: 'short' });
  assert.equal(short.status, 400);
  assert.match(short.body.message, /^password: /);
  const done = await post('/api/user/password/reset', { token, password: 'second-password' });
  assert.equal(done.status, 200, JSON.stringify(done.body));

  assert.equal((await login('forgetful', 'first-password')).status, 401);
  assert.equal((await login('forgetful', 'second-password')).status, 200);
  assert.equal((await fetch(`${gw.url}/api/user/self`, { headers: { cookie } })).status, 401, 'the old session ended');

  const reused = await post('/api/user/password/reset', { token, password: 'third-password' });
  assert.equal(reused.status, 400);
  assert.match(reused.body.message, /invalid, already used or expired/);
  assert.equal((await login('forgetful', 'third-password')).status, 401);
});

test('an expired reset link is refused', async () => {
  await post('/api/user/password/forgot', { email: 'forgetful@example.com' });
  const { token } = await linkTo('forgetful@example.com', 'reset-password', 1);
  // Time moved on past the link's expiry (no service ages a link).
  await gw.core.h.db
    .updateTable('email_tokens')
    .set({ expires_at: Date.now() - 1 })
    .where('token_hash', '=', sha256Hex(token))
    .execute();
  const r = await post('/api/user/password/reset', { token, password: 'expired-password' });
  assert.equal(r.status, 400);
  assert.match(r.body.message, /invalid, already used or expired/);
  assert.equal((await login('forgetful', 'expired-password')).status, 401);
  const bogus = await post('/api/user/password/reset', { token: 'not-a-token', password: 'expired-password' });
  assert.equal(bogus.status, 400);
});

test('sign-ups are throttled per client address like failed logins', async () => {
  await setOptions({ SignupEnabled: true, SignupAttemptLimit: 2, SignupAttemptWindowSeconds: 600 });
  try {
    const a = nextAddress();
    assert.equal((await post('/api/user/register', { username: 'flood1', password: 'flood-password' }, a)).status, 200);
    assert.equal(
      (await post('/api/user/register', { username: 'bad name!', password: 'flood-password' }, a)).status,
      400,
      'a refused sign-up counts too',
    );
    const blocked = await post('/api/user/register', { username: 'flood3', password: 'flood-password' }, a);
    assert.equal(blocked.status, 429);
    assert.match(blocked.body.message, /too many sign-ups/);
    assert.ok(Number(blocked.retryAfter) >= 1);
    assert.equal((await login('flood3', 'flood-password')).status, 401);
    // Mails asked for from the same address count against it too; another address is not affected.
    assert.equal((await post('/api/user/password/forgot', { email: 'flood@example.com' }, a)).status, 429);
    assert.equal((await post('/api/user/register', { username: 'flood3', password: 'flood-password' })).status, 200);
  } finally {
    await setOptions({ SignupAttemptLimit: 10 });
  }
});

test('without mail configured, what needs mail is refused clearly', async () => {
  await setOptions({ SignupEnabled: true, ServerAddress: '' });
  try {
    const s = (await fetch(`${gw.url}/api/user/signup`).then((r) => r.json())) as { data: { email_configured: boolean } };
    assert.equal(s.data.email_configured, false);
    const forgot = await post('/api/user/password/forgot', { email: 'forgetful@example.com' });
    assert.equal(forgot.status, 503);
    assert.match(forgot.body.message, /e-mail is not configured/);
    await setOptions({ SignupEmailVerification: true });
    const reg = await post('/api/user/register', { username: 'mailless', password: 'mailless-password', email: 'mailless@example.com' });
    assert.equal(reg.status, 503);
    assert.match(reg.body.message, /e-mail is not configured/);
    // Without verification an address is kept, unverified, and the account works.
    await setOptions({ SignupEmailVerification: false });
    const plain = await post('/api/user/register', { username: 'mailless', password: 'mailless-password', email: 'mailless@example.com' });
    assert.equal(plain.status, 200);
    assert.equal(plain.body.data.verification_sent, false);
  } finally {
    await setOptions({ ServerAddress: gw.url, SignupEnabled: false });
  }
});
