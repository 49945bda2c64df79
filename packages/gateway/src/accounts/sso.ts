/**
 * Single sign-on (docs/sso.md): what a sign-in through a provider does with the person it vouches
 * for — signs in the account linked to that subject, or on the first login links the account holding
 * the same verified e-mail (account_mode `link`) or creates a new one — and the link of a provider to
 * the logged-in account from its profile. The `sso_identities` table is here; the providers are
 * sso-providers.ts, the protocols sso-protocols.ts.
 *
 * What keeps a provider from taking accounts over: admins declare providers, and whoever controls a
 * provider's identity provider can make it vouch for anyone with any verified address. So
 * - a sign-in through a provider never lands in (or links to) an account whose role is at or above
 *   the role of whoever last changed the provider, unless root did (`mayLand`);
 * - an existing admin or root account is never linked by e-mail: it links a provider from its own
 *   profile (`startLink`), confirmed with its password and second factor.
 */
import { randomBytes } from 'node:crypto';
import type { Core } from '../core.ts';
import { fail } from '../platform/errors.ts';
import type { SsoProviderRow } from '../store/schema-sso.ts';
import type { Users } from './users.ts';
import { UserStore } from './user-store.ts';
import { ROLE_RANK, type Role, type UserPrincipal } from './types.ts';
import { SsoProviders, type SsoProviderView } from './sso-providers.ts';
import { safeReturnPath, SsoProtocols, type SsoProfile } from './sso-protocols.ts';

/** Finds the account holding a verified e-mail address; null when none does. */
export type VerifiedEmailLookup = (email: string) => Promise<number | null>;

/** A provider linked to an account (GET /api/user/sso). */
export interface LinkedIdentity {
  provider_id: string;
  email: string | null;
  created_at: number;
  last_login_at: number;
}

/** Whether a sign-in through `row` may land in an account of `role` (see the top of this file). */
export function mayLand(row: Pick<SsoProviderRow, 'changed_by_role'>, role: Role): boolean {
  return row.changed_by_role === 'root' || ROLE_RANK[role] < ROLE_RANK[row.changed_by_role];
}

const PRIVILEGED: readonly Role[] = ['admin', 'root'];

export class Sso {
  readonly providers: SsoProviders;
  readonly protocols: SsoProtocols;
  private readonly emailLookups: VerifiedEmailLookup[] = [];

  constructor(
    private readonly core: Core,
    private readonly users: Users,
  ) {
    this.providers = new SsoProviders(core);
    this.protocols = new SsoProtocols(core, this.providers);
    // Accounts that signed in before with a provider that vouched for the address.
    this.emailLookups.push(async (email) => {
      const row = await this.core.h.db
        .selectFrom('sso_identities')
        .select('user_id')
        .where('email', '=', email)
        .where('email_verified', '=', 1)
        .orderBy('id')
        .executeTakeFirst();
      return row ? Number(row.user_id) : null;
    });
  }

  /** Adds a source of verified e-mail addresses (e.g. addresses users confirmed) for linking. */
  addVerifiedEmailLookup(fn: VerifiedEmailLookup): void {
    this.emailLookups.unshift(fn);
  }

  /** Deletes a provider and the sign-in links made through it (the accounts stay). */
  async deleteProvider(id: string): Promise<SsoProviderView> {
    const cur = await this.providers.mustRow(id);
    await this.core.h.db.deleteFrom('sso_identities').where('provider_id', '=', cur.id).execute();
    this.protocols.forget(cur.id);
    return this.providers.delete(cur.id);
  }

  private async enabledRow(id: string): Promise<SsoProviderRow> {
    const row = await this.providers.mustRow(id);
    if (Number(row.enabled) !== 1) throw fail('sso_provider_not_found', { id: row.id });
    return row;
  }

  /**
   * Begins a login: the provider's authorization URL to redirect to and the sealed flow cookie to
   * set. `origin` is the request's own address, used when PUBLIC_URL is not set.
   */
  async start(id: string, origin: string, next?: unknown): Promise<{ url: string; cookie: string }> {
    const row = await this.enabledRow(id);
    return this.protocols.begin(row, this.providers.redirectUri(row.id, origin), next);
  }

