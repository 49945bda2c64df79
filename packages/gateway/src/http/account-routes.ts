/**
 * /api/user/*: login, logout, who am I (with balance and usage counters), change own password, the
 * models and prices of the caller's group, personal access token. Envelope {success, message, data}.
 */
import type { FastifyInstance } from 'fastify';
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

export async function accountRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { users, loginThrottle: throttle } = deps.services.accounts;
  await app.register(async (api) => {
    api.setErrorHandler(familyErrorHandler('admin'));
    await twoFactorRoutes(api, deps, throttle);

    // Anyone may call it: a small body limit, so nothing large is read before the credentials are checked.
    api.post('/api/user/login', { bodyLimit: 64 * 1024 }, async (req, reply) => {
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
    api.post('/api/user/logout', { bodyLimit: 64 * 1024, onRequest: sameSiteCookie(deps) }, logout);

    // With what the console needs to show money and where to send calls (the public address; null: the address the browser used).
    api.get('/api/user/self', { onRequest: requireUser(deps) }, async (req) => ({
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

    api.put('/api/user/self/password', { onRequest: requireUser(deps) }, async (req, reply) => {
      // Passwords as sent (not trimmed: spaces are part of a password).
      const b = Reader.of(req.body).only(['old_password', 'new_password', 'code', 'assertion']).obj;
      if (typeof b.new_password !== 'string') throw fieldError('new_password', 'is required');
      await confirm(deps, req, reply, b, { passwordField: 'old_password' });
      await users.setOwnPassword(req.user!.id, b.new_password, keepOf(req), b.old_password);
      return { success: true, message: 'password changed: other sessions and the personal access token were revoked', data: null };
    });

    api.get('/api/user/models', { onRequest: requireUser(deps) }, async (req) => {
      const group = req.user!.group;
      const models = deps.services.relay.relay.listModels({ group, models: null });
      return { success: true, message: '', data: groupModelPrices(models, deps.services.billing.prices, group) };
    });

    // A command-line session (`gatehouse login`): many per user, each ended by its own logout.
    api.post('/api/user/cli-session', { onRequest: requireUser(deps) }, async (req) => {
      const s = await users.openCliSession(req.user!.id);
      return { success: true, message: 'shown once: store it now', data: { token: s.token, expires_at: s.expiresAt } };
    });

    // A new token replaces the old one: confirmed like every change that could keep a thief in.
    api.post('/api/user/token', { onRequest: requireUser(deps), bodyLimit: 64 * 1024 }, async (req, reply) => {
      const b = Reader.of(req.body ?? {}).only(REAUTH_FIELDS).obj;
      await confirm(deps, req, reply, b);
      const token = await users.issueAccessToken(req.user!.id);
      return { success: true, message: 'shown once: store it now', data: { access_token: token } };
    });
  });
}
