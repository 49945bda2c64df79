/**
 * The API key store: every SQL statement on the `api_keys` table is a named method here, save its
 * balance columns (`remain_quota`, `used_quota`, `accessed_at` of a settlement), which billing's ledger
 * (`billing/ledger.ts`) moves. The key cache, key administration, task callbacks and the usage reports
 * call these methods; methods that run inside a caller's transaction take its handle.
 */
import type { DbHandle, DbOrTx } from '../store/db.ts';

export class KeyStore {
  constructor(private readonly h: DbHandle) {}

  private get db(): DbOrTx {
    return this.h.db;
  }

  /** Key names by id (ids without a key are left out). */
  names(ids: readonly number[]): Promise<Array<{ id: number; name: string }>> {
    return this.db
      .selectFrom('api_keys')
      .select(['id', 'name'])
      .where('id', 'in', ids as number[])
      .execute();
  }
}
