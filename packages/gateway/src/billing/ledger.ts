/**
 * The quota ledger: the only code that moves money.
 *
 * Every movement is a ledger row unique per (ref, kind) written in the same transaction as the
 * balance change, and every balance change is a conditional UPDATE. So a movement that already
 * happened cannot happen again (the insert conflicts and the transaction rolls back), a balance never
 * goes below zero (the update matches no row), and retries, restarts and a second node are safe.
 *
 * Movements for one `ref` (a request id or a task id): `reserve` takes an estimate before the work,
 * then exactly one of `settle` (adjusts to the real cost) or `refund` (gives the reserve back).
 */
import { sql } from 'kysely';
import type { Core } from '../core.ts';
import { GatewayError } from '../platform/errors.ts';
import { isUniqueViolation, withTx, type Tx } from '../store/db.ts';

export interface Payer {
  userId: number;
  keyId: number | null;
  /** A key with an own cap also has it checked and reduced. */
  unlimitedKey: boolean;
}

export type Movement = 'reserve' | 'settle' | 'refund';

class AlreadyDone extends Error {}

export class Ledger {
  constructor(private readonly core: Core) {}

  /**
   * Takes `amount` from the user's balance (and the key's cap) for `ref`. Throws 429
   * `insufficient_quota` when either would go below zero; nothing is written then. Returns false when
   * this ref was already reserved (nothing moves twice).
   */
  async reserve(p: Payer, ref: string, amount: number): Promise<boolean> {
    const amt = toUnits(amount);
    return this.move(p, ref, 'reserve', amt, async (tx) => {
      await this.take(tx, p, amt, true);
    });
  }

  /**
   * Settles `ref` at `actual` after `reserved` was taken: the difference is taken or given back.
   * When more is due than the balance holds, what is there is taken and the shortfall is returned
   * (the balance stays ≥ 0). Returns null when the ref was already settled or refunded.
   */
  async settle(p: Payer, ref: string, reserved: number, actual: number): Promise<{ charged: number; shortfall: number } | null> {
    const res = toUnits(reserved);
    const act = toUnits(actual);
    let charged = act;
    let shortfall = 0;
    const ok = await this.moveExclusive(p, ref, 'settle', async (tx) => {
      const delta = act - res;
      let moved = delta;
      if (delta > 0) {
        const taken = await this.take(tx, p, delta, false);
        shortfall = delta - taken;
        charged = res + taken;
        moved = taken;
      } else if (delta < 0) {
        await this.give(tx, p, -delta);
      }
      await tx.updateTable('users')
        .set({ used_quota: sql`used_quota + ${charged}`, request_count: sql`request_count + 1` })
        .where('id', '=', p.userId).execute();
      if (p.keyId !== null) {
        await tx.updateTable('api_keys').set({ used_quota: sql`used_quota + ${charged}`, accessed_at: Date.now() }).where('id', '=', p.keyId).execute();
      }
      return moved;
    });
    return ok ? { charged, shortfall } : null;
  }

  /** Gives back what `ref` reserved. Returns false when the ref was already settled or refunded. */
  async refund(p: Payer, ref: string, reserved: number): Promise<boolean> {
    const amt = toUnits(reserved);
    return this.moveExclusive(p, ref, 'refund', async (tx) => {
      if (amt > 0) await this.give(tx, p, amt);
      return -amt;
    });
  }

  /** Adds (or with a negative amount removes, never below zero) quota by hand, once per ref. */
  async adjust(userId: number, ref: string, amount: number, kind: 'topup' | 'adjust' = 'topup'): Promise<boolean> {
    const amt = toUnits(amount);
    const p: Payer = { userId, keyId: null, unlimitedKey: true };
    return this.move(p, ref, kind, -amt, async (tx) => {
      if (amt >= 0) await this.give(tx, p, amt);
      else await this.take(tx, p, -amt, true);
    });
  }

  /** What has moved for `ref`, by kind. */
  async movements(ref: string): Promise<Record<string, number>> {
    const rows = await this.core.h.db.selectFrom('ledger').select(['kind', 'amount']).where('ref', '=', ref).execute();
    return Object.fromEntries(rows.map((r) => [r.kind, Number(r.amount)]));
  }

