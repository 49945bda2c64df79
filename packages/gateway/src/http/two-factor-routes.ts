/**
 * Second factors of console logins (docs/two-factor.md): completing a pending login
 * (/api/user/login/2fa), the user's TOTP enrolment and recovery codes (/api/user/2fa/*), passkeys and
 * the login without a password (/api/user/passkey/*). Envelope {success, message, data}.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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

const revokedNote = 'the personal access token and other sessions were ended';

/** `throttle`: the failed-login counter of POST /api/user/login (wrong codes count with wrong passwords). */
export async function twoFactorRoutes(api: FastifyInstance, deps: AppDeps, throttle: LoginThrottle): Promise<void> {
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

  api.post('/api/user/login/2fa/passkey-options', small, async (req) => {
    const { userId } = await pending(req);
    return ok(await passkeys.authenticationOptions('passkey_2fa', userId));
  });

  api.post('/api/user/login/2fa', small, async (req, reply) => {
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
  api.post('/api/user/passkey/login/options', small, async (req, reply) => {
    await admit(req, reply);
    return ok(await passkeys.authenticationOptions('passkey_login', null));
  });

  api.post('/api/user/passkey/login', small, async (req, reply) => {
    const { assertion } = Reader.of(req.body).only(['assertion']).obj as { assertion?: unknown };
    if (assertion === undefined) throw fail('invalid_request', 'assertion is required');
    await admit(req, reply);
    const userId = await counted(req, () => passkeys.verifyAssertion('passkey_login', assertion, null));
    const u = await users.enabledUser(userId);
    if (!u) throw fail('user_disabled');
    return ok(await openConsoleSession(deps, req, reply, u));
  });

  // ---- the user's own second factors ----

  api.get('/api/user/2fa/status', { onRequest: user }, async (req) =>
    ok({
      ...(await twoFactor.status(req.user!.id, twoFactorRequiredFor(deps, req.user!.role))),
      passkeys_available: passkeys.available(),
    }),
  );

  api.post('/api/user/2fa/setup', { onRequest: user, ...small }, async (req) =>
    ok(
      await twoFactor.setupTotp(req.user!.id, req.user!.username),
      'shown once: add it to the authenticator app, then confirm with a code',
    ),
  );

  // A second factor turned on ends the access token and every other session: they were issued without it.
  api.post('/api/user/2fa/enable', { onRequest: user, ...small }, async (req, reply) => {
    const { code } = Reader.of(req.body).only(['code']).obj;
    await admit(req, reply);
    const codes = await counted(req, () => twoFactor.enableTotp(req.user!.id, code));
    await users.revokeOtherCredentials(req.user!.id, keepOf(req));
    return ok({ recovery_codes: codes }, codes.length ? 'recovery codes shown once: store them now' : revokedNote);
  });

  // Turning the app off needs a current or recovery code, and the password (docs/two-factor.md).
  api.post('/api/user/2fa/disable', { onRequest: user, ...small }, async (req, reply) => {
    const b = Reader.of(req.body).only(['code', 'password']).obj;
    await admit(req, reply);
    await confirm(deps, req, reply, b, { codeChecked: true });
    await counted(req, () => twoFactor.disableTotp(req.user!.id, b.code));
    return ok(null);
  });

  api.post('/api/user/2fa/backup_codes', { onRequest: user, ...small }, async (req, reply) => {
    const { code } = Reader.of(req.body).only(['code']).obj;
    await admit(req, reply);
    const codes = await counted(req, () => twoFactor.regenerateRecoveryCodes(req.user!.id, code));
    return ok({ recovery_codes: codes }, 'recovery codes shown once: store them now');
  });

  api.get('/api/user/passkey', { onRequest: user }, async (req) => ok(await passkeys.list(req.user!.id)));

  api.post('/api/user/passkey/register/options', { onRequest: user, ...small }, async (req) =>
    ok(await passkeys.registrationOptions(req.user!)),
  );

  api.post('/api/user/passkey/register', { onRequest: user, ...small }, async (req) => {
    const b = Reader.of(req.body).only(['response', 'name']).obj as { response?: unknown; name?: unknown };
    if (b.response === undefined) throw fail('invalid_request', 'response is required');
    const passkey = await passkeys.register(req.user!.id, b.response, b.name);
    const codes = await twoFactor.recoveryCodesIfNone(req.user!.id);
    await users.revokeOtherCredentials(req.user!.id, keepOf(req));
    return ok({ passkey, recovery_codes: codes }, codes.length ? 'recovery codes shown once: store them now' : revokedNote);
  });

  // Removing a passkey (perhaps the last second factor) is confirmed like turning the app off.
  api.delete('/api/user/passkey/:id', { onRequest: user, ...small }, async (req, reply) => {
    const id = Number((req.params as { id: string }).id);
    if (!Number.isInteger(id) || id <= 0) throw fail('not_found', 'no such passkey');
    const b = Reader.of(req.body ?? {}).only(REAUTH_FIELDS).obj;
    await confirm(deps, req, reply, b);
    await passkeys.remove(req.user!.id, id);
    return ok(null);
  });

  // The challenge of a passkey that confirms a sensitive change (accounts without a password).
  api.post('/api/user/reauth/passkey-options', { onRequest: user, ...small }, async (req) =>
    ok(await passkeys.authenticationOptions('passkey_reauth', req.user!.id)),
  );

  // An admin's reset of another user's second factors (a lost phone).
  api.delete('/api/user/:id/2fa', { onRequest: requireUser(deps, 'admin') }, async (req) => {
    const id = Number((req.params as { id: string }).id);
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
