/**
 * Second factors of console logins (docs/two-factor.md): completing a pending login
 * (/api/user/login/2fa), the user's TOTP enrolment and recovery codes (/api/user/2fa/*), passkeys and
 * the login without a password (/api/user/passkey/*). Envelope {success, message, data}. Each route
 * declares its schemas (http/schemas/account.ts); bodies are still read by the routes' own checks.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppDeps } from './deps.ts';
import { requireUser } from './auth.ts';
import { GatewayError, fail } from '../platform/errors.ts';
import type { LoginThrottle } from '../accounts/throttle.ts';
import { PENDING_LOGIN_COOKIE } from '../accounts/two-factor.ts';
import { Reader } from '../platform/validate.ts';
import { openConsoleSession, twoFactorRequiredFor } from './login-step.ts';
import { REAUTH_FIELDS } from '../accounts/reauth.ts';
import { confirm, keepOf } from './reauth.ts';
import { ok } from './envelope.ts';
import { Envelope, adminErrors, loggedIn, ref } from './schemas/common.ts';
import {
  LoginUser,
  LooseBody,
  Passkey,
  RecoveryCodes,
  ReauthBody,
  TotpSetup,
  TwoFactorStatus,
  WebAuthn,
  loginThrottled,
} from './schemas/account.ts';

/** An operation on second factors: tagged, behind a login unless `security` says otherwise. */
const op = <M extends object>(summary: string, data: import('typebox').TSchema, more?: M, extra: object = {}, tag = 'account') => ({
  tags: [tag],
  summary,
  security: loggedIn,
  ...(more as M),
  response: { 200: Envelope(data), ...adminErrors, ...extra },
});
const pub = { security: [] };
const webauthn = WebAuthn('WebAuthn options for @simplewebauthn/browser (startRegistration / startAuthentication)');
const codeText = '6-digit code of the authenticator app, or a recovery code';
const codeBody = LooseBody({ code: Type.String({ description: `${codeText} (required)` }) });

/** A numeric id in the path (0 and below are no such thing: 404). */
const PathId = Type.Object({ id: Type.Integer() });

const revokedNote = 'the personal access token and other sessions were ended';

