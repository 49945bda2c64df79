/**
 * Key ceilings: a key's lifetime spending ceiling (`max_spend_usd`) is its capped quota — what it has
 * spent (`used_quota`) plus what it may still spend (`remain_quota`), which the ledger reserves from
 * like any capped key. A child key's ceiling is carved out of its parent's remaining ceiling in the
 * transaction that creates the child, with a conditional update: concurrent children of one parent
 * (on any node) never sum past the parent's ceiling.
 */
import { sql, withTx, type DbHandle, type Tx } from '../store/db.ts';
import { fail } from '../platform/errors.ts';

/** The lifetime ceiling in quota units (null: the key has none). */
export function ceilingOf(r: { unlimited_quota: unknown; remain_quota: unknown; used_quota: unknown }): number | null {
  if (Number(r.unlimited_quota) === 1) return null;
  return Number(r.remain_quota) + Number(r.used_quota);
}

/** The remaining quota a key keeps when its ceiling becomes `ceiling` after spending `used`. */
export const remainUnder = (ceiling: number, used: number): number => Math.max(0, ceiling - used);

/**
 * Takes `amount` quota units from the parent's remaining ceiling (a parent without a ceiling gives
 * without taking) and runs `insert` in the same transaction; refused with `insufficient_quota` when the
 * parent has less left. Returns what `insert` returns.
 */
export async function carveChild<T>(h: DbHandle, parentId: number, amount: number, insert: (tx: Tx) => Promise<T>): Promise<T> {
  if (!Number.isSafeInteger(amount) || amount < 1) throw fail('invalid_request', 'a child key needs a ceiling above zero');
  return withTx(h, async (tx) => {
    const p = await tx.selectFrom('api_keys').select(['unlimited_quota']).where('id', '=', parentId).executeTakeFirst();
    if (!p) throw fail('key_not_found');
    if (Number(p.unlimited_quota) !== 1) {
      const r = await tx
        .updateTable('api_keys')
        .set({ remain_quota: sql<number>`remain_quota - ${amount}` })
        .where('id', '=', parentId)
        .where('unlimited_quota', '=', 0)
        .where('remain_quota', '>=', amount)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1)
        throw fail('insufficient_quota', "the child key's ceiling is more than the parent key has left of its own");
    }
    return insert(tx);
  });
}
