/**
 * Second factors of console logins (docs/two-factor.md): TOTP authenticator apps (RFC 6238, otplib)
 * with one-time recovery codes, the pending logins that wait for a second factor, and the short-lived
 * challenges of logins in progress. Passkeys are in passkeys.ts. TOTP secrets are sealed with the
 * SecretBox like channel keys; recovery codes are stored as keyed hashes.
 */
import { randomBytes } from 'node:crypto';
import type { Core } from '../core.ts';
import { hmacHex, sha256Hex } from '../platform/crypto.ts';
import { fail } from '../platform/errors.ts';
import { withTx, type Tx } from '../store/db.ts';
import { PasskeyStore } from './passkey-store.ts';

/** Cookie of a login that waits for its second factor (httpOnly, short-lived). */
export const PENDING_LOGIN_COOKIE = 'gatehouse_2fa';
export const PENDING_LOGIN_TTL_MS = 5 * 60 * 1000;
/** Wrong codes one pending login may take before it is dropped (the address throttle also counts them). */
export const PENDING_LOGIN_MAX_ATTEMPTS = 5;
/** Lifetime of a WebAuthn challenge. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;
export const RECOVERY_CODE_COUNT = 10;
const ISSUER = 'Gatehouse';

/** otplib, loaded on the first TOTP enrolment or code. */
let otpLib: Promise<typeof import('otplib')> | null = null;
const otp = () => (otpLib ??= import('otplib'));
const CODE_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

export type SecondFactor = 'totp' | 'passkey' | 'recovery_code';

export interface TwoFactorStatus {
  totp_enabled: boolean;
  /** An enrolment started (secret shown) and not yet confirmed with a code. */
  totp_pending: boolean;
  passkeys: number;
  recovery_codes_left: number;
  /** Whether a login of this user needs a second factor. */
  enabled: boolean;
  /** Whether the AdminRequireTwoFactor option applies to this user. */
  required: boolean;
}

function recoveryCode(): string {
  const b = randomBytes(10);
  let s = '';
  for (const x of b) s += CODE_ALPHABET[x % CODE_ALPHABET.length];
  return `${s.slice(0, 5)}-${s.slice(5)}`;
}

export class TwoFactor {
  constructor(private readonly core: Core) {}

  private get db() {
    return this.core.h.db;
  }

  private hashRecovery(code: string): string {
    return hmacHex(this.core.config.sessionSecret, `recovery-code:${code.toLowerCase().replace(/[\s-]/g, '')}`);
  }

  /** The second factors `userId` can log in with (empty: none, the password is enough). */
  async methods(userId: number): Promise<SecondFactor[]> {
    const [totp, pk, rc] = await Promise.all([
      this.db.selectFrom('user_totp').select('enabled').where('user_id', '=', userId).executeTakeFirst(),
      new PasskeyStore(this.core.h).countOf(userId),
      this.db
        .selectFrom('user_recovery_codes')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('used_at', 'is', null)
        .executeTakeFirst(),
    ]);
    const out: SecondFactor[] = [];
    const hasTotp = Number(totp?.enabled ?? 0) === 1;
    const hasPk = pk > 0;
    if (hasTotp) out.push('totp');
    if (hasPk) out.push('passkey');
    if ((hasTotp || hasPk) && Number(rc?.n ?? 0) > 0) out.push('recovery_code');
    return out;
  }

  async hasSecondFactor(userId: number): Promise<boolean> {
    return (await this.methods(userId)).length > 0;
  }

