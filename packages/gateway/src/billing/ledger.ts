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
 * each movement is written once as a generator of statements, and two drivers run it:
 *  - SQLite: better-sqlite3 prepared statements (prepared once), run synchronously — nothing can
 *    interleave with a movement — and committed in groups: the movements of one event-loop turn
 *    share one `BEGIN IMMEDIATE … COMMIT` (a savepoint each only when one fails after a write; see
 *    SqliteDriver). When a Kysely
 *    transaction is open on the connection (across awaits), the movements wait for it instead.
 *    A settle nobody waits for (the relay's, after the response) may be deferred a few
 *    milliseconds to share the next commit, usually the next request's reserve.
 *  - PostgreSQL / MySQL: the same statements as precompiled queries in one Kysely transaction.
 * Credits that use something up (a redemption code, a paid checkout: `redeemCode`, `creditPayment`)
 * change that row under a condition in the same transaction as their `topup` row, so only one of
 * any number of concurrent attempts credits.
 *
 * The statements are merged where the outcome is known in advance: a settle that gives back writes
 * its two ledger rows in one INSERT and changes each balance with its counters in one UPDATE.
 */
import { randomBytes } from 'node:crypto';
import { CompiledQuery } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import type { Core } from '../core.ts';
import { GatewayError, fail } from '../platform/errors.ts';
import { inSpan, tracer } from '../platform/tracing.ts';
import { isUniqueViolation, withTx, type Dialect, type Tx } from '../store/db.ts';
import { budgetMessage, type BudgetCharge, type Payer } from './budgets.ts';

export type { Payer } from './budgets.ts';

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

const LEDGER_COLS = 'INSERT INTO ledger (user_id, key_id, ref, kind, amount, created_at) VALUES ';

/** Every statement the ledger runs, with `?` placeholders. */
const SQL = {
  insertOne: `${LEDGER_COLS}(?, ?, ?, ?, ?, ?)`,
  insertTwo: `${LEDGER_COLS}(?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)`,
  takeUser: 'UPDATE users SET quota = quota - ? WHERE id = ? AND quota >= ?',
  takeKey: 'UPDATE api_keys SET remain_quota = remain_quota - ? WHERE id = ? AND remain_quota >= ?',
  giveUser: 'UPDATE users SET quota = quota + ? WHERE id = ?',
  giveKey: 'UPDATE api_keys SET remain_quota = remain_quota + ? WHERE id = ?',
  /** settle: the balance change and the usage counters in one statement. */
  settleUserGive: 'UPDATE users SET quota = quota + ?, used_quota = used_quota + ?, request_count = request_count + 1 WHERE id = ?',
  settleUserTake:
    'UPDATE users SET quota = quota - ?, used_quota = used_quota + ?, request_count = request_count + 1 WHERE id = ? AND quota >= ?',
  settleKeyGive: 'UPDATE api_keys SET remain_quota = remain_quota + ?, used_quota = used_quota + ?, accessed_at = ? WHERE id = ?',
  settleKeyTake:
    'UPDATE api_keys SET remain_quota = remain_quota - ?, used_quota = used_quota + ?, accessed_at = ? WHERE id = ? AND remain_quota >= ?',
  settleKeyUsed: 'UPDATE api_keys SET used_quota = used_quota + ?, accessed_at = ? WHERE id = ?',
  userQuota: 'SELECT quota AS v FROM users WHERE id = ?',
  keyQuota: 'SELECT remain_quota AS v FROM api_keys WHERE id = ?',
  closedRef: "SELECT 1 AS v FROM ledger WHERE ref = ? AND kind = 'close'",
  // ---- holds (billing/allowance.ts) ----
  insertHold:
    'INSERT INTO quota_holds (ref, user_id, key_id, key_capped, amount, spent, node, expires_at, closed, created_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?, 0, ?)',
  /** A request's row inside a hold; written at most once per request (the dialect's "insert or ignore"). */
  insertSpend: `${LEDGER_COLS}(?, ?, ?, 'spend', ?, ?)`,
  spendHold: 'UPDATE quota_holds SET spent = spent + ?, expires_at = ? WHERE ref = ? AND closed = 0',
  usedUser: 'UPDATE users SET used_quota = used_quota + ?, request_count = request_count + ? WHERE id = ?',
  closeHold: 'UPDATE quota_holds SET closed = 1 WHERE ref = ? AND closed = 0',
  holdState: 'SELECT amount, spent FROM quota_holds WHERE ref = ?',
  // ---- open relay reserves (billing/recovery.ts) ----
  insertOpen: 'INSERT INTO open_reserves (ref, user_id, key_id, key_capped, node, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  dropOpen: 'DELETE FROM open_reserves WHERE ref = ?',
  // ---- period budgets (billing/budgets.ts) ----
  /** The period's row, made when missing (the dialect's "insert or ignore"). */
  budgetRow: 'INSERT INTO budget_spend (owner, period_start, spent) VALUES (?, ?, 0)',
  budgetTake: 'UPDATE budget_spend SET spent = spent + ? WHERE owner = ? AND period_start = ? AND spent + ? <= ?',
  budgetRef: 'INSERT INTO budget_reserves (ref, owner, period_start) VALUES (?, ?, ?)',
  /** settle / refund: the rows the ref's reserve was taken against, corrected by what was charged. */
  budgetCorrect:
    'UPDATE budget_spend SET spent = spent + ? WHERE EXISTS (SELECT 1 FROM budget_reserves r WHERE r.ref = ? AND r.owner = budget_spend.owner AND r.period_start = budget_spend.period_start)',
  budgetRefsDrop: 'DELETE FROM budget_reserves WHERE ref = ?',
  // ---- credits that use something up (billing/redemption.ts, billing/payments/) ----
  claimCode:
    'UPDATE redemptions SET status = 3, used_user_id = ?, redeemed_at = ? WHERE id = ? AND status = 1 AND (expires_at = 0 OR expires_at > ?)',
  claimPayment: "UPDATE payments SET status = 'paid', paid_at = ?, updated_at = ? WHERE id = ? AND status <> 'paid'",
} as const;
type Q = keyof typeof SQL;
/** Reads that lock the row on PostgreSQL/MySQL (SQLite's BEGIN IMMEDIATE already excludes writers). */
const LOCKING: ReadonlySet<Q> = new Set<Q>(['userQuota', 'keyQuota', 'holdState']);

interface Op {
  q: Q;
  params: unknown[];
}
interface Res {
  changes: number;
  rows: Record<string, unknown>[];
}
type Ops<T> = Generator<Op, T, Res>;

const op = (q: Q, params: unknown[]): Op => ({ q, params });

/** What a movement yields when it already happened (its ledger row exists). */
const AlreadyDone: unique symbol = Symbol('already done');

function insufficient(which: 'user' | 'key'): GatewayError {
  return which === 'user'
    ? fail('insufficient_quota', 'quota exhausted: the account balance is too low for this request')
    : fail('insufficient_quota');
}

const capped = (p: Payer): p is Payer & { keyId: number } => p.keyId !== null && !p.unlimitedKey;

// ---------- the movements, as statements ----------

/** Takes `n` from the user and the key's cap, all or nothing (429 otherwise). */
function* takeStrict(p: Payer, n: number): Ops<void> {
  if (n <= 0) return;
  if ((yield op('takeUser', [n, p.userId, n])).changes !== 1) throw insufficient('user');
  if (capped(p) && (yield op('takeKey', [n, p.keyId, n])).changes !== 1) throw insufficient('key');
}

function* give(p: Payer, n: number): Ops<void> {
  if (n <= 0) return;
  yield op('giveUser', [n, p.userId]);
  if (capped(p)) yield op('giveKey', [n, p.keyId]);
}

function row(p: Payer, ref: string, kind: string, amount: number, now: number): unknown[] {
  return [p.userId, p.keyId, ref, kind, amount, now];
}

function* reserveOps(p: Payer, ref: string, amt: number): Ops<void> {
  yield op('insertOne', row(p, ref, 'reserve', amt, Date.now()));
  yield* takeStrict(p, amt);
  if (Array.isArray(p.budgets)) yield* budgetTakeOps(p.budgets, amt, ref);
}

/** Takes `amt` more for an open ref (row kind `extend:<n>`, once per n); its settle then counts it as reserved. */
function* extendOps(p: Payer, ref: string, n: number, amt: number): Ops<void> {
  // A ref already closed (by recovery, while its node stalled) takes nothing more: the caller ends the call.
  if ((yield op('closedRef', [ref])).rows.length > 0) throw fail('reserve_closed');
  yield op('insertOne', row(p, ref, `extend:${n}`, amt, Date.now()));
  yield* takeStrict(p, amt);
  if (Array.isArray(p.budgets)) yield* budgetTakeOps(p.budgets, amt, null);
}

/**
 * Adds `amt` to each budget's period row, all or nothing: 429 `insufficient_quota` (as for an empty
 * balance) when a row would pass its budget. A reserve (`ref`) records the rows it took.
 */
function* budgetTakeOps(budgets: readonly BudgetCharge[], amt: number, ref: string | null): Ops<void> {
  for (const b of budgets) {
    if (ref !== null) yield op('budgetRow', [b.owner, b.start]);
    if ((yield op('budgetTake', [amt, b.owner, b.start, amt, b.quota])).changes !== 1) {
      throw fail('insufficient_quota', budgetMessage(b));
    }
    if (ref !== null) yield op('budgetRef', [ref, b.owner, b.start]);
  }
}

/** A settle or refund of a budgeted ref: its rows corrected by `delta` (charged − reserved), then released. */
function* budgetCloseOps(p: Payer, ref: string, delta: number): Ops<void> {
  if (!p.budgets) return;
  if (delta !== 0) yield op('budgetCorrect', [delta, ref]);
  yield op('budgetRefsDrop', [ref]);
}

function* adjustOps(p: Payer, ref: string, kind: string, amt: number): Ops<void> {
  yield op('insertOne', row(p, ref, kind, -amt, Date.now()));
  if (amt >= 0) yield* give(p, amt);
  else yield* takeStrict(p, -amt);
}

function* refundOps(p: Payer, ref: string, amt: number): Ops<void> {
  const now = Date.now();
  yield op('insertTwo', [...row(p, ref, 'close', 0, now), ...row(p, ref, 'refund', -amt, now)]);
  yield* give(p, amt);
  yield* budgetCloseOps(p, ref, -amt);
}

function* settleOps(p: Payer, ref: string, res: number, act: number): Ops<{ charged: number; shortfall: number }> {
  const now = Date.now();
  const delta = act - res;
  if (delta <= 0) {
    // Gives back (or nothing): the outcome is known, so both ledger rows go in one INSERT.
    yield op('insertTwo', [...row(p, ref, 'close', 0, now), ...row(p, ref, 'settle', delta, now)]);
    yield op('settleUserGive', [-delta, act, p.userId]);
    if (capped(p)) yield op('settleKeyGive', [-delta, act, now, p.keyId]);
    else if (p.keyId !== null) yield op('settleKeyUsed', [act, now, p.keyId]);
    yield* budgetCloseOps(p, ref, delta);
    return { charged: act, shortfall: 0 };
  }
  // More is due than was reserved: take what the balances allow (read under lock), the rest is a shortfall.
  yield op('insertOne', row(p, ref, 'close', 0, now));
  let n = delta;
  const u = yield op('userQuota', [p.userId]);
  n = Math.min(n, Math.max(0, Number(u.rows[0]?.v ?? 0)));
  if (capped(p) && n > 0) {
    const k = yield op('keyQuota', [p.keyId]);
    n = Math.min(n, Math.max(0, Number(k.rows[0]?.v ?? 0)));
  }
  const charged = res + n;
  if (n > 0) {
    if ((yield op('settleUserTake', [n, charged, p.userId, n])).changes !== 1) throw insufficient('user');
  } else {
    yield op('settleUserGive', [0, charged, p.userId]);
  }
  if (capped(p) && n > 0) {
    if ((yield op('settleKeyTake', [n, charged, now, p.keyId, n])).changes !== 1) throw insufficient('key');
  } else if (p.keyId !== null) {
    yield op('settleKeyUsed', [charged, now, p.keyId]);
  }
  yield op('insertOne', row(p, ref, 'settle', n, now));
  // The budget counts what was charged, even past its limit: the call has happened.
  yield* budgetCloseOps(p, ref, n);
  return { charged, shortfall: delta - n };
}

// ---------- open relay reserves (billing/recovery.ts) ----------

/** A reserve recorded as open on `node` in the same transaction: recovery closes it if that node dies first. */
function* openReserveOps(p: Payer, ref: string, amt: number, node: string): Ops<void> {
  yield* reserveOps(p, ref, amt);
  yield op('insertOpen', [ref, p.userId, p.keyId, capped(p) ? 1 : 0, node, Date.now()]);
}

/** A settle or refund, then the end of the ref's open-reserve row (if any), in the same transaction. */
function* closingOps<T>(ops: Ops<T>, ref: string): Ops<T> {
  const r = yield* ops;
  yield op('dropOpen', [ref]);
  return r;
}

// ---------- holds (billing/allowance.ts) ----------

/** Takes up to `n` from the user and a capped key, as far as both go (read under lock); returns what was taken. */
function* takeAvailable(p: Payer, n: number): Ops<number> {
  let take = n;
  const u = yield op('userQuota', [p.userId]);
  take = Math.min(take, Math.max(0, Number(u.rows[0]?.v ?? 0)));
  if (capped(p) && take > 0) {
    const k = yield op('keyQuota', [p.keyId]);
    take = Math.min(take, Math.max(0, Number(k.rows[0]?.v ?? 0)));
  }
  if (take > 0) {
    yield op('takeUser', [take, p.userId, take]);
    if (capped(p)) yield op('takeKey', [take, p.keyId, take]);
  }
  return take;
}

/** Thrown inside a hold movement to roll it back when the key's cap does not allow it. */
class NotEligible extends Error {}

/**
 * Takes `amount` for a hold when the balance (and the key's cap) hold at least `amount * share`:
 * the hold never takes more than 1/share of what is there. False (nothing written) otherwise.
 */
function* holdOps(p: Payer, ref: string, amount: number, share: number, node: string, expiresAt: number): Ops<boolean> {
  if ((yield op('takeUser', [amount, p.userId, amount * share])).changes !== 1) return false;
  if (capped(p) && (yield op('takeKey', [amount, p.keyId, amount * share])).changes !== 1) throw new NotEligible();
  const now = Date.now();
  yield op('insertHold', [ref, p.userId, p.keyId, capped(p) ? 1 : 0, amount, node, expiresAt, now]);
  yield op('insertOne', row(p, ref, 'reserve', amount, now));
  return true;
}

/** What a flush of spends did: rows written (requests not seen before) and what could not be taken. */
export interface SpendResult {
  written: number;
  /** Spends charged directly because the hold had been closed (its lease ran out). */
  late: number;
  shortfall: number;
}

/**
 * Writes the requests' rows of a hold (kind `spend`, once per request), adds them to the hold's
 * `spent` and renews its lease, and counts them into the user's and key's usage. When the hold was
 * closed meanwhile (another node reclaimed it), the amount is taken from the balance directly, as
 * far as it goes, under a `charge` row.
 */
function* spendOps(p: Payer, holdRef: string, items: readonly SpendItem[], expiresAt: number): Ops<SpendResult> {
  const now = Date.now();
  let sum = 0;
  let n = 0;
  for (const it of items) {
    if ((yield op('insertSpend', [p.userId, p.keyId, it.ref, it.amount, now])).changes === 1) {
      sum += it.amount;
      n++;
    }
  }
  if (n === 0) return { written: 0, late: 0, shortfall: 0 };
  let late = 0;
  let shortfall = 0;
  if ((yield op('spendHold', [sum, expiresAt, holdRef])).changes !== 1) {
    late = sum;
    const take = yield* takeAvailable(p, sum);
    shortfall = sum - take;
    yield op('insertOne', row(p, items[0].ref, 'charge', take, now));
  }
  yield op('usedUser', [sum, n, p.userId]);
  if (p.keyId !== null) yield op('settleKeyUsed', [sum, now, p.keyId]);
  return { written: n, late, shortfall };
}

/** Renews a hold's lease. False when it was closed. */
function* renewOps(holdRef: string, expiresAt: number): Ops<boolean> {
  return (yield op('spendHold', [0, expiresAt, holdRef])).changes === 1;
}

/**
 * Closes a hold once (its owner on release, or any node after its lease ran out): gives back
 * `amount - spent`, or takes what was spent beyond the hold as far as the balance goes. Null when it
 * was already closed.
 */
function* closeHoldOps(p: Payer, ref: string): Ops<{ returned: number; shortfall: number } | null> {
  if ((yield op('closeHold', [ref])).changes !== 1) return null;
  const h = yield op('holdState', [ref]);
  const amount = Number(h.rows[0]?.amount ?? 0);
  const spent = Number(h.rows[0]?.spent ?? 0);
  const now = Date.now();
  const back = amount - spent;
  if (back >= 0) {
    yield op('insertTwo', [...row(p, ref, 'close', 0, now), ...row(p, ref, 'settle', -back, now)]);
    yield* give(p, back);
    return { returned: back, shortfall: 0 };
  }
  const take = yield* takeAvailable(p, -back);
  yield op('insertTwo', [...row(p, ref, 'close', 0, now), ...row(p, ref, 'settle', take, now)]);
  return { returned: 0, shortfall: -back - take };
}

// ---------- credits that use something up ----------

/** Thrown inside a claimed credit when the claim matched no row; nothing is written. */
class NotClaimed extends Error {}

/**
 * A `topup` of `amt` for `ref` that first uses up what pays for it (a redemption code: enabled, not
 * expired → used; a payment: → paid) with a conditional UPDATE in the same transaction. Of any
 * number of concurrent or repeated calls, one claims the row and credits; the others write nothing.
 */
function* claimedCreditOps(userId: number, ref: string, amt: number, claim: Op): Ops<void> {
  if ((yield claim).changes !== 1) throw new NotClaimed();
  const p: Payer = { userId, keyId: null, unlimitedKey: true };
  yield op('insertOne', row(p, ref, 'topup', -amt, Date.now()));
  yield* give(p, amt);
}

export interface SpendItem {
  /** The request id. */
  ref: string;
  amount: number;
}

/** An open hold as the admin API lists it (`held`: what it has not spent, out of the balance until it closes). */
export interface OpenHold {
  ref: string;
  user_id: number;
  key_id: number | null;
  amount: number;
  spent: number;
  held: number;
  node: string;
  expires_at: number;
  created_at: number;
}

/** An open hold whose lease ran out, as `Ledger.expiredHolds` lists it. */
export interface ExpiredHold {
  ref: string;
  payer: Payer;
}

// ---------- drivers ----------

/** Placeholders `?` → `$1, $2, …` for PostgreSQL. */
function numbered(s: string): string {
  let i = 0;
  return s.replace(/\?/g, () => `$${++i}`);
}

function sqlFor(dialect: Dialect, q: Q): string {
  let s: string = SQL[q];
  if (LOCKING.has(q) && dialect !== 'sqlite') s += ' FOR UPDATE';
  if (q === 'insertSpend' || q === 'budgetRow') {
    if (dialect === 'sqlite') s = s.replace('INSERT INTO', 'INSERT OR IGNORE INTO');
    else if (dialect === 'mysql') s = s.replace('INSERT INTO', 'INSERT IGNORE INTO');
    else s += ' ON CONFLICT DO NOTHING';
  }
  return dialect === 'postgres' ? numbered(s) : s;
}

interface Pending {
  make(): Ops<unknown>;
  resolve(v: unknown): void;
  reject(e: unknown): void;
  fallback(): Promise<unknown>;
  done: boolean;
  value?: unknown;
  error?: unknown;
}

/** Thrown inside a group commit when a movement failed after it had written: the group is run again with savepoints. */
class PartlyWritten extends Error {}

/** How long a group that found another process's write lock waits before it tries again. */
const BUSY_RETRY_MS = 1;

/** Forgets what a rolled-back run of `items` did (it will run again). */
function reset(items: Pending[]): void {
  for (const it of items) {
    it.done = false;
    it.value = it.error = undefined;
  }
}

/**
 * Runs movements on the better-sqlite3 connection with statements prepared once, committing them in
 * groups: the movements asked for during one turn of the event loop run in one `BEGIN IMMEDIATE …
 * COMMIT`. A movement that fails (insufficient quota, already done) must leave nothing behind while
 * the others commit. Most fail, if at all, at their first write — the ledger row that already exists
 * — and SQLite undoes a failed statement by itself, so the movements run without savepoints; one that
 * fails after a write has succeeded rolls the whole group back, and the group is run again with each
 * movement in its own savepoint, rolled back to it alone. Every promise settles only after the
 * COMMIT, so a caller never acts on a movement that is not written. One commit (and one write of the
 * few pages involved) then serves many requests.
 *
 * With several workers (`sharedWriters`), the others hold the file's write lock now and then.
 * SQLite's busy handler would wait for it by sleeping on this thread, stalling every request of the
 * process for a millisecond or more; the group's `BEGIN IMMEDIATE` therefore does not wait there
 * (busy_timeout 0 around it), and a group that finds the lock held is queued again and retried
 * `BUSY_RETRY_MS` later with whatever joined it meanwhile, for as long as the connection's own
 * busy timeout would have waited. (Setting the pragma twice costs about as much as a small group's
 * statements, so a process that writes the file alone keeps the busy handler.)
 */
class SqliteDriver {
  private readonly stmts = new Map<Q, BetterSqlite3.Statement>();
  /** The connection's busy timeout (store/db.ts), set again after each group. */
  private readonly busyLimitMs: number;
  /** When the group being retried first found the write lock held (0: not retrying). */
  private busySince = 0;
  private readonly one: BetterSqlite3.Transaction<(ops: Ops<unknown>) => unknown>;
  /** The group without savepoints (PartlyWritten when a movement failed after a write). */
  private readonly group: BetterSqlite3.Transaction<(items: Pending[]) => void>;
  /** The group with a savepoint per movement. */
  private readonly guarded: BetterSqlite3.Transaction<(items: Pending[]) => void>;
  private queue: Pending[] = [];
  /** A flush at the end of this event-loop turn is scheduled. */
  private scheduled = false;
  /** A deferred flush is scheduled. */
  private timer: NodeJS.Timeout | null = null;
  /** Write statements completed by the movement being driven. */
  private writes = 0;

  constructor(
    private readonly conn: BetterSqlite3.Database,
    private readonly shared: boolean,
  ) {
    this.busyLimitMs = Number(conn.pragma('busy_timeout', { simple: true })) || 0;
    // Called inside `guarded`, better-sqlite3 runs `one` as a savepoint.
    this.one = conn.transaction((ops: Ops<unknown>) => this.drive(ops));
    this.group = conn.transaction((items: Pending[]) => {
      for (const it of items) {
        this.writes = 0;
        try {
          it.value = this.drive(it.make());
          it.done = true;
        } catch (e) {
          // Written in part (or the transaction ended under it): nothing of this try may commit.
          if (this.writes > 0 || !conn.inTransaction) throw this.writes > 0 ? new PartlyWritten() : e;
          it.error = e;
        }
      }
    });
    this.guarded = conn.transaction((items: Pending[]) => {
      for (const it of items) {
        try {
          it.value = this.one(it.make());
          it.done = true;
        } catch (e) {
          it.error = e;
        }
      }
    });
  }

  /**
   * Queues a movement for the next group commit. `fallback` runs it on its own when the connection is
   * busy. `deferMs` > 0: the movement may wait that long for company (it joins any commit that
   * happens sooner); 0: it is committed at the end of this event-loop turn.
   */
  run<T>(make: () => Ops<T>, fallback: () => Promise<T>, deferMs = 0): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ make, resolve: resolve as (v: unknown) => void, reject, fallback, done: false });
      if (deferMs <= 0) {
        if (!this.scheduled) {
          this.scheduled = true;
          setImmediate(this.flush);
        }
      } else if (!this.scheduled && !this.timer) {
        this.timer = setTimeout(this.flush, deferMs);
      }
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.queue.length === 0) return;
    const items = this.queue;
    this.queue = [];
    if (!this.conn.open || this.conn.inTransaction) {
      // A Kysely transaction is open on this connection across awaits: wait for it like any query.
      for (const it of items) Promise.resolve().then(it.fallback).then(it.resolve, it.reject);
      return;
    }
    if (items.length === 1) {
      // Alone: its own transaction, no savepoint needed.
      const it = items[0];
      let value: unknown;
      try {
        value = this.unwaited(() => this.one.immediate(it.make()));
      } catch (e) {
        if (this.retryBusy(items, e)) return;
        it.reject(e);
        return;
      }
      this.busySince = 0;
      it.resolve(value);
      return;
    }
    try {
      this.unwaited(() => {
        try {
          this.group.immediate(items);
        } catch (e) {
          if (!(e instanceof PartlyWritten)) throw e;
          // Rolled back whole: again, each movement in a savepoint of its own.
          reset(items);
          this.guarded.immediate(items);
        }
      });
    } catch (e) {
      // BEGIN or COMMIT failed: nothing of the group is written.
      if (this.retryBusy(items, e)) return;
      for (const it of items) it.reject(e);
      return;
    }
    this.busySince = 0;
    for (const it of items) {
      if (it.done) it.resolve(it.value);
      else it.reject(it.error);
    }
  };

  /** Runs `fn` with the connection's busy handler off (see the class comment). */
  private unwaited<T>(fn: () => T): T {
    if (!this.shared) return fn();
    // SQLite applies this pragma when it is compiled, so a prepared statement could not be reused.
    this.conn.pragma('busy_timeout = 0');
    try {
      return fn();
    } finally {
      this.conn.pragma(`busy_timeout = ${this.busyLimitMs}`);
    }
  }

  /**
   * The write lock was held by another process: queues `items` (nothing of them is written) to be
   * tried again shortly, ahead of what came since. False when `e` is another error, or when the lock
   * has been held for longer than the busy timeout.
   */
  private retryBusy(items: Pending[], e: unknown): boolean {
    if ((e as { code?: string }).code !== 'SQLITE_BUSY') return false;
    const now = Date.now();
    if (this.busySince === 0) this.busySince = now;
    else if (now - this.busySince >= this.busyLimitMs) {
      this.busySince = 0;
      return false;
    }
    reset(items);
    this.queue = items.concat(this.queue);
    if (!this.scheduled) {
      this.scheduled = true;
      setTimeout(this.flush, BUSY_RETRY_MS);
    }
    return true;
  }

  private stmt(q: Q): BetterSqlite3.Statement {
    let s = this.stmts.get(q);
    if (!s) {
      s = this.conn.prepare(sqlFor('sqlite', q));
      this.stmts.set(q, s);
    }
    return s;
  }

  private drive<T>(ops: Ops<T>): T {
    let r = ops.next();
    while (!r.done) {
      const s = this.stmt(r.value.q);
      let res: Res;
      if (s.reader) res = { changes: 0, rows: s.all(...r.value.params) as Record<string, unknown>[] };
      else {
        res = { changes: s.run(...r.value.params).changes, rows: [] };
        this.writes++;
      }
      r = ops.next(res);
    }
    return r.value;
  }
}

