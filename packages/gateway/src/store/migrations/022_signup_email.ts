import { bigint, str, type MigrationCtx } from './util.ts';

/**
 * Self-service sign-up and e-mail (accounts/signup.ts).
 *
 * `user_emails`: a user's e-mail address (lower case, unique), when it was verified (null: not yet)
 * and `pending_bonus`: the starting balance of a self-registered user still to be credited when the
 * address is verified (0: none, or credited).
 *
 * `email_tokens`: the links mailed for verifying an address (`purpose` `verify`) and resetting a
 * password (`reset`). Only the SHA-256 of a token is stored; a token is used once (`used_at`) and
 * not after `expires_at`. `email` is the address the link was sent to.
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await db.schema
    .createTable('user_emails')
    .addColumn('user_id', bigint(d), (c) => c.primaryKey())
    .addColumn('email', str(254), (c) => c.notNull())
    .addColumn('verified_at', bigint(d))
    .addColumn('pending_bonus', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', bigint(d), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_emails_email').on('user_emails').column('email').unique().execute();

  await db.schema
    .createTable('email_tokens')
    .addColumn('token_hash', str(64), (c) => c.primaryKey())
    .addColumn('user_id', bigint(d), (c) => c.notNull())
    .addColumn('purpose', str(16), (c) => c.notNull())
    .addColumn('email', str(254), (c) => c.notNull())
    .addColumn('expires_at', bigint(d), (c) => c.notNull())
    .addColumn('used_at', bigint(d))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('email_tokens_user').on('email_tokens').columns(['user_id', 'purpose']).execute();
  await db.schema.createIndex('email_tokens_expires').on('email_tokens').column('expires_at').execute();
}
