/**
 * Single sign-on under /api/sso: the providers for admins (GET/POST/PUT/DELETE /api/sso/providers),
 * the login page's buttons (GET /api/sso/providers/public, anyone), and the browser flow
 * (GET /api/sso/{id}/start?next=/path → the provider, GET /api/sso/{id}/callback → session cookie, back to
 * the console at `next`); a user's own links (GET /api/user/sso, POST /api/user/sso/{id}/link →
 * the provider → the callback links it, DELETE /api/user/sso/{id}).
 * Thin: decode, call services.sso, encode. Envelope {success, message, data}. Each route declares its
 * schemas (http/schemas/sso.ts); the browser flow answers 302 redirects.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from 'typebox';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import { afterFirstFactor } from './login-step.ts';
import { parseSsoProvider } from '../accounts/sso-providers.ts';
import { SSO_FLOW_TTL_MS, SSO_STATE_COOKIE } from '../accounts/sso-protocols.ts';
import { REAUTH_FIELDS } from '../accounts/reauth.ts';
import { SESSION_COOKIE } from '../accounts/users.ts';
import { GatewayError, fail } from '../platform/errors.ts';
import { Reader } from '../platform/validate.ts';
import { confirm } from './reauth.ts';
import { ok } from './envelope.ts';
import { Envelope, adminErrors, loggedIn, ref } from './schemas/common.ts';
import { ReauthBody, loginThrottled } from './schemas/account.ts';
import { SSO_SCHEMAS, SsoLink, SsoProvider, SsoProviderInput, SsoPublicProvider } from './schemas/sso.ts';

const FLOW_COOKIE_PATH = '/api/sso/';

/** An sso operation: tagged, behind a login unless `security` says otherwise. */
const op = <M extends object>(summary: string, data: TSchema, more?: M, extra: object = {}) => ({
  tags: ['sso'],
  summary,
  security: loggedIn,
  ...(more as M),
  response: { 200: Envelope(data), ...adminErrors, ...extra },
});
const ProviderId = Type.Object({ id: Type.String({ description: 'provider id' }) });
const byId = { params: ProviderId };
const conflict = { 409: { ...adminErrors[400], description: 'a provider with this id exists' } };
/** A redirect of the browser flow: no body; a client that does not accept text/html gets the error as JSON instead. */
const redirectOp = (summary: string, querystring: TSchema, redirect: string) => ({
  tags: ['sso'],
  summary,
  security: [],
  params: ProviderId,
  querystring,
  response: {
    302: { description: `${redirect}; when refused, a browser (Accept: text/html) is sent to /login?sso_error=<code>` },
    400: adminErrors[400],
    404: adminErrors[404],
  },
});

