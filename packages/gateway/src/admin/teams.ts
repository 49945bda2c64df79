/**
 * Team administration: the operators' teams (create, list, change, delete, top up the wallet) and what
 * a team's owners and admins manage without gateway admin rights — members, roles, member budgets and
 * invitations by e-mail (a link, expiring, single use) — plus accepting an invitation. Every call is
 * held to teams/access.ts (a team the caller does not belong to is `team_not_found`), and every write
 * is recorded in the audit log (target `team`). The tables are teams/store.ts's; money moves through
 * the ledger only (the top-up). Keys, logs and usage of a team: admin/team-activity.ts.
 */
import type { Core } from '../core.ts';
import type { UserPrincipal } from '../accounts/types.ts';
import { UserStore } from '../accounts/user-store.ts';
import { KeyStore } from '../accounts/key-store.ts';
import type { AuditLog } from '../logs/audit.ts';
import type { Changes } from './changes.ts';
import { fail } from '../platform/errors.ts';
import { mailer } from '../platform/mail.ts';
import { emailAddress, fieldError, quotaToUsd, usdToQuota, type Page } from '../platform/validate.ts';
import { BUDGET_PERIODS } from '../billing/budgets.ts';
import * as store from '../teams/store.ts';
import { isOperator, teamAccess, type TeamStanding } from '../teams/access.ts';
import type { Team, TeamInput, TeamMember, TeamRole, TeamSettings } from '../teams/store.ts';

/** How long an invitation link is valid unless the inviter says otherwise. */
export const INVITATION_TTL_HOURS = 72;

/** A team as the team API shows it (money in quota units and USD). */
export interface TeamView extends Omit<Team, 'budget_quota' | 'group_name'> {
  quota_usd: number;
  used_quota_usd: number;
  group: string | null;
  budget_usd: number | null;
  budget_period: string | null;
}

export interface MemberView extends Omit<TeamMember, 'budget_quota'> {
  budget_usd: number | null;
}

/** What creating or changing a team takes (the route's schema checked the types). */
export interface TeamBody {
  name?: string;
  models?: string[] | null;
  group?: string | null;
  rpm?: number;
  tpm?: number;
  max_concurrency?: number;
  budget_usd?: number | null;
  budget_period?: string | null;
  settings?: TeamSettings;
}

export interface MemberBody {
  role?: TeamRole;
  budget_usd?: number | null;
  budget_period?: string | null;
}

/** Tops up a team's wallet through the ledger: credited once per `ref`; the new balance. */
export type TeamTopUp = (teamId: number, quota: number, ref: string, byUserId: number) => Promise<unknown>;

export class TeamAdmin {
  constructor(
    private readonly core: Core,
    private readonly changes: Changes,
    private readonly audit: AuditLog,
    private readonly topUpWallet: () => TeamTopUp,
    private readonly publicUrl: () => string,
  ) {}

  private get perUsd() {
    return this.core.config.quotaPerUsd;
  }

  view(t: Team): TeamView {
    const { budget_quota, group_name, ...rest } = t;
    return {
      ...rest,
      group: group_name,
      quota_usd: quotaToUsd(t.quota, this.perUsd),
      used_quota_usd: quotaToUsd(t.used_quota, this.perUsd),
      budget_usd: budget_quota === null ? null : quotaToUsd(budget_quota, this.perUsd),
      budget_period: t.budget_period,
    };
  }

  memberView(m: TeamMember): MemberView {
    const { budget_quota, ...rest } = m;
    return { ...rest, budget_usd: budget_quota === null ? null : quotaToUsd(budget_quota, this.perUsd) };
  }

  /** The store's input from a body: a budget needs its period, names are trimmed. */
  private input(b: TeamBody, create: boolean): TeamInput {
    const out: TeamInput = {};
    if (b.name !== undefined) {
      const name = b.name.trim();
      if (!name) throw fieldError('name', 'must not be empty');
      if (name.includes('~')) throw fieldError('name', 'must not contain ~');
      out.name = name;
    } else if (create) throw fieldError('name', 'is required');
    if (b.models !== undefined)
      out.models = b.models === null || b.models.length === 0 ? null : [...new Set(b.models.map((m) => m.trim()).filter(Boolean))];
    if (b.group !== undefined) out.group_name = b.group === null || b.group.trim() === '' ? null : b.group.trim();
    if (b.rpm !== undefined) out.rpm = b.rpm;
    if (b.tpm !== undefined) out.tpm = b.tpm;
    if (b.max_concurrency !== undefined) out.max_concurrency = b.max_concurrency;
    Object.assign(out, this.budget(b));
    if (b.settings !== undefined)
      out.settings = { allow_admin_topup: b.settings.allow_admin_topup === true, share_bodies: b.settings.share_bodies === true };
    return out;
  }

