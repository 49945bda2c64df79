/**
 * Single sign-on under /api/sso: the providers for admins (GET/POST/PUT/DELETE /api/sso/providers),
 * the login page's buttons (GET /api/sso/providers/public, anyone), and the browser flow
 * (GET /api/sso/{id}/start?next=/path → the provider, GET /api/sso/{id}/callback → session cookie, back to
 * the console at `next`).
 * Thin: decode, call services.sso, encode. Envelope {success, message, data}.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import { afterFirstFactor } from './login-step.ts';
import { parseSsoProvider, SSO_FLOW_TTL_MS, SSO_STATE_COOKIE } from '../accounts/sso.ts';
import { GatewayError } from '../platform/errors.ts';

const ok = (data: unknown, message = '') => ({ success: true, message, data });
const FLOW_COOKIE_PATH = '/api/sso/';

export async function ssoRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { sso } = deps.services.sso;
  const audit = () => deps.services.admin.audit;
  const adminOnly = { onRequest: requireUser(deps, 'admin') };
  const idOf = (req: FastifyRequest) => (req.params as { id: string }).id;
  const origin = (req: FastifyRequest) => `${req.protocol}://${req.host}`;

  await app.register(async (api) => {
    api.setErrorHandler(familyErrorHandler('admin'));

    api.get('/api/sso/providers/public', async () => ok(await sso.listPublic()));

    api.get('/api/sso/providers', adminOnly, async () => ok(await sso.list()));
    api.get('/api/sso/providers/:id', adminOnly, async (req) => ok(await sso.get(idOf(req))));
    api.post('/api/sso/providers', { ...adminOnly, bodyLimit: 64 * 1024 }, async (req) => {
      const view = await sso.create(parseSsoProvider(req.body, 'create'));
      await audit().record(req.user!, 'sso_provider.create', { type: 'sso_provider', id: view.id }, null, view);
      return ok(
        view,
        `register ${view.redirect_uri.startsWith('/') ? 'PUBLIC_URL + ' : ''}${view.redirect_uri} as the redirect URI with the provider`,
      );
    });
    api.put('/api/sso/providers/:id', { ...adminOnly, bodyLimit: 64 * 1024 }, async (req) => {
      const before = await sso.get(idOf(req));
      const cur = await sso.row(before.id);
      const { view, changed } = await sso.update(before.id, parseSsoProvider(req.body, 'update', '', cur));
      if (changed) await audit().record(req.user!, 'sso_provider.update', { type: 'sso_provider', id: view.id }, before, view);
      return ok(view);
    });
    api.delete('/api/sso/providers/:id', adminOnly, async (req) => {
      const view = await sso.delete(idOf(req));
      await audit().record(req.user!, 'sso_provider.delete', { type: 'sso_provider', id: view.id }, view, null);
      return ok(null, 'deleted');
    });

    api.get('/api/sso/:id/start', async (req, reply) => {
      try {
        const { url, cookie } = await sso.start(idOf(req), origin(req), (req.query as { next?: unknown } | undefined)?.next);
        reply.setCookie(SSO_STATE_COOKIE, cookie, {
          path: FLOW_COOKIE_PATH,
          httpOnly: true,
          sameSite: 'lax',
          maxAge: SSO_FLOW_TTL_MS / 1000,
          secure: req.protocol === 'https',
        });
        return reply.redirect(url, 302);
      } catch (e) {
        return failed(req, reply, e);
      }
    });

    api.get('/api/sso/:id/callback', async (req, reply) => {
      // The flow cookie is used once, whatever the outcome.
      reply.clearCookie(SSO_STATE_COOKIE, { path: FLOW_COOKIE_PATH });
      try {
        const url = new URL(req.url, origin(req));
        const { user, returnTo } = await sso.callback(idOf(req), url, req.cookies?.[SSO_STATE_COOKIE]);
        // The same step as after a password: a session, or the second factor when the account has one.
        const out = await afterFirstFactor(deps, req, reply, user);
        if ('require_2fa' in out && out.require_2fa) {
          return reply.redirect(`/login?${new URLSearchParams({ second_factor: out.methods.join(','), next: returnTo })}`, 302);
        }
        return reply.redirect('require_2fa_setup' in out && out.require_2fa_setup ? '/profile' : returnTo, 302);
      } catch (e) {
        return failed(req, reply, e);
      }
    });
  });

  /** A browser goes back to the login page with the reason; other clients get the error. */
  function failed(req: FastifyRequest, reply: FastifyReply, e: unknown): FastifyReply {
    const accept = String(req.headers.accept ?? '');
    if (e instanceof GatewayError && e.status < 500) deps.core.log.info({ code: e.code, msg: e.message }, 'sso login refused');
    if (!accept.includes('text/html')) throw e;
    if (!(e instanceof GatewayError)) deps.core.log.error({ err: e }, 'sso login failed');
    const code = e instanceof GatewayError ? e.code : 'sso_failed';
    return reply.redirect(`/login?sso_error=${encodeURIComponent(code)}`, 302);
  }
}
