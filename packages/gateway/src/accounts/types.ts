import type { BudgetSpec } from '../billing/budgets.ts';
import type { McpAllow } from './mcp-access.ts';

export type Role = 'user' | 'admin' | 'root';
export const ROLE_RANK: Record<Role, number> = { user: 1, admin: 10, root: 100 };

/** A logged-in person (session cookie or personal access token). */
export interface UserPrincipal {
  id: number;
  username: string;
  role: Role;
  group: string;
}

/** Rate limits of one scope (a key, a user, a model for a user); 0 = no limit of that kind. */
export interface RateLimits {
  /** Requests per minute. */
  rpm: number;
  /** Tokens (input + output) per minute. */
  tpm: number;
  /** Calls in flight at once (a stream until it ends). */
  maxConcurrency: number;
}

/** An authenticated API key, as the relay and task host see it. Built from the in-memory key cache. */
export interface KeyPrincipal {
  keyId: number;
  keyName: string;
  userId: number;
  username: string;
  userRole: Role;
  /** The key's group override, else the user's group. */
  group: string;
  unlimitedQuota: boolean;
  /** null = every model. */
  models: ReadonlySet<string> | null;
  /** The MCP tools the key may use (accounts/mcp-access.ts); null or absent: none. */
  mcpTools?: McpAllow | null;
  /** The key's default task callback URL (null or absent: none). */
  callbackUrl?: string | null;
  /** The key's own rate limits (accounts/rate-limits.ts); null = none. */
  keyLimits: RateLimits | null;
  /** The user's rate limits; null = none. */
  userLimits: RateLimits | null;
  /**
   * Period budgets of the key and of its user (billing/budgets.ts); for a key of a team, of the key, the
   * team (`t:<team id>`) and the member within the team (`m:<team id>:<user id>`); null = none.
   */
  budgets: readonly BudgetSpec[] | null;
  /** The team whose wallet pays for the key's calls (teams/store.ts); null or absent: the user's balance. */
  teamId?: number | null;
  /** The team's rate limits, counted over all its keys; null or absent: none. */
  teamLimits?: RateLimits | null;
}
