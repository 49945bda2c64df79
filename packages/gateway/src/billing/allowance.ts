/**
 * Node-local quota allowances (option `QuotaAllowanceEnabled`, off by default).
 *
 * Without them every model call moves money twice in the database before and after the upstream
 * call: a reserve that must commit before the upstream is asked, and a settle. With them a node takes
 * a *hold* — a part of the payer's balance, in one ledger movement — and serves the payer's requests
 * from it in memory: a request's reserve and settle are arithmetic, and its ledger row (kind `spend`,
 * unique per request) is written with others in one flush a few milliseconds later, together with the
 * hold's `spent` and the usage counters. An idle or exhausted hold is closed and gives back what was
 * not spent.
 *
 * What is kept:
 *  - A payer never spends more than their balance: a hold is taken with a conditional update like a
 *    reserve, and only when the balance (and a capped key) holds at least `QUOTA_HOLD_SHARE` times
 *    the hold; smaller balances use the per-request path (ledger reserve/settle), so the last units
 *    of a balance are shared out exactly as without allowances.
 *  - Every request is written once (`spend` rows are unique per request id) and every hold is
 *    closed once (`close` row, conditional `closed` flag), by its node or, after its lease
 *    (`QuotaAllowanceLeaseSeconds`, renewed by every flush) ran out, by any node.
 * Payers with period budgets (billing/budgets.ts) or a plan (billing/plans.ts) always use the per-request path: their budget is
 * checked in the same transaction as each reserve.
 * What changes:
 *  - The balance shown is lower by what the node's holds have not yet spent (at most a tenth of it
 *    per hold), until they are closed.
 *  - A node that dies loses the spends of its last flush interval (about `FLUSH_MS`): those requests
 *    are not charged; the rest of its holds is given back when their leases run out. Without
 *    allowances a request in flight at a crash keeps its reserve instead.
 *  - A request settled above its reserve is charged in full when the hold covers it; what a hold
 *    spends beyond its amount is taken when it closes, as far as the balance goes.
 */
import { randomBytes } from 'node:crypto';
import type { Core } from '../core.ts';
import type { Ledger, Payer, SpendItem } from './ledger.ts';
import { Pending } from '../platform/pending.ts';

/**
 * A payer's first hold is this many times the reserve of the request that asked for it; a hold used
 * up within `FAST_MS` makes the next one twice as large, up to `QUOTA_HOLD_MAX_REQUESTS`.
 */
export const QUOTA_HOLD_REQUESTS = 32;
export const QUOTA_HOLD_MAX_REQUESTS = 4096;
const FAST_MS = 1_000;
/** A hold is only taken when the balance (and a capped key) is at least this many holds. */
export const QUOTA_HOLD_SHARE = 10;
/** Spends wait at most this long before they are written. */
export const FLUSH_MS = 20;
/** A hold unused this long is closed (its remainder given back). */
export const IDLE_MS = 2_000;
/** Holds a waiting request asks for before it uses the per-request path. */
const ACQUIRE_TRIES = 4;
/** After a hold was refused (small balance), the payer uses the per-request path this long. */
const INELIGIBLE_MS = 1_000;

export interface AllowanceSettings {
  enabled: boolean;
  /** Lease of a hold; renewed by every flush and at a third of it when nothing was flushed. */
  leaseMs: number;
}

interface Hold {
  ref: string;
  payer: Payer;
  /** Units not yet promised to a request. */
  avail: number;
  /** Requests reserved from it and not yet settled or refunded. */
  inflight: number;
  pending: SpendItem[];
  createdAt: number;
  lastUse: number;
  lastWrite: number;
  /** The flush being written, if any. */
  flushP: Promise<void> | null;
  /** New requests may reserve from it. */
  current: boolean;
  closing: boolean;
}

interface PayerState {
  current: Hold | null;
  /** Size of the next hold, in requests like the one asking. */
  holdRequests: number;
  acquiring: Promise<Hold | null> | null;
  ineligibleUntil: number;
}

/** A request's reserve: from a hold, or (hold null) a ledger reserve of its own. */
export interface Grant {
  payer: Payer;
  ref: string;
  amount: number;
  hold: Hold | null;
  /** Settled or refunded: a second call does nothing. */
  done: boolean;
}

/** A grant of the ledger's own (no hold): what the per-request path settles or refunds. */
export function ledgerGrant(payer: Payer, ref: string, amount: number): Grant {
  return { payer, ref, amount, hold: null, done: false };
}

