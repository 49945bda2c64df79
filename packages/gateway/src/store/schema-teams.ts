/** The tables of teams and their delegated wallets (teams/store.ts, migration 035). */
import type { Generated } from 'kysely';

export type TeamRole = 'owner' | 'admin' | 'member' | 'viewer';

export interface TeamRow {
  id: Generated<number>;
  /** Unique among teams (a deleted team's name is freed by a suffix). */
  name: string;
  /** The team's wallet in quota units: a payer in the ledger like `users.quota`. */
  quota: Generated<number>;
  used_quota: Generated<number>;
  request_count: Generated<number>;
  /** JSON string[] of the models the team's keys may call; null = every model. */
  models: string | null;
  /** The group the team's keys call in (prices, channels); null = the key's or member's. */
  group_name: string | null;
  /** Requests and tokens per minute and calls at once over all the team's keys; 0 = no limit. */
  rpm: Generated<number>;
  tpm: Generated<number>;
  max_concurrency: Generated<number>;
  /** What the team may spend per `budget_period` (day | week | month), in quota units; null = none. */
  budget_quota: number | null;
  budget_period: string | null;
  /** JSON object: `allow_admin_topup`, `share_bodies` (teams/store.ts `TeamSettings`). */
  settings: string | null;
  created_at: number;
  updated_at: number;
  /** Unix ms when the team was deleted; null = live. */
  deleted_at: number | null;
}

export interface TeamMemberRow {
  id: Generated<number>;
  team_id: number;
  user_id: number;
  role: TeamRole;
  /** The member's delegated wallet: at most this much of the team's money per `budget_period`; null = no cap. */
  budget_quota: number | null;
  budget_period: string | null;
  created_at: number;
}

export interface TeamInvitationRow {
  id: Generated<number>;
  team_id: number;
  email: string;
  role: TeamRole;
  /** SHA-256 hex of the invitation token (the token itself is shown once). */
  token_hash: string;
  expires_at: number;
  accepted_at: number | null;
  accepted_by: number | null;
  revoked_at: number | null;
  created_by: number | null;
  created_at: number;
}

export interface TeamTables {
  teams: TeamRow;
  team_members: TeamMemberRow;
  team_invitations: TeamInvitationRow;
}
