/**
 * The ledger's statements (billing/ledger.ts): every SQL statement on the money tables — `ledger`,
 * `quota_holds`, `open_reserves`, `budget_spend`, `budget_reserves`, the balance columns of `users`
 * and `api_keys`, the wallet columns of `teams` (a payer with `teamId` draws on its team's wallet
 * instead of its user's balance), and the claim of what a credit uses up (`redemptions`, `payments`) — and nothing
 * else. Each movement is a generator of fixed statements (`?` placeholders, no query building): the
 * drivers run it, prepared once on SQLite (ledger-sqlite.ts) or as precompiled queries in a Kysely
 * transaction (ledger-kysely.ts), and feed each statement's result back to it. The reads that are no
 * movement (balances, holds, open reserves, a user's history) are Kysely queries at the end.
 */
import type { Kysely } from 'kysely';
import { GatewayError, fail } from '../platform/errors.ts';
import type { Dialect } from '../store/db.ts';
import type { Database } from '../store/schema.ts';
import { budgetMessage, type BudgetCharge, type Payer } from './budgets.ts';
import { lockPlanHolder, planRowOf, planTakeOps, type RefRow } from './plan-ledger.ts';

const LEDGER_COLS = 'INSERT INTO ledger (user_id, key_id, team_id, ref, kind, amount, created_at) VALUES ';

/** Every statement the ledger runs, with `?` placeholders. */
const SQL = {
  insertOne: `${LEDGER_COLS}(?, ?, ?, ?, ?, ?, ?)`,
  insertTwo: `${LEDGER_COLS}(?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?)`,
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
  // ---- team wallets (a payer with teamId): the same movements on `teams` instead of `users` ----
  takeTeam: 'UPDATE teams SET quota = quota - ? WHERE id = ? AND quota >= ?',
  giveTeam: 'UPDATE teams SET quota = quota + ? WHERE id = ?',
  settleTeamGive: 'UPDATE teams SET quota = quota + ?, used_quota = used_quota + ?, request_count = request_count + 1 WHERE id = ?',
  settleTeamTake:
    'UPDATE teams SET quota = quota - ?, used_quota = used_quota + ?, request_count = request_count + 1 WHERE id = ? AND quota >= ?',
  teamQuota: 'SELECT quota AS v FROM teams WHERE id = ?',
  closedRef: "SELECT 1 AS v FROM ledger WHERE ref = ? AND kind = 'close'",
  // ---- holds (billing/allowance.ts) ----
  insertHold:
    'INSERT INTO quota_holds (ref, user_id, key_id, key_capped, amount, spent, node, expires_at, closed, created_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?, 0, ?)',
  /** A request's row inside a hold; written at most once per request (the dialect's "insert or ignore"). */
  insertSpend: `${LEDGER_COLS}(?, ?, NULL, ?, 'spend', ?, ?)`,
  spendHold: 'UPDATE quota_holds SET spent = spent + ?, expires_at = ? WHERE ref = ? AND closed = 0',
  usedUser: 'UPDATE users SET used_quota = used_quota + ?, request_count = request_count + ? WHERE id = ?',
  closeHold: 'UPDATE quota_holds SET closed = 1 WHERE ref = ? AND closed = 0',
  holdState: 'SELECT amount, spent FROM quota_holds WHERE ref = ?',
  // ---- open relay reserves (billing/recovery.ts) ----
  insertOpen: 'INSERT INTO open_reserves (ref, user_id, key_id, team_id, key_capped, node, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  dropOpen: 'DELETE FROM open_reserves WHERE ref = ?',
  // ---- period budgets (billing/budgets.ts) ----
  /** The period's row, made when missing (the dialect's "insert or ignore"). */
  budgetRow: 'INSERT INTO budget_spend (owner, period_start, spent) VALUES (?, ?, 0)',
  budgetTake: 'UPDATE budget_spend SET spent = spent + ? WHERE owner = ? AND period_start = ? AND spent + ? <= ?',
  budgetRef: 'INSERT INTO budget_reserves (ref, owner, period_start) VALUES (?, ?, ?)',
  /** settle / refund: the rows the ref's reserve was taken against (each then corrected by its key). */
  budgetRefs: 'SELECT owner, period_start FROM budget_reserves WHERE ref = ?',
  budgetAdd: 'UPDATE budget_spend SET spent = spent + ? WHERE owner = ? AND period_start = ?',
  budgetRefsDrop: 'DELETE FROM budget_reserves WHERE ref = ?',
  // ---- plan windows (billing/plan-ledger.ts): minute rows of owner `p:<subscription id>` ----
  /** What a plan spent since a minute (read with the user's row locked; MySQL reads it locking, past its snapshot). */
  planSum: 'SELECT COALESCE(SUM(spent), 0) AS v FROM budget_spend WHERE owner = ? AND period_start >= ?',
  /** The same row by row, oldest first (a refusal's Retry-After). */
  planRows: 'SELECT period_start, spent FROM budget_spend WHERE owner = ? AND period_start >= ? ORDER BY period_start',
  // lockUser orders the movements of one user as a balance take does (its row locked first): two reserves
  // on one plan's windows never lock their period rows in crossed order (MySQL's insert-or-ignore takes a
  // shared lock on a row that exists); lockTeam the same for a team's plan, which all its keys share.
  lockUser: 'UPDATE users SET quota = quota WHERE id = ?',
  lockTeam: 'UPDATE teams SET quota = quota WHERE id = ?',
  /** A team's plan call settled: counted on the team as its wallet's calls are. */
  usedTeam: 'UPDATE teams SET used_quota = used_quota + ?, request_count = request_count + ? WHERE id = ?',
  // ---- credits that use something up (billing/redemption.ts, billing/payments/) ----
  claimCode:
    'UPDATE redemptions SET status = 3, used_user_id = ?, redeemed_at = ? WHERE id = ? AND status = 1 AND (expires_at = 0 OR expires_at > ?)',
  claimPayment: "UPDATE payments SET status = 'paid', paid_at = ?, updated_at = ? WHERE id = ? AND status <> 'paid'",
} as const;
export type Q = keyof typeof SQL;
/** Reads that lock the row on PostgreSQL/MySQL (SQLite's BEGIN IMMEDIATE already excludes writers). */
const LOCKING: ReadonlySet<Q> = new Set<Q>(['userQuota', 'keyQuota', 'teamQuota', 'holdState']);