export interface SettleOutcome {
  charged: number;
  shortfall: number;
}

export class QuotaAllowances {
  /** This process, in hold refs and rows: the node id (NODE_ID) and a part new at every start. */
  readonly node: string;
  private seq = 0;
  private readonly payers = new Map<string, PayerState>();
  private readonly holds = new Set<Hold>();
  private flushTimer: NodeJS.Timeout | null = null;
  private maintTimer: NodeJS.Timeout | null = null;
  private lastReclaim = 0;
  private closed = false;
  private readonly pending = new Pending();
  private readonly track = this.pending.track;

  constructor(
    private readonly core: Core,
    private readonly ledger: Ledger,
    private readonly settings: () => AllowanceSettings,
  ) {
    this.node = `${core.config.nodeId.slice(0, 48)}.${randomBytes(4).toString('hex')}`;
  }

  /** Starts the maintenance loop: idle holds are closed, leases renewed, expired holds of any node reclaimed. */
  start(everyMs = 500): void {
    if (this.maintTimer) return;
    const tick = () => {
      void this.maintain()
        .catch((e) => this.core.log.warn({ err: (e as Error).message }, 'quota allowance maintenance failed'))
        .finally(() => {
          if (this.closed) return;
          this.maintTimer = setTimeout(tick, everyMs);
          this.maintTimer.unref();
        });
    };
    this.maintTimer = setTimeout(tick, everyMs);
    this.maintTimer.unref();
  }

  /**
   * Reserves `amount` for request `ref`. Synchronous when a hold of this node covers it; otherwise a
   * hold is taken (or, for small balances and with allowances off, the ledger reserves for this
   * request alone). Throws 429 `insufficient_quota` like `Ledger.reserve`.
   */
  reserve(payer: Payer, ref: string, amount: number): Grant | Promise<Grant> {
    const s = this.closed ? null : this.settings();
    // A payer with period budgets reserves through the ledger, which checks them with the balance.
    // A team's wallet too (holds are kept per user).
    if (!s?.enabled || amount <= 0 || payer.budgets || payer.plan || payer.teamId) return this.direct(payer, ref, amount);
    const st = this.state(payer);
    const h = st.current;
    if (h && h.avail >= amount) return this.take(h, payer, ref, amount);
    if (Date.now() < st.ineligibleUntil) return this.direct(payer, ref, amount);
    return this.reserveSlow(st, payer, ref, amount, s);
  }

  /**
   * Waits for a new hold (shared with the other requests that found none). A burst can use up a new
   * hold before every waiter got its part: those ask again (the next hold is larger), a few times.
   */
  private async reserveSlow(st: PayerState, payer: Payer, ref: string, amount: number, s: AllowanceSettings): Promise<Grant> {
    for (let i = 0; i < ACQUIRE_TRIES; i++) {
      const h = await this.acquire(st, payer, amount, s);
      if (!h) break;
      if (h.avail >= amount) return this.take(h, payer, ref, amount);
      const cur = st.current;
      if (cur && cur !== h && cur.avail >= amount) return this.take(cur, payer, ref, amount);
    }
    return this.direct(payer, ref, amount);
  }

  /**
   * Settles a grant at `actual`. From a hold: recorded in memory and written with the next flush
   * (the result is known at once); otherwise a ledger settle (may wait `deferMs` to share a commit).
   * Null when the ledger had already closed the ref.
   */
  settle(g: Grant, actual: number, deferMs = 0): SettleOutcome | null | Promise<SettleOutcome | null> {
    if (g.done) return null;
    g.done = true;
    const h = g.hold;
    if (!h) {
      if (g.amount <= 0 && actual <= 0) return { charged: 0, shortfall: 0 };
      return this.ledger.settle(g.payer, g.ref, g.amount, actual, { deferMs });
    }
    const amt = Math.round(actual);
    h.avail += g.amount - amt;
    h.inflight--;
    h.lastUse = Date.now();
    if (amt > 0) {
      h.pending.push({ ref: g.ref, amount: amt });
      this.scheduleFlush();
    }
    return { charged: amt, shortfall: 0 };
  }