export class Ledger {
  /**
   * This node process, in the rows of its open reserves: the node id (NODE_ID) and a part new at
   * every start, so a restarted node never takes the open reserves of its previous process for its own.
   */
  readonly node: string;
  private readonly sqlite: SqliteDriver | null;
  private readonly compiled = new Map<Q, string>();
  private readonly balanceListeners: Array<(userId: number) => void> = [];

  constructor(private readonly core: Core) {
    this.node = `${core.config.nodeId.slice(0, 48)}.${randomBytes(4).toString('hex')}`;
    this.sqlite = core.h.sqlite ? new SqliteDriver(core.h.sqlite, core.config.sharedWriters) : null;
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
    this.moved(p.userId);
    return out;
  }

  /**
   * What `p` can spend now: the user's balance, and for a capped key the least of it and the key's
   * remainder, and of what its budgets have left in their periods (a read: the relay lowers a call's
   * output to it when the first reserve was refused).
   */
  async available(p: Payer): Promise<number> {
    const db = this.core.h.db;
    const u = await db.selectFrom('users').select('quota').where('id', '=', p.userId).executeTakeFirst();
    let n = Math.max(0, Number(u?.quota ?? 0));
    if (capped(p)) {
      const k = await db.selectFrom('api_keys').select('remain_quota').where('id', '=', p.keyId).executeTakeFirst();
      n = Math.min(n, Math.max(0, Number(k?.remain_quota ?? 0)));
    }
    if (Array.isArray(p.budgets)) {
      for (const b of p.budgets as readonly BudgetCharge[]) {
        const r = await db
          .selectFrom('budget_spend')
          .select('spent')
          .where('owner', '=', b.owner)
          .where('period_start', '=', b.start)
          .executeTakeFirst();
        n = Math.min(n, Math.max(0, b.quota - Number(r?.spent ?? 0)));
      }
    }
    return n;
  }

