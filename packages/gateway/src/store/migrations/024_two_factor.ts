import { bigint, str, text, withId, type MigrationCtx } from './util.ts';

/**
 * Second factors of console logins (docs/two-factor.md).
 *
 * `user_totp`: a user's authenticator-app secret, sealed with the SecretBox like channel keys;
 * `enabled` 0 while the enrolment waits for its first code; `last_time_step` the RFC 6238 step of
 * the last accepted code, so a code is accepted once.
 *
 * `user_recovery_codes`: one-time recovery codes, stored as keyed hashes; `used_at` set when spent.
 *
 * `user_passkeys`: WebAuthn credentials: the credential id (base64url), its public key (COSE,
 * base64url), the signature counter and transports, a name the user gave it.
 *
 * `auth_challenges`: short-lived state of logins in progress: a pending login waiting for its
 * second factor (`login_2fa`, keyed by the hash of the token in its cookie) and WebAuthn challenges
 * (keyed by the hash of the challenge), each used once.
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await db.schema
    .createTable('user_totp')
    .addColumn('user_id', bigint(d), (c) => c.primaryKey())
    .addColumn('secret_sealed', text(d), (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_time_step', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addColumn('updated_at', bigint(d), (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('user_recovery_codes'), d)
    .addColumn('user_id', bigint(d), (c) => c.notNull())
    .addColumn('code_hash', str(64), (c) => c.notNull())
    .addColumn('used_at', bigint(d))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_recovery_codes_user').on('user_recovery_codes').columns(['user_id', 'code_hash']).execute();

  await withId(db.schema.createTable('user_passkeys'), d)
    .addColumn('user_id', bigint(d), (c) => c.notNull())
    .addColumn('credential_id', str(191), (c) => c.notNull().unique())
    .addColumn('public_key', text(d), (c) => c.notNull())
    .addColumn('counter', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('transports', str(200), (c) => c.notNull().defaultTo(''))
    .addColumn('name', str(64), (c) => c.notNull())
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addColumn('last_used_at', bigint(d))
    .execute();
  await db.schema.createIndex('user_passkeys_user').on('user_passkeys').column('user_id').execute();

  await db.schema
    .createTable('auth_challenges')
    .addColumn('id_hash', str(64), (c) => c.primaryKey())
    .addColumn('purpose', str(32), (c) => c.notNull())
    .addColumn('user_id', bigint(d))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', bigint(d), (c) => c.notNull())
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('auth_challenges_expires').on('auth_challenges').column('expires_at').execute();
}
