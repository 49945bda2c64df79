/**
 * /api/user/*: login, logout, who am I (with balance and usage counters), change own password, the
 * models and prices of the caller's group, personal access token. Envelope {success, message, data}.
 * Each route declares its schemas (http/schemas/account.ts); bodies are still read by the routes' own
 * checks, which name the wrong field.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser, sameSiteCookie } from './auth.ts';
import { SESSION_COOKIE } from '../accounts/users.ts';
import { REAUTH_FIELDS } from '../accounts/reauth.ts';
import { GatewayError, fail } from '../platform/errors.ts';
import { Reader, fieldError } from '../platform/validate.ts';
import { confirm, keepOf } from './reauth.ts';
import { groupModelPrices } from '../admin/model-prices.ts';
import { afterFirstFactor, setSessionHint } from './login-step.ts';
import { twoFactorRoutes } from './two-factor-routes.ts';
import { Envelope, adminErrors, loggedIn, ref } from './schemas/common.ts';
import {
  ACCOUNT_SCHEMAS,
  GroupModels,
  LoginSecondFactor,
  LoginUser,
  LooseBody,
  PasswordChange,
  ReauthBody,
  SelfUser,
  loginThrottled,
} from './schemas/account.ts';

/** The account's own operations: tagged `account`, behind a login unless `security` says otherwise. */
export const accountOp = <M extends object>(summary: string, data: import('typebox').TSchema, more?: M, extra: object = {}) => ({
  tags: ['account'],
  summary,
  security: loggedIn,
  ...(more as M),
  response: { 200: Envelope(data), ...adminErrors, ...extra },
});