  private async move(p: Payer, ref: string, kind: string, amount: number, body: (tx: Tx) => Promise<void>): Promise<boolean> {
    try {
      await withTx(this.core.h, async (tx) => {
        try {
          await tx.insertInto('ledger').values({ user_id: p.userId, key_id: p.keyId, ref, kind, amount, created_at: Date.now() }).execute();
        } catch (e) {
          if (isUniqueViolation(e)) throw new AlreadyDone();
          throw e;
        }
        await body(tx);
      });
      return true;
    } catch (e) {
      if (e instanceof AlreadyDone) return false;
      throw e;
    }
  }

  /**
   * settle and refund close a ref: only one of them may ever happen. The ledger row of the closing
   * movement is written under the kind `close` (unique per ref) plus the movement itself.
   */
  private async moveExclusive(p: Payer, ref: string, kind: Movement, body: (tx: Tx) => Promise<number>): Promise<boolean> {
    try {
      await withTx(this.core.h, async (tx) => {
        try {
          await tx.insertInto('ledger').values({ user_id: p.userId, key_id: p.keyId, ref, kind: 'close', amount: 0, created_at: Date.now() }).execute();
        } catch (e) {
          if (isUniqueViolation(e)) throw new AlreadyDone();
          throw e;
        }
        const moved = await body(tx);
        await tx.insertInto('ledger').values({ user_id: p.userId, key_id: p.keyId, ref, kind, amount: moved, created_at: Date.now() }).execute();
      });
      return true;
    } catch (e) {
      if (e instanceof AlreadyDone) return false;
      throw e;
    }
  }

  /**
   * Takes `amt` from the user and the key's cap. `strict`: all or nothing (throws 429). Not strict:
   * takes as much as both allow and returns how much.
   */
  private async take(tx: Tx, p: Payer, amt: number, strict: boolean): Promise<number> {
    if (amt <= 0) return 0;
    let n = amt;
    if (!strict) {
      const u = await this.lockRow(tx, 'users', p.userId, 'quota');
      n = Math.min(n, Math.max(0, u));
      if (p.keyId !== null && !p.unlimitedKey) {
        const k = await this.lockRow(tx, 'api_keys', p.keyId, 'remain_quota');
        n = Math.min(n, Math.max(0, k));
      }
      if (n === 0) return 0;
    }
    const u = await tx.updateTable('users').set({ quota: sql`quota - ${n}` }).where('id', '=', p.userId).where('quota', '>=', n).executeTakeFirst();
    if (Number(u.numUpdatedRows) !== 1) {
      throw new GatewayError(429, 'insufficient_quota', 'quota exhausted: the account balance is too low for this request');
    }
    if (p.keyId !== null && !p.unlimitedKey) {
      const k = await tx.updateTable('api_keys').set({ remain_quota: sql`remain_quota - ${n}` }).where('id', '=', p.keyId).where('remain_quota', '>=', n).executeTakeFirst();
      if (Number(k.numUpdatedRows) !== 1) {
        throw new GatewayError(429, 'insufficient_quota', 'quota exhausted: this API key has used up its quota');
      }
    }
    return n;
  }

  private async give(tx: Tx, p: Payer, amt: number): Promise<void> {
    await tx.updateTable('users').set({ quota: sql`quota + ${amt}` }).where('id', '=', p.userId).execute();
    if (p.keyId !== null && !p.unlimitedKey) {
      await tx.updateTable('api_keys').set({ remain_quota: sql`remain_quota + ${amt}` }).where('id', '=', p.keyId).execute();
    }
  }

  private async lockRow(tx: Tx, table: 'users' | 'api_keys', id: number, col: 'quota' | 'remain_quota'): Promise<number> {
    let q = (tx.selectFrom(table) as any).select(col).where('id', '=', id);
    if (this.core.h.dialect !== 'sqlite') q = q.forUpdate();
    const row = await q.executeTakeFirst();
    return row ? Number(row[col]) : 0;
  }
}

function toUnits(n: number): number {
  if (!Number.isFinite(n)) throw new Error(`invalid quota amount ${n}`);
  return Math.round(n);
}
