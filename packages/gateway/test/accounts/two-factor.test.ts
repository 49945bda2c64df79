/**
 * Two-factor login with an authenticator app (docs/two-factor.md): enrolment, the pending login and
 * its code, replayed and wrong codes, recovery codes, disabling, the sealed secret, throttling, and
 * the option that requires a second factor for admins (sessions, access tokens, command-line sessions).
 * Codes are computed here with otplib from the secret the enrolment shows; each code is for the
 * current or the next 30 s step, both accepted whichever side of a step boundary the server reads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from 'otplib';
import { startTestGateway, TEST_ROOT_PASSWORD, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';

interface Res {
  status: number;
  body: { success: boolean; message: string; data: any };
  cookies: Record<string, string>;
}

async function call(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res> {
  const r = await fetch(url + path, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const cookies: Record<string, string> = {};
  for (const c of r.headers.getSetCookie()) {
    const [pair] = c.split(';');
    const i = pair.indexOf('=');
    cookies[pair.slice(0, i)] = pair.slice(i + 1);
  }
  return { status: r.status, body: (await r.json()) as Res['body'], cookies };
}

const STEP = 30;
/** The code of the current step (`ahead` 0) or the next one (`ahead` 1). */
const code = (secret: string, ahead: 0 | 1 = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + ahead * STEP });

async function loginPassword(url: string, username: string, password: string, headers: Record<string, string> = {}) {
  return call(url, 'POST', '/api/user/login', { username, password }, headers);
}

/** A user with a session cookie. */
async function newUser(gw: TestGateway, admin: AdminClient, username: string, role = 'user') {
  const password = `${username}-password`;
  await admin.ok('POST', '/api/user/', { username, password, role });
  const r = await loginPassword(gw.url, username, password);
  assert.equal(r.status, 200);
  return { username, password, id: r.body.data.id as number, session: `gatehouse_session=${r.cookies.gatehouse_session}` };
}

/** Enrols TOTP for a logged-in user; returns the secret and the recovery codes. */
async function enrolTotp(url: string, session: string) {
  const setup = await call(url, 'POST', '/api/user/2fa/setup', undefined, { cookie: session });
  assert.equal(setup.status, 200, JSON.stringify(setup.body));
  const { secret, otpauth_uri: uri } = setup.body.data as { secret: string; otpauth_uri: string };
  assert.match(secret, /^[A-Z2-7]{16,}$/);
  assert.ok(uri.startsWith('otpauth://totp/') && uri.includes(`secret=${secret}`), uri);
  const enable = await call(url, 'POST', '/api/user/2fa/enable', { code: await code(secret) }, { cookie: session });
  assert.equal(enable.status, 200, JSON.stringify(enable.body));
  const codes = enable.body.data.recovery_codes as string[];
  assert.equal(codes.length, 10);
  return { secret, codes };
}

