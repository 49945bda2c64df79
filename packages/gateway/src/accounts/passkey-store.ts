/**
 * The passkey store: every SQL statement on the `user_passkeys` table is a named method here. Passkey
 * registration and assertions, the second-factor status, its reset and the deletion of a user call
 * these methods; methods that run inside a caller's transaction take its handle.
 */
import type { Insertable, Selectable } from 'kysely';
import type { DbHandle, DbOrTx } from '../store/db.ts';
import type { UserPasskeyRow } from '../store/schema-two-factor.ts';

export class PasskeyStore {
  constructor(private readonly h: DbHandle) {}

  private get db() {
    return this.h.db;
  }

  /** A user's passkeys as listed to them (oldest first). */
  listOf(userId: number) {
    return this.db
      .selectFrom('user_passkeys')
      .select(['id', 'name', 'created_at', 'last_used_at'])
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
  }

  /** A user's credential ids and transports (excluded from a new registration, allowed in an assertion). */
  credentialsOf(userId: number) {
    return this.db.selectFrom('user_passkeys').select(['credential_id', 'transports']).where('user_id', '=', userId).execute();
  }

  /** How many passkeys a user has. */
  async countOf(userId: number): Promise<number> {
    const r = await this.db
      .selectFrom('user_passkeys')
      .select((e) => e.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  byCredential(credentialId: string): Promise<Selectable<UserPasskeyRow> | undefined> {
    return this.db.selectFrom('user_passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
  }

  async insert(values: Insertable<UserPasskeyRow>): Promise<void> {
    await this.db.insertInto('user_passkeys').values(values).execute();
  }

  /** Records a verified assertion: the authenticator's counter and the time. */
  async used(id: number, counter: number, at: number): Promise<void> {
    await this.db.updateTable('user_passkeys').set({ counter, last_used_at: at }).where('id', '=', id).execute();
  }

  /** Deletes one passkey of a user; returns whether it existed. */
  async remove(userId: number, id: number): Promise<boolean> {
    const d = await this.db.deleteFrom('user_passkeys').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    return Number(d.numDeletedRows) === 1;
  }

  /** Deletes every passkey of a user (inside the caller's transaction). */
  async removeOfUser(userId: number, tx: DbOrTx): Promise<void> {
    await tx.deleteFrom('user_passkeys').where('user_id', '=', userId).execute();
  }
}
