/** Tables of self-service sign-up and e-mail links (migration 022). */

export interface UserEmailRow {
  user_id: number;
  /** Lower case; unique. */
  email: string;
  /** null: not verified yet. */
  verified_at: number | null;
  /** Starting balance (quota units) to credit when the address is verified; 0: none or credited. */
  pending_bonus: number;
  updated_at: number;
}

export interface EmailTokenRow {
  /** SHA-256 (hex) of the token in the link; the token itself is never stored. */
  token_hash: string;
  user_id: number;
  purpose: 'verify' | 'reset';
  /** The address the link was sent to. */
  email: string;
  expires_at: number;
  /** Set when the link was used; a used link is refused. */
  used_at: number | null;
  created_at: number;
}

export interface SignupTables {
  user_emails: UserEmailRow;
  email_tokens: EmailTokenRow;
}
