/**
 * Credentials on HTTP requests: API keys for model-call and task endpoints (docs/api.md), login
 * sessions and personal access tokens for /api/*.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KeyPrincipal, Role, UserPrincipal } from '../accounts/types.ts';
import { ROLE_RANK } from '../accounts/types.ts';
import { SESSION_COOKIE } from '../accounts/users.ts';
import { fail } from '../platform/errors.ts';
import type { AppDeps } from './deps.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: KeyPrincipal | null;
    user: UserPrincipal | null;
  }
}

/** The API key of a request: `Authorization: Bearer`, `x-api-key`, `x-goog-api-key`, or `?key=`. */
export function extractApiKey(req: FastifyRequest): string | null {
  const h = req.headers;
  const auth = h.authorization;
  if (auth) {
    const m = /^Bearer\s+(.+)$/i.exec(auth);
    if (m) return m[1].trim();
  }
  const x = h['x-api-key'] ?? h['x-goog-api-key'];
  if (typeof x === 'string' && x) return x.trim();
  const q = (req.query as Record<string, unknown> | undefined)?.key;
  if (typeof q === 'string' && q) return q;
  return null;
}

/** Sets `Retry-After` for an error that carries `retryAfter` seconds (a request limit); returns the error. */
export function refused(e: unknown, reply?: FastifyReply): Error {
  const after = (e as { retryAfter?: number }).retryAfter;
  if (after && reply) reply.header('retry-after', String(after));
  return e as Error;
}

/** Counts a request towards the user's request limit (accounts/rate-limits.ts); 429 with Retry-After beyond it. */
export async function admitRequest(deps: AppDeps, reply: FastifyReply, userId: number, group: string): Promise<void> {
  try {
    await deps.services.accounts.rateLimits.admitRequest(userId, group);
  } catch (e) {
    throw refused(e, reply);
  }
}

/**
 * onRequest hook: authenticates the API key (from the in-memory cache) and sets `req.principal`,
 * before any of the body is read — a request without a valid key is refused without its body being
 * buffered or parsed (the connection is then closed, errors.ts). As a route hook it runs callback style (the check is synchronous: no promise per request); called
 * directly without `done`, it returns a promise.
 */