export interface Op {
  q: Q;
  params: unknown[];
}
export interface Res {
  changes: number;
  rows: Record<string, unknown>[];
}
export type Ops<T> = Generator<Op, T, Res>;

export const op = (q: Q, params: unknown[]): Op => ({ q, params });

function insufficient(which: 'user' | 'key' | 'team'): GatewayError {
  if (which === 'user') return fail('insufficient_quota', 'quota exhausted: the account balance is too low for this request');
  if (which === 'team') return fail('insufficient_quota', "quota exhausted: the team's balance is too low for this request");
  return fail('insufficient_quota');
}

/** The team whose wallet pays (null: the user's balance). */
const teamOf = (p: Payer): number | null => (typeof p.teamId === 'number' ? p.teamId : null);

export const capped = (p: Payer): p is Payer & { keyId: number } => p.keyId !== null && !p.unlimitedKey;

/** Placeholders `?` → `$1, $2, …` for PostgreSQL. */
function numbered(s: string): string {
  let i = 0;
  return s.replace(/\?/g, () => `$${++i}`);
}

export function sqlFor(dialect: Dialect, q: Q): string {
  let s: string = SQL[q];
  if ((LOCKING.has(q) && dialect !== 'sqlite') || (q === 'planSum' && dialect === 'mysql')) s += ' FOR UPDATE';
  if (q === 'insertSpend' || q === 'budgetRow') {
    if (dialect === 'sqlite') s = s.replace('INSERT INTO', 'INSERT OR IGNORE INTO');
    else if (dialect === 'mysql') s = s.replace('INSERT INTO', 'INSERT IGNORE INTO');
    else s += ' ON CONFLICT DO NOTHING';
  }
  return dialect === 'postgres' ? numbered(s) : s;
}

// ---------- the movements, as statements ----------

/** Takes `n` from the user and the key's cap, all or nothing (429 otherwise). */
function* takeStrict(p: Payer, n: number): Ops<void> {
  if (n <= 0) return;
  const team = teamOf(p);
  if (team !== null) {
    if ((yield op('takeTeam', [n, team, n])).changes !== 1) throw insufficient('team');
  } else if ((yield op('takeUser', [n, p.userId, n])).changes !== 1) throw insufficient('user');
  if (capped(p) && (yield op('takeKey', [n, p.keyId, n])).changes !== 1) throw insufficient('key');
}

function* give(p: Payer, n: number): Ops<void> {
  if (n <= 0) return;
  const team = teamOf(p);
  yield team !== null ? op('giveTeam', [n, team]) : op('giveUser', [n, p.userId]);
  if (capped(p)) yield op('giveKey', [n, p.keyId]);
}

function row(p: Payer, ref: string, kind: string, amount: number, now: number): unknown[] {
  return [p.userId, p.keyId, teamOf(p), ref, kind, amount, now];
}