/** `throttle`: the failed-login counter of POST /api/user/login (wrong codes count with wrong passwords). */
export async function twoFactorRoutes(scope: FastifyInstance, deps: AppDeps, throttle: LoginThrottle): Promise<void> {
  const api = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { twoFactor, passkeys, users } = deps.services.accounts;
  const admit = async (req: FastifyRequest, reply: FastifyReply) => {
    const wait = await throttle.blockedFor(req.ip);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      throw fail('too_many_attempts', `too many failed logins from this address: try again in ${wait} s`);
    }
  };
  /** Runs `fn`; a wrong code or a refused passkey counts as a failed login of the address. */
  const counted = async <T>(req: FastifyRequest, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof GatewayError && (e.code === 'two_factor_failed' || e.code === 'invalid_code' || e.code === 'invalid_passkey'))
        await throttle.failed(req.ip);
      throw e;
    }
  };
  const user = requireUser(deps);
  const small = { bodyLimit: 64 * 1024 };

  // ---- completing a pending login ----

  const pending = async (req: FastifyRequest): Promise<{ token: string; userId: number }> => {
    const token = req.cookies?.[PENDING_LOGIN_COOKIE];
    const userId = await twoFactor.pendingLogin(token);
    if (!token || userId === null)
      throw fail('no_pending_login', 'no login is waiting for a second factor (or it expired): log in with the password again');
    return { token, userId };
  };

  api.post(
    '/api/user/login/2fa/passkey-options',
    { ...small, schema: op('WebAuthn options to complete a pending login with a passkey', webauthn, pub) },
    async (req) => {
      const { userId } = await pending(req);
      return ok(await passkeys.authenticationOptions('passkey_2fa', userId));
    },
  );

  const loginTwoFactor = op(
    'Complete a pending login (its cookie) with a code or a passkey assertion; sets the session cookie. Wrong codes count as failed logins of the address',
    ref(LoginUser),
    {
      ...pub,
      body: LooseBody({
        code: Type.String({ description: 'authenticator app or recovery code' }),
        assertion: WebAuthn('startAuthentication() result'),
      }),
    },
    loginThrottled,
  );
  api.post('/api/user/login/2fa', { ...small, schema: loginTwoFactor }, async (req, reply) => {
    const b = Reader.of(req.body).only(['code', 'assertion']).obj as { code?: unknown; assertion?: unknown };
    if (b.code === undefined && b.assertion === undefined)
      throw fail('invalid_request', 'send {code} (authenticator app or recovery code) or {assertion} (passkey)');
    await admit(req, reply);
    const { token, userId } = await pending(req);
    await counted(req, async () => {
      if (b.assertion !== undefined) {
        await passkeys.verifyAssertion('passkey_2fa', b.assertion, userId);
      } else if (!(await twoFactor.verifyCode(userId, b.code))) {
        await twoFactor.pendingLoginFailed(token);
        throw fail('two_factor_failed', 'wrong or already used code', { details: { field: 'code' } });
      }
    });
    if (!(await twoFactor.endPendingLogin(token))) throw fail('no_pending_login');
    const u = await users.enabledUser(userId);
    if (!u) throw fail('user_disabled');
    return ok(await openConsoleSession(deps, req, reply, u));
  });

  // ---- login without a password ----

  // Anyone may ask: an address past the failed-login limit may not (each answer stores a challenge).
  const loginOptions = op(
    'WebAuthn options of a login without a password (any passkey of this site, with user verification)',
    webauthn,
    pub,
    loginThrottled,
  );
  api.post('/api/user/passkey/login/options', { ...small, schema: loginOptions }, async (req, reply) => {
    await admit(req, reply);
    return ok(await passkeys.authenticationOptions('passkey_login', null));
  });

  const passkeyLogin = op(
    'Log in with a passkey (no password); sets the session cookie',
    ref(LoginUser),
    { ...pub, body: LooseBody({ assertion: WebAuthn('startAuthentication() result (required)') }) },
    loginThrottled,
  );
  api.post('/api/user/passkey/login', { ...small, schema: passkeyLogin }, async (req, reply) => {
    const { assertion } = Reader.of(req.body).only(['assertion']).obj as { assertion?: unknown };
    if (assertion === undefined) throw fail('invalid_request', 'assertion is required');
    await admit(req, reply);
    const userId = await counted(req, () => passkeys.verifyAssertion('passkey_login', assertion, null));
    const u = await users.enabledUser(userId);
    if (!u) throw fail('user_disabled');
    return ok(await openConsoleSession(deps, req, reply, u));
  });

  // ---- the user's own second factors ----

  const statusSchema = op('Your second factors, and whether AdminRequireTwoFactor applies to you', ref(TwoFactorStatus));
  api.get('/api/user/2fa/status', { onRequest: user, schema: statusSchema }, async (req) =>
    ok({
      ...(await twoFactor.status(req.user!.id, twoFactorRequiredFor(deps, req.user!.role))),
      passkeys_available: passkeys.available(),
    }),
  );

  const setupSchema = op(
    'Start enrolling an authenticator app: a new secret and its otpauth:// URI (shown once); 409 while TOTP is on',
    ref(TotpSetup),
    {},
    { 409: { ...adminErrors[400], description: 'totp_already_enabled' } },
  );
  api.post('/api/user/2fa/setup', { onRequest: user, ...small, schema: setupSchema }, async (req) =>
    ok(
      await twoFactor.setupTotp(req.user!.id, req.user!.username),
      'shown once: add it to the authenticator app, then confirm with a code',
    ),
  );

  // A second factor turned on ends the access token and every other session: they were issued without it.
  const enableSchema = op(
    'Confirm the enrolment with a current code: TOTP is on; recovery codes in the answer (shown once)',
    ref(RecoveryCodes),
    { body: codeBody },
    loginThrottled,
  );
  api.post('/api/user/2fa/enable', { onRequest: user, ...small, schema: enableSchema }, async (req, reply) => {
    const { code } = Reader.of(req.body).only(['code']).obj;
    await admit(req, reply);
    const codes = await counted(req, () => twoFactor.enableTotp(req.user!.id, code));
    await users.revokeOtherCredentials(req.user!.id, keepOf(req));
    return ok({ recovery_codes: codes }, codes.length ? 'recovery codes shown once: store them now' : revokedNote);
  });

  // Turning the app off needs a current or recovery code, and the password (docs/two-factor.md).
  const disableSchema = op(
    'Turn the authenticator app off (needs a current or recovery code, and the password of an account that has one)',
    Type.Null(),
    {
      body: LooseBody({
        code: Type.String({ description: `${codeText} (required)` }),
        password: Type.String({ description: 'the current password' }),
      }),
    },
    loginThrottled,
  );
  api.post('/api/user/2fa/disable', { onRequest: user, ...small, schema: disableSchema }, async (req, reply) => {
    const b = Reader.of(req.body).only(['code', 'password']).obj;
    await admit(req, reply);
    await confirm(deps, req, reply, b, { codeChecked: true });
    await counted(req, () => twoFactor.disableTotp(req.user!.id, b.code));
    return ok(null);
  });

  const backupSchema = op(
    'New recovery codes, replacing the old ones (needs a current or recovery code)',
    ref(RecoveryCodes),
    { body: codeBody },
    loginThrottled,
  );
  api.post('/api/user/2fa/backup_codes', { onRequest: user, ...small, schema: backupSchema }, async (req, reply) => {
    const { code } = Reader.of(req.body).only(['code']).obj;
    await admit(req, reply);
    const codes = await counted(req, () => twoFactor.regenerateRecoveryCodes(req.user!.id, code));
    return ok({ recovery_codes: codes }, 'recovery codes shown once: store them now');
  });

  api.get('/api/user/passkey', { onRequest: user, schema: op('Your passkeys', Type.Array(ref(Passkey))) }, async (req) =>
    ok(await passkeys.list(req.user!.id)),
  );

  const registerOptions = op(
    'WebAuthn options to register a passkey (needs PUBLIC_URL: 503 otherwise)',
    webauthn,
    {},
    {
      503: { ...adminErrors[400], description: 'PUBLIC_URL is not set' },
    },
  );
  api.post('/api/user/passkey/register/options', { onRequest: user, ...small, schema: registerOptions }, async (req) =>
    ok(await passkeys.registrationOptions(req.user!)),
  );

  const registerSchema = op(
    'Register a passkey from the startRegistration() result; the first second factor also brings recovery codes (shown once)',
    Type.Object({ passkey: ref(Passkey), recovery_codes: Type.Array(Type.String()) }),
    { body: LooseBody({ response: WebAuthn('startRegistration() result (required)'), name: Type.String() }) },
  );
  api.post('/api/user/passkey/register', { onRequest: user, ...small, schema: registerSchema }, async (req) => {
    const b = Reader.of(req.body).only(['response', 'name']).obj as { response?: unknown; name?: unknown };
    if (b.response === undefined) throw fail('invalid_request', 'response is required');
    const passkey = await passkeys.register(req.user!.id, b.response, b.name);
    const codes = await twoFactor.recoveryCodesIfNone(req.user!.id);
    await users.revokeOtherCredentials(req.user!.id, keepOf(req));
    return ok({ passkey, recovery_codes: codes }, codes.length ? 'recovery codes shown once: store them now' : revokedNote);
  });

  // Removing a passkey (perhaps the last second factor) is confirmed like turning the app off.
  const removeSchema = op(
    'Remove one of your passkeys (confirmed like every sensitive change)',
    Type.Null(),
    { params: PathId, body: ReauthBody },
    loginThrottled,
  );
  api.delete('/api/user/passkey/:id', { onRequest: user, ...small, schema: removeSchema }, async (req, reply) => {
    const id = Number(req.params.id);
    if (!Number.isInteger(id) || id <= 0) throw fail('not_found', 'no such passkey');
    const b = Reader.of(req.body ?? {}).only(REAUTH_FIELDS).obj;
    await confirm(deps, req, reply, b);
    await passkeys.remove(req.user!.id, id);
    return ok(null);
  });

  // The challenge of a passkey that confirms a sensitive change (accounts without a password).
  const reauthOptions = op(
    'WebAuthn options of a passkey assertion that confirms a sensitive change (accounts without a password)',
    webauthn,
  );
  api.post('/api/user/reauth/passkey-options', { onRequest: user, ...small, schema: reauthOptions }, async (req) =>
    ok(await passkeys.authenticationOptions('passkey_reauth', req.user!.id)),
  );

  // An admin's reset of another user's second factors (a lost phone).
  const resetSchema = op('Remove every second factor of a user (a lost device) (admin)', Type.Null(), { params: PathId }, {}, 'users');
  api.delete('/api/user/:id/2fa', { onRequest: requireUser(deps, 'admin'), schema: resetSchema }, async (req) => {
    const id = Number(req.params.id);
    const admin = deps.services.admin;
    const target = Number.isInteger(id) && id > 0 ? await admin.users.get(id) : null;
    if (!target) throw fail('user_not_found', { id });
    admin.users.checkManage(req.user, target.role);
    const before = await twoFactor.status(id, false);
    await twoFactor.reset(id);
    await admin.audit.record(
      req.user,
      'user.reset_2fa',
      { type: 'user', id },
      { totp_enabled: before.totp_enabled, passkeys: before.passkeys },
      { totp_enabled: false, passkeys: 0 },
    );
    return ok(null);
  });
}