  /**
   * Takes `amount` more for an open grant (its `n`-th extension): from its hold when it has one (what
   * the hold has not promised), else a ledger extension. False when the balance (or the hold) cannot
   * cover it; the grant then stays as it was. Its settle counts the extension as reserved.
   */
  extend(g: Grant, n: number, amount: number): boolean | Promise<boolean> {
    if (g.done) return false;
    const amt = Math.round(amount);
    if (amt <= 0) return true;
    const h = g.hold;
    if (h) {
      if (h.avail < amt) return false;
      h.avail -= amt;
      g.amount += amt;
      return true;
    }
    return this.ledger.extend(g.payer, g.ref, n, amt).then(
      (ok) => {
        if (ok) g.amount += amt;
        return ok;
      },
      (e) => {
        if ((e as { code?: string }).code === 'insufficient_quota') return false;
        throw e;
      },
    );
  }

  /** Gives a grant back (the request failed before any cost). False when the ledger had already closed it. */
  refund(g: Grant): boolean | Promise<boolean> {
    if (g.done) return false;
    g.done = true;
    const h = g.hold;
    if (!h) return g.amount > 0 ? this.ledger.refund(g.payer, g.ref, g.amount) : true;
    h.avail += g.amount;
    h.inflight--;
    return true;
  }

  /** Writes every pending spend and closes every hold of this node (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.maintTimer) clearTimeout(this.maintTimer);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    for (const st of this.payers.values()) if (st.current) st.current.current = false;
    await this.pending.drain();
    await this.flush();
    await Promise.allSettled([...this.holds].map((h) => this.release(h)));
  }

  /** Holds of this node and what they have not promised (tests, diagnostics). */
  snapshot(): { ref: string; userId: number; avail: number; inflight: number; pending: number }[] {
    return [...this.holds].map((h) => ({
      ref: h.ref,
      userId: h.payer.userId,
      avail: h.avail,
      inflight: h.inflight,
      pending: h.pending.length,
    }));
  }

  /** One maintenance pass (also called by tests). */
  async maintain(now = Date.now()): Promise<void> {
    const s = this.settings();
    const jobs: Promise<unknown>[] = [];
    for (const h of this.holds) {
      if (h.closing) continue;
      const idle = now - h.lastUse >= IDLE_MS;
      if (h.current && (idle || !s.enabled)) {
        h.current = false;
        const st = this.payers.get(payerKey(h.payer));
        if (st?.current === h) st.current = null;
      }
      if (!h.current && h.inflight === 0) jobs.push(this.release(h));
      else if (!h.flushP && h.pending.length === 0 && now - h.lastWrite >= s.leaseMs / 3) {
        h.lastWrite = now;
        jobs.push(
          this.ledger.renewHold(h.ref, now + s.leaseMs).then((ok) => {
            if (!ok) this.lost(h);
          }),
        );
      }
    }
    for (const [k, st] of this.payers) if (!st.current && !st.acquiring && now >= st.ineligibleUntil) this.payers.delete(k);
    if (now - this.lastReclaim >= Math.min(s.leaseMs / 2, 10_000)) {
      this.lastReclaim = now;
      jobs.push(this.reclaim(now));
    }
    await Promise.all(jobs);
  }

  /** Closes open holds of any node whose lease ran out (their nodes stopped without closing them). */
  async reclaim(now = Date.now()): Promise<number> {
    const mine = new Set([...this.holds].map((h) => h.ref));
    let n = 0;
    for (const x of await this.ledger.expiredHolds(now)) {
      if (mine.has(x.ref)) continue;
      const r = await this.ledger.closeHold(x.payer, x.ref);
      if (r) {
        n++;
        this.core.log.info({ hold: x.ref, returned: r.returned, shortfall: r.shortfall }, 'expired quota hold closed');
      }
    }
    return n;
  }

  // ---------- internals ----------

  private direct(payer: Payer, ref: string, amount: number): Grant | Promise<Grant> {
    const g = ledgerGrant(payer, ref, amount);
    if (amount <= 0) return g;
    return this.ledger.reserve(payer, ref, amount, { open: true }).then(() => g);
  }

  private take(h: Hold, payer: Payer, ref: string, amount: number): Grant {
    h.avail -= amount;
    h.inflight++;
    h.lastUse = Date.now();
    return { payer, ref, amount, hold: h, done: false };
  }

  private state(p: Payer): PayerState {
    const k = payerKey(p);
    let st = this.payers.get(k);
    if (!st) {
      st = { current: null, holdRequests: QUOTA_HOLD_REQUESTS, acquiring: null, ineligibleUntil: 0 };
      this.payers.set(k, st);
    }
    return st;
  }

