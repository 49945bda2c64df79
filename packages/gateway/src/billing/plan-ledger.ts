/**
 * The ledger's movements on plans' windows (billing/plan-windows.ts says the rule), as statements of
 * ledger-statements.ts, which runs them inside a reserve, an extension, a settle or a refund.
 *
 * A plan's spend is rows of `budget_spend` per minute (owner `p:<subscription id>`). A reserve, with
 * the holder's row already locked (the user's; the team's for a team key's call: lockPlanHolder), sums each window's rows, and when every window has room for the
 * call's reserve adds it to the row of its minute and records that row for the ref in
 * `budget_reserves` (as a period budget records its rows): the settle or refund corrects exactly that
 * row. A call past a window is refused with 429 and `retryAfter` (when enough of the window's oldest
 * spend has left for this reserve), or (overflow `balance`) left to the balance.
 */
import { fail } from '../platform/errors.ts';
import type { Payer } from './budgets.ts';
import type { Ops, Q } from './ledger-statements.ts';
import { roomAt, windowMessage, type PlanCharge, type PlanWindowCharge } from './plan-windows.ts';

const op = (q: Q, params: unknown[]) => ({ q, params });

/**
 * Locks the row that orders a plan holder's movements: the team's for a call of a team's key (every key
 * of the team draws on the team's plan), else the user's.
 */
export function lockPlanHolder(p: Payer): { q: Q; params: unknown[] } {
  return typeof p.teamId === 'number' ? op('lockTeam', [p.teamId]) : op('lockUser', [p.userId]);
}

/** Locks team `teamId`'s row for the rest of the transaction (a purchase of a free plan). */
export function* lockTeamOps(teamId: number): Ops<void> {
  yield op('lockTeam', [teamId]);
}

/** A recorded row of a ref (`budget_reserves`). */
export interface RefRow {
  owner: string;
  period_start: number;
}

/** The plan's row among a ref's recorded rows; undefined when the ref was not drawn on a plan. */
export function planRowOf(rows: readonly RefRow[]): RefRow | undefined {
  return rows.find((r) => r.owner.startsWith('p:'));
}

/**
 * Adds `amt` to the plan's minute row `bucket` (default: the charge's) when every window has room for
 * it: true. When one has none: false with overflow `balance`, else 429 with the moment the last of the
 * full windows has room (`retryAfter` seconds). A reserve (`ref`) records the row.
 */
export function* planTakeOps(plan: PlanCharge, amt: number, ref: string | null, bucket = plan.bucket): Ops<boolean> {
  const full: PlanWindowCharge[] = [];
  for (const w of plan.windows) {
    const sum = Number((yield op('planSum', [plan.owner, w.from])).rows[0]?.v ?? 0);
    if (sum + amt > w.quota) full.push(w);
  }
  if (full.length > 0) {
    if (plan.overflow === 'balance') return false;
    let until = 0;
    let which = full[0];
    for (const w of full) {
      const rows = (yield op('planRows', [plan.owner, w.from])).rows.map((r) => ({
        start: Number(r.period_start),
        spent: Number(r.spent),
      }));
      const at = roomAt(w, rows, amt);
      if (at > until) [until, which] = [at, w];
    }
    const retryAfter = Math.max(1, Math.ceil((until - plan.at) / 1000));
    throw Object.assign(fail('insufficient_quota', windowMessage(plan.name, which, until)), { retryAfter });
  }
  yield op('budgetRow', [plan.owner, bucket]);
  yield op('budgetAdd', [amt, plan.owner, bucket]);
  if (ref !== null) yield op('budgetRef', [ref, plan.owner, bucket]);
  return true;
}
