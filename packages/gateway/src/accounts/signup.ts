/**
 * Self-service sign-up, e-mail verification and password reset (docs/signup.md).
 *
 * - Sign-up (option SignupEnabled, off by default): a user account with role `user` in group
 *   `default`, optionally behind an invitation code (SignupInvitationCode) and with an e-mail address
 *   (required with SignupEmailVerification). The starting balance (QuotaForNewUser) is a `topup`
 *   ledger movement with ref `signup:<user id>`, so it is credited once: at sign-up, or when the
 *   address is verified if SignupEmailVerification is on.
 * - Links: a random token mailed inside a console link built from PUBLIC_URL (else the ServerAddress
 *   option); only its SHA-256 is
 *   stored (`email_tokens`). A token is used once and not after its expiry; using one marks it used
 *   in the same statement that checks it, so two uses at the same moment cannot both pass.
 * - Password reset answers the same whether or not the address belongs to an account, and mails are
 *   sent after the answer, so neither the answer nor its timing tells which addresses exist.
 * - Without SMTP_URL, or without PUBLIC_URL and ServerAddress, everything that mails is refused with 503 email_not_configured.
 */
import { randomBytes } from 'node:crypto';
import type { Core } from '../core.ts';
import type { Options } from '../options/options.ts';
import type { Ledger } from '../billing/ledger.ts';
import { hashPassword, safeEqual, sha256Hex } from '../platform/crypto.ts';
import { fail } from '../platform/errors.ts';
import { emailAddress } from '../platform/validate.ts';
import { mailer } from '../platform/mail.ts';
import { isUniqueViolation, withTx, type DbOrTx } from '../store/db.ts';
import { UserStore } from './user-store.ts';
import { insertLogs, topupLog } from '../logs/writer.ts';
import { KEYS_REVISION } from './keys.ts';
import { validatePassword, validateUsername } from './users.ts';

export interface SignupInput {
  username: unknown;
  password: unknown;
  email?: unknown;
  invitationCode?: unknown;
}

export interface SignupSettings {
  enabled: boolean;
  invitation_required: boolean;
  email_required: boolean;
  /** SMTP_URL and PUBLIC_URL (or ServerAddress) are set: verification and reset links can be mailed. */
  email_configured: boolean;
}

export interface SignupResult {
  id: number;
  username: string;
  email: string | null;
  /** A verification link was queued for sending. */
  verification_sent: boolean;
  /** Quota units credited now (0 when none or when they wait for the verification). */
  credited: number;
}

type Purpose = 'verify' | 'reset';

export const emailNotConfigured = () => fail('email_not_configured');

const badLink = () => fail('invalid_link');

