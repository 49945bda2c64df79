/**
 * Confirming a sensitive change in a route (accounts/reauth.ts): the confirmation fields of the body
 * checked for the logged-in caller, with Retry-After when the client address is past the login limit.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { proofOf, type ReauthContext } from '../accounts/reauth.ts';
import { SESSION_COOKIE } from '../accounts/users.ts';
import { refused } from './auth.ts';
import type { AppDeps } from './deps.ts';

/** Throws unless the body confirms the change (the password, or a second factor for an account without one). */
export async function confirm(
  deps: AppDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  body: Record<string, unknown>,
  opts: Pick<ReauthContext, 'passwordField' | 'codeChecked' | 'secondFactorToo'> = {},
): Promise<void> {
  try {
    await deps.services.accounts.reauth.check(req.user!.id, proofOf(body, opts.passwordField), {
      ip: req.ip,
      sessionCookie: req.cookies?.[SESSION_COOKIE],
      ...opts,
    });
  } catch (e) {
    throw refused(e, reply);
  }
}

/** The caller's console session cookie (kept when the other credentials are revoked). */
export function keepOf(req: FastifyRequest): string | undefined {
  return req.cookies?.[SESSION_COOKIE];
}