  /** `budget_usd` with `budget_period` as quota units (null clears both). */
  private budget(b: { budget_usd?: number | null; budget_period?: string | null }): {
    budget_quota?: number | null;
    budget_period?: string | null;
  } {
    if (b.budget_usd === undefined) {
      if (b.budget_period !== undefined && b.budget_period !== null) throw fieldError('budget_usd', 'is required with budget_period');
      return {};
    }
    if (b.budget_usd === null) return { budget_quota: null, budget_period: null };
    if (!b.budget_period || !(BUDGET_PERIODS as readonly string[]).includes(b.budget_period))
      throw fieldError('budget_period', `must be one of ${BUDGET_PERIODS.join(', ')} with budget_usd`);
    return { budget_quota: usdToQuota(b.budget_usd, this.perUsd), budget_period: b.budget_period };
  }

  // ---- operators ----

  async list(q: { page: number; pageSize: number; offset: number; keyword?: string }): Promise<Page<TeamView>> {
    const { items, total } = await store.listTeams(this.core.h.db, { q: q.keyword, offset: q.offset, limit: q.pageSize });
    return { items: items.map((t) => this.view(t)), total, page: q.page, page_size: q.pageSize };
  }

  async create(body: TeamBody, actor: UserPrincipal): Promise<TeamView> {
    const id = await store.createTeam(this.core.h, this.input(body, true) as TeamInput & { name: string });
    const made = this.view((await store.getTeam(this.core.h.db, id))!);
    await this.audit.record(actor, 'team.create', { type: 'team', id }, null, made);
    return made;
  }

  /** A team with the caller's standing in it (members see their own team; 404 for anyone else). */
  async get(teamId: number, actor: UserPrincipal): Promise<TeamView & { my_role: TeamStanding }> {
    const { team, standing } = await teamAccess(this.core.h.db, teamId, actor, 'read');
    return { ...this.view(team), my_role: standing };
  }

  async update(teamId: number, body: TeamBody, actor: UserPrincipal): Promise<TeamView> {
    const before = await this.operatorTeam(teamId, actor);
    await store.updateTeam(this.core.h.db, teamId, this.input(body, false));
    await this.changes.changed('keys');
    const after = this.view((await store.getTeam(this.core.h.db, teamId))!);
    await this.audit.record(actor, 'team.update', { type: 'team', id: teamId }, this.view(before), after);
    return after;
  }

  /** Deletes a team: its members and open invitations go, its keys are disabled (they stop at once). */
  async remove(teamId: number, actor: UserPrincipal): Promise<void> {
    const before = await this.operatorTeam(teamId, actor);
    await store.deleteTeam(this.core.h, teamId);
    await new KeyStore(this.core.h).disableTeamKeys(teamId);
    await this.changes.changed('keys');
    await this.audit.record(actor, 'team.delete', { type: 'team', id: teamId }, this.view(before), null);
  }

  private async operatorTeam(teamId: number, actor: UserPrincipal): Promise<Team> {
    if (!isOperator(actor)) throw fail('forbidden', 'this needs the admin role');
    const t = await store.getTeam(this.core.h.db, teamId);
    if (!t) throw fail('team_not_found', { id: teamId });
    return t;
  }

  /**
   * Credits the team's wallet: operators always; the team's owners and admins only when the operator
   * set `allow_admin_topup`. `ref` names the request: the same ref credits once however often it is sent.
   */
  /**
   * Redeems a redemption code into the team's wallet (owners, admins, operators): `redeemInto` is the
   * redemption service's (billing/redemption.ts `redeemForTeam`), called once the caller may. Audited as
   * the redemption and as the team's.
   */
  async redeem<R extends { quota: number; quota_usd: number; balance: number }>(
    teamId: number,
    actor: UserPrincipal,
    redeemInto: (teamId: number) => Promise<R>,
  ): Promise<{ quota: number; quota_usd: number; balance: number }> {
    await teamAccess(this.core.h.db, teamId, actor, 'manage');
    const r = await redeemInto(teamId);
    await this.audit.record(actor, 'team.redeem', { type: 'team', id: teamId }, null, { quota: r.quota, balance: r.balance });
    await this.changes.changed('keys');
    return { quota: r.quota, quota_usd: r.quota_usd, balance: r.balance };
  }

  /** Refuses unless `actor` manages the team (its owners and admins, operators): 404 outside it, 403 below. */
  async requireManager(teamId: number, actor: UserPrincipal): Promise<void> {
    await teamAccess(this.core.h.db, teamId, actor, 'manage');
  }