  /**
   * Begins linking provider `id` to the logged-in `user` (the route confirmed it with the account's
   * password and second factor): like a login, but the callback links the identity to this account.
   */
  async startLink(id: string, user: UserPrincipal, origin: string): Promise<{ url: string; cookie: string }> {
    const row = await this.enabledRow(id);
    if (!mayLand(row, user.role)) throw refusedFor(user.role);
    return this.protocols.begin(row, this.providers.redirectUri(row.id, origin), '/profile', user.id);
  }

  /**
   * Completes a login or a link at the callback and returns the account with the console path to go
   * back to. A link needs the browser's session to be that of the account that started it
   * (`sessionUserId`). `callbackUrl` is the full URL the browser came back to.
   */
  async callback(
    id: string,
    callbackUrl: URL,
    flowCookie: string | undefined,
    sessionUserId: number | null = null,
  ): Promise<{ user: UserPrincipal; returnTo: string; linked: boolean }> {
    const row = await this.enabledRow(id);
    const flow = this.protocols.openFlow(row.id, flowCookie);
    const profile = await this.protocols.profile(row, flow, callbackUrl);
    if (flow.l !== undefined) {
      if (sessionUserId !== flow.l)
        throw fail('sso_invalid_state', { reason: 'the link was started by another login: log in and link again' });
      return { user: await this.link(row, profile, flow.l), returnTo: '/profile', linked: true };
    }
    return { user: await this.signIn(row, profile), returnTo: safeReturnPath(flow.t), linked: false };
  }

  private identity(providerId: string, subject: string) {
    return this.core.h.db
      .selectFrom('sso_identities')
      .select(['id', 'user_id'])
      .where('provider_id', '=', providerId)
      .where('subject', '=', subject)
      .executeTakeFirst();
  }

  /** Links (provider, subject) to `userId`; the first link wins when two race. Returns the account linked. */
  private async insertIdentity(row: SsoProviderRow, p: SsoProfile, userId: number): Promise<number> {
    const now = Date.now();
    try {
      await this.core.h.db
        .insertInto('sso_identities')
        .values({
          provider_id: row.id,
          subject: p.subject,
          user_id: userId,
          email: p.email,
          email_verified: p.emailVerified ? 1 : 0,
          created_at: now,
          last_login_at: now,
        })
        .execute();
      return userId;
    } catch (e) {
      // The same person finishing two logins at once: the first link wins.
      const again = await this.identity(row.id, p.subject);
      if (!again) throw e;
      return Number(again.user_id);
    }
  }

  private async findByVerifiedEmail(email: string): Promise<number | null> {
    for (const fn of this.emailLookups) {
      const id = await fn(email);
      if (id !== null) return id;
    }
    return null;
  }

  /** The account of a vouched-for person: linked before, linked now by verified e-mail, or created. */
  async signIn(row: SsoProviderRow, p: SsoProfile): Promise<UserPrincipal> {
    const store = new UserStore(this.core.h);
    const known = await this.identity(row.id, p.subject);
    let userId: number;
    if (known) {
      userId = Number(known.user_id);
      const u = await store.byId(userId);
      // The provider may have changed hands since the link was made.
      if (u && !mayLand(row, u.role)) throw refusedFor(u.role);
      await this.core.h.db
        .updateTable('sso_identities')
        .set({ email: p.email, email_verified: p.emailVerified ? 1 : 0, last_login_at: Date.now() })
        .where('id', '=', known.id)
        .execute();
    } else {
      let linkTo: number | null = null;
      if (row.account_mode === 'link' && p.email) {
        const owner = await this.findByVerifiedEmail(p.email);
        if (owner !== null) {
          if (!p.emailVerified) throw fail('sso_email_unverified');
          const u = await store.byId(owner);
          if (u && PRIVILEGED.includes(u.role))
            throw fail(
              'sso_link_refused',
              `single sign-on refused: ${u.role === 'root' ? 'a root' : 'an admin'} account is never linked by e-mail; log in with the password and link the provider on the profile page`,
            );
          if (u && !mayLand(row, u.role)) throw refusedFor(u.role);
          linkTo = owner;
        }
      }
      userId = await this.insertIdentity(row, p, linkTo ?? (await this.createAccount(row, p)));
      this.core.log.info(
        { provider: row.id, user_id: userId, linked: linkTo !== null },
        linkTo !== null ? 'sso identity linked to an account' : 'sso account created',
      );
    }
    const u = await store.byId(userId);
    if (!u) throw fail('user_disabled', 'the account linked to this sign-in no longer exists');
    if (Number(u.status) !== 1) throw fail('user_disabled');
    if (!mayLand(row, u.role)) throw refusedFor(u.role);
    return { id: Number(u.id), username: u.username, role: u.role, group: u.group_name };
  }

