/**
 * The account store: every SQL statement on the `users`, `sessions`, `user_emails`, `email_tokens`
 * and `user_passkeys` tables is a named method here, save one set of columns: a user's balance and
 * usage counters (`quota`, `used_quota`, `request_count`) belong to billing, whose ledger
 * (`billing/ledger.ts`) is the only code that moves them and reads them for a movement. Accounts,
 * sign-up, single sign-on, passkeys, administration, alerts and the usage reports call these methods;
 * methods that run inside a caller's transaction take its handle.
 */
import type { DbHandle, DbOrTx } from '../store/db.ts';

export class UserStore {
  constructor(private readonly h: DbHandle) {}

  private get db(): DbOrTx {
    return this.h.db;
  }

  /** Usernames by id (ids without a user are left out). */
  names(ids: readonly number[]): Promise<Array<{ id: number; name: string }>> {
    return this.db
      .selectFrom('users')
      .select(['id', 'username as name'])
      .where('id', 'in', ids as number[])
      .execute();
  }
}