export function requireKey(deps: AppDeps) {
  const { keys, rateLimits } = deps.services.accounts;
  function auth(req: FastifyRequest): Promise<void>;
  function auth(req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void;
  function auth(req: FastifyRequest, reply?: FastifyReply, done?: (err?: Error) => void): Promise<void> | void {
    let pending: void | Promise<void> = undefined;
    try {
      const p = keys.authenticate(extractApiKey(req), req.ip);
      req.principal = p;
      // Model calls and task submissions count towards the user's request limit; reads do not.
      if (req.method === 'POST') pending = rateLimits.admitRequest(p.userId, p.group);
    } catch (e) {
      if (done) return done(refused(e, reply));
      return Promise.reject(refused(e, reply));
    }
    if (pending) {
      const checked = pending.catch((e: unknown) => {
        throw refused(e, reply);
      });
      if (done) {
        checked.then(() => done(), done);
        return;
      }
      return checked;
    }
    if (done) return done();
    return Promise.resolve();
  }
  return auth;
}

/**
 * onRequest hook for /api/* (before the body is read): a session cookie or `Authorization: Bearer
 * <access token>` of a user with at least `minRole`. A state-changing request made with the cookie
 * must pass `checkCookieRequest` first.
 */
export function requireUser(deps: AppDeps, minRole: Role = 'user') {
  const users = deps.services.accounts.users;
  return async (req: FastifyRequest, _reply: FastifyReply) => {
    const auth = req.headers.authorization;
    const bearer = auth && /^Bearer\s+/i.test(auth) ? auth.replace(/^Bearer\s+/i, '').trim() : undefined;
    const cookie = req.cookies?.[SESSION_COOKIE];
    if (bearer === undefined && cookie) checkCookieRequest(deps, req);
    const user = await users.resolve({ cookie, bearer });
    if (!user) throw fail('unauthorized', 'not logged in: log in at POST /api/user/login or send Authorization: Bearer <access token>');
    if (ROLE_RANK[user.role] < ROLE_RANK[minRole]) throw fail('forbidden', `this needs the ${minRole} role`);
    await checkAdminSecondFactor(deps, req, user, bearer !== undefined);
    req.user = user;
  };
}

/** Methods that change nothing. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The console's own origins: the request's address (as the proxy forwarded it, with TRUST_PROXY) and PUBLIC_URL's. */
function ownOrigins(deps: AppDeps, req: FastifyRequest): string[] {
  const out = [`${req.protocol}://${req.host}`.toLowerCase()];
  const pub = deps.core.config.publicUrl;
  if (pub) out.push(new URL(pub).origin.toLowerCase());
  return out;
}

/**
 * The check against cross-site request forgery (docs/api.md#authentication), for every state-changing
 * request authenticated by the session cookie (bearer tokens are not sent by browsers on their own):
 * - it comes from the console's own origin: `Sec-Fetch-Site`, when the browser sends it, is
 *   `same-origin`, and `Origin`, when sent, is one of the console's own. Browsers send at least one of
 *   them with every POST, PUT, PATCH and DELETE; a request with neither is not a browser's;
 * - it carries a JSON body (multipart where the route takes uploads): forms (`text/plain`,
 *   urlencoded, multipart) and bodyless no-cors posts, which another page can make a browser send
 *   without asking, are refused. A DELETE may have no body.
 * 403 `cross_site_refused` otherwise, before the body is read or anything is looked up.
 */
export function checkCookieRequest(deps: AppDeps, req: FastifyRequest): void {
  if (SAFE_METHODS.has(req.method)) return;
  const site = req.headers['sec-fetch-site'];
  const origin = req.headers.origin;
  if (
    (typeof site === 'string' && site !== 'same-origin') ||
    (typeof origin === 'string' && !ownOrigins(deps, req).includes(origin.toLowerCase()))
  )
    throw fail(
      'cross_site_refused',
      'refused: a change made with the session cookie must come from the console itself (another site sent it)',
    );
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (type === 'application/json') return;
  if (type === 'multipart/form-data' && req.server.hasContentTypeParser('multipart/form-data')) return;
  if (req.method === 'DELETE' && type === '' && !hasBody(req)) return;
  throw fail('cross_site_refused');
}

/** onRequest hook of a route that uses the session cookie without requireUser (logout): checkCookieRequest when the cookie is what it acts on. */
export function sameSiteCookie(deps: AppDeps) {
  return (req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void => {
    try {
      if (!/^Bearer\s+/i.test(req.headers.authorization ?? '') && req.cookies?.[SESSION_COOKIE]) checkCookieRequest(deps, req);
    } catch (e) {
      return done(e as Error);
    }
    done();
  };
}

const hasBody = (req: FastifyRequest) => Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

/** What a console session of an admin who must still enrol a second factor may reach. */
const ENROLMENT_PATHS = /^\/api\/user\/(self|2fa|passkey)(\/|\?|$)/;

/**
 * AdminRequireTwoFactor (docs/two-factor.md): an admin or root without a second factor reaches only
 * its own profile and enrolment with a console session (403 `two_factor_setup_required` elsewhere),
 * and its access token and command-line sessions are refused everywhere (403 `two_factor_required`):
 * they were issued without a second factor and cannot enrol one.
 */
async function checkAdminSecondFactor(deps: AppDeps, req: FastifyRequest, user: UserPrincipal, viaBearer: boolean): Promise<void> {
  if (ROLE_RANK[user.role] < ROLE_RANK.admin || !deps.services.admin.options.getBool('AdminRequireTwoFactor', false)) return;
  if (await deps.services.accounts.twoFactor.hasSecondFactor(user.id)) return;
  if (viaBearer) {
    throw fail('two_factor_required');
  }
  if (!ENROLMENT_PATHS.test(req.url)) {
    throw fail('two_factor_setup_required');
  }
}