  /** Gives back what `ref` reserved. Returns false when the ref was already settled or refunded. */
  async refund(p: Payer, ref: string, reserved: number): Promise<boolean> {
    const amt = toUnits(reserved);
    const done = (await this.exec(() => closingOps(refundOps(p, ref, amt), ref), 0, 'refund', ref)) !== AlreadyDone;
    if (done) this.moved(p.userId);
    return done;
  }

  /** The name, group, role and balance of a credited user, for the credit's log row and its answer. */
  creditedUser(userId: number) {
    return this.core.h.db
      .selectFrom('users')
      .select(['username', 'group_name', 'quota', 'role'])
      .where('id', '=', userId)
      .executeTakeFirst();
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
   * `adjust` inside the caller's transaction `tx`: a credit that must commit or roll back with the
   * caller's other writes (the starting balance of an account made in that transaction). A ref used
   * before throws its unique violation, which rolls the caller's transaction back.
   */
  async adjustInTx(tx: Tx, userId: number, ref: string, amount: number, kind: 'topup' | 'adjust' = 'topup'): Promise<void> {
    const p: Payer = { userId, keyId: null, unlimitedKey: true };
    await this.driveAsync(tx, adjustOps(p, ref, kind, toUnits(amount)));
  }

  /**
   * Redeems redemption code `codeId` for `userId`: marks it used (only if it is enabled and not
   * expired at `now`) and credits its `amount` as a `topup` row with ref `ref`, in one transaction.
   * False when the code could not be claimed (used, disabled or expired meanwhile): nothing moved.
   */
  async redeemCode(userId: number, codeId: number, ref: string, amount: number, now = Date.now()): Promise<boolean> {
    return this.claimedCredit(userId, ref, amount, op('claimCode', [userId, now, codeId, now]));
  }

  /**
   * Credits payment `paymentId` once: marks it paid and credits `amount` as a `topup` row with ref
   * `ref` (the provider's id of the payment), in one transaction. False when it was already paid.
   */
  async creditPayment(userId: number, paymentId: number, ref: string, amount: number, now = Date.now()): Promise<boolean> {
    return this.claimedCredit(userId, ref, amount, op('claimPayment', [now, now, paymentId]));
  }

  private async claimedCredit(userId: number, ref: string, amount: number, claim: Op): Promise<boolean> {
    const amt = toUnits(amount);
    if (amt <= 0) throw new Error(`invalid credit amount ${amount}`);
    try {
      const done = (await this.exec(() => claimedCreditOps(userId, ref, amt, claim))) !== AlreadyDone;
      if (done) this.moved(userId);
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
  async openHolds(limit = 500): Promise<OpenHold[]> {
    const rows = await this.core.h.db
      .selectFrom('quota_holds')
      .selectAll()
      .where('closed', '=', 0)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      ref: r.ref,
      user_id: Number(r.user_id),
      key_id: r.key_id === null ? null : Number(r.key_id),
      amount: Number(r.amount),
      spent: Number(r.spent),
      held: Math.max(0, Number(r.amount) - Number(r.spent)),
      node: r.node,
      expires_at: Number(r.expires_at),
      created_at: Number(r.created_at),
    }));
  }