  async topUp(teamId: number, body: { quota?: number; quota_usd?: number; ref: string }, actor: UserPrincipal): Promise<TeamView> {
    await teamAccess(this.core.h.db, teamId, actor, 'topup');
    const quota = body.quota ?? (body.quota_usd !== undefined ? usdToQuota(body.quota_usd, this.perUsd) : undefined);
    if (quota === undefined) throw fieldError('quota_usd', 'is required (or quota)');
    if (!(quota > 0)) throw fieldError(body.quota !== undefined ? 'quota' : 'quota_usd', 'must be more than 0');
    const before = (await store.getTeam(this.core.h.db, teamId))!;
    await this.topUpWallet()(teamId, quota, `team-topup:${teamId}:${body.ref}`, actor.id);
    const after = (await store.getTeam(this.core.h.db, teamId))!;
    if (after.quota !== before.quota)
      await this.audit.record(
        actor,
        'team.topup',
        { type: 'team', id: teamId },
        { quota: before.quota },
        { quota: after.quota, ref: body.ref },
      );
    return this.view(after);
  }

  // ---- the signed-in user ----

  /** The teams the user belongs to, with their role in each. */
  async mine(userId: number): Promise<Array<TeamView & { my_role: TeamRole }>> {
    return (await store.teamsOfUser(this.core.h.db, userId)).map(({ team, role }) => ({ ...this.view(team), my_role: role }));
  }

  // ---- members ----

  async members(teamId: number, actor: UserPrincipal): Promise<MemberView[]> {
    await teamAccess(this.core.h.db, teamId, actor, 'members.list');
    return (await store.listMembers(this.core.h.db, teamId)).map((m) => this.memberView(m));
  }

  /** Adds an existing user (by username or e-mail address) with a role and optionally a budget. */
  async addMember(
    teamId: number,
    body: { username?: string; email?: string; user_id?: number; role: TeamRole } & MemberBody,
    actor: UserPrincipal,
  ): Promise<MemberView> {
    await teamAccess(this.core.h.db, teamId, actor, body.role === 'owner' ? 'owner' : 'manage');
    const userId = await this.findUser(body);
    const b = this.budget(body);
    await store.addMember(this.core.h.db, teamId, userId, body.role, {
      budget_quota: b.budget_quota ?? null,
      budget_period: b.budget_period ?? null,
    });
    await this.changes.changed('keys');
    const m = this.memberView((await store.getMember(this.core.h.db, teamId, userId))!);
    await this.audit.record(actor, 'team.member.add', { type: 'team', id: teamId }, null, m);
    return m;
  }

  private async findUser(body: { username?: string; email?: string; user_id?: number }): Promise<number> {
    const users = new UserStore(this.core.h);
    if (body.user_id !== undefined) {
      const u = await users.byId(body.user_id);
      if (!u) throw fieldError('user_id', `no user with id ${body.user_id}`);
      return body.user_id;
    }
    if (body.username) {
      const id = await users.idByName(body.username.trim());
      if (id === null) throw fieldError('username', `no user named "${body.username}"`);
      return id;
    }
    if (body.email) {
      const owner = await users.emailOwner(emailAddress(body.email));
      if (!owner) throw fieldError('email', 'no user has this address');
      return Number(owner.user_id);
    }
    throw fieldError('username', 'is required (or email)');
  }

  /**
   * Changes a member's role and/or budget. Owners and admins manage members; only an owner (or an
   * operator) grants the owner role or changes an owner; a team keeps at least one owner. A member
   * made a viewer has their team keys disabled.
   */
  async updateMember(teamId: number, userId: number, body: MemberBody, actor: UserPrincipal): Promise<MemberView> {
    const { standing } = await teamAccess(this.core.h.db, teamId, actor, 'manage');
    const db = this.core.h.db;
    const cur = await store.getMember(db, teamId, userId);
    if (!cur) throw fail('team_member_not_found');
    if (body.role !== undefined && body.role !== cur.role) {
      if ((body.role === 'owner' || cur.role === 'owner') && standing !== 'owner' && standing !== 'operator')
        throw fail('forbidden', 'only an owner of the team may grant or remove the owner role');
      if (cur.role === 'owner') await this.keepAnOwner(teamId);
    }
    const b = this.budget(body);
    if (body.role !== undefined && body.role !== cur.role) {
      await store.setMemberRole(db, teamId, userId, body.role);
      // A viewer has no keys of the team: the ones they made stop, as when they leave.
      if (body.role === 'viewer') await new KeyStore(this.core.h).disableTeamKeys(teamId, userId);
    }
    if (b.budget_quota !== undefined) await store.setMemberBudget(db, teamId, userId, b.budget_quota, b.budget_period ?? null);
    await this.changes.changed('keys');
    const after = this.memberView((await store.getMember(db, teamId, userId))!);
    await this.audit.record(actor, 'team.member.update', { type: 'team', id: teamId }, this.memberView(cur), after);
    return after;
  }

