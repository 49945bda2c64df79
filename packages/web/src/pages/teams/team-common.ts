/** What the team pages share: the caller's standing in a team and what it lets them do (as teams/access.ts rules). */
import type { Schemas } from '../../api/client';

export type Team = Schemas['Team'];
export type Standing = NonNullable<Team['my_role']>;
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type TeamRole = (typeof ROLES)[number];

/** Owners, admins and operators manage members, invitations and every key of the team. */
export const manages = (s: Standing | undefined): boolean => s === 'operator' || s === 'owner' || s === 'admin';
/** Everyone but a viewer has keys of the team. */
export const hasKeys = (s: Standing | undefined): boolean => s !== undefined && s !== 'viewer';
