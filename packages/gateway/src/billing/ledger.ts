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
 * settle and refund close a ref: besides their own row they write a row of kind `close`, unique per
 * ref, so only one of them can ever happen.
 *
 * Period budgets (billing/budgets.ts) ride on the same movements: a payer's reserve (and each
 * extension) also adds its amount to the period rows of its budgets with a conditional UPDATE in the
 * same transaction — refused like an empty balance when a row would pass its budget — and records
 * the rows it took (`budget_reserves`); the ref's settle or refund corrects those rows by what was
 * charged, in its own transaction.
 *
 * A relay reserve is also recorded as open (`open_reserves`, naming this node process) in its own
 * transaction, and the settle or refund deletes that row in theirs: a reserve whose node died before
 * closing it is found and closed by recovery (billing/recovery.ts).
 *
 * Speed: these run twice per model call, so the statements are fixed SQL text (no query building),
 * each movement is written once as a generator of statements (ledger-statements.ts, which holds every
 * statement on the money tables), and two drivers run it:
 *  - SQLite (ledger-sqlite.ts): better-sqlite3 prepared statements (prepared once), run synchronously — nothing can
 *    interleave with a movement — and committed in groups: the movements of one event-loop turn
 *    share one `BEGIN IMMEDIATE … COMMIT` (a savepoint each only when one fails after a write; see
 *    SqliteDriver). When a Kysely
 *    transaction is open on the connection (across awaits), the movements wait for it instead.
 *    A settle nobody waits for (the relay's, after the response) may be deferred a few
 *    milliseconds to share the next commit, usually the next request's reserve.
 *  - PostgreSQL / MySQL (ledger-kysely.ts): the same statements as precompiled queries in one Kysely
 *    transaction.
 * Credits that use something up (a redemption code, a paid checkout: `redeemCode`, `creditPayment`)
 * change that row under a condition in the same transaction as their `topup` row, so only one of
 * any number of concurrent attempts credits.
 *
 * The statements are merged where the outcome is known in advance: a settle that gives back writes
 * its two ledger rows in one INSERT and changes each balance with its counters in one UPDATE.
 */
import { randomBytes } from 'node:crypto';
import type { Core } from '../core.ts';
import { inSpan, tracer } from '../platform/tracing.ts';
import { isUniqueViolation, withTx, type Tx } from '../store/db.ts';
import type { Payer } from './budgets.ts';
import { KyselyDriver } from './ledger-kysely.ts';
import { lockTeamOps } from './plan-ledger.ts';
import { SqliteDriver } from './ledger-sqlite.ts';
import {
  adjustOps,
  availableTo,
  budgetRows,
  claimedCreditOps,
  closeHoldOps,
  closingOps,
  creditedUser,
  dropOpenReserve,
  expiredHolds,
  extendOps,
  historyOf,
  holdOps,
  NotClaimed,
  NotEligible,
  op,
  openHolds,
  openReserveNodes,
  openReservesOf,
  openReserveOps,
  planSpend,
  refundOps,
  renewOps,
  reserveOps,
  rowsOf,
  settleOps,
  spendOps,
  type ExpiredHold,
  type OpenHold,
  type Op,
  type Ops,
  type SpendItem,
  type SpendResult,
} from './ledger-statements.ts';

export type { Payer } from './budgets.ts';
export type { ExpiredHold, OpenHold, SpendItem, SpendResult } from './ledger-statements.ts';

export type Movement = 'reserve' | 'settle' | 'refund';

export interface ReserveOptions {
  /**
   * A relay reserve: recorded as an open reserve of this node process in the same transaction, so
   * recovery closes it if the process dies before it settles or refunds (billing/recovery.ts).
   */
  open?: boolean;
}

export interface MoveOptions {
  /**
   * SQLite: the movement may wait up to this long to be committed together with others (a settle
   * nobody waits for). The promise still resolves only after its COMMIT. Ignored elsewhere.
   */
  deferMs?: number;
}

/** What a movement yields when it already happened (its ledger row exists). */
const AlreadyDone: unique symbol = Symbol('already done');

export class Ledger {
  /**
   * This node process, in the rows of its open reserves: the node id (NODE_ID) and a part new at
   * every start, so a restarted node never takes the open reserves of its previous process for its own.
   */
  readonly node: string;
  private readonly sqlite: SqliteDriver | null;
  private readonly kysely: KyselyDriver;
  private readonly balanceListeners: Array<(userId: number) => void> = [];

  constructor(private readonly core: Core) {
    this.node = `${core.config.nodeId.slice(0, 48)}.${randomBytes(4).toString('hex')}`;
    this.sqlite = core.h.sqlite ? new SqliteDriver(core.h.sqlite, core.config.sharedWriters) : null;
    this.kysely = new KyselyDriver(core.h.dialect);
  }

  /**
   * Adds a listener told (after the commit) of each settle, refund, spend, hold close, top-up and
   * adjustment that changed a user's balance: a read-only observer (the low-balance alerts); it must
   * not move money and must return at once.
   */
  onBalanceMoved(fn: (userId: number) => void): void {
    this.balanceListeners.push(fn);
  }

  private moved(userId: number): void {
    for (const fn of this.balanceListeners) {
      try {
        fn(userId);
      } catch {
        /* an observer's failure never reaches a movement */
      }
    }
  }

  /**
   * Takes `amount` from the user's balance (and the key's cap) for `ref`. Throws 429
   * `insufficient_quota` when either would go below zero; nothing is written then. Returns false when
   * this ref was already reserved (nothing moves twice). `open`: see ReserveOptions.
   */
  async reserve(p: Payer, ref: string, amount: number, opts: ReserveOptions = {}): Promise<boolean> {
    const amt = toUnits(amount);
    const make = opts.open ? () => openReserveOps(p, ref, amt, this.node) : () => reserveOps(p, ref, amt);
    return (await this.exec(make, 0, 'reserve', ref)) !== AlreadyDone;
  }

  /**
   * Takes `amount` more for `ref` while it is open (the n-th extension, once per n), all or nothing:
   * 429 `insufficient_quota` when the balance or the key's cap cannot cover it. The ref's settle or
   * refund must then be given the reserve and every extension together. False when this extension
   * was already taken.
   */
  async extend(p: Payer, ref: string, n: number, amount: number): Promise<boolean> {
    const amt = toUnits(amount);
    return (await this.exec(() => extendOps(p, ref, n, amt), 0, 'extend', ref)) !== AlreadyDone;
  }

  /**
   * Settles `ref` at `actual` after `reserved` was taken: the difference is taken or given back.
   * When more is due than the balance holds, what is there is taken and the shortfall is returned
   * (the balance stays ≥ 0). Returns null when the ref was already settled or refunded.
   */
  async settle(
    p: Payer,
    ref: string,
    reserved: number,
    actual: number,
    opts: MoveOptions = {},
  ): Promise<{ charged: number; shortfall: number } | null> {
    const res = toUnits(reserved);
    const act = toUnits(actual);
    const out = await this.exec(() => closingOps(settleOps(p, ref, res, act), ref), opts.deferMs, 'settle', ref);
    if (out === AlreadyDone) return null;
    if (!p.teamId) this.moved(p.userId);
    return out;
  }

  /**
   * What `p` can spend now: the user's balance, and for a capped key the least of it and the key's
   * remainder, and of what its budgets have left in their periods (a read: the relay lowers a call's
   * output to it when the first reserve was refused).
   */
  available(p: Payer): Promise<number> {
    return availableTo(this.core.h.db, p);
  }

  /** Gives back what `ref` reserved. Returns false when the ref was already settled or refunded. */
  async refund(p: Payer, ref: string, reserved: number): Promise<boolean> {
    const amt = toUnits(reserved);
    const done = (await this.exec(() => closingOps(refundOps(p, ref, amt), ref), 0, 'refund', ref)) !== AlreadyDone;
    if (done && !p.teamId) this.moved(p.userId);
    return done;
  }

  /** The name, group, role and balance of a credited user, for the credit's log row and its answer. */
  creditedUser(userId: number) {
    return creditedUser(this.core.h.db, userId);
  }

  /** Adds (or with a negative amount removes, never below zero) quota by hand, once per ref. */
  async adjust(userId: number, ref: string, amount: number, kind: 'topup' | 'adjust' = 'topup'): Promise<boolean> {
    const amt = toUnits(amount);
    const p: Payer = { userId, keyId: null, unlimitedKey: true };
    const done = (await this.exec(() => adjustOps(p, ref, kind, amt), 0, kind, ref)) !== AlreadyDone;
    if (done) this.moved(userId);
    return done;
  }

  /**
   * Adds (or with a negative amount removes, never below zero) quota to team `teamId`'s wallet, once
   * per ref (a second call with the ref moves nothing and returns false). `userId`: who did it (0:
   * the operator's configuration file).
   */
  async adjustTeam(teamId: number, ref: string, amount: number, kind: 'topup' | 'adjust' = 'topup', userId = 0): Promise<boolean> {
    const p: Payer = { userId, keyId: null, unlimitedKey: true, teamId };
    return (await this.exec(() => adjustOps(p, ref, kind, toUnits(amount)), 0, kind, ref)) !== AlreadyDone;
  }

  /**
   * `adjust` inside the caller's transaction `tx`: a credit that must commit or roll back with the
   * caller's other writes (the starting balance of an account made in that transaction). A ref used
   * before throws its unique violation, which rolls the caller's transaction back.
   */
  async adjustInTx(tx: Tx, userId: number, ref: string, amount: number, kind: 'topup' | 'adjust' | 'plan' = 'topup'): Promise<void> {
    const p: Payer = { userId, keyId: null, unlimitedKey: true };
    await this.kysely.drive(tx, adjustOps(p, ref, kind, toUnits(amount)));
  }

  /** `adjustTeam` inside the caller's transaction `tx` (a team's purchase that commits with what it bought). */
  async adjustTeamInTx(tx: Tx, teamId: number, ref: string, amount: number, kind: 'topup' | 'adjust' | 'plan', userId = 0): Promise<void> {
    const p: Payer = { userId, keyId: null, unlimitedKey: true, teamId };
    await this.kysely.drive(tx, adjustOps(p, ref, kind, toUnits(amount)));
  }

  /** Locks team `teamId`'s wallet row in `tx` until it ends (orders a team's purchases that take nothing). */
  async lockTeamInTx(tx: Tx, teamId: number): Promise<void> {
    await this.kysely.drive(tx, lockTeamOps(teamId));
  }

  /**
   * Redeems redemption code `codeId` for `userId`: marks it used (only if it is enabled and not
   * expired at `now`) and credits its `amount` as a `topup` row with ref `ref`, in one transaction.
   * False when the code could not be claimed (used, disabled or expired meanwhile): nothing moved.
   */
  async redeemCode(userId: number, codeId: number, ref: string, amount: number, now = Date.now()): Promise<boolean> {
    return this.claimedCredit({ userId, keyId: null, unlimitedKey: true }, ref, amount, op('claimCode', [userId, now, codeId, now]));
  }

  /** `redeemCode` into team `teamId`'s wallet: the code is marked used by `userId`, the member who redeemed it. */
  async redeemCodeForTeam(teamId: number, userId: number, codeId: number, ref: string, amount: number, now = Date.now()): Promise<boolean> {
    const p: Payer = { userId, keyId: null, unlimitedKey: true, teamId };
    return this.claimedCredit(p, ref, amount, op('claimCode', [userId, now, codeId, now]));
  }

  /**
   * Credits payment `paymentId` once: marks it paid and credits `amount` as a `topup` row with ref
   * `ref` (the provider's id of the payment), in one transaction. False when it was already paid.
   */
  async creditPayment(userId: number, paymentId: number, ref: string, amount: number, now = Date.now()): Promise<boolean> {
    return this.claimedCredit({ userId, keyId: null, unlimitedKey: true }, ref, amount, op('claimPayment', [now, now, paymentId]));
  }

  /** `creditPayment` into team `teamId`'s wallet (a checkout a member of the team started and paid). */
  async creditTeamPayment(
    teamId: number,
    userId: number,
    paymentId: number,
    ref: string,
    amount: number,
    now = Date.now(),
  ): Promise<boolean> {
    const p: Payer = { userId, keyId: null, unlimitedKey: true, teamId };
    return this.claimedCredit(p, ref, amount, op('claimPayment', [now, now, paymentId]));
  }

  /**
   * Claims redemption code `codeId` for `userId` inside the caller's transaction `tx` (a code that
   * grants a plan, written in the same transaction): false when it was used, disabled or expired.
   */
  async claimCodeInTx(tx: Tx, userId: number, codeId: number, now = Date.now()): Promise<boolean> {
    return this.kysely.drive(tx, claimOnce(op('claimCode', [userId, now, codeId, now])));
  }

  /** Marks payment `paymentId` paid inside `tx` (a plan bought with it, granted in the same transaction); false when it was already. */
  async claimPaymentInTx(tx: Tx, paymentId: number, now = Date.now()): Promise<boolean> {
    return this.kysely.drive(tx, claimOnce(op('claimPayment', [now, now, paymentId])));
  }

  private async claimedCredit(p: Payer, ref: string, amount: number, claim: Op): Promise<boolean> {
    const amt = toUnits(amount);
    if (amt <= 0) throw new Error(`invalid credit amount ${amount}`);
    try {
      const done = (await this.exec(() => claimedCreditOps(p, ref, amt, claim))) !== AlreadyDone;
      if (done && !p.teamId) this.moved(p.userId);
      return done;
    } catch (e) {
      if (e instanceof NotClaimed) return false;
      throw e;
    }
  }

  /**
   * Makes a hold of `amount` for `ref` when the balance (and a capped key) hold at least
   * `amount * share`. False, with nothing written, otherwise.
   */
  async hold(p: Payer, ref: string, amount: number, share: number, node: string, expiresAt: number): Promise<boolean> {
    const amt = toUnits(amount);
    try {
      const r = await this.exec(() => holdOps(p, ref, amt, share, node, expiresAt), 0, 'hold', ref);
      return r === true;
    } catch (e) {
      if (e instanceof NotEligible) return false;
      throw e;
    }
  }

  /** Writes the spends of a hold's requests (see spendOps). `deferMs` as for settle. */
  async spend(p: Payer, holdRef: string, items: readonly SpendItem[], expiresAt: number, opts: MoveOptions = {}): Promise<SpendResult> {
    const list = items.map((it) => ({ ref: it.ref, amount: toUnits(it.amount) }));
    const r = await this.exec(() => spendOps(p, holdRef, list, expiresAt), opts.deferMs, 'spend', holdRef);
    if (r === AlreadyDone) return { written: 0, late: 0, shortfall: 0 };
    this.moved(p.userId);
    return r;
  }

  /** Renews a hold's lease; false when it was closed (reclaimed). */
  async renewHold(holdRef: string, expiresAt: number): Promise<boolean> {
    return (await this.exec(() => renewOps(holdRef, expiresAt))) === true;
  }

  /** Closes a hold once; null when it was already closed. */
  async closeHold(p: Payer, ref: string): Promise<{ returned: number; shortfall: number } | null> {
    const r = await this.exec(() => closeHoldOps(p, ref), 0, 'close_hold', ref);
    if (r === AlreadyDone) return null;
    this.moved(p.userId);
    return r;
  }

  /** Open holds of every node, newest first (at most `limit`), with what each has not spent. */
  openHolds(limit = 500): Promise<OpenHold[]> {
    return openHolds(this.core.h.db, limit);
  }

  /** Open holds whose lease ran out before `now` (at most `limit`). */
  expiredHolds(now: number, limit = 100): Promise<ExpiredHold[]> {
    return expiredHolds(this.core.h.db, now, limit);
  }

  /** What has moved for `ref`, by kind. */
  async movements(ref: string): Promise<Record<string, number>> {
    const rows = await rowsOf(this.core.h.db, ref);
    return Object.fromEntries(rows.map((r) => [r.kind, Number(r.amount)]));
  }

  /** The ledger rows of `ref`, each with its kind and amount. */
  rows(ref: string) {
    return rowsOf(this.core.h.db, ref);
  }

  /** A page of user `userId`'s ledger rows, newest first, without `close` rows; and how many there are. */
  history(userId: number, limit: number, offset: number) {
    return historyOf(this.core.h.db, userId, limit, offset);
  }

  /** A page of team `teamId`'s ledger rows (its wallet's movements), newest first, and how many there are. */
  teamHistory(teamId: number, limit: number, offset: number) {
    return historyOf(this.core.h.db, 0, limit, offset, teamId);
  }

  /** The period rows (owner, period_start, spent) of budget owners `owners` (billing/budgets.ts). */
  budgetRows(owners: readonly string[]) {
    return budgetRows(this.core.h.db, owners);
  }

  /** A plan's minute rows (owner `p:…`) since `from`, oldest first (billing/plan-windows.ts). */
  planSpend(owner: string, from: number) {
    return planSpend(this.core.h.db, owner, from);
  }

  /** Open reserves of node process `node`, oldest first (at most `limit`; billing/recovery.ts). */
  openReserves(node: string, limit: number) {
    return openReservesOf(this.core.h.db, node, limit);
  }

  /** Node processes other than this one that have open reserves. */
  openReserveNodes(): Promise<string[]> {
    return openReserveNodes(this.core.h.db, this.node);
  }

  /** Drops the open-reserve row of `ref` that outlived its close (recovery found it closed). */
  dropOpenReserve(ref: string): Promise<void> {
    return dropOpenReserve(this.core.h.db, ref);
  }

  /**
   * Runs one movement in one transaction. A unique violation (the movement already happened) rolls
   * it back and yields AlreadyDone; any other error (429 included) rolls back and is thrown.
   */
  private exec<T>(make: () => Ops<T>, deferMs = 0, movement?: string, ref?: string): Promise<T | typeof AlreadyDone> {
    // A span per named movement when tracing is on (platform/tracing.ts); nothing otherwise.
    if (tracer && movement) {
      return inSpan(
        tracer,
        'gatehouse.ledger',
        { 'gatehouse.ledger.movement': movement, 'gatehouse.ledger.ref': ref ?? '' },
        async (span) => {
          const out = await this.run(make, deferMs);
          if (out === AlreadyDone) span.setAttribute('gatehouse.ledger.already_done', true);
          return out;
        },
      );
    }
    return this.run(make, deferMs);
  }

  private async run<T>(make: () => Ops<T>, deferMs: number): Promise<T | typeof AlreadyDone> {
    const alone = () => withTx(this.core.h, (tx) => this.kysely.drive(tx, make()));
    try {
      return await (this.sqlite ? this.sqlite.run(make, alone, deferMs) : alone());
    } catch (e) {
      if (isUniqueViolation(e)) return AlreadyDone;
      throw e;
    }
  }
}

function* claimOnce(claim: Op): Ops<boolean> {
  return (yield claim).changes === 1;
}

function toUnits(n: number): number {
  if (!Number.isFinite(n)) throw new Error(`invalid quota amount ${n}`);
  return Math.round(n);
}