export async function accountRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { users, loginThrottle: throttle } = deps.services.accounts;
  for (const s of ACCOUNT_SCHEMAS) app.addSchema(s);
  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('admin'));
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();
    await twoFactorRoutes(scope, deps, throttle);

    // Anyone may call it: a small body limit, so nothing large is read before the credentials are checked.
    const loginSchema = accountOp(
      'Log in; sets a session cookie and answers who logged in (GET /api/user/self has the whole account), or — for a user with a second factor — a pending-login cookie and {require_2fa, methods} (POST /api/user/login/2fa completes it)',
      Type.Union([ref(LoginUser), ref(LoginSecondFactor)]),
      { security: [], body: LooseBody({ username: Type.String(), password: Type.String() }, 'username and password: both required') },
      loginThrottled,
    );
    api.post('/api/user/login', { bodyLimit: 64 * 1024, schema: loginSchema }, async (req, reply) => {
      const b = (req.body ?? {}) as { username?: unknown; password?: unknown };
      if (typeof b.username !== 'string' || typeof b.password !== 'string') {
        throw fail('invalid_request', 'username and password are required');
      }
      const wait = await throttle.blockedFor(req.ip);
      if (wait > 0) {
        reply.header('retry-after', String(wait));
        throw fail('too_many_attempts', `too many failed logins from this address: try again in ${wait} s`);
      }
      let user: Awaited<ReturnType<typeof users.checkPassword>>;
      try {
        user = await users.checkPassword(b.username, b.password);
      } catch (e) {
        if (e instanceof GatewayError && e.status === 401) await throttle.failed(req.ip);
        throw e;
      }
      // A session, or a pending login waiting for the second factor (docs/two-factor.md).
      return { success: true, message: '', data: await afterFirstFactor(deps, req, reply, user) };
    });

    const logout = async (req: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
      const auth = req.headers.authorization;
      const bearer = auth && /^Bearer\s+/i.test(auth) ? auth.replace(/^Bearer\s+/i, '').trim() : undefined;
      await users.logout(req.cookies?.[SESSION_COOKIE], bearer);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      setSessionHint(req, reply, false);
      return { success: true, message: '', data: null };
    };
    // POST only, and checked like every change made with the cookie: another site must not be able to
    // log the user out (a link, an image, a form).
    api.post(
      '/api/user/logout',
      {
        bodyLimit: 64 * 1024,
        onRequest: sameSiteCookie(deps),
        schema: accountOp(
          'Log out: ends the session of the cookie (or the command-line session of the bearer token) and clears the cookie',
          Type.Null(),
        ),
      },
      logout,
    );

    // With what the console needs to show money and where to send calls (the public address; null: the address the browser used).
    const selfSchema = accountOp(
      'The logged-in user with balance (quota, quota_usd), used_quota and request_count; the public address (PUBLIC_URL) and quota units per USD; how it confirms a sensitive change',
      ref(SelfUser),
    );
    api.get('/api/user/self', { onRequest: requireUser(deps), schema: selfSchema }, async (req) => ({
      success: true,
      message: '',
      data: {
        ...(await deps.services.admin.users.get(req.user!.id)),
        // How this account confirms a sensitive change (docs/two-factor.md#confirming-sensitive-changes).
        reauth: await deps.services.accounts.reauth.method(req.user!.id),
        public_url: deps.services.admin.options.publicUrl() || null,
        quota_per_usd: deps.core.config.quotaPerUsd,
      },
    }));

    const passwordSchema = accountOp(
      'Change your password (the current one is checked; an account without one confirms with a second factor); your other sessions and your personal access token are revoked, this session stays. A wrong old_password is a 400, and counts as a failed login of the address',
      Type.Null(),
      { body: Type.Union([ref(PasswordChange), Type.Null()]) },
      loginThrottled,
    );
    api.put('/api/user/self/password', { onRequest: requireUser(deps), schema: passwordSchema }, async (req, reply) => {
      // Passwords as sent (not trimmed: spaces are part of a password).
      const b = Reader.of(req.body).only(['old_password', 'new_password', 'code', 'assertion']).obj;
      if (typeof b.new_password !== 'string') throw fieldError('new_password', 'is required');
      await confirm(deps, req, reply, b, { passwordField: 'old_password' });
      await users.setOwnPassword(req.user!.id, b.new_password, keepOf(req), b.old_password);
      return { success: true, message: 'password changed: other sessions and the personal access token were revoked', data: null };
    });

    const modelsSchema = accountOp('The models your group may call, with the prices you pay (group ratio applied)', ref(GroupModels));
    api.get('/api/user/models', { onRequest: requireUser(deps), schema: modelsSchema }, async (req) => {
      const group = req.user!.group;
      const models = deps.services.relay.relay.listModels({ group, models: null });
      return { success: true, message: '', data: groupModelPrices(models, deps.services.billing.prices, group) };
    });

    // A command-line session (`gatehouse login`): many per user, each ended by its own logout.
    const cliSchema = accountOp(
      'Open a command-line session: a bearer token (ghs-…, shown once, 90 days) that other logins do not end; POST /api/user/logout with it ends it',
      Type.Object({ token: Type.String(), expires_at: Type.Integer({ description: 'unix ms' }) }),
    );
    api.post('/api/user/cli-session', { onRequest: requireUser(deps), schema: cliSchema }, async (req) => {
      const s = await users.openCliSession(req.user!.id);
      return { success: true, message: 'shown once: store it now', data: { token: s.token, expires_at: s.expiresAt } };
    });

    // A new token replaces the old one: confirmed like every change that could keep a thief in.
    const tokenSchema = accountOp(
      'Issue a personal access token (shown once) for scripts and the CLI, replacing the old one; confirmed (Reauth)',
      Type.Object({ access_token: Type.String() }),
      { body: ReauthBody },
      loginThrottled,
    );
    api.post('/api/user/token', { onRequest: requireUser(deps), bodyLimit: 64 * 1024, schema: tokenSchema }, async (req, reply) => {
      const b = Reader.of(req.body ?? {}).only(REAUTH_FIELDS).obj;
      await confirm(deps, req, reply, b);
      const token = await users.issueAccessToken(req.user!.id);
      return { success: true, message: 'shown once: store it now', data: { access_token: token } };
    });
  });
}
