import { bigint, str, text, withId, type MigrationCtx } from './util.ts';

/**
 * Single sign-on.
 *
 * `sso_providers`: one row per sign-in provider, `id` a short slug used in URLs
 * (`/api/sso/{id}/start`). `kind` is `oidc` (OpenID Connect discovery at `issuer`) or `github`
 * (GitHub OAuth; `issuer` is the web address, `api_url` the REST API). The client secret is sealed
 * with the SecretBox (`client_secret_sealed`) and never returned. `account_mode` says what a first
 * login does: `link` (to the account already holding the same verified e-mail, else a new account)
 * or `create` (always a new account). `allow_insecure` permits an http:// issuer.
 *
 * `sso_identities`: which account a provider's subject signs in to, with the e-mail the provider
 * last reported and whether it said the address was verified (linking looks only at verified ones).
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await db.schema
    .createTable('sso_providers')
    .addColumn('id', str(64), (c) => c.primaryKey())
    .addColumn('kind', str(16), (c) => c.notNull())
    .addColumn('name', str(128), (c) => c.notNull())
    .addColumn('button_label', str(128), (c) => c.notNull())
    .addColumn('issuer', str(1000), (c) => c.notNull())
    .addColumn('api_url', str(1000))
    .addColumn('client_id', str(500), (c) => c.notNull())
    .addColumn('client_secret_sealed', text(d), (c) => c.notNull())
    .addColumn('scopes', str(1000), (c) => c.notNull())
    .addColumn('account_mode', str(16), (c) => c.notNull())
    .addColumn('default_group', str(64), (c) => c.notNull())
    .addColumn('allow_insecure', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('sort', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addColumn('updated_at', bigint(d), (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('sso_identities'), d)
    .addColumn('provider_id', str(64), (c) => c.notNull())
    .addColumn('subject', str(191), (c) => c.notNull())
    .addColumn('user_id', bigint(d), (c) => c.notNull())
    .addColumn('email', str(254))
    .addColumn('email_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addColumn('last_login_at', bigint(d), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sso_identities_subject').on('sso_identities').columns(['provider_id', 'subject']).unique().execute();
  await db.schema.createIndex('sso_identities_user').on('sso_identities').column('user_id').execute();
  await db.schema.createIndex('sso_identities_email').on('sso_identities').columns(['email', 'email_verified']).execute();
}
