export type Role = 'user' | 'admin' | 'root';
export const ROLE_RANK: Record<Role, number> = { user: 1, admin: 10, root: 100 };

/** A logged-in person (session cookie or personal access token). */
export interface UserPrincipal {
  id: number;
  username: string;
  role: Role;
  group: string;
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
  /** The key's default task callback URL (null or absent: none). */
  callbackUrl?: string | null;
}
