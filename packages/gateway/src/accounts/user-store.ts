/**
 * The account store: every SQL statement on the `users`, `sessions`, `user_emails` and `email_tokens`
 * tables is a named method here, save one set of columns: a user's balance and usage counters
 * (`quota`, `used_quota`, `request_count`) belong to billing, whose ledger (`billing/ledger.ts`) is the
 * only code that changes them and reads them for its movements and credits. This store reads them
 * with the rest of a row and never writes them after the insert that starts them at zero (or, for an
 * account made by `Users.create`, at its starting balance). Accounts, sign-up, single sign-on,
 * administration, alerts and the usage reports call these methods; methods that run inside a
 * caller's transaction take its handle.
 */
import type { Insertable, Selectable, Updateable } from 'kysely';
import { insertId, type DbHandle, type DbOrTx } from '../store/db.ts';
import type { SessionRow, UserRow } from '../store/schema-core.ts';
import type { EmailTokenRow, UserEmailRow } from '../store/schema-signup.ts';

/** Filters of the administrators' user list. */
export interface UserFilter {
  keyword?: string;
  role?: string;
  /** 1 enabled, 2 disabled; -1 matches none. */
  status?: number;
  group?: string;
}

export class UserStore {
  constructor(private readonly h: DbHandle) {}

  private get db(): DbOrTx {
    return this.h.db;
  }

  // ---- users ----

  /** Inserts a user and returns its id (a taken name throws the unique violation). */
  insert(values: Insertable<UserRow>, db: DbOrTx = this.db): Promise<number> {
    return insertId(db, this.h.dialect, 'users', values as Record<string, unknown>);
  }

  byId(id: number): Promise<Selectable<UserRow> | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  byName(username: string): Promise<Selectable<UserRow> | undefined> {
    return this.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
  }

  /** The id of the user with this name, if any. */
  async idByName(username: string): Promise<number | null> {
    const r = await this.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirst();
    return r ? Number(r.id) : null;
  }

  /** The user whose personal access token has this hash. */
  byAccessToken(tokenHash: string): Promise<Selectable<UserRow> | undefined> {
    return this.db.selectFrom('users').selectAll().where('access_token_hash', '=', tokenHash).executeTakeFirst();
  }

  /** Whether a root account exists. */
  async hasRoot(): Promise<boolean> {
    return !!(await this.db.selectFrom('users').select('id').where('role', '=', 'root').executeTakeFirst());
  }

  /** Whether an enabled root account other than `id` exists. */
  async hasAnotherEnabledRoot(id: number): Promise<boolean> {
    const other = await this.db
      .selectFrom('users')
      .select('id')
      .where('role', '=', 'root')
      .where('status', '=', 1)
      .where('id', '!=', id)
      .executeTakeFirst();
    return !!other;
  }

  /** The enabled users with a rate limit, a concurrency cap or a budget of their own (the key cache). */
  limitedUsers() {
    return this.db
      .selectFrom('users')
      .select(['id', 'rpm', 'tpm', 'max_concurrency', 'budget_quota', 'budget_period'])
      .where('status', '=', 1)
      .where((eb) => eb.or([eb('rpm', '>', 0), eb('tpm', '>', 0), eb('max_concurrency', '>', 0), eb('budget_period', 'is not', null)]))
      .execute();
  }

