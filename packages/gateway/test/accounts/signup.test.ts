/**
 * Sign-up and e-mail links end to end: a real SMTP server (smtp-server) on loopback catches the mail
 * and the test follows the link in it. Sign-up is off by default; an invitation code; the starting
 * balance credited once through the ledger; e-mail verification; password reset then login with the
 * new password; used and expired links refused; a reset for an unknown address answers like one for a
 * known address; sign-ups throttled per client address; a clear refusal without mail configured.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { startMailCatcher, type Mail, type MailCatcher } from '../fakes/upstreams/smtp.ts';
import { waitFor } from '../relay-fixtures.ts';
import { sha256Hex } from '../../src/platform/crypto.ts';

let gw: TestGateway;
let smtp: MailCatcher;
let root: AdminClient;
let mails: Mail[] = [];
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
  smtp = await startMailCatcher();
  mails = smtp.mails;
  gw = await startTestGateway({
    env: { TRUST_PROXY: '1', SMTP_URL: smtp.url, MAIL_FROM: 'Gatehouse <accounts@gatehouse.test>' },
  });
  root = await AdminClient.login(gw.url);
  await setOptions({ ServerAddress: gw.url });
});

after(async () => {
  await gw?.stop();
  await smtp?.close();
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
    const changed = await post('/api/user/self/email', { email: 'verifier2@example.com', password: 'verifier-password' }, nextAddress(), {
      cookie,
    });
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

test('an address is one bare address: angle brackets, display names and comments are refused; it is kept in lower case and unique whatever its case', async () => {
  await setOptions({ SignupEnabled: true });
  const mailed = mails.length;
  for (const email of [
    '<evil@example.com>',
    'Evil <evil@example.com>',
    '"Evil" <evil@example.com>',
    'evil(comment)@example.com',
    'evil@example.com (comment)',
    'evil@example.com, other@example.com',
    '"evil person"@example.com',
    'evil@[127.0.0.1]',
    'evil@localhost',
    'evil@example.com\r\nBcc: other@example.com',
  ]) {
    const r = await post('/api/user/register', { username: 'bracketed', password: 'bracketed-password', email });
    assert.equal(r.status, 400, `${JSON.stringify(email)}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.message, /^email: must be one e-mail address/);
  }
  assert.equal((await login('bracketed', 'bracketed-password')).status, 401, 'no account was made');
  const ok = await post('/api/user/register', { username: 'bracketed', password: 'bracketed-password', email: '  Evil@Example.COM ' });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(ok.body.data.email, 'evil@example.com');
  const stored = await gw.core.h.db
    .selectFrom('user_emails')
    .select('email')
    .where('user_id', '=', ok.body.data.id)
    .executeTakeFirstOrThrow();
  assert.equal(stored.email, 'evil@example.com');
  for (const email of ['EVIL@example.com', 'evil@EXAMPLE.com']) {
    const again = await post('/api/user/register', { username: 'bracketed2', password: 'bracketed-password', email });
    assert.equal(again.status, 409, JSON.stringify(again.body));
  }
  // A reset asked for in another case reaches the one account; a bracketed form is refused.
  assert.equal((await post('/api/user/password/forgot', { email: '<evil@example.com>' })).status, 400);
  assert.equal((await post('/api/user/password/forgot', { email: 'EVIL@Example.com' })).status, 200);
  await linkTo('evil@example.com', 'reset-password');
  assert.equal(mails.slice(mailed).filter((m) => m.to.includes('other@example.com')).length, 0);
  // The low-balance alert address is held to the same rule.
  const { cookie } = await login('bracketed', 'bracketed-password');
  const alert = await fetch(`${gw.url}/api/user/self/alerts`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ email: 'Evil <evil@example.com>' }),
  });
  assert.equal(alert.status, 400);
  const alertOk = await fetch(`${gw.url}/api/user/self/alerts`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ email: 'Alerts@Example.com' }),
  });
  assert.equal(alertOk.status, 200);
  assert.equal(((await alertOk.json()) as { data: { email: string } }).data.email, 'alerts@example.com');
});

/** Makes every insert of a ledger row whose ref starts with `prefix` fail (a database fault), until the returned function runs. */
async function failLedgerInserts(prefix: string): Promise<() => Promise<void>> {
  const db = gw.core.h.db;
  const d = gw.core.h.dialect;
  if (d === 'sqlite') {
    await sql
      .raw(
        `CREATE TRIGGER fail_credit BEFORE INSERT ON ledger WHEN NEW.ref LIKE '${prefix}%' BEGIN SELECT RAISE(ABORT, 'injected fault'); END`,
      )
      .execute(db);
  } else if (d === 'postgres') {
    await sql
      .raw(
        `CREATE FUNCTION fail_credit() RETURNS trigger AS $$ BEGIN IF NEW.ref LIKE '${prefix}%' THEN RAISE EXCEPTION 'injected fault'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
      )
      .execute(db);
    await sql.raw('CREATE TRIGGER fail_credit BEFORE INSERT ON ledger FOR EACH ROW EXECUTE FUNCTION fail_credit()').execute(db);
  } else {
    await sql
      .raw(
        `CREATE TRIGGER fail_credit BEFORE INSERT ON ledger FOR EACH ROW BEGIN IF NEW.ref LIKE '${prefix}%' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected fault'; END IF; END`,
      )
      .execute(db);
  }
  return async () => {
    await sql.raw(d === 'postgres' ? 'DROP TRIGGER fail_credit ON ledger' : 'DROP TRIGGER fail_credit').execute(db);
    if (d === 'postgres') await sql.raw('DROP FUNCTION fail_credit()').execute(db);
  };
}

