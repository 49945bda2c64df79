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

/** onRequest hook for /api/* (before the body is read): a session cookie or `Authorization: Bearer <access token>` of a user with at least `minRole`. */
export function requireUser(deps: AppDeps, minRole: Role = 'user') {
  const users = deps.services.accounts.users;
  return async (req: FastifyRequest, _reply: FastifyReply) => {
    const auth = req.headers.authorization;
    const bearer = auth && /^Bearer\s+/i.test(auth) ? auth.replace(/^Bearer\s+/i, '').trim() : undefined;
    const user = await users.resolve({ cookie: req.cookies?.[SESSION_COOKIE], bearer });
    if (!user) throw fail('unauthorized', 'not logged in: log in at POST /api/user/login or send Authorization: Bearer <access token>');
    if (ROLE_RANK[user.role] < ROLE_RANK[minRole]) throw fail('forbidden', `this needs the ${minRole} role`);
    await checkAdminSecondFactor(deps, req, user, bearer !== undefined);
    req.user = user;
  };
}

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