  /** Takes a new hold for the payer (one at a time; concurrent callers share it). */
  private acquire(st: PayerState, payer: Payer, amount: number, s: AllowanceSettings): Promise<Hold | null> {
    if (st.acquiring) return st.acquiring;
    const now = Date.now();
    if (st.current && now - st.current.createdAt < FAST_MS) st.holdRequests = Math.min(st.holdRequests * 2, QUOTA_HOLD_MAX_REQUESTS);
    const unit = Math.max(1, Math.round(amount));
    const ref = `hold:${this.node}:${++this.seq}`;
    const attempt = async (): Promise<number> => {
      // The usual size, then (small balance) the smallest before giving up on holds for a while.
      for (const n of st.holdRequests > QUOTA_HOLD_REQUESTS ? [st.holdRequests, QUOTA_HOLD_REQUESTS] : [QUOTA_HOLD_REQUESTS]) {
        if (await this.ledger.hold(payer, ref, unit * n, QUOTA_HOLD_SHARE, this.node, now + s.leaseMs)) return unit * n;
        st.holdRequests = QUOTA_HOLD_REQUESTS;
      }
      return 0;
    };
    const p = attempt()
      .then((size) => {
        if (size === 0 || this.closed) {
          st.ineligibleUntil = Date.now() + INELIGIBLE_MS;
          if (size > 0) void this.track(this.ledger.closeHold(payer, ref));
          return null;
        }
        const h: Hold = {
          ref,
          payer,
          avail: size,
          inflight: 0,
          pending: [],
          createdAt: now,
          lastUse: Date.now(),
          lastWrite: now,
          flushP: null,
          current: true,
          closing: false,
        };
        this.holds.add(h);
        if (st.current) st.current.current = false;
        st.current = h;
        return h;
      })
      .finally(() => {
        st.acquiring = null;
      });
    st.acquiring = p;
    return this.track(p);
  }

  private scheduleFlush(): void {
    if (this.flushTimer || this.closed) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      void this.flush();
    }, FLUSH_MS);
  }

  /** Writes the pending spends of every hold (one ledger movement per hold, one commit on SQLite). */
  private async flush(): Promise<void> {
    const jobs: Promise<void>[] = [];
    for (const h of this.holds) if (h.pending.length) jobs.push(this.flushHold(h));
    await Promise.all(jobs);
  }

  /** Writes the hold's pending spends after any flush of it already under way. */
  private async flushHold(h: Hold): Promise<void> {
    while (h.flushP) await h.flushP;
    if (h.pending.length === 0) return;
    const p = this.writeSpends(h);
    h.flushP = p;
    try {
      await p;
    } finally {
      h.flushP = null;
    }
  }

  private async writeSpends(h: Hold): Promise<void> {
    const items = h.pending;
    h.pending = [];
    const now = Date.now();
    try {
      const r = await this.track(this.ledger.spend(h.payer, h.ref, items, now + this.settings().leaseMs));
      h.lastWrite = now;
      if (r.late > 0) {
        this.core.log.warn(
          { hold: h.ref, late: r.late, shortfall: r.shortfall },
          'quota hold was closed before its spends were written; charged directly',
        );
        this.lost(h);
      }
    } catch (e) {
      // Kept for the next flush (the rows are unique per request: a retry cannot charge twice).
      h.pending = items.concat(h.pending);
      this.core.log.error({ err: (e as Error).message, hold: h.ref }, 'quota hold flush failed');
      if (!this.closed) this.scheduleFlush();
    }
  }

  /** The hold was closed by another node: no new requests from it. */
  private lost(h: Hold): void {
    h.current = false;
    const st = this.payers.get(payerKey(h.payer));
    if (st?.current === h) st.current = null;
  }

  /** Flushes and closes a hold that no request uses any more. */
  private async release(h: Hold): Promise<void> {
    if (h.closing) return;
    h.closing = true;
    try {
      await this.flushHold(h);
      if (h.pending.length) {
        h.closing = false;
        return;
      }
      await this.track(this.ledger.closeHold(h.payer, h.ref));
      this.holds.delete(h);
    } catch (e) {
      h.closing = false;
      this.core.log.error({ err: (e as Error).message, hold: h.ref }, 'closing a quota hold failed');
    }
  }
}

/** One hold per user and key: spends are written with the key they were made with. */
function payerKey(p: Payer): string {
  return `${p.userId}:${p.keyId ?? ''}:${p.unlimitedKey ? 'u' : 'c'}`;
}
