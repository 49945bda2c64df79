/**
 * Who may do what in a team: the rule every team route is held to (admin/teams.ts, admin/team-activity.ts).
 * Operators (gateway admins and root) reach every team as `operator`. Anyone else reaches only the teams
 * they belong to, with their role there; a team they do not belong to answers `team_not_found` (404),
 * exactly as a team that does not exist, so team ids do not leak. A member whose role is too low for an
 * action gets `forbidden` (403).
 *
 * | action | owner | admin | member | viewer |
 * |---|---|---|---|---|
 * | read the team, its usage, its plan | yes | yes | yes | yes |
 * | list members | yes | yes | yes | no |
 * | manage members, roles, budgets, invitations, every team key | yes | yes | no | no |
 * | grant or remove the owner role | yes | no | no | no |
 * | own team keys (create, list, revoke their own) | yes | yes | yes | no |
 * | team logs and CSV export | all rows | all rows | their own rows | no |
 * | top up the wallet | if the operator allows | if the operator allows | no | no |
 * | buy or renew the team's plan (paid from the wallet; `manage`) | yes | yes | no | no |
 */
import { ROLE_RANK, type UserPrincipal } from '../accounts/types.ts';
import { fail } from '../platform/errors.ts';
import type { DbOrTx } from '../store/db.ts';
import { getTeam, memberRole, type Team, type TeamRole } from './store.ts';

/** A caller's standing in a team: their role, or `operator` for gateway admins. */
export type TeamStanding = TeamRole | 'operator';

export type TeamAction =
  'read' | 'usage' | 'members.list' | 'manage' | 'owner' | 'keys.own' | 'keys.all' | 'logs.own' | 'logs.all' | 'topup';

const RULES: Record<TeamAction, readonly TeamStanding[]> = {
  read: ['operator', 'owner', 'admin', 'member', 'viewer'],
  usage: ['operator', 'owner', 'admin', 'member', 'viewer'],
  'members.list': ['operator', 'owner', 'admin', 'member'],
  manage: ['operator', 'owner', 'admin'],
  owner: ['operator', 'owner'],
  'keys.own': ['operator', 'owner', 'admin', 'member'],
  'keys.all': ['operator', 'owner', 'admin'],
  'logs.own': ['operator', 'owner', 'admin', 'member'],
  'logs.all': ['operator', 'owner', 'admin'],
  // Owners and admins only with the team's `allow_admin_topup` setting (teamAccess checks it).
  topup: ['operator', 'owner', 'admin'],
};

/** True when a gateway account is an operator (admin or root). */
export const isOperator = (u: Pick<UserPrincipal, 'role'>) => ROLE_RANK[u.role] >= ROLE_RANK.admin;

/** Whether a standing allows an action (the top-up's operator setting aside). */
export function may(standing: TeamStanding, action: TeamAction, team?: Pick<Team, 'settings'>): boolean {
  if (!RULES[action].includes(standing)) return false;
  if (action === 'topup' && standing !== 'operator') return team?.settings.allow_admin_topup === true;
  return true;
}

/**
 * The team and the caller's standing in it, if the caller may take `action`: `team_not_found` when the
 * team does not exist or the caller is not a member (operators aside), `forbidden` when the role is too low.
 */
export async function teamAccess(
  db: DbOrTx,
  teamId: number,
  user: UserPrincipal,
  action: TeamAction,
): Promise<{ team: Team; standing: TeamStanding }> {
  const standing: TeamStanding | null = isOperator(user) ? 'operator' : await memberRole(db, teamId, user.id);
  const team = standing ? await getTeam(db, teamId) : null;
  if (!standing || !team) throw fail('team_not_found', { id: teamId });
  if (!may(standing, action, team)) {
    const why =
      action === 'topup' && RULES.topup.includes(standing)
        ? 'the operator has not allowed team owners and admins to top up this team'
        : `your role in this team (${standing}) does not allow this`;
    throw fail('forbidden', why);
  }
  return { team, standing };
}