test('TOTP: enrol, then a login needs a code; wrong and replayed codes are refused; the secret is sealed at rest', async () => {
  const gw = await startTestGateway();
  try {
    const admin = await AdminClient.login(gw.url);
    const u = await newUser(gw, admin, 'alice');

    const before = await call(gw.url, 'GET', '/api/user/2fa/status', undefined, { cookie: u.session });
    assert.equal(before.body.data.enabled, false);

    // A wrong code does not confirm the enrolment.
    const setup = await call(gw.url, 'POST', '/api/user/2fa/setup', undefined, { cookie: u.session });
    const secret = setup.body.data.secret as string;
    const wrongEnable = await call(
      gw.url,
      'POST',
      '/api/user/2fa/enable',
      { code: '000000' === (await code(secret)) ? '111111' : '000000' },
      { cookie: u.session },
    );
    assert.equal(wrongEnable.status, 400);
    assert.equal((await call(gw.url, 'GET', '/api/user/2fa/status', undefined, { cookie: u.session })).body.data.totp_pending, true);

    // The row holds the secret sealed, never in the clear; the secret is not shown again.
    const row = await gw.core.h.db.selectFrom('user_totp').selectAll().where('user_id', '=', u.id).executeTakeFirstOrThrow();
    assert.ok(row.secret_sealed.startsWith('v1:'), row.secret_sealed);
    assert.ok(!row.secret_sealed.includes(secret));
    assert.equal(gw.core.secrets.open(row.secret_sealed), secret);

    const enable = await call(gw.url, 'POST', '/api/user/2fa/enable', { code: await code(secret) }, { cookie: u.session });
    assert.equal(enable.status, 200, JSON.stringify(enable.body));
    assert.equal(enable.body.data.recovery_codes.length, 10);
    const status = (await call(gw.url, 'GET', '/api/user/2fa/status', undefined, { cookie: u.session })).body.data;
    assert.deepEqual([status.enabled, status.totp_enabled, status.recovery_codes_left], [true, true, 10]);
    const again = await call(gw.url, 'POST', '/api/user/2fa/setup', undefined, { cookie: u.session });
    assert.equal(again.status, 409, 'no second secret while TOTP is on');

    // The password alone gives a pending login, not a session.
    const first = await loginPassword(gw.url, u.username, u.password);
    assert.equal(first.status, 200);
    assert.deepEqual(first.body.data, { require_2fa: true, methods: ['totp', 'recovery_code'] });
    assert.equal(first.cookies.gatehouse_session, undefined);
    const pending = `gatehouse_2fa=${first.cookies.gatehouse_2fa}`;
    assert.ok(first.cookies.gatehouse_2fa);
    assert.equal(
      (await call(gw.url, 'GET', '/api/user/self', undefined, { cookie: pending })).status,
      401,
      'the pending cookie is not a session',
    );

    const wrong = await call(gw.url, 'POST', '/api/user/login/2fa', { code: '12345' }, { cookie: pending });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.success, false);

    const c = await code(secret, 1);
    const done = await call(gw.url, 'POST', '/api/user/login/2fa', { code: c }, { cookie: pending });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.data.username, 'alice');
    const session = `gatehouse_session=${done.cookies.gatehouse_session}`;
    assert.equal((await call(gw.url, 'GET', '/api/user/self', undefined, { cookie: session })).status, 200);
    // The pending login is used up.
    assert.equal((await call(gw.url, 'POST', '/api/user/login/2fa', { code: c }, { cookie: pending })).status, 401);

    // The same code again, in a new login: refused (its time step is spent).
    const second = await loginPassword(gw.url, u.username, u.password);
    const replay = await call(
      gw.url,
      'POST',
      '/api/user/login/2fa',
      { code: c },
      { cookie: `gatehouse_2fa=${second.cookies.gatehouse_2fa}` },
    );
    assert.equal(replay.status, 401);
    assert.equal(replay.body.success, false);

    // Deleting the user deletes its second factors.
    await admin.ok('DELETE', `/api/user/${u.id}`);
    assert.equal((await gw.core.h.db.selectFrom('user_totp').select('user_id').where('user_id', '=', u.id).execute()).length, 0);
    assert.equal((await gw.core.h.db.selectFrom('user_recovery_codes').select('id').where('user_id', '=', u.id).execute()).length, 0);
  } finally {
    await gw.stop();
  }
});

test('TOTP: a recovery code completes a login once; disabling needs a code', async () => {
  const gw = await startTestGateway();
  try {
    const admin = await AdminClient.login(gw.url);
    const u = await newUser(gw, admin, 'bob');
    const { secret, codes } = await enrolTotp(gw.url, u.session);

    const one = await loginPassword(gw.url, u.username, u.password);
    const ok = await call(
      gw.url,
      'POST',
      '/api/user/login/2fa',
      { code: codes[0].toUpperCase() },
      { cookie: `gatehouse_2fa=${one.cookies.gatehouse_2fa}` },
    );
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const two = await loginPassword(gw.url, u.username, u.password);
    const reused = await call(
      gw.url,
      'POST',
      '/api/user/login/2fa',
      { code: codes[0] },
      { cookie: `gatehouse_2fa=${two.cookies.gatehouse_2fa}` },
    );
    assert.equal(reused.status, 401, 'a recovery code works once');
    assert.equal((await call(gw.url, 'GET', '/api/user/2fa/status', undefined, { cookie: u.session })).body.data.recovery_codes_left, 9);

    // New recovery codes replace the old ones.
    const fresh = await call(gw.url, 'POST', '/api/user/2fa/backup_codes', { code: codes[1] }, { cookie: u.session });
    assert.equal(fresh.status, 200);
    const three = await loginPassword(gw.url, u.username, u.password);
    assert.equal(
      (await call(gw.url, 'POST', '/api/user/login/2fa', { code: codes[2] }, { cookie: `gatehouse_2fa=${three.cookies.gatehouse_2fa}` }))
        .status,
      401,
      'old codes are void',
    );

    // Disable: without a code or with a wrong one, refused; with a current code, done.
    assert.equal((await call(gw.url, 'POST', '/api/user/2fa/disable', {}, { cookie: u.session })).status, 400);
    assert.equal((await call(gw.url, 'POST', '/api/user/2fa/disable', { code: 'abcde-fghjk' }, { cookie: u.session })).status, 400);
    const off = await call(gw.url, 'POST', '/api/user/2fa/disable', { code: await code(secret, 1) }, { cookie: u.session });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    const plain = await loginPassword(gw.url, u.username, u.password);
    assert.equal(plain.body.data.username, 'bob', 'the password alone logs in again');
    assert.ok(plain.cookies.gatehouse_session);
    const rows = await gw.core.h.db.selectFrom('user_recovery_codes').select('id').where('user_id', '=', plain.body.data.id).execute();
    assert.equal(rows.length, 0, 'recovery codes go with the last second factor');
  } finally {
    await gw.stop();
  }
});