export function* reserveOps(p: Payer, ref: string, amt: number): Ops<void> {
  yield op('insertOne', row(p, ref, 'reserve', amt, Date.now()));
  // A call on a plan is taken from its windows instead of the balance (and still from the key's cap and
  // the budgets); past one, refused or (overflow `balance`) charged as any other.
  if (typeof p.plan === 'object') {
    yield lockPlanHolder(p);
    if (yield* planTakeOps(p.plan, amt, ref)) {
      yield* takeKeyCap(p, amt);
      if (Array.isArray(p.budgets)) yield* budgetTakeOps(p.budgets, amt, ref);
      return;
    }
  }
  yield* takeStrict(p, amt);
  if (Array.isArray(p.budgets)) yield* budgetTakeOps(p.budgets, amt, ref);
}

/** A plan call's take from its key's cap (the balance is not taken): all or nothing. */
function* takeKeyCap(p: Payer, n: number): Ops<void> {
  if (n > 0 && capped(p) && (yield op('takeKey', [n, p.keyId, n])).changes !== 1) throw insufficient('key');
}

/** The rows `ref` recorded (its budgets' periods, its plan's minute), read only for payers that may have some. */
function* refRowsOps(p: Payer, ref: string): Ops<RefRow[]> {
  if (!p.plan && !p.budgets) return [];
  const r = yield op('budgetRefs', [ref]);
  return r.rows.map((x) => ({ owner: String(x.owner), period_start: Number(x.period_start) }));
}

