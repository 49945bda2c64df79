/**
 * What this node last knew of balances (billing/ledger.ts): the user's balance and a capped key's
 * remainder, read inside a reserve's own transaction when unknown or older than `READ_EVERY_MS`, and
 * otherwise kept by the movements this node commits (reserves, extensions, settles, refunds), less the
 * reserves it has asked for and not yet committed. A hint, never money: the relay starts a call's
 * upstream request together with its reserve only when the hint covers the reserve with a clear margin
 * (relay/pipeline/index.ts), and the reserve's conditional UPDATE still decides. Payers on a team's
 * wallet, a plan or period budgets are not kept (their reserves take more than the balance), and
 * nothing is kept on PostgreSQL and MySQL (see the constructor).
 */
import { capped, op, type Ops } from './ledger-statements.ts';
import type { Payer } from './budgets.ts';

/** How often a payer's reserve reads the balances again (other nodes, top-ups, an admin's edits). */
export const READ_EVERY_MS = 1000;
/** A hint older than this (an idle payer) is not used. */
const USABLE_MS = 30_000;

interface Known {
  /** The balance after the last movement this node committed. */
  value: number;
  /** Reserves asked for and not yet committed. */
  pending: number;
  /** When `value` was last read from the database (0: never). */
  readAt: number;
}

/** The balances a reserve read in its transaction, after its take. */
export interface ReadBalances {
  user: number;
  key: number | null;
}

/** A reserve's statements, then the user's balance and the capped key's remainder (read under its lock). */
export function* readingBalances(p: Payer, ops: Ops<void>): Ops<ReadBalances> {
  yield* ops;
  const u = yield op('userQuota', [p.userId]);
  const k = capped(p) ? yield op('keyQuota', [p.keyId]) : null;
  return { user: Number(u.rows[0]?.v ?? 0), key: k ? Number(k.rows[0]?.v ?? 0) : null };
}

export class KnownBalances {
  private readonly users = new Map<number, Known>();
  private readonly keys = new Map<number, Known>();

  /**
   * `inOrder`: the movements resolve in the order they committed (SQLite: one connection, groups
   * committed in turn), so a read and the deltas around it add up. On PostgreSQL and MySQL concurrent
   * transactions may resolve out of their commit order, and a read could be overtaken by a take it
   * does not include: nothing is kept there (every reserve commits first).
   */
  constructor(private readonly inOrder: boolean) {}

  /** Whether `p`'s last known balances (and a capped key's) cover `amount`, less reserves in flight. */
  covers(p: Payer, amount: number): boolean {
    if (!this.kept(p)) return false;
    const now = Date.now();
    if (!usable(this.users.get(p.userId), amount, now)) return false;
    return !capped(p) || usable(this.keys.get(p.keyId), amount, now);
  }

  /** A reserve of `amount` is asked for: true when it should read the balances (unknown or old). */
  reserving(p: Payer, amount: number): boolean {
    if (!this.kept(p)) return false;
    const now = Date.now();
    // An unknown payer's reserves in flight count too, once a read makes it known.
    const u = entry(this.users, p.userId);
    u.pending += amount;
    if (!capped(p)) return now - u.readAt > READ_EVERY_MS;
    const k = entry(this.keys, p.keyId);
    k.pending += amount;
    return now - u.readAt > READ_EVERY_MS || now - k.readAt > READ_EVERY_MS;
  }

  /** The reserve ended (`read`: the balances it read; null: it committed without a read, or `ok` false: it did not commit). */
  reserved(p: Payer, amount: number, ok: boolean, read: ReadBalances | null): void {
    if (!this.kept(p)) return;
    const now = Date.now();
    this.end(this.users, p.userId, amount, ok, read ? read.user : null, now);
    if (capped(p)) this.end(this.keys, p.keyId, amount, ok, read ? read.key : null, now);
  }

  /** A committed movement changed `p`'s balances by `delta` (an extension: negative; a refund: positive). */
  moved(p: Payer, delta: number): void {
    if (!this.kept(p)) return;
    const u = this.users.get(p.userId);
    if (u) u.value += delta;
    const k = capped(p) ? this.keys.get(p.keyId) : undefined;
    if (k) k.value += delta;
  }

  /** The user's balance changed in a way not kept here (a top-up, a hold): read it again at the next reserve. */
  forget(userId: number): void {
    const u = this.users.get(userId);
    if (u) u.readAt = 0;
  }

  /** Payers whose reserve takes only the balance (and a key's cap). */
  private kept(p: Payer): boolean {
    return this.inOrder && !p.teamId && !p.plan && !p.budgets;
  }

  private end(m: Map<number, Known>, id: number, amount: number, ok: boolean, read: number | null, now: number): void {
    const e = m.get(id);
    if (e) e.pending = Math.max(0, e.pending - amount);
    if (!ok) {
      // Refused: what this node believed is wrong; the next reserve reads again.
      if (e) e.readAt = 0;
      return;
    }
    if (!e) return;
    if (read !== null) {
      e.value = read;
      e.readAt = now;
    } else e.value -= amount;
  }
}

function entry(m: Map<number, Known>, id: number): Known {
  let e = m.get(id);
  if (!e) m.set(id, (e = { value: 0, pending: 0, readAt: 0 }));
  return e;
}

function usable(e: Known | undefined, amount: number, now: number): boolean {
  return !!e && e.readAt > 0 && now - e.readAt <= USABLE_MS && e.value - e.pending >= amount;
}
