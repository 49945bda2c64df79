/**
 * Period budgets (docs/limits.md#budgets): a key or a user may spend at most `budget_quota` per day,
 * week or month, on top of (and never beyond) the prepaid balance; so may a team (of its wallet) and a
 * member within a team (the member's delegated wallet: at most so much of the team's money per period).
 *
 * What an owner (`k:<key id>`, `u:<user id>`, `t:<team id>`, `m:<team id>:<user id>`) spent in a period is a row of `budget_spend` keyed by
 * (owner, period start); a new period is simply a new row, so nothing resets anything and no job runs
 * at midnight. The ledger keeps the rows with the same discipline as the balance (billing/ledger.ts):
 * a reserve adds its amount to each budget row of the call with a conditional UPDATE in the same
 * transaction as the balance reserve (refused, like an empty balance, when the row would pass the
 * budget), and names the rows it took in `budget_reserves`; the settle or refund of that ref corrects
 * exactly those rows by what was charged (or gives the amount back), whichever node closes it and
 * whenever — a stream that crosses midnight is charged to the day it started in.
 *
 * Periods are calendar periods at `BudgetUtcOffsetSeconds` from UTC (0: UTC): a day from 00:00, a week
 * from Monday 00:00, a month from the 1st 00:00.
 */
import type { Options } from '../options/options.ts';
import type { PlanCharge } from './plan-windows.ts';

export type BudgetPeriod = 'day' | 'week' | 'month';
export const BUDGET_PERIODS: readonly BudgetPeriod[] = ['day', 'week', 'month'];

const DAY = 86_400_000;

/** A budget of a key or a user, as the key cache holds it. */
export interface BudgetSpec {
  /** `k:<key id>`, `u:<user id>`, `t:<team id>` or `m:<team id>:<user id>`. */
  owner: string;
  who: 'key' | 'user' | 'team' | 'member';
  /** Quota units per period. */
  quota: number;
  /** The same in USD (for messages). */
  usd: number;
  period: BudgetPeriod;
}

/** A budget as a reserve takes it: its spec and the period the call is charged to. */
export interface BudgetCharge extends BudgetSpec {
  start: number;
  /** When the period ends (exclusive): the refusal names it. */
  end: number;
}

/** The start (unix ms) of the period `at` falls in, for periods at `offsetMs` from UTC. */
export function periodStart(period: BudgetPeriod, at: number, offsetMs = 0): number {
  const local = at + offsetMs;
  if (period === 'day') return Math.floor(local / DAY) * DAY - offsetMs;
  if (period === 'week') {
    const days = Math.floor(local / DAY);
    // 1970-01-01 was a Thursday: Monday is 3 days before.
    const monday = days - ((((days + 3) % 7) + 7) % 7);
    return monday * DAY - offsetMs;
  }
  const d = new Date(local);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) - offsetMs;
}