/** Takes `amt` more for an open ref (row kind `extend:<n>`, once per n); its settle then counts it as reserved. */
export function* extendOps(p: Payer, ref: string, n: number, amt: number): Ops<void> {
  // A ref already closed (by recovery, while its node stalled) takes nothing more: the caller ends the call.
  if ((yield op('closedRef', [ref])).rows.length > 0) throw fail('reserve_closed');
  yield op('insertOne', row(p, ref, `extend:${n}`, amt, Date.now()));
  const planRow = typeof p.plan === 'object' ? planRowOf(yield* refRowsOps(p, ref)) : undefined;
  if (typeof p.plan === 'object' && planRow) {
    // A call on a plan extends within its windows only (added to its reserve's minute): past one its
    // stream ends, as on an empty balance. Its key's cap and budgets are taken as for the reserve.
    yield lockPlanHolder(p);
    yield* planTakeOps({ ...p.plan, overflow: 'refuse' }, amt, null, planRow.period_start);
    yield* takeKeyCap(p, amt);
    if (Array.isArray(p.budgets)) yield* budgetTakeOps(p.budgets, amt, null);
    return;
  }
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

/** A settle or refund of a ref with recorded rows: each corrected by `delta` (charged − reserved), then released. */
function* budgetCloseOps(rows: readonly RefRow[], ref: string, delta: number): Ops<void> {
  if (!rows.length) return;
  if (delta !== 0) for (const r of rows) yield op('budgetAdd', [delta, r.owner, r.period_start]);
  yield op('budgetRefsDrop', [ref]);
}

export function* adjustOps(p: Payer, ref: string, kind: string, amt: number): Ops<void> {
  yield op('insertOne', row(p, ref, kind, -amt, Date.now()));
  if (amt >= 0) yield* give(p, amt);
  else yield* takeStrict(p, -amt);
}

export function* refundOps(p: Payer, ref: string, amt: number): Ops<void> {
  const now = Date.now();
  const rows = yield* refRowsOps(p, ref);
  yield op('insertTwo', [...row(p, ref, 'close', 0, now), ...row(p, ref, 'refund', -amt, now)]);
  if (planRowOf(rows)) {
    // Drawn on a plan: the balance was not taken; the key's cap and the windows and budgets are given back.
    yield lockPlanHolder(p);
    if (capped(p) && amt > 0) yield op('giveKey', [amt, p.keyId]);
  } else {
    yield* give(p, amt);
  }
  yield* budgetCloseOps(rows, ref, -amt);
}

export function* settleOps(p: Payer, ref: string, res: number, act: number): Ops<{ charged: number; shortfall: number }> {
  const now = Date.now();
  const delta = act - res;
  const rows = yield* refRowsOps(p, ref);
  if (planRowOf(rows)) {
    // Drawn on a plan: the balance does not move; the windows, the budgets and the key's cap count
    // what was charged at the plan's price, even past their quota (the call has happened; the cap as
    // far as it goes).
    yield op('insertTwo', [...row(p, ref, 'close', 0, now), ...row(p, ref, 'settle', delta, now)]);
    const team = teamOf(p);
    yield team !== null ? op('usedTeam', [act, 1, team]) : op('usedUser', [act, 1, p.userId]);
    if (capped(p) && delta < 0) yield op('settleKeyGive', [-delta, act, now, p.keyId]);
    else if (capped(p) && delta > 0) {
      const k = yield op('keyQuota', [p.keyId]);
      const n = Math.min(delta, Math.max(0, Number(k.rows[0]?.v ?? 0)));
      yield op('settleKeyTake', [n, act, now, p.keyId, n]);
    } else if (p.keyId !== null) yield op('settleKeyUsed', [act, now, p.keyId]);
    yield* budgetCloseOps(rows, ref, delta);
    return { charged: act, shortfall: 0 };
  }
  if (delta <= 0) {
    // Gives back (or nothing): the outcome is known, so both ledger rows go in one INSERT.
    yield op('insertTwo', [...row(p, ref, 'close', 0, now), ...row(p, ref, 'settle', delta, now)]);
    const team = teamOf(p);
    yield team !== null ? op('settleTeamGive', [-delta, act, team]) : op('settleUserGive', [-delta, act, p.userId]);
    if (capped(p)) yield op('settleKeyGive', [-delta, act, now, p.keyId]);
    else if (p.keyId !== null) yield op('settleKeyUsed', [act, now, p.keyId]);
    yield* budgetCloseOps(rows, ref, delta);
    return { charged: act, shortfall: 0 };
  }
  // More is due than was reserved: take what the balances allow (read under lock), the rest is a shortfall.
  yield op('insertOne', row(p, ref, 'close', 0, now));
  let n = delta;
  const team = teamOf(p);
  const u = yield team !== null ? op('teamQuota', [team]) : op('userQuota', [p.userId]);
  n = Math.min(n, Math.max(0, Number(u.rows[0]?.v ?? 0)));
  if (capped(p) && n > 0) {
    const k = yield op('keyQuota', [p.keyId]);
    n = Math.min(n, Math.max(0, Number(k.rows[0]?.v ?? 0)));
  }
  const charged = res + n;
  if (team !== null) {
    if ((yield op(n > 0 ? 'settleTeamTake' : 'settleTeamGive', n > 0 ? [n, charged, team, n] : [0, charged, team])).changes !== 1)
      throw insufficient('team');
  } else if (n > 0) {
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
  yield* budgetCloseOps(rows, ref, n);
  return { charged, shortfall: delta - n };
}

// ---------- open relay reserves (billing/recovery.ts) ----------

/** A reserve recorded as open on `node` in the same transaction: recovery closes it if that node dies first. */
export function* openReserveOps(p: Payer, ref: string, amt: number, node: string): Ops<void> {
  yield* reserveOps(p, ref, amt);
  yield op('insertOpen', [ref, p.userId, p.keyId, teamOf(p), capped(p) ? 1 : 0, node, Date.now()]);
}

/** A settle or refund, then the end of the ref's open-reserve row (if any), in the same transaction. */
export function* closingOps<T>(ops: Ops<T>, ref: string): Ops<T> {
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
export class NotEligible extends Error {}

/**
 * Takes `amount` for a hold when the balance (and the key's cap) hold at least `amount * share`:
 * the hold never takes more than 1/share of what is there. False (nothing written) otherwise.
 */
export function* holdOps(p: Payer, ref: string, amount: number, share: number, node: string, expiresAt: number): Ops<boolean> {
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
export function* spendOps(p: Payer, holdRef: string, items: readonly SpendItem[], expiresAt: number): Ops<SpendResult> {
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
export function* renewOps(holdRef: string, expiresAt: number): Ops<boolean> {
  return (yield op('spendHold', [0, expiresAt, holdRef])).changes === 1;
}

/**
 * Closes a hold once (its owner on release, or any node after its lease ran out): gives back
 * `amount - spent`, or takes what was spent beyond the hold as far as the balance goes. Null when it
 * was already closed.
 */
export function* closeHoldOps(p: Payer, ref: string): Ops<{ returned: number; shortfall: number } | null> {
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
export class NotClaimed extends Error {}

/**
 * A `topup` of `amt` for `ref` that first uses up what pays for it (a redemption code: enabled, not
 * expired → used; a payment: → paid) with a conditional UPDATE in the same transaction. Of any
 * number of concurrent or repeated calls, one claims the row and credits (the payer's balance, or its team's wallet); the others write nothing.
 */
export function* claimedCreditOps(p: Payer, ref: string, amt: number, claim: Op): Ops<void> {
  if ((yield claim).changes !== 1) throw new NotClaimed();
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

// ---------- reads (no movement) ----------

type Db = Kysely<Database>;

/**
 * What `p` can spend now: the user's balance, and for a capped key the least of it and the key's
 * remainder, and of what its budgets have left in their periods.
 */
export async function availableTo(db: Db, p: Payer): Promise<number> {
  const team = teamOf(p);
  const u =
    team !== null
      ? await db.selectFrom('teams').select('quota').where('id', '=', team).executeTakeFirst()
      : await db.selectFrom('users').select('quota').where('id', '=', p.userId).executeTakeFirst();
  let n = Math.max(0, Number(u?.quota ?? 0));
  let key = Number.MAX_SAFE_INTEGER;
  if (capped(p)) {
    const k = await db.selectFrom('api_keys').select('remain_quota').where('id', '=', p.keyId).executeTakeFirst();
    key = Math.max(0, Number(k?.remain_quota ?? 0));
    n = Math.min(n, key);
  }
  if (typeof p.plan === 'object') {
    // A plan call: what every window has left (and the key's cap), or the balance past them (overflow `balance`).
    let left = key;
    for (const w of p.plan.windows) left = Math.min(left, Math.max(0, w.quota - (await planSpentSince(db, p.plan.owner, w.from))));
    if (p.plan.overflow === 'refuse' || left >= n) n = left;
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

/** What a plan's minute rows `owner` hold since minute `from` (reserves in flight included). */
async function planSpentSince(db: Db, owner: string, from: number): Promise<number> {
  const rows = await planSpend(db, owner, from);
  return rows.reduce((s, r) => s + r.spent, 0);
}

/** A plan's minute rows since `from`, oldest first (billing/plans.ts shows its windows with them). */
export async function planSpend(db: Db, owner: string, from: number): Promise<Array<{ start: number; spent: number }>> {
  const rows = await db
    .selectFrom('budget_spend')
    .select(['period_start', 'spent'])
    .where('owner', '=', owner)
    .where('period_start', '>=', from)
    .orderBy('period_start')
    .execute();
  return rows.map((r) => ({ start: Number(r.period_start), spent: Number(r.spent) }));
}

/** The name, group, role and balance of a credited user. */
export function creditedUser(db: Db, userId: number) {
  return db.selectFrom('users').select(['username', 'group_name', 'quota', 'role']).where('id', '=', userId).executeTakeFirst();
}

/** The period rows of budget owners `owners` (every period kept). */
export function budgetRows(db: Db, owners: readonly string[]) {
  return db
    .selectFrom('budget_spend')
    .select(['owner', 'period_start', 'spent'])
    .where('owner', 'in', [...owners])
    .execute();
}

/** Open holds of every node, newest first (at most `limit`), with what each has not spent. */
export async function openHolds(db: Db, limit: number): Promise<OpenHold[]> {
  const rows = await db.selectFrom('quota_holds').selectAll().where('closed', '=', 0).orderBy('created_at', 'desc').limit(limit).execute();
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
export async function expiredHolds(db: Db, now: number, limit: number): Promise<ExpiredHold[]> {
  const rows = await db
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

/** The ledger rows of `ref`: its kind and amount each. */
export function rowsOf(db: Db, ref: string) {
  return db.selectFrom('ledger').select(['kind', 'amount']).where('ref', '=', ref).execute();
}

/** A page of a user's (or, given `teamId`, a team's) ledger rows, newest first (`close` rows left out), and how many there are. */
export async function historyOf(db: Db, userId: number, limit: number, offset: number, teamId?: number) {
  const base = db
    .selectFrom('ledger')
    .where(teamId === undefined ? 'user_id' : 'team_id', '=', teamId ?? userId)
    .where('kind', '!=', 'close');
  const [rows, total] = await Promise.all([
    base
      .select(['id', 'ref', 'kind', 'amount', 'key_id', 'user_id', 'created_at'])
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}

/** The open reserves of node process `node`, oldest first (at most `limit`). */
export function openReservesOf(db: Db, node: string, limit: number) {
  return db
    .selectFrom('open_reserves')
    .select(['ref', 'user_id', 'key_id', 'team_id', 'key_capped'])
    .where('node', '=', node)
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

/** The node processes other than `except` that have open reserves. */
export async function openReserveNodes(db: Db, except: string): Promise<string[]> {
  return (await db.selectFrom('open_reserves').select('node').distinct().where('node', '!=', except).execute()).map((r) => r.node);
}

/** Drops the open-reserve row of `ref` (one that outlived its close). */
export async function dropOpenReserve(db: Db, ref: string): Promise<void> {
  await db.deleteFrom('open_reserves').where('ref', '=', ref).execute();
}
