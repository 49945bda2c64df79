/**
 * The usage windows of plans (billing/plans.ts, docs/billing.md#plans): their lengths, the spend
 * buckets a window sums, what a reserve takes against them and when a refused call may try again.
 *
 * The rule: a window `{every, quota}` is rolling — in any span of length `every` ending now, what the
 * plan's calls spent is at most `quota`. What a subscription's calls spent is kept per minute: one row
 * of `budget_spend` per (owner `p:<subscription id>`, minute start), moved by the ledger. A call's
 * reserve (its upper bound) is added to the row of the minute it is admitted in and stays there until
 * its settle corrects it to what was charged, so calls in flight count in full. A window sums the rows
 * of its last `every`, the minute `every` ago included whole: spend counts until the end of its minute
 * plus `every` — at most a minute longer than strictly due, never shorter, so a window is never passed.
 * The reserve reads the sums and adds to its minute with every other movement of the user locked out
 * (the user's row locked first: one plan reserve of a user at a time on every node), so windows are
 * exact under concurrency and across nodes.
 */

/** The granularity of the spend rows (ms). */
export const BUCKET_MS = 60_000;

/** One window of a plan as an operator writes it: `every` (`5h`, `7d`, `30m`) and its quota. */
export interface PlanWindow {
  every: string;
  /** Quota units per window. */
  quota: number;
}

/** A window as a reserve takes it: its length, the first minute row it sums, its quota. */
export interface PlanWindowCharge {
  every: string;
  /** Its length (ms). */
  len: number;
  /** The start of the oldest minute row the window counts at the charge's moment. */
  from: number;
  quota: number;
  /** The same in USD (for messages). */
  usd: number;
}

/** What a call drawing on a plan takes: its spend rows, the windows of now, and what happens past one. */
export interface PlanCharge {
  planId: number;
  name: string;
  overflow: PlanOverflow;
  /** The subscription's spend rows (`budget_spend.owner`). */
  owner: string;
  /** The moment the call is admitted at (the plans' clock). */
  at: number;
  /** The minute row the call's spend is added to. */
  bucket: number;
  windows: readonly PlanWindowCharge[];
}

export type PlanOverflow = 'refuse' | 'balance';
export const PLAN_OVERFLOWS: readonly PlanOverflow[] = ['refuse', 'balance'];

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** The length of `every` in ms (`30m`, `5h`, `7d`, `1w`); null when it is not one (or out of 1 minute – 366 days). */
export function everyMs(every: string): number | null {
  const m = /^([1-9][0-9]{0,5})([mhdw])$/.exec(every.trim());
  if (!m) return null;
  const ms = Number(m[1]) * UNIT_MS[m[2]];
  return ms >= 60_000 && ms <= 366 * 86_400_000 ? ms : null;
}

/** The start of the minute row `at` falls in. */
export function bucketOf(at: number): number {
  return Math.floor(at / BUCKET_MS) * BUCKET_MS;
}

/** The spend rows' owner of a subscription. */
export function planOwner(subscriptionId: number): string {
  return `p:${subscriptionId}`;
}

/** The charge of a call of subscription `subscriptionId` on `windows` at `now`. */
export function planCharge(
  plan: { planId: number; name: string; overflow: PlanOverflow },
  subscriptionId: number,
  windows: readonly PlanWindow[],
  now: number,
  quotaPerUsd: number,
): PlanCharge {
  return {
    ...plan,
    owner: planOwner(subscriptionId),
    at: now,
    bucket: bucketOf(now),
    windows: windows.map((w) => {
      const len = everyMs(w.every) ?? 3_600_000;
      return { every: w.every, len, from: bucketOf(now - len), quota: w.quota, usd: Math.round((w.quota / quotaPerUsd) * 1e6) / 1e6 };
    }),
  };
}

/** When spend in minute row `start` leaves a window of length `len`. */
export function leavesAt(start: number, len: number): number {
  return start + BUCKET_MS + len;
}

/**
 * When window `w` (summing `rows`, oldest first) has room for `need` more at quota: the moment enough
 * of its oldest spend has left; when `need` alone is over the quota, when all of it has left.
 */
export function roomAt(w: PlanWindowCharge, rows: ReadonlyArray<{ start: number; spent: number }>, need: number): number {
  const total = rows.reduce((s, r) => s + r.spent, 0);
  const excess = total + need - w.quota;
  let freed = 0;
  let last = w.from;
  for (const r of rows) {
    if (r.spent === 0) continue;
    freed += r.spent;
    last = r.start;
    if (need <= w.quota && freed >= excess) return leavesAt(r.start, w.len);
  }
  return leavesAt(last, w.len);
}

/** The refusal's text of a call past a window, with when it has room again. */
export function windowMessage(planName: string, w: PlanWindowCharge, until: number): string {
  const at = new Date(until).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `quota exhausted: the ${w.every} window of plan "${planName}" ($${w.usd}) has no room for this request until ${at}`;
}