test('wrong second-factor codes count as failed logins of the address', async () => {
  const gw = await startTestGateway({ env: { TRUST_PROXY: '1' } });
  try {
    const admin = await AdminClient.login(gw.url);
    const u = await newUser(gw, admin, 'carol');
    await enrolTotp(gw.url, u.session);
    await gw.services.admin.options.set('LoginAttemptLimit', 3);
    const from = { 'x-forwarded-for': '203.0.113.9' };
    const first = await loginPassword(gw.url, u.username, u.password, from);
    const pending = { ...from, cookie: `gatehouse_2fa=${first.cookies.gatehouse_2fa}` };
    for (let i = 0; i < 3; i++)
      assert.equal((await call(gw.url, 'POST', '/api/user/login/2fa', { code: 'zzzzz-zzzzz' }, pending)).status, 401);
    const blocked = await call(gw.url, 'POST', '/api/user/login/2fa', { code: 'zzzzz-zzzzz' }, pending);
    assert.equal(blocked.status, 429);
    assert.equal(
      (await loginPassword(gw.url, u.username, u.password, from)).status,
      429,
      'the password login of the address is blocked too',
    );
  } finally {
    await gw.stop();
  }
});

test('AdminRequireTwoFactor: an admin without a second factor is sent to enrol; tokens and command-line sessions cannot bypass it', async () => {
  const gw = await startTestGateway();
  try {
    const root = await AdminClient.login(gw.url);
    const a = await newUser(gw, root, 'ops', 'admin');
    const plainUser = await newUser(gw, root, 'dave');
    // Issued before the option is on.
    const tok = await call(gw.url, 'POST', '/api/user/token', undefined, { cookie: a.session });
    const token = tok.body.data.access_token as string;
    const cli = await call(gw.url, 'POST', '/api/user/cli-session', undefined, { cookie: a.session });
    const cliToken = cli.body.data.token as string;
    assert.equal((await call(gw.url, 'GET', '/api/channel/', undefined, { authorization: `Bearer ${token}` })).status, 200);

    await gw.services.admin.options.set('AdminRequireTwoFactor', true);

    const login = await loginPassword(gw.url, a.username, a.password);
    assert.equal(login.status, 200);
    assert.equal(login.body.data.require_2fa_setup, true);
    const session = `gatehouse_session=${login.cookies.gatehouse_session}`;
    const refused = await call(gw.url, 'GET', '/api/channel/', undefined, { cookie: session });
    assert.equal(refused.status, 403);
    assert.match(refused.body.message, /second factor/);
    assert.equal((await call(gw.url, 'GET', '/api/user/self', undefined, { cookie: session })).status, 200, 'the profile is reachable');
    assert.equal((await call(gw.url, 'GET', '/api/user/2fa/status', undefined, { cookie: session })).body.data.required, true);
    // No way around it: no new token or command-line session, the old ones are refused everywhere.
    assert.equal((await call(gw.url, 'POST', '/api/user/token', undefined, { cookie: session })).status, 403);
    assert.equal((await call(gw.url, 'POST', '/api/user/cli-session', undefined, { cookie: session })).status, 403);
    for (const bearer of [token, cliToken]) {
      for (const path of ['/api/channel/', '/api/user/self', '/api/user/2fa/status']) {
        const r = await call(gw.url, 'GET', path, undefined, { authorization: `Bearer ${bearer}` });
        assert.equal(r.status, 403, `${path} with ${bearer.slice(0, 4)}`);
      }
    }
    assert.equal(
      (await call(gw.url, 'POST', '/api/user/2fa/setup', undefined, { authorization: `Bearer ${token}` })).status,
      403,
      'no enrolment with a token',
    );
    // Ordinary users are not affected.
    assert.equal((await call(gw.url, 'GET', '/api/user/models', undefined, { cookie: plainUser.session })).status, 200);

    // After enrolling, the admin works again, and so do its token and command-line session.
    const { secret } = await enrolTotp(gw.url, session);
    assert.equal((await call(gw.url, 'GET', '/api/channel/', undefined, { cookie: session })).status, 200);
    assert.equal((await call(gw.url, 'GET', '/api/channel/', undefined, { authorization: `Bearer ${cliToken}` })).status, 200);
    const next = await loginPassword(gw.url, a.username, a.password);
    assert.equal(next.body.data.require_2fa, true);
    const done = await call(
      gw.url,
      'POST',
      '/api/user/login/2fa',
      { code: await code(secret, 1) },
      { cookie: `gatehouse_2fa=${next.cookies.gatehouse_2fa}` },
    );
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.data.require_2fa_setup, undefined);

    // Root resets the admin's second factors (lost phone): sent to enrol again.
    const rootLogin = await loginPassword(gw.url, 'root', TEST_ROOT_PASSWORD);
    const rootSession = `gatehouse_session=${rootLogin.cookies.gatehouse_session}`;
    assert.equal(rootLogin.body.data.require_2fa_setup, true);
    assert.equal(
      (await call(gw.url, 'DELETE', `/api/user/${login.body.data.id}/2fa`, undefined, { cookie: rootSession })).status,
      403,
      'root must enrol first too',
    );
    await gw.services.admin.options.set('AdminRequireTwoFactor', false);
    assert.equal((await call(gw.url, 'DELETE', `/api/user/${login.body.data.id}/2fa`, undefined, { cookie: rootSession })).status, 200);
    assert.equal((await loginPassword(gw.url, a.username, a.password)).body.data.username, 'ops');
  } finally {
    await gw.stop();
  }
});