export async function ssoRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { sso } = deps.services.sso;
  const providers = sso.providers;
  const audit = () => deps.services.admin.audit;
  const adminOnly = { onRequest: requireUser(deps, 'admin') };
  const idOf = (req: FastifyRequest) => (req.params as { id: string }).id;
  const origin = (req: FastifyRequest) => `${req.protocol}://${req.host}`;

  for (const s of SSO_SCHEMAS) app.addSchema(s);
  const provider = ref(SsoProvider);
  const input = ref(SsoProviderInput);
  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('admin'));
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();

    const publicSchema = op("Enabled providers for the login page's buttons", Type.Array(ref(SsoPublicProvider)), { security: [] });
    api.get('/api/sso/providers/public', { schema: publicSchema }, async () => ok(await providers.listPublic()));

    api.get('/api/sso/providers', { ...adminOnly, schema: op('Single sign-on providers (admin)', Type.Array(provider)) }, async () =>
      ok(await providers.list()),
    );
    api.get('/api/sso/providers/:id', { ...adminOnly, schema: op('One provider (admin)', provider, byId) }, async (req) =>
      ok(await providers.get(idOf(req))),
    );
    // The changer is recorded: a sign-in through the provider never lands in an account of its rank (accounts/sso.ts).
    const createSchema = op('Add a provider (409 when the id exists) (admin)', provider, { body: input }, conflict);
    api.post('/api/sso/providers', { ...adminOnly, bodyLimit: 64 * 1024, schema: createSchema }, async (req) => {
      const view = await providers.create(parseSsoProvider(req.body, 'create'), req.user);
      await audit().record(req.user!, 'sso_provider.create', { type: 'sso_provider', id: view.id }, null, view);
      return ok(
        view,
        `register ${view.redirect_uri.startsWith('/') ? 'PUBLIC_URL + ' : ''}${view.redirect_uri} as the redirect URI with the provider`,
      );
    });
    const updateSchema = op('Change a provider (fields not given are kept; client_secret only when given) (admin)', provider, {
      ...byId,
      body: input,
    });
    api.put('/api/sso/providers/:id', { ...adminOnly, bodyLimit: 64 * 1024, schema: updateSchema }, async (req) => {
      const before = await providers.get(idOf(req));
      const cur = await providers.row(before.id);
      const { view, changed } = await providers.update(before.id, parseSsoProvider(req.body, 'update', '', cur), req.user);
      if (changed) await audit().record(req.user!, 'sso_provider.update', { type: 'sso_provider', id: view.id }, before, view);
      return ok(view);
    });
    const deleteSchema = op('Delete a provider and its sign-in links (the accounts stay) (admin)', Type.Null(), byId);
    api.delete('/api/sso/providers/:id', { ...adminOnly, schema: deleteSchema }, async (req) => {
      const view = await sso.deleteProvider(idOf(req));
      await audit().record(req.user!, 'sso_provider.delete', { type: 'sso_provider', id: view.id }, view, null);
      return ok(null, 'deleted');
    });

    const flowCookie = (req: FastifyRequest, reply: FastifyReply, cookie: string) =>
      reply.setCookie(SSO_STATE_COOKIE, cookie, {
        path: FLOW_COOKIE_PATH,
        httpOnly: true,
        sameSite: 'lax',
        maxAge: SSO_FLOW_TTL_MS / 1000,
        secure: req.protocol === 'https',
      });

    const startSchema = redirectOp(
      'Begin a login: redirects to the provider (sets a short-lived flow cookie)',
      Type.Object({
        next: Type.Optional(Type.String({ description: 'console path to return to after the login (same origin; default /)' })),
      }),
      "to the provider's authorization page, with the flow cookie set",
    );
    api.get('/api/sso/:id/start', { schema: startSchema }, async (req, reply) => {
      try {
        const { url, cookie } = await sso.start(idOf(req), origin(req), (req.query as { next?: unknown } | undefined)?.next);
        flowCookie(req, reply, cookie);
        return reply.redirect(url, 302);
      } catch (e) {
        return failed(req, reply, e);
      }
    });

    // ---- the user's own links ----
    const user = { onRequest: requireUser(deps), bodyLimit: 64 * 1024 };
    const linksSchema = op('The enabled providers, each with its link to your account (null: not linked)', Type.Array(ref(SsoLink)));
    api.get('/api/user/sso', { ...user, schema: linksSchema }, async (req) => {
      const linked = new Map((await sso.identitiesOf(req.user!.id)).map((i) => [i.provider_id, i]));
      const list = (await providers.listPublic()).map((p) => ({ ...p, linked: linked.get(p.id) ?? null }));
      return ok(list);
    });
    // Linking an account to a provider is confirmed with its password and its second factor: the
    // answer is the provider's URL to send the browser to (with the flow cookie set).
    const linkSchema = op(
      "Link a provider to your account: confirmed with your password and your second factor (Reauth); the answer's url is the provider's page to send the browser to (a flow cookie is set), whose callback links the sign-in and returns to /profile?sso_linked={id}",
      Type.Object({ url: Type.String() }),
      { ...byId, body: ReauthBody },
      loginThrottled,
    );
    api.post('/api/user/sso/:id/link', { ...user, schema: linkSchema }, async (req, reply) => {
      const b = Reader.of(req.body ?? {}).only(REAUTH_FIELDS).obj;
      await confirm(deps, req, reply, b, { secondFactorToo: true });
      const { url, cookie } = await sso.startLink(idOf(req), req.user!, origin(req));
      flowCookie(req, reply, cookie);
      return ok({ url }, 'continue at the provider');
    });
    const unlinkSchema = op(
      'Unlink a provider from your account (confirmed, Reauth)',
      Type.Null(),
      { ...byId, body: ReauthBody },
      loginThrottled,
    );
    api.delete('/api/user/sso/:id', { ...user, schema: unlinkSchema }, async (req, reply) => {
      const b = Reader.of(req.body ?? {}).only(REAUTH_FIELDS).obj;
      await confirm(deps, req, reply, b);
      if (!(await sso.unlink(req.user!.id, idOf(req)))) throw fail('not_found', 'this provider is not linked to your account');
      return ok(null, 'unlinked');
    });

    const callbackSchema = redirectOp(
      "The provider's redirect: checks state, nonce and PKCE, signs in (session cookie) and redirects to the console (the next of the start, default /; /login?second_factor=… when the account has a second factor; /profile?sso_linked={id} after a link)",
      Type.Object({ code: Type.Optional(Type.String()), state: Type.Optional(Type.String()) }),
      'to the console with a session cookie',
    );
    api.get('/api/sso/:id/callback', { schema: callbackSchema }, async (req, reply) => {
      // The flow cookie is used once, whatever the outcome.
      reply.clearCookie(SSO_STATE_COOKIE, { path: FLOW_COOKIE_PATH });
      try {
        const url = new URL(req.url, origin(req));
        const session = await deps.services.accounts.users.resolve({ cookie: req.cookies?.[SESSION_COOKIE] });
        const { user, returnTo, linked } = await sso.callback(idOf(req), url, req.cookies?.[SSO_STATE_COOKIE], session?.id ?? null);
        // A link from the profile: the session goes on; back to the profile.
        if (linked) return reply.redirect(`${returnTo}?sso_linked=${encodeURIComponent(idOf(req))}`, 302);
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