  /** Open holds whose lease ran out before `now` (at most `limit`). */
  async expiredHolds(now: number, limit = 100): Promise<ExpiredHold[]> {
    const rows = await this.core.h.db
      .selectFrom('quota_holds')
      .select(['ref', 'user_id', 'key_id', 'key_capped'])
      .where('closed', '=', 0)
      .where('expires_at', '<', now)
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      ref: r.ref,
      payer: { userId: Number(r.user_id), keyId: r.key_id === null ? null : Number(r.key_id), unlimitedKey: Number(r.key_capped) !== 1 },
    }));
  }

  /** What has moved for `ref`, by kind. */
  async movements(ref: string): Promise<Record<string, number>> {
    const rows = await this.core.h.db.selectFrom('ledger').select(['kind', 'amount']).where('ref', '=', ref).execute();
    return Object.fromEntries(rows.map((r) => [r.kind, Number(r.amount)]));
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
    const alone = () => withTx(this.core.h, (tx) => this.driveAsync(tx, make()));
    try {
      return await (this.sqlite ? this.sqlite.run(make, alone, deferMs) : alone());
    } catch (e) {
      if (isUniqueViolation(e)) return AlreadyDone;
      throw e;
    }
  }

  private async driveAsync<T>(tx: Tx, ops: Ops<T>): Promise<T> {
    let r = ops.next();
    while (!r.done) {
      const { q, params } = r.value;
      let text = this.compiled.get(q);
      if (text === undefined) {
        text = sqlFor(this.core.h.dialect, q);
        this.compiled.set(q, text);
      }
      const out = await tx.executeQuery(CompiledQuery.raw(text, params));
      r = ops.next({ changes: Number(out.numAffectedRows ?? 0n), rows: out.rows as Record<string, unknown>[] });
    }
    return r.value;
  }
}

function toUnits(n: number): number {
  if (!Number.isFinite(n)) throw new Error(`invalid quota amount ${n}`);
  return Math.round(n);
}