  /** Removes a member (owners only by an owner or operator; never the last owner). Their team keys are disabled. */
  async removeMember(teamId: number, userId: number, actor: UserPrincipal): Promise<void> {
    const self = userId === actor.id;
    const { standing } = await teamAccess(this.core.h.db, teamId, actor, self ? 'read' : 'manage');
    const cur = await store.getMember(this.core.h.db, teamId, userId);
    if (!cur) throw fail('team_member_not_found');
    if (cur.role === 'owner') {
      if (!self && standing !== 'owner' && standing !== 'operator')
        throw fail('forbidden', 'only an owner of the team may remove an owner');
      await this.keepAnOwner(teamId);
    }
    await store.removeMember(this.core.h.db, teamId, userId);
    await new KeyStore(this.core.h).disableTeamKeys(teamId, userId);
    await this.changes.changed('keys');
    await this.audit.record(actor, 'team.member.remove', { type: 'team', id: teamId }, this.memberView(cur), null);
  }

  private async keepAnOwner(teamId: number): Promise<void> {
    const owners = (await store.listMembers(this.core.h.db, teamId)).filter((m) => m.role === 'owner');
    if (owners.length <= 1) throw fail('team_last_owner');
  }

  // ---- invitations ----

  async invitations(teamId: number, actor: UserPrincipal): Promise<store.TeamInvitation[]> {
    await teamAccess(this.core.h.db, teamId, actor, 'manage');
    return store.listInvitations(this.core.h.db, teamId);
  }

  /**
   * Invites an address with a role: the link (valid `ttl_hours`, single use) is mailed when mail and
   * the gateway's address are configured, else returned to the inviter to hand over.
   */
  async invite(
    teamId: number,
    body: { email: string; role: TeamRole; ttl_hours?: number },
    actor: UserPrincipal,
  ): Promise<{ invitation: store.TeamInvitation; mailed: boolean; link?: string }> {
    const { team } = await teamAccess(this.core.h.db, teamId, actor, body.role === 'owner' ? 'owner' : 'manage');
    const email = emailAddress(body.email);
    const ttlMs = (body.ttl_hours ?? INVITATION_TTL_HOURS) * 3_600_000;
    const made = await store.createInvitation(this.core.h, teamId, { email, role: body.role, createdBy: actor.id, ttlMs });
    const base = this.publicUrl().replace(/\/+$/, '');
    const link = `${base}/team-invite?token=${encodeURIComponent(made.token)}`;
    const mail = mailer(this.core);
    let mailed = false;
    if (mail.configured && base) {
      await mail.send({
        to: email,
        subject: `[Gatehouse] You are invited to the team ${team.name}`,
        text:
          `Hello,\n\n${actor.username} invites you to join the team "${team.name}" on Gatehouse as ${body.role}.\n\n` +
          `Sign in (or create an account) and open this link to accept; it works once, until ${new Date(made.expires_at).toISOString()}:\n\n${link}\n`,
      });
      mailed = true;
    }
    const invitation = (await store.listInvitations(this.core.h.db, teamId)).find((i) => i.id === made.id)!;
    await this.audit.record(actor, 'team.invitation.create', { type: 'team', id: teamId }, null, invitation);
    return { invitation, mailed, ...(mailed ? {} : { link: base ? link : `/team-invite?token=${encodeURIComponent(made.token)}` }) };
  }

  async revokeInvitation(teamId: number, invitationId: number, actor: UserPrincipal): Promise<void> {
    await teamAccess(this.core.h.db, teamId, actor, 'manage');
    await store.revokeInvitation(this.core.h.db, teamId, invitationId);
    await this.audit.record(actor, 'team.invitation.revoke', { type: 'team', id: teamId }, { invitation: invitationId }, null);
  }

  /** Accepts an invitation for the signed-in user: once; an expired, used or revoked one is refused by name. */
  async accept(token: string, user: UserPrincipal): Promise<{ team: TeamView; role: TeamRole }> {
    let joined: { team_id: number; role: TeamRole };
    try {
      joined = await store.acceptInvitation(this.core.h, token, user.id);
    } catch (e) {
      const state = await store.invitationState(this.core.h.db, token);
      if (state === 'expired') throw fail('invitation_expired');
      if (state === 'used') throw fail('invitation_used');
      throw e;
    }
    await this.changes.changed('keys');
    const team = (await store.getTeam(this.core.h.db, joined.team_id))!;
    await this.audit.record(user, 'team.invitation.accept', { type: 'team', id: joined.team_id }, null, {
      user_id: user.id,
      role: joined.role,
    });
    return { team: this.view(team), role: joined.role };
  }
}
