/**
 * The limit fields a key and a user share in the admin API and the configuration file
 * (docs/limits.md): `rpm`, `tpm`, `max_concurrency` (null or 0 = no limit) and a period budget,
 * `budget` (quota units) or `budget_usd` with `budget_period` (`day`, `week`, `month`; null = none).
 */
import { BUDGET_PERIODS, budgetOf, type BudgetPeriod, type Budgets } from '../billing/budgets.ts';
import { fieldError, quotaToUsd, usdToQuota, type Reader } from '../platform/validate.ts';

export const LIMIT_FIELDS = ['rpm', 'tpm', 'max_concurrency', 'budget', 'budget_usd', 'budget_period'];

/** Limits as given (0 = none; a null budget or period = no budget). */
export interface LimitInput {
  rpm?: number;
  tpm?: number;
  max_concurrency?: number;
  /** Quota units per period (from `budget` or `budget_usd`). */
  budget_quota?: number | null;
  budget_period?: BudgetPeriod | null;
}

export interface LimitView {
  /** Requests per minute; null = no limit. */
  rpm: number | null;
  /** Tokens (input + output) per minute; null = no limit. */
  tpm: number | null;
  /** Calls in flight at once (a stream until it ends); null = no limit. */
  max_concurrency: number | null;
  /** What may be spent per period, in quota units and USD; null = no budget. */
  budget: number | null;
  budget_usd: number | null;
  budget_period: BudgetPeriod | null;
  /** What the current period has spent (reserves in flight included), and when it ends. */
  budget_spent: number | null;
  budget_spent_usd: number | null;
  budget_resets_at: number | null;
}

/** The columns a row stores its limits in. */
export interface LimitColumns {
  rpm: number;
  tpm: number;
  max_concurrency: number;
  budget_quota: number | null;
  budget_period: string | null;
}

const MAX = { rpm: 1e9, tpm: 1e12, max_concurrency: 1e6 };

/** Reads the limit fields present in `r` into `out`. */
export function parseLimits(r: Reader, out: LimitInput, quotaPerUsd: number, mode: 'create' | 'update'): void {
  for (const k of ['rpm', 'tpm', 'max_concurrency'] as const) {
    if (r.obj[k] === null) out[k] = 0;
    else if (r.has(k)) out[k] = r.num(k, { int: true, min: 0, max: MAX[k] });
  }
  if (r.has('budget') && r.has('budget_usd')) throw fieldError(r.path('budget_usd'), 'give budget (quota units) or budget_usd, not both');
  if (r.obj.budget === null || r.obj.budget_usd === null) out.budget_quota = null;
  else if (r.has('budget')) out.budget_quota = r.num('budget', { int: true, min: 0, max: 1e15 });
  else if (r.has('budget_usd')) out.budget_quota = usdToQuota(r.num('budget_usd', { min: 0, max: 1e9 })!, quotaPerUsd);
  if (r.obj.budget_period === null) out.budget_period = null;
  else if (r.has('budget_period')) out.budget_period = r.oneOf('budget_period', BUDGET_PERIODS);
  // A budget needs its period; no period means no budget.
  if (out.budget_period === null && out.budget_quota === undefined) out.budget_quota = null;
  if (out.budget_quota === null && out.budget_period === undefined) out.budget_period = null;
  if (mode === 'create') checkBudgetPair({ budget_quota: null, budget_period: null }, out, (k) => r.path(k));
  else if (out.budget_period && out.budget_quota === null) throw fieldError(r.path('budget'), 'is required with a budget_period');
}

/** The columns of the limits given (for an insert: every column, absent ones off). */
export function limitColumns(input: LimitInput, all: boolean): Partial<LimitColumns> {
  const out: Partial<LimitColumns> = {};
  for (const k of ['rpm', 'tpm', 'max_concurrency'] as const) {
    if (input[k] !== undefined) out[k] = input[k];
    else if (all) out[k] = 0;
  }
  if (input.budget_quota !== undefined) out.budget_quota = input.budget_quota;
  else if (all) out.budget_quota = null;
  if (input.budget_period !== undefined) out.budget_period = input.budget_period;
  else if (all) out.budget_period = null;
  return out;
}

/** Throws unless a row with `cur` and the change `input` ends with both a budget and its period, or neither. */
export function checkBudgetPair(cur: { budget_quota: unknown; budget_period: unknown }, input: LimitInput, path = (k: string) => k): void {
  const quota = input.budget_quota !== undefined ? input.budget_quota : cur.budget_quota;
  const period = input.budget_period !== undefined ? input.budget_period : cur.budget_period;
  if (quota !== null && quota !== undefined && !period)
    throw fieldError(path('budget_period'), 'is required with a budget (day, week or month)');
  if (period && (quota === null || quota === undefined)) throw fieldError(path('budget'), 'is required with a budget_period');
}

type LimitRow = {
  rpm?: number | null;
  tpm?: number | null;
  max_concurrency?: number | null;
  budget_quota?: number | null;
  budget_period?: string | null;
};

export function limitView(r: LimitRow, quotaPerUsd: number): LimitView {
  const v = (n: unknown) => (Number(n ?? 0) > 0 ? Number(n) : null);
  const b = budgetOf('', 'key', r, quotaPerUsd);
  return {
    rpm: v(r.rpm),
    tpm: v(r.tpm),
    max_concurrency: v(r.max_concurrency),
    budget: b ? b.quota : null,
    budget_usd: b ? b.usd : null,
    budget_period: b ? b.period : null,
    budget_spent: null,
    budget_spent_usd: null,
    budget_resets_at: null,
  };
}

/** Fills in what each view's budget has spent in its current period (one query for all of them). */
export async function fillBudgetSpend<T extends LimitView & { id: number }>(
  budgets: Budgets,
  views: T[],
  prefix: 'k' | 'u',
  quotaPerUsd: number,
): Promise<T[]> {
  const specs = [];
  for (const v of views) {
    if (v.budget !== null && v.budget_period) {
      specs.push({ owner: `${prefix}:${v.id}`, who: 'key' as const, quota: v.budget, usd: v.budget_usd ?? 0, period: v.budget_period });
    }
  }
  if (!specs.length) return views;
  const spent = await budgets.spentNow(specs);
  for (const v of views) {
    const s = spent.get(`${prefix}:${v.id}`);
    if (!s) continue;
    v.budget_spent = s.spent;
    v.budget_spent_usd = quotaToUsd(s.spent, quotaPerUsd);
    v.budget_resets_at = s.end;
  }
  return views;
}