  /** Links the vouched-for person to `userId` (a profile's link): 409 when the person is linked to another account. */
  private async link(row: SsoProviderRow, p: SsoProfile, userId: number): Promise<UserPrincipal> {
    const u = await new UserStore(this.core.h).byId(userId);
    if (!u || Number(u.status) !== 1) throw fail('user_disabled');
    if (!mayLand(row, u.role)) throw refusedFor(u.role);
    const known = await this.identity(row.id, p.subject);
    const linked = known ? Number(known.user_id) : await this.insertIdentity(row, p, userId);
    if (linked !== userId) throw fail('sso_identity_taken');
    this.core.log.info({ provider: row.id, user_id: userId }, 'sso identity linked from the profile');
    return { id: Number(u.id), username: u.username, role: u.role, group: u.group_name };
  }

  /** The providers linked to `userId`. */
  async identitiesOf(userId: number): Promise<LinkedIdentity[]> {
    const rows = await this.core.h.db
      .selectFrom('sso_identities')
      .select(['provider_id', 'email', 'created_at', 'last_login_at'])
      .where('user_id', '=', userId)
      .orderBy('provider_id')
      .execute();
    return rows.map((r) => ({
      provider_id: r.provider_id,
      email: r.email,
      created_at: Number(r.created_at),
      last_login_at: Number(r.last_login_at),
    }));
  }

  /** Removes the link of provider `providerId` to `userId`; false when there was none. */
  async unlink(userId: number, providerId: string): Promise<boolean> {
    const d = await this.core.h.db
      .deleteFrom('sso_identities')
      .where('user_id', '=', userId)
      .where('provider_id', '=', String(providerId))
      .executeTakeFirst();
    return Number(d.numDeletedRows) > 0;
  }

  private async createAccount(row: SsoProviderRow, p: SsoProfile): Promise<number> {
    const base = (p.username ?? `${row.id}-${p.subject}`).replace(/[^A-Za-z0-9_.@-]/g, '').slice(0, 56) || `${row.id}-user`;
    for (let i = 0; i < 20; i++) {
      const username = i === 0 ? base : i < 10 ? `${base}-${i + 1}` : `${base}-${randomBytes(3).toString('hex')}`;
      if ((await new UserStore(this.core.h).idByName(username)) !== null) continue;
      try {
        // No password: the person signs in with the provider (and may set one later, accounts/reauth.ts).
        return await this.users.create({
          username,
          password: null,
          displayName: (p.displayName ?? username).slice(0, 64),
          group: row.default_group,
        });
      } catch (e) {
        if ((await new UserStore(this.core.h).idByName(username)) === null) throw e;
      }
    }
    throw fail('username_taken');
  }
}

/** The refusal of a sign-in into an account of `role` through a provider last changed by someone of that rank. */
function refusedFor(role: Role) {
  return fail(
    'sso_link_refused',
    `single sign-on refused: this provider was last changed by someone who may not sign in to ${role === 'user' ? 'this' : role === 'root' ? 'a root' : 'an admin'} account; log in with the password (root can save the provider to vouch for it)`,
  );
}
