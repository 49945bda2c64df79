/**
 * The usage windows of plans (billing/plans.ts, docs/billing.md#plans): their lengths, the window a
 * moment falls in, and what a reserve takes against them.
 *
 * The rule: a window of length `every` is one of the consecutive periods of that length counted from
 * the start of the subscription (its `started_at`); its quota counts what the calls reserved and
 * settled in that period, and it is whole again when the period ends (the reset a refusal names in
 * `Retry-After`). Each period is one row of `budget_spend` (owner `p:<subscription id>:<every in
 * seconds>`), moved by the ledger with the same conditional UPDATE as a period budget, so a window is
 * exact under concurrency and across nodes.
 */

/** One window of a plan as an operator writes it: `every` (`5h`, `7d`, `30m`) and its quota. */
export interface PlanWindow {
  every: string;
  /** Quota units per window. */
  quota: number;
}

/** A window as a reserve takes it: its period row, its quota and when it ends. */
export interface PlanWindowCharge {
  owner: string;
  every: string;
  start: number;
  /** When the period ends (exclusive): the refusal's reset. */
  end: number;
  quota: number;
  /** The same in USD (for messages). */
  usd: number;
}

/** What a call drawing on a plan takes: the windows of now, and what happens past one of them. */
export interface PlanCharge {
  planId: number;
  name: string;
  overflow: PlanOverflow;
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

/** The start of the window of length `len` that `now` falls in, counted from `anchor`. */
export function windowStart(anchor: number, len: number, now: number): number {
  return anchor + Math.floor((now - anchor) / len) * len;
}

/** The period row's owner of a subscription's window. */
export function windowOwner(subscriptionId: number, len: number): string {
  return `p:${subscriptionId}:${Math.round(len / 1000)}`;
}

/** The windows of a subscription started at `anchor`, at `now`. */
export function windowCharges(
  subscriptionId: number,
  anchor: number,
  windows: readonly PlanWindow[],
  now: number,
  quotaPerUsd: number,
): PlanWindowCharge[] {
  return windows.map((w) => {
    const len = everyMs(w.every) ?? 3_600_000;
    const start = windowStart(anchor, len, now);
    return {
      owner: windowOwner(subscriptionId, len),
      every: w.every,
      start,
      end: start + len,
      quota: w.quota,
      usd: Math.round((w.quota / quotaPerUsd) * 1e6) / 1e6,
    };
  });
}

/** The refusal's text of a call past a window. */
export function windowMessage(planName: string, w: PlanWindowCharge): string {
  const until = new Date(w.end).toISOString().replace('.000Z', 'Z');
  return `quota exhausted: the ${w.every} window of plan "${planName}" ($${w.usd}) is used up until ${until}`;
}