export class Signup {
  /** Mails being sent after their answer; awaited on close. */
  private readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly core: Core,
    private readonly options: Options,
    private readonly ledger: () => Ledger,
  ) {
    // The mailer is made first so that it closes after the mails still being sent (closers run in reverse).
    mailer(core);
    core.onClose(async () => {
      await Promise.allSettled([...this.sending]);
    });
  }

  /** Where links in mail point: the public address (PUBLIC_URL, or the older ServerAddress option). */
  private base(): string {
    return this.options.publicUrl().replace(/\/+$/, '');
  }

  settings(): SignupSettings {
    const o = this.options;
    return {
      enabled: o.getBool('SignupEnabled', false),
      invitation_required: (o.get('SignupInvitationCode') ?? '') !== '',
      email_required: o.getBool('SignupEmailVerification', false),
      email_configured: this.mailConfigured(),
    };
  }

  mailConfigured(): boolean {
    return mailer(this.core).configured && this.base() !== '';
  }

  /** Throws 403 signup_disabled unless sign-up is on. */
  assertOpen(): void {
    if (!this.options.getBool('SignupEnabled', false)) {
      throw fail('signup_disabled');
    }
  }

  /** Throws 503 email_not_configured unless links can be mailed. */
  assertMail(): void {
    if (!this.mailConfigured()) throw emailNotConfigured();
  }

  async register(input: SignupInput): Promise<SignupResult> {
    this.assertOpen();
    const o = this.options;
    const code = o.get('SignupInvitationCode') ?? '';
    if (code !== '') {
      if (typeof input.invitationCode !== 'string' || input.invitationCode === '') {
        throw fail('invitation_required', 'invitation_code: an invitation code is required to sign up', {
          details: {
            field: 'invitation_code',
          },
        });
      }
      if (!safeEqual(sha256Hex(input.invitationCode.trim()), sha256Hex(code))) {
        throw fail('invalid_invitation_code', 'invitation_code: is not a valid invitation code', {
          details: {
            field: 'invitation_code',
          },
        });
      }
    }
    const username = validateUsername(input.username);
    const password = validatePassword(input.password);
    const verify = o.getBool('SignupEmailVerification', false);
    const given = input.email !== undefined && input.email !== null && input.email !== '';
    if (verify && !given) throw fail('invalid_email', 'email: is required to sign up', { details: { field: 'email' } });
    const email = given ? emailAddress(input.email) : null;
    if (verify && !this.mailConfigured()) throw emailNotConfigured();
    const bonus = Math.max(0, Math.floor(o.getNumber('QuotaForNewUser', 0)));
    const hash = await hashPassword(password);
    const now = Date.now();
    let id: number;
    try {
      const store = new UserStore(this.core.h);
      id = await withTx(this.core.h, async (tx) => {
        const newId = await store.insert(
          {
            username,
            password_hash: hash,
            display_name: username,
            role: 'user',
            group_name: 'default',
            quota: 0,
            used_quota: 0,
            request_count: 0,
            status: 1,
            access_token_hash: null,
            created_at: now,
            updated_at: now,
          },
          tx,
        );
        if (email)
          await store.insertEmail({ user_id: newId, email, verified_at: null, pending_bonus: verify ? bonus : 0, updated_at: now }, tx);
        // The starting balance commits with the account, or neither does.
        if (!verify && bonus > 0) await this.ledger().adjustInTx(tx, newId, `signup:${newId}`, bonus, 'topup');
        return newId;
      });
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      const taken = await new UserStore(this.core.h).idByName(username);
      if (taken !== null) throw fail('user_exists', { username }, { details: { field: 'username' } });
      throw fail('email_taken', 'email: this address belongs to another account', { details: { field: 'email' } });
    }
    await this.core.cache.bump(KEYS_REVISION);
    const credited = !verify && bonus > 0 ? bonus : 0;
    if (credited) await this.logCredit(id, username, credited);
    let sent = false;
    if (email && this.mailConfigured()) {
      await this.queueLink(id, 'verify', email);
      sent = true;
    }
    return { id, username, email, verification_sent: sent, credited };
  }

  /** Whether setting `emailInput` would give the caller another address (a new one, or one where it had none). */
  async changesAddress(userId: number, emailInput: unknown): Promise<boolean> {
    const cur = await new UserStore(this.core.h).emailOf(userId);
    return !cur || (emailInput !== undefined && emailInput !== null && emailInput !== '' && emailAddress(emailInput) !== cur.email);
  }

  /**
   * Sets (or keeps) the caller's address and mails a new verification link to it; a changed address
   * is also told to the old one (the route has confirmed the change: accounts/reauth.ts).
   */
  async requestVerification(userId: number, emailInput: unknown): Promise<{ email: string }> {
    this.assertMail();
    const store = new UserStore(this.core.h);
    const cur = await store.emailOf(userId);
    const email =
      emailInput === undefined || emailInput === null || emailInput === ''
        ? (cur?.email ?? emailAddress(emailInput))
        : emailAddress(emailInput);
    if (cur?.email === email && cur.verified_at !== null) {
      throw fail('email_verified', 'email: this address is already verified', { details: { field: 'email' } });
    }
    const now = Date.now();
    try {
      if (!cur) await store.insertEmail({ user_id: userId, email, verified_at: null, pending_bonus: 0, updated_at: now });
      else if (cur.email !== email) await store.updateEmail(userId, { email, verified_at: null, updated_at: now });
    } catch (e) {
      if (isUniqueViolation(e))
        throw fail('email_taken', 'email: this address belongs to another account', { details: { field: 'email' } });
      throw e;
    }
    await this.queueLink(userId, 'verify', email);
    if (cur && cur.email !== email) this.track(this.sendChangeNotice(userId, cur.email, email), 'address change notice');
    return { email };
  }

  /** Tells the old address that the account's address is being changed (so a takeover does not go unnoticed). */
  private async sendChangeNotice(userId: number, oldEmail: string, newEmail: string): Promise<void> {
    const user = await new UserStore(this.core.h).byId(userId);
    await mailer(this.core).send({
      to: oldEmail,
      subject: '[Gatehouse] Your e-mail address is being changed',
      text:
        `Hello ${user?.username ?? ''},\n\nthe e-mail address of your Gatehouse account is being changed from this one to ${newEmail}; ` +
        `a verification link was sent there, and password reset links will go there once it is verified.\n\n` +
        `If you did not ask for this, log in now, change your password and set your address back, or ask an administrator for help.\n`,
    });
  }

  /** The caller's address and whether it is verified (null: none). */
  async emailOf(userId: number): Promise<{ email: string; verified: boolean } | null> {
    const r = await new UserStore(this.core.h).emailOf(userId);
    return r ? { email: r.email, verified: r.verified_at !== null } : null;
  }

  /**
   * Follows a verification link: the link is used, the address verified and a waiting starting
   * balance credited, all in one transaction (a failure leaves the link unused and the balance waiting).
   */
  async verify(token: unknown): Promise<{ user_id: number; email: string; credited: number }> {
    const store = new UserStore(this.core.h);
    const now = Date.now();
    const done = await withTx(this.core.h, async (tx) => {
      const row = await this.claim(token, 'verify', tx);
      const userId = Number(row.user_id);
      // The address was changed after this link was sent.
      if (!(await store.verifyEmail(userId, row.email, now, tx))) throw badLink();
      const bonus = Number((await store.emailOf(userId, tx))?.pending_bonus ?? 0);
      let credited = 0;
      if (bonus > 0 && (await store.takePendingBonus(userId, bonus, tx))) {
        await this.ledger().adjustInTx(tx, userId, `signup:${userId}`, bonus, 'topup');
        credited = bonus;
      }
      return { user_id: userId, email: row.email, credited };
    });
    if (done.credited) {
      const user = await store.byId(done.user_id);
      await this.logCredit(done.user_id, user?.username ?? '', done.credited);
    }
    return done;
  }

  /**
   * Asks for a password reset link. The same answer whatever the address: the link is mailed (after
   * the answer) only when an enabled account has it.
   */
  async requestReset(emailInput: unknown): Promise<void> {
    this.assertMail();
    const email = emailAddress(emailInput);
    const work = (async () => {
      const row = await new UserStore(this.core.h).emailOwner(email);
      if (row && Number(row.status) === 1) await this.sendLink(Number(row.user_id), 'reset', email);
    })();
    this.track(work, 'password reset');
  }

  /**
   * Follows a reset link with the new password: the password is set, every session and the personal
   * access token of the account end, and every other reset link of it stops working.
   */
  async reset(token: unknown, password: unknown): Promise<{ user_id: number }> {
    if (typeof password !== 'string' || password.length < 8 || password.length > 256) {
      throw fail('invalid_password', 'password: must be 8-256 characters', { details: { field: 'password' } });
    }
    const hash = await hashPassword(password);
    const row = await this.claim(token, 'reset');
    const userId = Number(row.user_id);
    const now = Date.now();
    const store = new UserStore(this.core.h);
    await withTx(this.core.h, async (tx) => {
      await store.update(userId, { password_hash: hash, access_token_hash: null, updated_at: now }, tx);
      await store.removeSessionsOf(userId, tx);
      await store.retireResetTokens(userId, now, tx);
      // The mailbox received the link: the address is proven.
      await store.verifyEmailByReset(userId, row.email, now, tx);
    });
    await this.core.cache.bump(KEYS_REVISION);
    return { user_id: userId };
  }

  /** Removes links expired for a day. */
  async purgeExpired(now = Date.now()): Promise<void> {
    await new UserStore(this.core.h).purgeTokens(now - 86_400_000);
  }

  /** Marks the link of `token` used if it is valid now (in `tx` when given); throws otherwise. */
  private async claim(token: unknown, purpose: Purpose, tx?: DbOrTx) {
    if (typeof token !== 'string' || token === '' || token.length > 200) throw badLink();
    const store = new UserStore(this.core.h);
    const h = sha256Hex(token);
    if (!(await store.claimToken(h, purpose, Date.now(), tx))) throw badLink();
    return store.tokenByHash(h, tx);
  }

  /** The log row of a starting balance the ledger credited (ref `signup:<user id>`). */
  private async logCredit(userId: number, username: string, amount: number): Promise<void> {
    const ref = `signup:${userId}`;
    await insertLogs(this.core.h, [
      topupLog({
        at: Date.now(),
        ref,
        userId,
        username,
        group: 'default',
        quota: amount,
        content: 'starting balance of a new account',
        other: { by: 'signup' },
      }),
    ]);
  }

  private async queueLink(userId: number, purpose: Purpose, email: string): Promise<void> {
    this.track(this.sendLink(userId, purpose, email), purpose === 'verify' ? 'verification' : 'password reset');
  }

  private track(p: Promise<void>, what: string): void {
    const t = p.catch((e) => this.core.log.warn({ err: (e as Error).message }, `${what} mail failed`));
    this.sending.add(t);
    void t.finally(() => this.sending.delete(t));
  }

  private async sendLink(userId: number, purpose: Purpose, email: string): Promise<void> {
    const o = this.options;
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    const ttlMs =
      purpose === 'verify'
        ? Math.max(3600, o.getNumber('EmailVerificationTtlSeconds', 86_400)) * 1000
        : Math.max(60, o.getNumber('PasswordResetTtlSeconds', 1800)) * 1000;
    const store = new UserStore(this.core.h);
    await store.insertToken({
      token_hash: sha256Hex(token),
      user_id: userId,
      purpose,
      email,
      expires_at: now + ttlMs,
      used_at: null,
      created_at: now,
    });
    const user = await store.byId(userId);
    const name = user?.username ?? '';
    const link = `${this.base()}/${purpose === 'verify' ? 'verify-email' : 'reset-password'}?token=${token}`;
    const hours = Math.round(ttlMs / 360_000) / 10;
    const valid = ttlMs >= 3_600_000 ? `${hours} hour${hours === 1 ? '' : 's'}` : `${Math.round(ttlMs / 60_000)} minutes`;
    const text =
      purpose === 'verify'
        ? `Hello ${name},\n\nconfirm that this is your e-mail address for your Gatehouse account by opening this link:\n\n${link}\n\nThe link works once and for ${valid}. If you did not sign up, ignore this mail.\n`
        : `Hello ${name},\n\nsomeone (hopefully you) asked to reset the password of your Gatehouse account. Choose a new password here:\n\n${link}\n\nThe link works once and for ${valid}. If you did not ask for it, ignore this mail: your password stays as it is.\n`;
    await mailer(this.core).send({
      to: email,
      subject: purpose === 'verify' ? '[Gatehouse] Verify your e-mail address' : '[Gatehouse] Reset your password',
      text,
    });
  }
}