const BIN = fileURLToPath(new URL('../../bin/gatehouse.mjs', import.meta.url));

function cli(args: string[], home: string, input: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, HOME: home, XDG_CONFIG_HOME: '', GATEHOUSE_TOKEN: '', GATEHOUSE_URL: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '',
      stderr = '';
    p.stdout.on('data', (d) => {
      stdout += d;
    });
    p.stderr.on('data', (d) => {
      stderr += d;
    });
    p.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    p.stdin.end(input);
  });
}

test('gatehouse login: an account with an authenticator app logs in with --code; a wrong code is refused', async () => {
  const gw = await startTestGateway();
  const home = mkdtempSync(join(tmpdir(), 'gatehouse-2fa-cli-'));
  try {
    const admin = await AdminClient.login(gw.url);
    const u = await newUser(gw, admin, 'erin');
    const { secret } = await enrolTotp(gw.url, u.session);
    const bad = await cli(
      ['login', '--url', gw.url, '--username', 'erin', '--password-stdin', '--code', 'zzzzz-zzzzz'],
      home,
      `${u.password}\n`,
    );
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /wrong or already used code/);
    const good = await cli(
      ['login', '--url', gw.url, '--username', 'erin', '--password-stdin', '--code', await code(secret, 1)],
      home,
      `${u.password}\n`,
    );
    assert.equal(good.code, 0, good.stderr);
    // The stored command-line session works.
    const stored = JSON.parse(readFileSync(join(home, '.config', 'gatehouse', 'credentials.json'), 'utf8')) as {
      servers: Record<string, { token: string }>;
    };
    const me = await call(gw.url, 'GET', '/api/user/self', undefined, { authorization: `Bearer ${stored.servers[gw.url].token}` });
    assert.equal(me.body.data.username, 'erin');
  } finally {
    rmSync(home, { recursive: true, force: true });
    await gw.stop();
  }
});