/** The end (exclusive) of the period that starts at `start`. */
export function periodEnd(period: BudgetPeriod, start: number, offsetMs = 0): number {
  if (period === 'day') return start + DAY;
  if (period === 'week') return start + 7 * DAY;
  const d = new Date(start + offsetMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - offsetMs;
}

export function isBudgetPeriod(v: unknown): v is BudgetPeriod {
  return v === 'day' || v === 'week' || v === 'month';
}

/** A row's budget (`budget_quota`, `budget_period`); null when it has none. */
export function budgetOf(
  owner: string,
  who: BudgetSpec['who'],
  r: { budget_quota?: unknown; budget_period?: unknown },
  quotaPerUsd: number,
): BudgetSpec | null {
  if (r.budget_quota === null || r.budget_quota === undefined || !isBudgetPeriod(r.budget_period)) return null;
  const quota = Math.max(0, Number(r.budget_quota) || 0);
  return Object.freeze({ owner, who, quota, usd: Math.round((quota / quotaPerUsd) * 1e6) / 1e6, period: r.budget_period });
}

const PERIOD_NAME: Record<BudgetPeriod, string> = { day: 'daily', week: 'weekly', month: 'monthly' };

/** Who a ledger movement (ledger.ts) charges: a user, and the key the call came through when there is one. */
export interface Payer {
  userId: number;
  keyId: number | null;
  /** A key with an own cap also has it checked and reduced. */
  unlimitedKey: boolean;
  /**
   * The team whose wallet pays (a key with `team_id`): reserves, settles and refunds take from and give
   * to `teams.quota` instead of the user's balance; null or absent: the user's balance.
   */
  teamId?: number | null;
  /**
   * Period budgets (billing/budgets.ts) a reserve is also taken against; absent: none. `'recorded'`:
   * a settle or refund far from its reserve (a task, recovery) corrects whatever budget rows the ref
   * recorded.
   */
  budgets?: readonly BudgetCharge[] | 'recorded';
  /**
   * The plan a call draws on first (billing/plans.ts): its reserve is taken from the plan's windows
   * instead of the balance. `'recorded'`: a settle or refund far from its reserve finds out from the
   * ref's recorded window rows.
   */
  plan?: PlanCharge | 'recorded';
}

/** The refusal of a call its budget cannot cover (as an empty balance is refused). */
export function budgetMessage(c: BudgetCharge): string {
  const until = new Date(c.end).toISOString().replace('.000Z', 'Z');
  const whose = { key: 'this API key', user: 'the account', team: 'the team', member: "the account's share of the team" }[c.who];
  return `quota exhausted: the ${PERIOD_NAME[c.period]} budget of ${whose} ($${c.usd}) is used up until ${until}`;
}

/** Where budgets read their period rows: the ledger, which owns `budget_spend` (billing/ledger.ts). */
export interface BudgetRows {
  budgetRows(owners: readonly string[]): Promise<Array<{ owner: string; period_start: number | bigint; spent: number | bigint }>>;
}

export class Budgets {
  /** The clock budgets are read with (tests move it across period boundaries). */
  now: () => number = Date.now;

  constructor(
    private readonly options: Options,
    private readonly rows: BudgetRows,
  ) {}

  /** How far the periods are from UTC (option BudgetUtcOffsetSeconds). */
  offsetMs(): number {
    const o = this.options;
    return o ? o.getNumber('BudgetUtcOffsetSeconds', 0) * 1000 : 0;
  }

  /** The budgets of a call, charged to the periods of now; undefined when it has none (nothing allocated). */
  charges(specs: readonly BudgetSpec[] | null): BudgetCharge[] | undefined {
    if (!specs) return undefined;
    const now = this.now();
    const off = this.offsetMs();
    return specs.map((s) => {
      const start = periodStart(s.period, now, off);
      return { ...s, start, end: periodEnd(s.period, start, off) };
    });
  }

  /** The plan a model call of a user (or, given `teamId`, of a team's key) draws on first (billing/plans.ts installs it). */
  planOf: ((userId: number, model: string, teamId: number | null) => PlanCharge | undefined) | null = null;

  /**
   * The payer of a call by `p`: its balance (its team's wallet for a key of a team), its key's cap, and
   * its budgets charged to the periods of now; for a model call (`model`), the plan it draws on first:
   * the user's for a key of no team, the team's for a team's key (never its member's personal plan).
   */
  payer(
    p: { userId: number; keyId: number | null; unlimitedQuota: boolean; budgets: readonly BudgetSpec[] | null; teamId?: number | null },
    model?: string,
  ): Payer {
    const payer: Payer = { userId: p.userId, keyId: p.keyId, unlimitedKey: p.keyId === null || p.unlimitedQuota };
    if (p.teamId) payer.teamId = p.teamId;
    if (p.budgets) payer.budgets = this.charges(p.budgets);
    if (model !== undefined && this.planOf) {
      const plan = this.planOf(p.userId, model, p.teamId ?? null);
      if (plan) payer.plan = plan;
    }
    return payer;
  }

  /** What each of `specs` has spent in its current period (reserves in flight included). */
  async spentNow(specs: readonly BudgetSpec[]): Promise<Map<string, { spent: number; start: number; end: number }>> {
    const out = new Map<string, { spent: number; start: number; end: number }>();
    if (!specs.length) return out;
    const now = this.now();
    const off = this.offsetMs();
    for (const s of specs) {
      const start = periodStart(s.period, now, off);
      out.set(s.owner, { spent: 0, start, end: periodEnd(s.period, start, off) });
    }
    const rows = await this.rows.budgetRows([...out.keys()]);
    for (const r of rows) {
      const cur = out.get(r.owner);
      if (cur && Number(r.period_start) === cur.start) cur.spent = Math.max(0, Number(r.spent));
    }
    return out;
  }
}
