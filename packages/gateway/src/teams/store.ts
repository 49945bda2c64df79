/**
 * The team store: every SQL statement on `teams`, `team_members` and `team_invitations` is a function
 * here, save the wallet columns of `teams` (`quota`, `used_quota`, `request_count`), which only
 * billing's ledger moves (billing/ledger-statements.ts; a top-up is `topUpTeam` in billing/team-wallet.ts).
 * The team routes, the key cache, the configuration file and the ledger's payer read teams through it.
 *
 * A deleted team keeps its row (`deleted_at`, its name freed by a suffix) so that ledger rows, logs and
 * keys naming it keep their meaning; its members and open invitations are removed with it.
 */
import type { Selectable } from 'kysely';
import { insertId, isUniqueViolation, sql, withTx, type DbHandle, type DbOrTx } from '../store/db.ts';
import type { TeamInvitationRow, TeamMemberRow, TeamRole, TeamRow } from '../store/schema-teams.ts';
import { fail } from '../platform/errors.ts';
import { nowMs } from '../platform/ids.ts';
import { randomToken, sha256Hex } from '../platform/crypto.ts';

export type { TeamRole } from '../store/schema-teams.ts';
export const TEAM_ROLES: readonly TeamRole[] = ['owner', 'admin', 'member', 'viewer'];
/** Roles that manage the team (members, keys, invitations). */
export const MANAGING_ROLES: readonly TeamRole[] = ['owner', 'admin'];
export const isTeamRole = (v: unknown): v is TeamRole => typeof v === 'string' && (TEAM_ROLES as readonly string[]).includes(v);

/** What the operator allows a team (the JSON of `teams.settings`). */
export interface TeamSettings {
  /** Team owners and admins may top up the wallet themselves (default false: only operators). */
  allow_admin_topup?: boolean;
  /** Team owners and admins may read the request bodies of other members' calls (default false). */
  share_bodies?: boolean;
}

/** A team as the rest of the gateway sees it (JSON columns decoded). */
export interface Team {
  id: number;
  name: string;
  /** The wallet's balance in quota units. */
  quota: number;
  used_quota: number;
  request_count: number;
  /** Models the team's keys may call; null = every model. */
  models: string[] | null;
  /** The group the team's keys call in; null = the key's or member's. */
  group_name: string | null;
  rpm: number;
  tpm: number;
  max_concurrency: number;
  budget_quota: number | null;
  budget_period: string | null;
  settings: TeamSettings;
  created_at: number;
  updated_at: number;
}

/** The fields an operator sets on a team (never the wallet: money moves through the ledger). */
export interface TeamInput {
  name?: string;
  models?: string[] | null;
  group_name?: string | null;
  rpm?: number;
  tpm?: number;
  max_concurrency?: number;
  budget_quota?: number | null;
  budget_period?: string | null;
  settings?: TeamSettings;
}

export interface TeamMember {
  team_id: number;
  user_id: number;
  username: string;
  display_name: string;
  role: TeamRole;
  budget_quota: number | null;
  budget_period: string | null;
  created_at: number;
}

export type TeamInvitation = Omit<Selectable<TeamInvitationRow>, 'token_hash'>;

const parseList = (s: string | null): string[] | null => {
  if (s === null || s === '') return null;
  try {
    const v = JSON.parse(s);
    return Array.isArray(v) ? v.map(String) : null;
  } catch {
    return null;
  }
};
const parseSettings = (s: string | null): TeamSettings => {
  if (!s) return {};
  try {
    const v = JSON.parse(s);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as TeamSettings) : {};
  } catch {
    return {};
  }
};

