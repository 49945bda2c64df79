/** Tables of second factors and logins in progress (migration 024, docs/two-factor.md). */
import type { Generated } from 'kysely';

export interface UserTotpRow {
  user_id: number;
  /** The base32 secret, sealed with the SecretBox. */
  secret_sealed: string;
  /** 0 while the enrolment waits for its first code. */
  enabled: number;
  /** RFC 6238 time step of the last accepted code: older or equal steps are refused. */
  last_time_step: number;
  created_at: number;
  updated_at: number;
}

export interface UserRecoveryCodeRow {
  id: Generated<number>;
  user_id: number;
  /** HMAC-SHA256 of the code (hex). */
  code_hash: string;
  used_at: number | null;
  created_at: number;
}

export interface UserPasskeyRow {
  id: Generated<number>;
  user_id: number;
  /** base64url. */
  credential_id: string;
  /** COSE public key, base64url. */
  public_key: string;
  counter: number;
  /** Comma-separated WebAuthn transports. */
  transports: string;
  name: string;
  created_at: number;
  last_used_at: number | null;
}

export interface AuthChallengeRow {
  /** sha256 hex of the pending-login token or of the WebAuthn challenge. */
  id_hash: string;
  /** `login_2fa`, `passkey_register`, `passkey_login` or `passkey_2fa`. */
  purpose: string;
  user_id: number | null;
  /** Wrong codes sent for a pending login. */
  attempts: number;
  expires_at: number;
  created_at: number;
}

export interface TwoFactorTables {
  user_totp: UserTotpRow;
  user_recovery_codes: UserRecoveryCodeRow;
  user_passkeys: UserPasskeyRow;
  auth_challenges: AuthChallengeRow;
}
