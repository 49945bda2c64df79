/**
 * The step after a user's first credential is checked (a password here, an identity provider in
 * single sign-on): a console session, or — for a user with a second factor — a pending login in a
 * short-lived httpOnly cookie that POST /api/user/login/2fa completes (docs/two-factor.md).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from './deps.ts';
import type { UserPrincipal } from '../accounts/types.ts';
import { ROLE_RANK } from '../accounts/types.ts';
import { SESSION_COOKIE, SESSION_HINT_COOKIE, SESSION_TTL_MS } from '../accounts/users.ts';
import { PENDING_LOGIN_COOKIE, PENDING_LOGIN_TTL_MS, type SecondFactor } from '../accounts/two-factor.ts';

/** Where the pending-login cookie is sent: the login endpoints only. */
export const PENDING_COOKIE_PATH = '/api/user/login';

export type LoginOutcome = { require_2fa: true; methods: SecondFactor[] } | (UserPrincipal & { require_2fa_setup?: true });

/** Whether the AdminRequireTwoFactor option applies to a user of this role. */
export function twoFactorRequiredFor(deps: AppDeps, role: UserPrincipal['role']): boolean {
  return ROLE_RANK[role] >= ROLE_RANK.admin && deps.services.admin.options.getBool('AdminRequireTwoFactor', false);
}

/** Sets (or clears) the console's readable signed-in hint (`SESSION_HINT_COOKIE`). */
export function setSessionHint(req: FastifyRequest, reply: FastifyReply, on: boolean): void {
  if (on)
    reply.setCookie(SESSION_HINT_COOKIE, '1', {
      path: '/',
      sameSite: 'lax',
      maxAge: SESSION_TTL_MS / 1000,
      secure: req.protocol === 'https',
    });
  else reply.clearCookie(SESSION_HINT_COOKIE, { path: '/' });
}

/** Opens a console session for `user` (its cookie set on `reply`); says when the user must enrol a second factor first. */
export async function openConsoleSession(
  deps: AppDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  user: UserPrincipal,
): Promise<LoginOutcome> {
  const cookie = await deps.services.accounts.users.openSession(user.id);
  reply.setCookie(SESSION_COOKIE, cookie, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    maxAge: SESSION_TTL_MS / 1000,
    secure: req.protocol === 'https',
  });
  setSessionHint(req, reply, true);
  if (req.cookies?.[PENDING_LOGIN_COOKIE]) reply.clearCookie(PENDING_LOGIN_COOKIE, { path: PENDING_COOKIE_PATH });
  if (twoFactorRequiredFor(deps, user.role) && !(await deps.services.accounts.twoFactor.hasSecondFactor(user.id))) {
    return { ...user, require_2fa_setup: true };
  }
  return user;
}

/**
 * The first factor of `user` is checked: a session when the user has no second factor, else a
 * pending login (cookie) and `{require_2fa: true, methods}`.
 */
export async function afterFirstFactor(
  deps: AppDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  user: UserPrincipal,
): Promise<LoginOutcome> {
  const tf = deps.services.accounts.twoFactor;
  const methods = await tf.methods(user.id);
  if (methods.length === 0) return openConsoleSession(deps, req, reply, user);
  const token = await tf.startPendingLogin(user.id);
  reply.setCookie(PENDING_LOGIN_COOKIE, token, {
    path: PENDING_COOKIE_PATH,
    httpOnly: true,
    sameSite: 'strict',
    maxAge: PENDING_LOGIN_TTL_MS / 1000,
    secure: req.protocol === 'https',
  });
  return { require_2fa: true, methods };
}