  async status(userId: number, required: boolean): Promise<TwoFactorStatus> {
    const totp = await this.db.selectFrom('user_totp').select('enabled').where('user_id', '=', userId).executeTakeFirst();
    const pk = await new PasskeyStore(this.core.h).countOf(userId);
    const rc = await this.db
      .selectFrom('user_recovery_codes')
      .select((e) => e.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    const totpEnabled = Number(totp?.enabled ?? 0) === 1;
    const passkeys = pk;
    return {
      totp_enabled: totpEnabled,
      totp_pending: !!totp && !totpEnabled,
      passkeys,
      recovery_codes_left: Number(rc?.n ?? 0),
      enabled: totpEnabled || passkeys > 0,
      required,
    };
  }

  // ---- TOTP ----

  /**
   * Starts (or restarts) a TOTP enrolment: a new secret, sealed at rest, shown once with its
   * otpauth:// URI. 409 when TOTP is already on (disable it first).
   */
  async setupTotp(userId: number, username: string): Promise<{ secret: string; otpauth_uri: string }> {
    const cur = await this.db.selectFrom('user_totp').select('enabled').where('user_id', '=', userId).executeTakeFirst();
    if (cur && Number(cur.enabled) === 1)
      throw fail('totp_already_enabled', 'two-factor authentication with an authenticator app is already on: disable it first');
    const { generateSecret, generateURI } = await otp();
    const secret = generateSecret();
    const sealed = this.core.secrets.seal(secret);
    const now = Date.now();
    await withTx(this.core.h, async (tx) => {
      await tx.deleteFrom('user_totp').where('user_id', '=', userId).execute();
      await tx
        .insertInto('user_totp')
        .values({ user_id: userId, secret_sealed: sealed, enabled: 0, last_time_step: 0, created_at: now, updated_at: now })
        .execute();
    });
    return { secret, otpauth_uri: generateURI({ issuer: ISSUER, label: username, secret }) };
  }

  /** Checks a TOTP code against the stored secret, once: a code of an already used time step is refused. */
  private async checkTotp(userId: number, code: string, enabledOnly: boolean): Promise<boolean> {
    if (!/^\d{6}$/.test(code)) return false;
    const row = await this.db.selectFrom('user_totp').selectAll().where('user_id', '=', userId).executeTakeFirst();
    if (!row || (enabledOnly && Number(row.enabled) !== 1)) return false;
    const secret = this.core.secrets.open(row.secret_sealed);
    const last = Number(row.last_time_step);
    const r = await (await otp()).verify({ secret, token: code, epochTolerance: 30, ...(last > 0 ? { afterTimeStep: last } : {}) });
    if (!r.valid || !('timeStep' in r)) return false;
    // Only one request may spend this time step (two nodes, two tabs).
    const u = await this.db
      .updateTable('user_totp')
      .set({ last_time_step: r.timeStep, updated_at: Date.now() })
      .where('user_id', '=', userId)
      .where('last_time_step', '<', r.timeStep)
      .executeTakeFirst();
    return Number(u.numUpdatedRows) === 1;
  }

  /** Spends a recovery code of `userId`; false when it is unknown or used. */
  private async useRecoveryCode(userId: number, code: string): Promise<boolean> {
    const norm = code.toLowerCase().replace(/[\s-]/g, '');
    if (!/^[a-z0-9]{10}$/.test(norm)) return false;
    const hash = this.hashRecovery(norm);
    const row = await this.db
      .selectFrom('user_recovery_codes')
      .select('id')
      .where('user_id', '=', userId)
      .where('code_hash', '=', hash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (!row) return false;
    const u = await this.db
      .updateTable('user_recovery_codes')
      .set({ used_at: Date.now() })
      .where('id', '=', row.id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(u.numUpdatedRows) === 1;
  }

  /**
   * Checks a second-factor code of a user with two-factor on: a TOTP code (6 digits) or a recovery
   * code (spent). Returns which one matched, or null.
   */
  async verifyCode(userId: number, code: unknown): Promise<'totp' | 'recovery_code' | null> {
    if (typeof code !== 'string') return null;
    const c = code.trim().replace(/\s/g, '');
    if (await this.checkTotp(userId, c, true)) return 'totp';
    if (!/^\d{6}$/.test(c) && (await this.hasSecondFactor(userId)) && (await this.useRecoveryCode(userId, c))) return 'recovery_code';
    return null;
  }

  /** Confirms a TOTP enrolment with a code from the app: TOTP is on; returns new recovery codes (shown once). */
  async enableTotp(userId: number, code: unknown): Promise<string[]> {
    const row = await this.db.selectFrom('user_totp').select('enabled').where('user_id', '=', userId).executeTakeFirst();
    if (!row) throw fail('totp_not_set_up');
    if (Number(row.enabled) === 1) throw fail('totp_already_enabled');
    if (typeof code !== 'string' || !(await this.checkTotp(userId, code.trim().replace(/\s/g, ''), false))) {
      throw fail('invalid_code', 'code: is not the current code of the authenticator app', { details: { field: 'code' } });
    }
    await this.db.updateTable('user_totp').set({ enabled: 1, updated_at: Date.now() }).where('user_id', '=', userId).execute();
    const left = await this.db
      .selectFrom('user_recovery_codes')
      .select('id')
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return left ? [] : this.replaceRecoveryCodes(userId);
  }

  /** Turns TOTP off after a TOTP or recovery code; recovery codes go too when no passkey is left. */
  async disableTotp(userId: number, code: unknown): Promise<void> {
    const row = await this.db.selectFrom('user_totp').select('enabled').where('user_id', '=', userId).executeTakeFirst();
    if (!row || Number(row.enabled) !== 1) throw fail('totp_not_enabled');
    if (!(await this.verifyCode(userId, code)))
      throw fail('invalid_code', 'code: is not a current or recovery code', { details: { field: 'code' } });
    await this.db.deleteFrom('user_totp').where('user_id', '=', userId).execute();
    await this.dropRecoveryCodesIfUnused(userId);
  }

  /** New recovery codes (the old ones stop working) after a TOTP or recovery code. */
  async regenerateRecoveryCodes(userId: number, code: unknown): Promise<string[]> {
    if (!(await this.hasSecondFactor(userId))) throw fail('two_factor_not_enabled');
    if (!(await this.verifyCode(userId, code)))
      throw fail('invalid_code', 'code: is not a current or recovery code', { details: { field: 'code' } });
    return this.replaceRecoveryCodes(userId);
  }

  /** Recovery codes for a user whose first passkey was just added and who has none. */
  async recoveryCodesIfNone(userId: number): Promise<string[]> {
    const left = await this.db
      .selectFrom('user_recovery_codes')
      .select('id')
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return left ? [] : this.replaceRecoveryCodes(userId);
  }

  async dropRecoveryCodesIfUnused(userId: number): Promise<void> {
    if (!(await this.hasSecondFactor(userId))) await this.db.deleteFrom('user_recovery_codes').where('user_id', '=', userId).execute();
  }

  private async replaceRecoveryCodes(userId: number): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, recoveryCode);
    const now = Date.now();
    await withTx(this.core.h, async (tx) => {
      await tx.deleteFrom('user_recovery_codes').where('user_id', '=', userId).execute();
      await tx
        .insertInto('user_recovery_codes')
        .values(codes.map((c) => ({ user_id: userId, code_hash: this.hashRecovery(c), used_at: null, created_at: now })))
        .execute();
    });
    return codes;
  }

  /** Removes every second factor of a user (an admin's reset for a lost device). */
  async reset(userId: number): Promise<void> {
    await withTx(this.core.h, async (tx) => {
      await tx.deleteFrom('user_totp').where('user_id', '=', userId).execute();
      await new PasskeyStore(this.core.h).removeOfUser(userId, tx);
      await tx.deleteFrom('user_recovery_codes').where('user_id', '=', userId).execute();
    });
  }

  /** A deleted user's authenticator secret, recovery codes and challenges, in the deletion's transaction `tx`. */
  async removeOfUser(userId: number, tx: Tx): Promise<void> {
    await tx.deleteFrom('user_totp').where('user_id', '=', userId).execute();
    await tx.deleteFrom('user_recovery_codes').where('user_id', '=', userId).execute();
    await tx.deleteFrom('auth_challenges').where('user_id', '=', userId).execute();
  }

  // ---- pending logins and challenges ----

  /** A login whose password was right and that waits for its second factor: the cookie token. */
  async startPendingLogin(userId: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.saveChallenge(token, 'login_2fa', userId, PENDING_LOGIN_TTL_MS);
    return token;
  }

  /** The user of a pending login (null when unknown or expired). */
  async pendingLogin(token: string | undefined): Promise<number | null> {
    if (!token) return null;
    const row = await this.db
      .selectFrom('auth_challenges')
      .select(['user_id', 'expires_at'])
      .where('id_hash', '=', sha256Hex(token))
      .where('purpose', '=', 'login_2fa')
      .executeTakeFirst();
    return row && Number(row.expires_at) > Date.now() && row.user_id !== null ? Number(row.user_id) : null;
  }

  /** Counts a wrong code of a pending login; drops it after PENDING_LOGIN_MAX_ATTEMPTS. */
  async pendingLoginFailed(token: string): Promise<void> {
    const id = sha256Hex(token);
    await this.db
      .updateTable('auth_challenges')
      .set((e) => ({ attempts: e('attempts', '+', 1) }))
      .where('id_hash', '=', id)
      .execute();
    await this.db.deleteFrom('auth_challenges').where('id_hash', '=', id).where('attempts', '>=', PENDING_LOGIN_MAX_ATTEMPTS).execute();
  }

  /** Ends a pending login; true when this call ended it (so only one request completes it). */
  async endPendingLogin(token: string): Promise<boolean> {
    const d = await this.db
      .deleteFrom('auth_challenges')
      .where('id_hash', '=', sha256Hex(token))
      .where('purpose', '=', 'login_2fa')
      .executeTakeFirst();
    return Number(d.numDeletedRows) === 1;
  }

  async saveChallenge(value: string, purpose: string, userId: number | null, ttlMs = CHALLENGE_TTL_MS): Promise<void> {
    const now = Date.now();
    await this.db
      .insertInto('auth_challenges')
      .values({ id_hash: sha256Hex(value), purpose, user_id: userId, attempts: 0, expires_at: now + ttlMs, created_at: now })
      .execute();
  }

  /** Takes (uses up) a challenge of `purpose`; returns its user id (null for none) or undefined when unknown or expired. */
  async takeChallenge(value: string, purpose: string): Promise<number | null | undefined> {
    const id = sha256Hex(value);
    const row = await this.db
      .selectFrom('auth_challenges')
      .select(['user_id', 'expires_at'])
      .where('id_hash', '=', id)
      .where('purpose', '=', purpose)
      .executeTakeFirst();
    if (!row) return undefined;
    const d = await this.db.deleteFrom('auth_challenges').where('id_hash', '=', id).executeTakeFirst();
    if (Number(d.numDeletedRows) !== 1 || Number(row.expires_at) <= Date.now()) return undefined;
    return row.user_id === null ? null : Number(row.user_id);
  }

  async purgeExpired(): Promise<void> {
    await this.db.deleteFrom('auth_challenges').where('expires_at', '<', Date.now()).execute();
  }
}
