/**
 * Users, login sessions and personal access tokens.
 */
import { randomBytes } from 'node:crypto';
import type { Core } from '../core.ts';
import { hashPassword, hmacB64Url, safeEqual, sha256Hex, verifyPassword } from '../platform/crypto.ts';
import { fail } from '../platform/errors.ts';
import { withTx } from '../store/db.ts';
import { UserStore } from './user-store.ts';
import type { Role, UserPrincipal } from './types.ts';
import { KEYS_REVISION } from './keys.ts';

export const SESSION_COOKIE = 'gatehouse_session';
/**
 * A readable companion of the (httpOnly) session cookie, holding no secret: "1" while the browser holds a
 * session cookie, so the console knows at start that it is signed out without asking the server (and
 * shows the login page without a refused request).
 */
export const SESSION_HINT_COOKIE = 'gatehouse_signed_in';
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;
/** A command-line session (`gatehouse login`): one per login, many per user, each ended on its own. */
export const CLI_SESSION_TTL_MS = 90 * 24 * 3600 * 1000;
/** Bearer tokens of command-line sessions start with this (personal access tokens with `gh-`). */
export const CLI_SESSION_PREFIX = 'ghs-';
const ROLES: Role[] = ['user', 'admin', 'root'];

export interface NewUser {
  username: string;
  password: string;
  role?: Role;
  group?: string;
  quota?: number;
  displayName?: string;
}

export function validateUsername(u: unknown): string {
  if (typeof u !== 'string' || !/^[A-Za-z0-9_.@-]{1,64}$/.test(u)) {
    throw fail('invalid_username');
  }
  return u;
}

export function validatePassword(p: unknown): string {
  if (typeof p !== 'string' || p.length < 8 || p.length > 256) {
    throw fail('invalid_password');
  }
  return p;
}

export function validateRole(r: unknown): Role {
  if (!ROLES.includes(r as Role)) throw fail('invalid_role', { roles: ROLES.join(', ') });
  return r as Role;
}

let dummy: Promise<string> | null = null;
/** A hash no password matches in practice, made once, for logins with an unknown name. */
const dummyHash = () => (dummy ??= hashPassword(randomBytes(24).toString('base64url')));

export class Users {
  constructor(private readonly core: Core) {}

  private get store() {
    return new UserStore(this.core.h);
  }

  async create(u: NewUser): Promise<number> {
    const now = Date.now();
    const id = await this.store.insert({
      username: validateUsername(u.username),
      password_hash: await hashPassword(validatePassword(u.password)),
      display_name: u.displayName ?? u.username,
      role: validateRole(u.role ?? 'user'),
      group_name: u.group ?? 'default',
      quota: Math.max(0, Math.floor(u.quota ?? 0)),
      used_quota: 0,
      request_count: 0,
      status: 1,
      access_token_hash: null,
      created_at: now,
      updated_at: now,
    });
    await this.core.cache.bump(KEYS_REVISION);
    return id;
  }

  /**
   * Makes sure a root account exists. Returns the generated password when one was created without
   * GATEHOUSE_ROOT_PASSWORD (shown once), else null.
   */
  async ensureRoot(): Promise<{ created: boolean; password: string | null }> {
    if (await this.store.hasRoot()) return { created: false, password: null };
    const given = this.core.config.rootPassword;
    const password = given ?? randomBytes(12).toString('base64url');
    try {
      await this.create({ username: 'root', password, role: 'root', quota: 0, displayName: 'Root' });
    } catch (e) {
      // Another process created it at the same moment.
      if (await this.store.hasRoot()) return { created: false, password: null };
      throw e;
    }
    return { created: true, password: given ? null : password };
  }

  /**
   * The enabled user with this name and password; 401 `invalid_credentials` or 403 `user_disabled`
   * otherwise. A login continues with afterFirstFactor (http/login-step.ts): a session, or a pending
   * login when the user has a second factor.
   */
  async checkPassword(username: string, password: string): Promise<UserPrincipal> {
    const row = await this.store.byName(String(username));
    // An unknown name costs the same hash as a known one, so timing does not tell which names exist.
    const ok = await verifyPassword(String(password), row ? row.password_hash : await dummyHash());
    if (!row || !ok) throw fail('invalid_credentials');
    if (Number(row.status) !== 1) throw fail('user_disabled');
    return toPrincipal(row);
  }

  /** An enabled user by id (null when missing or disabled). */
  async enabledUser(userId: number): Promise<UserPrincipal | null> {
    const u = await this.store.byId(userId);
    return u && Number(u.status) === 1 ? toPrincipal(u) : null;
  }