  /** One page of the administrators' list (by id) and the filtered count. */
  async page(f: UserFilter, limit: number, offset: number): Promise<{ rows: Selectable<UserRow>[]; total: number }> {
    let base = this.db.selectFrom('users');
    if (f.keyword) {
      const like = `%${f.keyword.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
      base = base.where((eb) => eb.or([eb('username', 'like', like), eb('display_name', 'like', like)]));
    }
    if (f.role) base = base.where('role', '=', f.role as UserRow['role']);
    if (f.status !== undefined) base = base.where('status', '=', f.status);
    if (f.group) base = base.where('group_name', '=', f.group);
    const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows = await base.selectAll().orderBy('id', 'asc').limit(limit).offset(offset).execute();
    return { rows, total: Number(total.n) };
  }

  /** Usernames by id (ids without a user are left out). */
  names(ids: readonly number[]): Promise<Array<{ id: number; name: string }>> {
    return this.db
      .selectFrom('users')
      .select(['id', 'username as name'])
      .where('id', 'in', ids as number[])
      .execute();
  }

  /** Sets columns of one user (never the balance columns: billing's ledger moves those). */
  async update(id: number, set: Updateable<UserRow>, db: DbOrTx = this.db): Promise<void> {
    await db.updateTable('users').set(set).where('id', '=', id).execute();
  }

  async remove(id: number, tx: DbOrTx): Promise<void> {
    await tx.deleteFrom('users').where('id', '=', id).execute();
  }

  // ---- sessions (console cookies and command-line bearer tokens, stored hashed) ----

  async insertSession(values: Insertable<SessionRow>): Promise<void> {
    await this.db.insertInto('sessions').values(values).execute();
  }

  sessionByHash(idHash: string) {
    return this.db.selectFrom('sessions').select(['user_id', 'expires_at', 'created_at']).where('id_hash', '=', idHash).executeTakeFirst();
  }

  async removeSession(idHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
  }

  /** Ends every session of a user but the one with hash `keepHash`, if given. */
  async removeSessionsOf(userId: number, db: DbOrTx = this.db, keepHash?: string): Promise<void> {
    let del = db.deleteFrom('sessions').where('user_id', '=', userId);
    if (keepHash) del = del.where('id_hash', '!=', keepHash);
    await del.execute();
  }

  async purgeExpiredSessions(now: number): Promise<void> {
    await this.db.deleteFrom('sessions').where('expires_at', '<', now).execute();
  }

  // ---- e-mail addresses ----

  async insertEmail(values: Insertable<UserEmailRow>, db: DbOrTx = this.db): Promise<void> {
    await db.insertInto('user_emails').values(values).execute();
  }

  emailOf(userId: number, db: DbOrTx = this.db): Promise<Selectable<UserEmailRow> | undefined> {
    return db.selectFrom('user_emails').selectAll().where('user_id', '=', userId).executeTakeFirst();
  }

  /** The user and status of the account with this address (verified or not). */
  emailOwner(email: string) {
    return this.db
      .selectFrom('user_emails')
      .innerJoin('users', 'users.id', 'user_emails.user_id')
      .select(['user_emails.user_id', 'users.status'])
      .where('user_emails.email', '=', email)
      .executeTakeFirst();
  }

  /** The user whose verified address this is (lower case), or null. */
  async verifiedEmailOwner(email: string): Promise<number | null> {
    const r = await this.db
      .selectFrom('user_emails')
      .select('user_id')
      .where('email', '=', email)
      .where('verified_at', 'is not', null)
      .executeTakeFirst();
    return r ? Number(r.user_id) : null;
  }

  /** Sets columns of a user's address row. */
  async updateEmail(userId: number, set: Updateable<UserEmailRow>): Promise<void> {
    await this.db.updateTable('user_emails').set(set).where('user_id', '=', userId).execute();
  }

  /** Marks the address verified if it is still `email`; returns whether it was. */
  async verifyEmail(userId: number, email: string, now: number, db: DbOrTx = this.db): Promise<boolean> {
    const res = await db
      .updateTable('user_emails')
      .set({ verified_at: now, updated_at: now })
      .where('user_id', '=', userId)
      .where('email', '=', email)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Takes the starting balance waiting on a user's address (sets it to 0 if it still is `amount`); returns whether this call took it. */
  async takePendingBonus(userId: number, amount: number, tx: DbOrTx): Promise<boolean> {
    const res = await tx
      .updateTable('user_emails')
      .set({ pending_bonus: 0 })
      .where('user_id', '=', userId)
      .where('pending_bonus', '=', amount)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** A followed reset link proves the mailbox: the address is verified unless a starting balance still waits on it. */
  async verifyEmailByReset(userId: number, email: string, now: number, tx: DbOrTx): Promise<void> {
    await tx
      .updateTable('user_emails')
      .set({ verified_at: now, updated_at: now })
      .where('user_id', '=', userId)
      .where('email', '=', email)
      .where('verified_at', 'is', null)
      .where('pending_bonus', '=', 0)
      .execute();
  }

  async removeEmailOf(userId: number, tx: DbOrTx): Promise<void> {
    await tx.deleteFrom('user_emails').where('user_id', '=', userId).execute();
  }

  // ---- mailed links (one-time tokens, stored as SHA-256) ----

  async insertToken(values: Insertable<EmailTokenRow>): Promise<void> {
    await this.db.insertInto('email_tokens').values(values).execute();
  }

  /** Marks the link used if it is unused and unexpired, in the one statement that checks it; returns whether it was. */
  async claimToken(tokenHash: string, purpose: string, now: number, db: DbOrTx = this.db): Promise<boolean> {
    const res = await db
      .updateTable('email_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('purpose', '=', purpose as EmailTokenRow['purpose'])
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** The user and address of a link (throws when there is none). */
  tokenByHash(tokenHash: string, db: DbOrTx = this.db) {
    return db.selectFrom('email_tokens').select(['user_id', 'email']).where('token_hash', '=', tokenHash).executeTakeFirstOrThrow();
  }

  /** Marks every unused reset link of a user used. */
  async retireResetTokens(userId: number, now: number, tx: DbOrTx): Promise<void> {
    await tx
      .updateTable('email_tokens')
      .set({ used_at: now })
      .where('user_id', '=', userId)
      .where('purpose', '=', 'reset')
      .where('used_at', 'is', null)
      .execute();
  }

  /** Deletes links that expired before `before`. */
  async purgeTokens(before: number): Promise<void> {
    await this.db.deleteFrom('email_tokens').where('expires_at', '<', before).execute();
  }

  async removeTokensOf(userId: number, tx: DbOrTx): Promise<void> {
    await tx.deleteFrom('email_tokens').where('user_id', '=', userId).execute();
  }
}
