/** Tables of single sign-on (migrations 023, 027). */
import type { Generated } from 'kysely';

export interface SsoProviderRow {
  /** Slug used in URLs: /api/sso/{id}/start. */
  id: string;
  kind: 'oidc' | 'github';
  name: string;
  button_label: string;
  /** OpenID issuer (discovery), or GitHub's web address. */
  issuer: string;
  /** GitHub's REST API address; null for OpenID providers. */
  api_url: string | null;
  client_id: string;
  /** SecretBox-sealed client secret. */
  client_secret_sealed: string;
  /** Space-separated. */
  scopes: string;
  account_mode: 'link' | 'create';
  /** Group of accounts a first login creates. */
  default_group: string;
  allow_insecure: number;
  enabled: number;
  sort: number;
  /** Who last changed the provider (null: the configuration file) and that person's role then (027). */
  changed_by: number | null;
  changed_by_role: 'user' | 'admin' | 'root';
  created_at: number;
  updated_at: number;
}

export interface SsoIdentityRow {
  id: Generated<number>;
  provider_id: string;
  subject: string;
  user_id: number;
  email: string | null;
  email_verified: number;
  created_at: number;
  last_login_at: number;
}

export interface SsoTables {
  sso_providers: SsoProviderRow;
  sso_identities: SsoIdentityRow;
}