  /** A new console login session of `userId`: the signed cookie value. */
  async openSession(userId: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    await this.store.insertSession({ id_hash: sha256Hex(token), user_id: userId, expires_at: now + SESSION_TTL_MS, created_at: now });
    return `${token}.${hmacB64Url(this.core.config.sessionSecret, token)}`;
  }

  async logout(cookie: string | undefined, bearer?: string): Promise<void> {
    const token = this.verifyCookie(cookie);
    if (token) await this.store.removeSession(sha256Hex(token));
    if (bearer?.startsWith(CLI_SESSION_PREFIX)) await this.store.removeSession(sha256Hex(bearer));
  }

  /**
   * A new command-line session of `userId`: a bearer token (shown once, stored hashed in `sessions`
   * beside the console's), valid CLI_SESSION_TTL_MS. Other sessions stay; a password change ends all.
   */
  async openCliSession(userId: number): Promise<{ token: string; expiresAt: number }> {
    const token = `${CLI_SESSION_PREFIX}${randomBytes(32).toString('base64url')}`;
    const now = Date.now();
    await this.store.insertSession({ id_hash: sha256Hex(token), user_id: userId, expires_at: now + CLI_SESSION_TTL_MS, created_at: now });
    return { token, expiresAt: now + CLI_SESSION_TTL_MS };
  }

  private verifyCookie(cookie: string | undefined): string | null {
    if (!cookie) return null;
    const dot = cookie.lastIndexOf('.');
    if (dot <= 0) return null;
    const token = cookie.slice(0, dot);
    return safeEqual(cookie.slice(dot + 1), hmacB64Url(this.core.config.sessionSecret, token)) ? token : null;
  }

  /** Resolves a session cookie or a personal access token to an enabled user. */
  async resolve(opts: { cookie?: string; bearer?: string }): Promise<UserPrincipal | null> {
    const store = this.store;
    let userId: number | null = null;
    const token = this.verifyCookie(opts.cookie);
    if (token) {
      const s = await store.sessionByHash(sha256Hex(token));
      if (s && Number(s.expires_at) > Date.now()) userId = Number(s.user_id);
    }
    if (userId === null && opts.bearer?.startsWith(CLI_SESSION_PREFIX)) {
      const s = await store.sessionByHash(sha256Hex(opts.bearer));
      if (s && Number(s.expires_at) > Date.now()) userId = Number(s.user_id);
      else return null;
    } else if (userId === null && opts.bearer) {
      const u = await store.byAccessToken(sha256Hex(opts.bearer));
      if (u && Number(u.status) === 1) return toPrincipal(u);
      return null;
    }
    if (userId === null) return null;
    const u = await store.byId(userId);
    return u && Number(u.status) === 1 ? toPrincipal(u) : null;
  }

  /** Issues a new personal access token (replacing the old one) and returns it once. */
  async issueAccessToken(userId: number): Promise<string> {
    const token = `gh-${randomBytes(24).toString('base64url')}`;
    await this.store.update(userId, { access_token_hash: sha256Hex(token), updated_at: Date.now() });
    return token;
  }

  /**
   * Changes a user's own password after checking the current one. Every other login session and the
   * personal access token are revoked; the session `keepCookie` (the caller's) stays. Wrong current
   * password: 400 on `old_password` (not 401: the caller is logged in).
   */
  async changeOwnPassword(
    userId: number,
    oldPassword: string,
    newPassword: string,
    keepCookie?: string,
  ): Promise<{ keptSession: boolean }> {
    const store = this.store;
    const row = await store.byId(userId);
    if (!row || !(await verifyPassword(String(oldPassword), row.password_hash))) {
      throw fail('wrong_password', 'old_password: is not the current password', { details: { field: 'old_password' } });
    }
    if (typeof newPassword !== 'string' || newPassword.length < 8 || newPassword.length > 256) {
      throw fail('invalid_password', 'new_password: must be 8-256 characters', { details: { field: 'new_password' } });
    }
    if (newPassword === oldPassword)
      throw fail('invalid_password', 'new_password: must differ from the current password', {
        details: {
          field: 'new_password',
        },
      });
    const hash = await hashPassword(newPassword);
    const keep = this.verifyCookie(keepCookie);
    await withTx(this.core.h, async (tx) => {
      await store.update(userId, { password_hash: hash, access_token_hash: null, updated_at: Date.now() }, tx);
      await store.removeSessionsOf(userId, tx, keep ? sha256Hex(keep) : undefined);
    });
    return { keptSession: keep !== null };
  }

  async purgeExpiredSessions(): Promise<void> {
    await this.store.purgeExpiredSessions(Date.now());
  }
}

export function toPrincipal(row: { id: number; username: string; role: string; group_name: string }): UserPrincipal {
  return { id: Number(row.id), username: row.username, role: row.role as Role, group: row.group_name };
}
