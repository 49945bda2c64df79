/**
 * Confirming who is at the keyboard before a change that would let a thief keep an account: a new
 * e-mail address (password resets go there), a new password, a second factor turned off or removed,
 * a new personal access token. A session cookie or token alone is not enough for these
 * (docs/two-factor.md#confirming-sensitive-changes):
 *
 * - an account with a password gives its current password;
 * - an account without one (made by single sign-on) gives a second-factor code (authenticator app or
 *   recovery code) or a passkey assertion, or — when it has no second factor either — makes the
 *   change within RECENT_SIGN_IN_MS of signing in through its provider (its console session is that
 *   recent).
 *
 * A wrong password or code counts as a failed login of the client address (the login throttle), and
 * an address past the limit is refused with 429 whatever it sends.
 */
import type { Core } from '../core.ts';
import { verifyPassword } from '../platform/crypto.ts';
import { fail } from '../platform/errors.ts';
import type { LoginThrottle } from './throttle.ts';
import type { TwoFactor } from './two-factor.ts';
import type { Passkeys } from './passkeys.ts';
import { UserStore } from './user-store.ts';
import type { Users } from './users.ts';

/** How long after signing in an account without a password or second factor may make a sensitive change. */
export const RECENT_SIGN_IN_MS = 10 * 60 * 1000;

/** The request fields that carry a confirmation. */
export const REAUTH_FIELDS: readonly string[] = ['password', 'code', 'assertion'];

/** What a request offers as confirmation (fields as sent; `password` under the name the endpoint uses). */
export interface ReauthProof {
  password?: unknown;
  code?: unknown;
  assertion?: unknown;
}

export interface ReauthContext {
  /** The client address (the login throttle's key). */
  ip: string;
  /** The console session cookie of the request, if any (for the recent sign-in of an account without a password). */
  sessionCookie?: string;
  /** The name of the password field in this endpoint's body (`password`; `old_password` for a password change). */
  passwordField?: string;
  /**
   * The change checks a second-factor code itself (turning the authenticator app off): for an account
   * without a password that code is the confirmation, so nothing more is asked.
   */
  codeChecked?: boolean;
  /** The account's second factor too, when it has one, besides its password (linking a sign-in provider). */
  secondFactorToo?: boolean;
}

/** How an account can confirm a change (GET /api/user/self: `reauth`). */
export type ReauthMethod = 'password' | 'second_factor' | 'recent_sign_in';

export class Reauth {
  constructor(
    private readonly core: Core,
    private readonly users: Users,
    private readonly twoFactor: TwoFactor,
    private readonly passkeys: Passkeys,
    private readonly throttle: LoginThrottle,
  ) {}

  /** How `userId` confirms a sensitive change. */
  async method(userId: number): Promise<ReauthMethod> {
    if (await this.users.hasPassword(userId)) return 'password';
    return (await this.twoFactor.hasSecondFactor(userId)) ? 'second_factor' : 'recent_sign_in';
  }

  /**
   * Throws unless `proof` confirms that the caller is `userId`'s owner: 403 `reauth_required` when
   * nothing usable was sent, 400 `wrong_password` / `invalid_code` / `invalid_passkey` when it is
   * wrong (counted as a failed login of `ctx.ip`), 429 `too_many_attempts` (with `retryAfter`) for an
   * address past the login limit.
   */
  async check(userId: number, proof: ReauthProof, ctx: ReauthContext): Promise<void> {
    const field = ctx.passwordField ?? 'password';
    const wait = await this.throttle.blockedFor(ctx.ip);
    if (wait > 0)
      throw Object.assign(fail('too_many_attempts', `too many failed logins from this address: try again in ${wait} s`), {
        retryAfter: wait,
      });
    const how = await this.method(userId);
    if (how === 'password') {
      if (typeof proof.password !== 'string' || proof.password === '') throw fail('reauth_required', { field }, { details: { field } });
      const row = await new UserStore(this.core.h).byId(userId);
      if (!row || !(await verifyPassword(proof.password, row.password_hash))) {
        await this.throttle.failed(ctx.ip);
        throw fail('wrong_password', `${field}: is not the current password`, { details: { field } });
      }
      if (ctx.secondFactorToo && (await this.twoFactor.hasSecondFactor(userId))) await this.secondFactor(userId, proof, ctx.ip);
      return;
    }
    if (ctx.codeChecked) return;
    if (how === 'second_factor') return this.secondFactor(userId, proof, ctx.ip);
    const at = await this.users.sessionCreatedAt(ctx.sessionCookie);
    if (at === null || Date.now() - at > RECENT_SIGN_IN_MS)
      throw fail(
        'reauth_required',
        `this change needs a recent sign-in: sign in again with your provider, then make it within ${RECENT_SIGN_IN_MS / 60_000} minutes`,
      );
  }

  /** A second factor of `userId` in `proof`: a passkey assertion, or a code of the app or a recovery code. */
  private async secondFactor(userId: number, proof: ReauthProof, ip: string): Promise<void> {
    if (proof.assertion !== undefined) {
      try {
        await this.passkeys.verifyAssertion('passkey_reauth', proof.assertion, userId);
      } catch (e) {
        await this.throttle.failed(ip);
        throw e;
      }
      return;
    }
    if (proof.code === undefined || proof.code === '')
      throw fail('reauth_required', 'code: this change needs a code of your authenticator app, a recovery code, or a passkey (assertion)', {
        details: { field: 'code' },
      });
    if (!(await this.twoFactor.verifyCode(userId, proof.code))) {
      await this.throttle.failed(ip);
      throw fail('invalid_code', 'code: is not a current or recovery code', { details: { field: 'code' } });
    }
  }
}

/** The confirmation fields of a request body. */
export function proofOf(body: Record<string, unknown>, passwordField = 'password'): ReauthProof {
  return { password: body[passwordField], code: body.code, assertion: body.assertion };
}