/** Decodes a `teams` row. */
export function teamOf(r: Selectable<TeamRow>): Team {
  return {
    id: Number(r.id),
    name: r.name,
    quota: Number(r.quota),
    used_quota: Number(r.used_quota),
    request_count: Number(r.request_count),
    models: parseList(r.models),
    group_name: r.group_name,
    rpm: Number(r.rpm),
    tpm: Number(r.tpm),
    max_concurrency: Number(r.max_concurrency),
    budget_quota: r.budget_quota === null ? null : Number(r.budget_quota),
    budget_period: r.budget_period,
    settings: parseSettings(r.settings),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

function columnsOf(input: TeamInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (input.name !== undefined) out.name = input.name;
  if (input.models !== undefined) out.models = input.models === null ? null : JSON.stringify(input.models);
  if (input.group_name !== undefined) out.group_name = input.group_name;
  if (input.rpm !== undefined) out.rpm = input.rpm;
  if (input.tpm !== undefined) out.tpm = input.tpm;
  if (input.max_concurrency !== undefined) out.max_concurrency = input.max_concurrency;
  if (input.budget_quota !== undefined) out.budget_quota = input.budget_quota;
  if (input.budget_period !== undefined) out.budget_period = input.budget_period;
  if (input.settings !== undefined) out.settings = JSON.stringify(input.settings);
  return out;
}

/** Creates a team with an empty wallet; refused with `team_exists` when the name is taken. Returns its id. */
export async function createTeam(h: DbHandle, input: TeamInput & { name: string }): Promise<number> {
  const now = nowMs();
  try {
    return await insertId(h.db, h.dialect, 'teams', { ...columnsOf(input), created_at: now, updated_at: now });
  } catch (e) {
    if (isUniqueViolation(e)) throw fail('team_exists', { name: input.name });
    throw e;
  }
}

/** A live team by id (null when there is none or it was deleted). */
export async function getTeam(db: DbOrTx, id: number): Promise<Team | null> {
  const r = await db.selectFrom('teams').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return r ? teamOf(r) : null;
}

/** A live team by name (null when there is none). */
export async function getTeamByName(db: DbOrTx, name: string): Promise<Team | null> {
  const r = await db.selectFrom('teams').selectAll().where('name', '=', name).where('deleted_at', 'is', null).executeTakeFirst();
  return r ? teamOf(r) : null;
}

/** Live teams by id (ids without one are left out): what the key cache resolves keys' teams with. */
export async function teamsByIds(db: DbOrTx, ids: readonly number[]): Promise<Team[]> {
  if (!ids.length) return [];
  const rows = await db
    .selectFrom('teams')
    .selectAll()
    .where('id', 'in', ids as number[])
    .where('deleted_at', 'is', null)
    .execute();
  return rows.map(teamOf);
}

/** One page of live teams, by name, with the filtered count (`q`: a part of the name). */
export async function listTeams(
  db: DbOrTx,
  opts: { q?: string; offset?: number; limit?: number } = {},
): Promise<{ items: Team[]; total: number }> {
  let base = db.selectFrom('teams').where('deleted_at', 'is', null);
  if (opts.q) base = base.where('name', 'like', `%${opts.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy('name')
      .offset(opts.offset ?? 0)
      .limit(opts.limit ?? 100)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { items: rows.map(teamOf), total: Number(count?.n ?? 0) };
}

/** Changes a live team's settings; `team_not_found` when there is none, `team_exists` on a taken name. */
export async function updateTeam(db: DbOrTx, id: number, input: TeamInput): Promise<void> {
  const set = columnsOf(input);
  try {
    const r = await db
      .updateTable('teams')
      .set({ ...set, updated_at: nowMs() })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) throw fail('team_not_found', { id });
  } catch (e) {
    if (isUniqueViolation(e)) throw fail('team_exists', { name: input.name ?? '' });
    throw e;
  }
}

/**
 * Deletes a team: marks it deleted (its name freed by a `~<id>` suffix), removes its members and
 * revokes its open invitations, in one transaction. The team's keys stop working at once (the key
 * cache loads keys of live teams only); the caller disables them through the key store.
 */
export async function deleteTeam(h: DbHandle, id: number): Promise<void> {
  await withTx(h, async (tx) => {
    const now = nowMs();
    const suffix = `~${id}`;
    const r = await tx
      .updateTable('teams')
      .set({
        deleted_at: now,
        updated_at: now,
        name:
          h.dialect === 'mysql'
            ? sql<string>`concat(left(name, ${64 - suffix.length}), ${suffix})`
            : sql<string>`substr(name, 1, ${64 - suffix.length}) || ${suffix}`,
      })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) throw fail('team_not_found', { id });
    await tx.deleteFrom('team_members').where('team_id', '=', id).execute();
    await tx
      .updateTable('team_invitations')
      .set({ revoked_at: now })
      .where('team_id', '=', id)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .execute();
  });
}

const memberColumns = [
  'm.team_id',
  'm.user_id',
  'u.username',
  'u.display_name',
  'm.role',
  'm.budget_quota',
  'm.budget_period',
  'm.created_at',
] as const;

function memberOf(r: Record<string, unknown>): TeamMember {
  return {
    team_id: Number(r.team_id),
    user_id: Number(r.user_id),
    username: String(r.username),
    display_name: String(r.display_name ?? ''),
    role: r.role as TeamRole,
    budget_quota: r.budget_quota === null || r.budget_quota === undefined ? null : Number(r.budget_quota),
    budget_period: (r.budget_period as string | null) ?? null,
    created_at: Number(r.created_at),
  };
}

/** The members of a team, owners first, then by username. */
export async function listMembers(db: DbOrTx, teamId: number): Promise<TeamMember[]> {
  const rows = await db
    .selectFrom('team_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(memberColumns)
    .where('m.team_id', '=', teamId)
    .orderBy('u.username')
    .execute();
  const rank = (r: TeamRole) => TEAM_ROLES.indexOf(r);
  return rows.map(memberOf).sort((a, b) => rank(a.role) - rank(b.role) || a.username.localeCompare(b.username));
}

/** One member of a team (null when the user is not one). */
export async function getMember(db: DbOrTx, teamId: number, userId: number): Promise<TeamMember | null> {
  const r = await db
    .selectFrom('team_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(memberColumns)
    .where('m.team_id', '=', teamId)
    .where('m.user_id', '=', userId)
    .executeTakeFirst();
  return r ? memberOf(r) : null;
}

/** The members' delegated wallets of the given teams, for the key cache: `teamId:userId` → budget. */
export async function memberBudgets(
  db: DbOrTx,
  teamIds: readonly number[],
): Promise<Array<{ team_id: number; user_id: number; role: TeamRole; budget_quota: number | null; budget_period: string | null }>> {
  if (!teamIds.length) return [];
  const rows = await db
    .selectFrom('team_members')
    .select(['team_id', 'user_id', 'role', 'budget_quota', 'budget_period'])
    .where('team_id', 'in', teamIds as number[])
    .execute();
  return rows.map((r) => ({
    team_id: Number(r.team_id),
    user_id: Number(r.user_id),
    role: r.role,
    budget_quota: r.budget_quota === null ? null : Number(r.budget_quota),
    budget_period: r.budget_period,
  }));
}

/**
 * Adds a user to a live team with a role (and optionally a delegated budget); `team_member_exists`
 * when the user already is a member, `team_not_found` when the team is gone.
 */
export async function addMember(
  db: DbOrTx,
  teamId: number,
  userId: number,
  role: TeamRole,
  budget?: { budget_quota: number | null; budget_period: string | null },
): Promise<void> {
  const t = await db.selectFrom('teams').select('id').where('id', '=', teamId).where('deleted_at', 'is', null).executeTakeFirst();
  if (!t) throw fail('team_not_found', { id: teamId });
  try {
    await db
      .insertInto('team_members')
      .values({
        team_id: teamId,
        user_id: userId,
        role,
        budget_quota: budget?.budget_quota ?? null,
        budget_period: budget?.budget_period ?? null,
        created_at: nowMs(),
      })
      .execute();
  } catch (e) {
    if (isUniqueViolation(e)) throw fail('team_member_exists');
    throw e;
  }
}

/** Changes a member's role; `team_member_not_found` when the user is not a member. */
export async function setMemberRole(db: DbOrTx, teamId: number, userId: number, role: TeamRole): Promise<void> {
  const r = await db
    .updateTable('team_members')
    .set({ role })
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) throw fail('team_member_not_found');
}

/** Sets a member's delegated wallet (at most `budget_quota` per `budget_period`; null: no cap). */
export async function setMemberBudget(
  db: DbOrTx,
  teamId: number,
  userId: number,
  budgetQuota: number | null,
  budgetPeriod: string | null,
): Promise<void> {
  const r = await db
    .updateTable('team_members')
    .set({ budget_quota: budgetQuota, budget_period: budgetQuota === null ? null : budgetPeriod })
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) throw fail('team_member_not_found');
}

/** Removes a member; `team_member_not_found` when the user is not one. */
export async function removeMember(db: DbOrTx, teamId: number, userId: number): Promise<void> {
  const r = await db.deleteFrom('team_members').where('team_id', '=', teamId).where('user_id', '=', userId).executeTakeFirst();
  if (Number(r.numDeletedRows) !== 1) throw fail('team_member_not_found');
}

/** The user's role in a live team, or null when the user is not a member. */
export async function memberRole(db: DbOrTx, teamId: number, userId: number): Promise<TeamRole | null> {
  const r = await db
    .selectFrom('team_members as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .select('m.role')
    .where('m.team_id', '=', teamId)
    .where('m.user_id', '=', userId)
    .where('t.deleted_at', 'is', null)
    .executeTakeFirst();
  return r ? r.role : null;
}

/** The live teams a user belongs to, with the user's role in each, by name. */
export async function teamsOfUser(db: DbOrTx, userId: number): Promise<Array<{ team: Team; role: TeamRole }>> {
  const rows = await db
    .selectFrom('team_members as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .selectAll('t')
    .select('m.role as member_role')
    .where('m.user_id', '=', userId)
    .where('t.deleted_at', 'is', null)
    .orderBy('t.name')
    .execute();
  return rows.map((r) => ({ team: teamOf(r), role: r.member_role }));
}

/**
 * Invites an email address to a team with a role, valid for `ttlMs`. Returns the invitation's id and
 * its token — shown this once: only its SHA-256 is stored.
 */
export async function createInvitation(
  h: DbHandle,
  teamId: number,
  input: { email: string; role: TeamRole; createdBy: number | null; ttlMs: number },
): Promise<{ id: number; token: string; expires_at: number }> {
  const t = await h.db.selectFrom('teams').select('id').where('id', '=', teamId).where('deleted_at', 'is', null).executeTakeFirst();
  if (!t) throw fail('team_not_found', { id: teamId });
  const token = `ti_${randomToken(24)}`;
  const now = nowMs();
  const expires_at = now + input.ttlMs;
  const id = await insertId(h.db, h.dialect, 'team_invitations', {
    team_id: teamId,
    email: input.email,
    role: input.role,
    token_hash: sha256Hex(token),
    expires_at,
    created_by: input.createdBy,
    created_at: now,
  });
  return { id, token, expires_at };
}

/**
 * Accepts an invitation for `userId`: one guarded UPDATE claims it (not accepted, not revoked, not
 * expired), so a token is used once however many nodes race for it; then the user joins the team with
 * the invitation's role (a user already a member keeps the higher of the two roles). Refused with
 * `invalid_link` when the token is unknown, used, revoked or expired, or its team is gone.
 */
export async function acceptInvitation(h: DbHandle, token: string, userId: number): Promise<{ team_id: number; role: TeamRole }> {
  return withTx(h, async (tx) => {
    const now = nowMs();
    const hash = sha256Hex(token);
    const r = await tx
      .updateTable('team_invitations')
      .set({ accepted_at: now, accepted_by: userId })
      .where('token_hash', '=', hash)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) throw fail('invalid_link');
    const inv = await tx
      .selectFrom('team_invitations')
      .select(['team_id', 'role'])
      .where('token_hash', '=', hash)
      .executeTakeFirstOrThrow();
    const teamId = Number(inv.team_id);
    const live = await tx.selectFrom('teams').select('id').where('id', '=', teamId).where('deleted_at', 'is', null).executeTakeFirst();
    if (!live) throw fail('invalid_link');
    const cur = await tx
      .selectFrom('team_members')
      .select('role')
      .where('team_id', '=', teamId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!cur) {
      await tx
        .insertInto('team_members')
        .values({ team_id: teamId, user_id: userId, role: inv.role, budget_quota: null, budget_period: null, created_at: now })
        .execute();
      return { team_id: teamId, role: inv.role };
    }
    const role = TEAM_ROLES.indexOf(inv.role) < TEAM_ROLES.indexOf(cur.role) ? inv.role : cur.role;
    if (role !== cur.role)
      await tx.updateTable('team_members').set({ role }).where('team_id', '=', teamId).where('user_id', '=', userId).execute();
    return { team_id: teamId, role };
  });
}

/** A team's invitations, newest first (never their tokens). */
export async function listInvitations(db: DbOrTx, teamId: number): Promise<TeamInvitation[]> {
  const rows = await db
    .selectFrom('team_invitations')
    .select(['id', 'team_id', 'email', 'role', 'expires_at', 'accepted_at', 'accepted_by', 'revoked_at', 'created_by', 'created_at'])
    .where('team_id', '=', teamId)
    .orderBy('id', 'desc')
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id), team_id: Number(r.team_id) }));
}

/** Revokes an open invitation of a team; `not_found` when it is not the team's or no longer open. */
export async function revokeInvitation(db: DbOrTx, teamId: number, invitationId: number): Promise<void> {
  const r = await db
    .updateTable('team_invitations')
    .set({ revoked_at: nowMs() })
    .where('id', '=', invitationId)
    .where('team_id', '=', teamId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) throw fail('not_found');
}

/**
 * What became of the invitation with this token, to say why accepting it was refused: `expired`,
 * `used` (accepted or revoked) or `unknown`; `open` when it could still be accepted.
 */
export async function invitationState(db: DbOrTx, token: string): Promise<'open' | 'expired' | 'used' | 'unknown'> {
  const r = await db
    .selectFrom('team_invitations')
    .select(['expires_at', 'accepted_at', 'revoked_at'])
    .where('token_hash', '=', sha256Hex(token))
    .executeTakeFirst();
  if (!r) return 'unknown';
  if (r.accepted_at !== null || r.revoked_at !== null) return 'used';
  return Number(r.expires_at) <= nowMs() ? 'expired' : 'open';
}

export type { TeamMemberRow };