test('the starting balance is credited in the transaction that makes the account: when the credit fails, no account is left behind', async () => {
  await setOptions({ SignupEnabled: true, QuotaForNewUser: 3000 });
  try {
    const restore = await failLedgerInserts('signup:');
    let failed;
    try {
      failed = await post('/api/user/register', { username: 'atomic', password: 'atomic-password', email: 'atomic@example.com' });
    } finally {
      await restore();
    }
    assert.equal(failed.status, 500, JSON.stringify(failed.body));
    assert.equal((await login('atomic', 'atomic-password')).status, 401, 'no account without its starting balance');
    assert.equal(
      await gw.core.h.db.selectFrom('user_emails').select('user_id').where('email', '=', 'atomic@example.com').executeTakeFirst(),
      undefined,
      'nor its address',
    );
    // The same sign-up again works, with its balance.
    const ok = await post('/api/user/register', { username: 'atomic', password: 'atomic-password', email: 'atomic@example.com' });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.data.credited, 3000);
    assert.equal(await balance(ok.body.data.id), 3000);

    // With verification, the balance waiting on the address is credited in one transaction with the
    // verification: a failed credit leaves the address unverified and the balance still waiting.
    await setOptions({ SignupEmailVerification: true });
    const r = await post('/api/user/register', { username: 'atomic2', password: 'atomic2-password', email: 'atomic2@example.com' });
    assert.equal(r.status, 200);
    const { token } = await linkTo('atomic2@example.com', 'verify-email');
    const restore2 = await failLedgerInserts('signup:');
    let v;
    try {
      v = await post('/api/user/email/verify', { token });
    } finally {
      await restore2();
    }
    assert.equal(v.status, 500);
    const row = await gw.core.h.db.selectFrom('user_emails').selectAll().where('user_id', '=', r.body.data.id).executeTakeFirstOrThrow();
    assert.equal(row.verified_at, null);
    assert.equal(Number(row.pending_bonus), 3000);
    assert.equal(await balance(r.body.data.id), 0);
    // The link was not used up: followed again, it verifies and credits.
    const again = await post('/api/user/email/verify', { token });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.credited, 3000);
    assert.equal(await balance(r.body.data.id), 3000);

    // An account an admin makes with a balance: the same.
    const restore3 = await failLedgerInserts('user_created:');
    try {
      assert.equal((await root.call('POST', '/api/user', { username: 'made', password: 'made-password', quota: 100 })).status, 500);
    } finally {
      await restore3();
    }
    assert.equal((await login('made', 'made-password')).status, 401);
    assert.equal((await root.ok('POST', '/api/user', { username: 'made', password: 'made-password', quota: 100 })).quota, 100);
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
