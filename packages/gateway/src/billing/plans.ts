/**
 * Plans with usage windows (docs/billing.md#plans). Operators define plans — a price, how long one
 * purchase lasts, windows such as `{every: '5h', quota}` and `{every: '7d', quota}` (several at
 * once), the models covered (none listed: all) and what a call past a window gets (`refuse`: 429
 * with the window's reset in Retry-After; `balance`: it is charged to the balance as without a plan).
 * A user buys or renews one from the balance, by redemption code or with Stripe; a model call of the
 * user draws on it first (Budgets.payer → Payer.plan; the ledger takes the windows, ledger-statements.ts).
 * A team holds one too: its owners and admins buy it from the team's wallet, and the calls of the team's
 * keys draw on it (never on a member's own plan; the team's plan never pays a member's own keys).
 *
 * Each node keeps the plans and the running subscriptions in memory (revision `plans`): a purchase
 * bumps it in its transaction. Windows are rolling (billing/plan-windows.ts says the rule); a plan
 * call still counts, at its plan price, against its key's cap and the key's and user's budgets.
 */
import { randomUUID } from 'node:crypto';
import type { Core } from '../core.ts';
import { fail, GatewayError } from '../platform/errors.ts';
import { Reader, fieldError, join, quotaToUsd, stableJson, usdToQuota } from '../platform/validate.ts';
import { isUniqueViolation, withTx, type DbOrTx } from '../store/db.ts';
import { AuditLog, type AuditActor } from '../logs/audit.ts';
import type { Ledger } from './ledger.ts';
import { PlanStore, type Holder, type Plan, type Subscription } from './plan-store.ts';
import {
  everyMs,
  leavesAt,
  planCharge,
  planOwner,
  PLAN_OVERFLOWS,
  type PlanCharge,
  type PlanOverflow,
  type PlanWindow,
} from './plan-windows.ts';

export const PLANS_REVISION = 'plans';
const DAY = 86_400_000;

/** A plan as the API shows it. */
export interface PlanView {
  id: number;
  name: string;
  price_usd: number;
  price_quota: number;
  duration_days: number;
  windows: Array<{ every: string; quota: number; quota_usd: number }>;
  models: string[] | null;
  overflow: PlanOverflow;
  enabled: boolean;
  created_at: number;
  updated_at: number;
}

/** What a plan's definition holds (API and YAML). */
export interface PlanInput {
  name: string;
  price_quota: number;
  duration_ms: number;
  windows: PlanWindow[];
  models: string[] | null;
  overflow: PlanOverflow;
  enabled: boolean;
}

interface Cached {
  plan: Plan;
  windows: PlanWindow[];
  models: Set<string> | null;
}

export class Plans {
  /** The clock windows are read with (tests move it). */
  now: () => number = Date.now;
  readonly store: PlanStore;
  private plans = new Map<number, Cached>();
  /** The running subscriptions by holder: `u:<user id>`, `t:<team id>`. */
  private subs = new Map<string, Subscription>();
  private readonly audit: AuditLog;

  constructor(
    private readonly core: Core,
    private readonly ledger: Ledger,
  ) {
    this.store = new PlanStore(core.h.db, core.h.dialect);
    this.audit = new AuditLog(core);
  }

  private get perUsd(): number {
    return this.core.config.quotaPerUsd;
  }

  /** Reloads the plans and running subscriptions (the cache's revision `plans`). */
  async load(): Promise<void> {
    const [plans, subs] = await Promise.all([this.store.listPlans(), this.store.activeSubscriptions(Date.now())]);
    const p = new Map<number, Cached>();
    for (const plan of plans) {
      const models = plan.models ? (JSON.parse(plan.models) as string[]) : null;
      p.set(Number(plan.id), { plan, windows: JSON.parse(plan.windows) as PlanWindow[], models: models ? new Set(models) : null });
    }
    this.plans = p;
    this.subs = new Map(subs.map((s) => [s.team_id !== null && s.team_id !== undefined ? `t:${s.team_id}` : `u:${s.user_id}`, s]));
  }

  /** The plan a model call of `userId` (a key of no team) on `model` draws on first; undefined when none covers it. */
  chargeOf(userId: number, model: string): PlanCharge | undefined {
    return this.chargeOfSub(this.subs.get(`u:${userId}`), model);
  }

  /** The plan a model call with a key of team `teamId` on `model` draws on first; undefined when none covers it. */
  chargeOfTeam(teamId: number, model: string): PlanCharge | undefined {
    return this.chargeOfSub(this.subs.get(`t:${teamId}`), model);
  }

  private chargeOfSub(s: Subscription | undefined, model: string): PlanCharge | undefined {
    if (!s) return undefined;
    const now = this.now();
    if (Number(s.expires_at) <= now) return undefined;
    const c = this.plans.get(Number(s.plan_id));
    if (!c || !c.plan.enabled || (c.models && !c.models.has(model))) return undefined;
    const plan = { planId: Number(c.plan.id), name: c.plan.name, overflow: c.plan.overflow as PlanOverflow };
    return planCharge(plan, Number(s.id), c.windows, now, this.perUsd);
  }

  view(plan: Plan): PlanView {
    const windows = JSON.parse(plan.windows) as PlanWindow[];
    return {
      id: Number(plan.id),
      name: plan.name,
      price_usd: quotaToUsd(Number(plan.price_quota), this.perUsd),
      price_quota: Number(plan.price_quota),
      duration_days: Math.round((Number(plan.duration_ms) / DAY) * 1000) / 1000,
      windows: windows.map((w) => ({ every: w.every, quota: w.quota, quota_usd: quotaToUsd(w.quota, this.perUsd) })),
      models: plan.models ? (JSON.parse(plan.models) as string[]) : null,
      overflow: plan.overflow as PlanOverflow,
      enabled: Number(plan.enabled) === 1,
      created_at: Number(plan.created_at),
      updated_at: Number(plan.updated_at),
    };
  }

  /** Reads a plan's definition (parsePlan); `base`: an update's current values. */
  parse(body: unknown, base?: PlanInput): PlanInput {
    return parsePlan(body, this.perUsd, base);
  }

  /** The configuration file's plan: created, updated where it differs, or left alone. */
  async applyFromFile(input: PlanInput): Promise<boolean | 'created'> {
    const cur = await this.store.planByName(input.name);
    if (!cur) {
      await this.create(input, null);
      return 'created';
    }
    if (stableJson(this.inputOf(cur)) === stableJson(input)) return false;
    await this.save(cur, input, null);
    return true;
  }

  private inputOf(p: Plan): PlanInput {
    return {
      name: p.name,
      price_quota: Number(p.price_quota),
      duration_ms: Number(p.duration_ms),
      windows: JSON.parse(p.windows) as PlanWindow[],
      models: p.models ? (JSON.parse(p.models) as string[]) : null,
      overflow: p.overflow as PlanOverflow,
      enabled: Number(p.enabled) === 1,
    };
  }

  private row(i: PlanInput, now: number) {
    return {
      name: i.name,
      price_quota: i.price_quota,
      duration_ms: i.duration_ms,
      windows: JSON.stringify(i.windows),
      models: i.models ? JSON.stringify(i.models) : null,
      overflow: i.overflow,
      enabled: i.enabled ? 1 : 0,
      updated_at: now,
    };
  }

  async list(): Promise<Array<PlanView & { subscribers: number }>> {
    const now = Date.now();
    const plans = await this.store.listPlans();
    return Promise.all(plans.map(async (p) => ({ ...this.view(p), subscribers: await this.store.subscriberCount(Number(p.id), now) })));
  }

  async get(id: number): Promise<Plan> {
    const p = await this.store.getPlan(id);
    if (!p) throw fail('plan_not_found', { id });
    return p;
  }

  async create(input: PlanInput, actor: AuditActor): Promise<PlanView> {
    if (await this.store.planByName(input.name)) throw fail('plan_exists', { name: input.name });
    const now = Date.now();
    const id = await withTx(this.core.h, async (tx) => {
      const id = await this.store.insertPlan(tx, { ...this.row(input, now), created_at: now });
      await this.core.cache.bump(PLANS_REVISION, tx);
      return id;
    });
    await this.core.cache.afterCommit(PLANS_REVISION);
    const view = this.view(await this.get(id));
    await this.audit.record(actor, 'plan.create', { type: 'plan', id }, null, view);
    return view;
  }

  async update(id: number, body: unknown, actor: AuditActor): Promise<PlanView> {
    const before = await this.get(id);
    return this.save(before, this.parse(body, this.inputOf(before)), actor);
  }

  private async save(before: Plan, input: PlanInput, actor: AuditActor): Promise<PlanView> {
    const id = Number(before.id);
    if (input.name !== before.name && (await this.store.planByName(input.name))) throw fail('plan_exists', { name: input.name });
    await withTx(this.core.h, async (tx) => {
      await this.store.updatePlan(tx, id, this.row(input, Date.now()));
      await this.core.cache.bump(PLANS_REVISION, tx);
    });
    await this.core.cache.afterCommit(PLANS_REVISION);
    const view = this.view(await this.get(id));
    await this.audit.record(actor, 'plan.update', { type: 'plan', id }, this.view(before), view);
    return view;
  }

  /** Deletes a plan nobody holds (409 otherwise: disable it instead). */
  async remove(id: number, actor: AuditActor): Promise<void> {
    const before = await this.get(id);
    if ((await this.store.subscriberCount(id, Date.now())) > 0) throw fail('plan_in_use');
    await withTx(this.core.h, async (tx) => {
      await this.store.deletePlan(tx, id);
      await this.core.cache.bump(PLANS_REVISION, tx);
    });
    await this.core.cache.afterCommit(PLANS_REVISION);
    await this.audit.record(actor, 'plan.delete', { type: 'plan', id }, this.view(before), null);
  }

  /** The running subscribers of a plan: users, and teams (`team_id`, `team_name`; `user_id` 0). */
  async subscribers(id: number) {
    await this.get(id);
    const rows = await this.store.subscribers(id, Date.now());
    return rows.map((r) => ({
      user_id: r.team_id !== null ? 0 : Number(r.user_id),
      username: r.username ?? '',
      team_id: r.team_id !== null ? Number(r.team_id) : null,
      team_name: r.team_name ?? null,
      started_at: Number(r.started_at),
      expires_at: Number(r.expires_at),
      stripe_subscription: r.stripe_subscription,
    }));
  }

  /** A user's (or, given `{teamId}`, a team's) plan with what each window used now; `plan: null` when none is running. */
  async mine(holder: Holder) {
    const now = this.now();
    const s = await this.store.subscriptionOf(holder);
    if (!s || Number(s.expires_at) <= now) return { plan: null, subscription: null, windows: [] };
    const plan = await this.store.getPlan(Number(s.plan_id));
    if (!plan) return { plan: null, subscription: null, windows: [] };
    const charge = planCharge(
      { planId: Number(plan.id), name: plan.name, overflow: plan.overflow as PlanOverflow },
      Number(s.id),
      JSON.parse(plan.windows) as PlanWindow[],
      now,
      this.perUsd,
    );
    const longest = Math.min(...charge.windows.map((w) => w.from));
    const rows = await this.ledger.planSpend(planOwner(Number(s.id)), longest);
    // Rolling windows: `used` is what the last `every` spent (calls in flight at their reserve);
    // `resets_at` when its oldest spend leaves it, `clears_at` when the newest does (null: nothing used).
    const windows = charge.windows.map((w) => {
      const mine = rows.filter((r) => r.start >= w.from && r.spent !== 0);
      const used = Math.max(
        0,
        mine.reduce((n, r) => n + r.spent, 0),
      );
      return {
        every: w.every,
        quota: w.quota,
        quota_usd: w.usd,
        used,
        used_usd: quotaToUsd(used, this.perUsd),
        started_at: now - w.len,
        resets_at: used > 0 ? leavesAt(mine[0].start, w.len) : null,
        clears_at: used > 0 ? leavesAt(mine[mine.length - 1].start, w.len) : null,
      };
    });
    return {
      plan: this.view(plan),
      subscription: { started_at: Number(s.started_at), expires_at: Number(s.expires_at), stripe_subscription: s.stripe_subscription },
      windows,
    };
  }

  private async buyable(planId: number, db?: DbOrTx): Promise<Plan> {
    const plan = await this.store.getPlan(planId, db);
    if (!plan || Number(plan.enabled) !== 1) throw fail('plan_not_found', { id: planId });
    return plan;
  }

  /**
   * Buys or renews plan `planId` for `userId` from the balance: the price is taken (ledger row kind
   * `plan`) and the subscription granted in one transaction, so the balance is charged once per
   * purchase and never without the plan. 400 `insufficient_balance` when the balance is too low.
   */
  async buy(userId: number, planId: number): Promise<Awaited<ReturnType<Plans['mine']>>> {
    const plan = await this.buyable(planId);
    const ref = `plan:${userId}:${randomUUID()}`;
    try {
      await withTx(this.core.h, async (tx) => {
        const price = Number(plan.price_quota);
        if (price > 0) await this.ledger.adjustInTx(tx, userId, ref, -price, 'plan');
        await this.store.grant(tx, userId, plan, Date.now());
        await this.core.cache.bump(PLANS_REVISION, tx);
      });
    } catch (e) {
      if (e instanceof GatewayError && e.code === 'insufficient_quota') {
        throw fail(
          'invalid_request',
          `the balance is too low to buy plan "${plan.name}" ($${quotaToUsd(Number(plan.price_quota), this.perUsd)})`,
        );
      }
      throw e;
    }
    await this.core.cache.afterCommit(PLANS_REVISION);
    return this.mine(userId);
  }

  /**
   * Buys or renews plan `planId` for team `teamId` from the team's wallet, as `buy` does for a user: the
   * price taken from the wallet (ledger row kind `plan` of the team, by `actor`) and the team's
   * subscription granted in one transaction. The caller has checked that `actor` may (teams/access.ts).
   */
  async buyForTeam(teamId: number, planId: number, actor: NonNullable<AuditActor>): Promise<Awaited<ReturnType<Plans['mine']>>> {
    const plan = await this.buyable(planId);
    const ref = `plan:t${teamId}:${randomUUID()}`;
    const before = await this.store.subscriptionOf({ teamId });
    try {
      await withTx(this.core.h, async (tx) => {
        const price = Number(plan.price_quota);
        // The team's row is locked first (the take, or a no-op update for a free plan): purchases of one team run one at a time.
        if (price > 0) await this.ledger.adjustTeamInTx(tx, teamId, ref, -price, 'plan', actor.id);
        else await this.ledger.lockTeamInTx(tx, teamId);
        await this.store.grant(tx, { teamId }, plan, Date.now());
        await this.core.cache.bump(PLANS_REVISION, tx);
      });
    } catch (e) {
      if (e instanceof GatewayError && e.code === 'insufficient_quota') {
        throw fail(
          'invalid_request',
          `the team's balance is too low to buy plan "${plan.name}" ($${quotaToUsd(Number(plan.price_quota), this.perUsd)})`,
        );
      }
      throw e;
    }
    await this.core.cache.afterCommit(PLANS_REVISION);
    const after = await this.mine({ teamId });
    await this.audit.record(
      actor,
      'team.plan',
      { type: 'team', id: teamId },
      before ? { plan_id: Number(before.plan_id), expires_at: Number(before.expires_at) } : null,
      {
        plan_id: Number(plan.id),
        plan: plan.name,
        price_quota: Number(plan.price_quota),
        ref,
        expires_at: after.subscription?.expires_at ?? null,
      },
    );
    return after;
  }

  /**
   * Grants plan `planId` to `userId` inside `tx` for something already paid (a redemption code claimed
   * in the same transaction, a Stripe payment): one period, or extended from a running one.
   */
  async grantInTx(tx: DbOrTx, userId: number, planId: number, stripeRef?: string): Promise<void> {
    const plan = await this.buyable(planId, tx);
    await this.store.grant(tx, userId, plan, Date.now(), stripeRef);
    await this.core.cache.bump(PLANS_REVISION, tx);
  }

  /** A plan's price for a checkout (billing/payments); null when there is no such plan on sale. */
  async priceOf(planId: number): Promise<{ name: string; priceQuota: number; durationDays: number } | null> {
    const p = await this.store.getPlan(planId);
    if (!p || Number(p.enabled) !== 1) return null;
    return { name: p.name, priceQuota: Number(p.price_quota), durationDays: Number(p.duration_ms) / DAY };
  }

  /**
   * Grants a period paid with a provider once per payment `ref` (a `plan` ledger row of 0 unique per
   * ref, written in the grant's transaction): false when that payment was already granted.
   */
  async grantPaid(userId: number, planId: number, ref: string, subscription: string | null): Promise<boolean> {
    const plan = await this.store.getPlan(planId);
    if (!plan) return false;
    try {
      await withTx(this.core.h, async (tx) => {
        await this.ledger.adjustInTx(tx, userId, ref, 0, 'plan');
        await this.store.grant(tx, userId, plan, Date.now(), subscription ?? undefined);
        await this.core.cache.bump(PLANS_REVISION, tx);
      });
    } catch (e) {
      if (isUniqueViolation(e)) return false;
      throw e;
    }
    await this.core.cache.afterCommit(PLANS_REVISION);
    return true;
  }

  /** After a transaction that ran grantInTx committed. */
  granted(): Promise<void> {
    return this.core.cache.afterCommit(PLANS_REVISION);
  }

  /** A plan's id by id or name (for codes and the configuration file). */
  async idOf(ref: unknown): Promise<number> {
    if (typeof ref === 'string' && !/^[0-9]+$/.test(ref)) {
      const p = await this.store.planByName(ref);
      if (!p) throw fieldError('plan_id', `no plan named "${ref}"`);
      return Number(p.id);
    }
    const p = await this.store.getPlan(Number(ref));
    if (!p) throw fieldError('plan_id', `no plan with id ${String(ref)}`);
    return Number(p.id);
  }
}

/**
 * Reads a plan's definition: `name`, `price_usd` (or `price_quota`), `duration_days` (default 30),
 * `windows: [{every, quota_usd | quota}]` (1–8, distinct lengths), `models` (none: every model),
 * `overflow` (`refuse` | `balance`, default `refuse`), `enabled`. `base`: an update (absent fields keep
 * its values). `at`: where the object is (the configuration file's path), for messages.
 */
export function parsePlan(body: unknown, perUsd: number, base?: PlanInput, at = ''): PlanInput {
  const r = Reader.of(body, at).only([
    'id',
    'name',
    'price_usd',
    'price_quota',
    'duration_days',
    'windows',
    'models',
    'overflow',
    'enabled',
  ]);
  const name = r.str('name', { required: !base, max: 64, min: 1 }) ?? base!.name;
  const usd = r.num('price_usd', { min: 0, max: 1e6 });
  const q = r.num('price_quota', { min: 0, int: true, max: 1e15 });
  const price = usd !== undefined ? usdToQuota(usd, perUsd) : (q ?? base?.price_quota);
  if (price === undefined) throw fieldError(r.path('price_usd'), 'is required');
  const days = r.num('duration_days', { min: 1 / 24, max: 3660 });
  const duration = days !== undefined ? Math.round(days * DAY) : (base?.duration_ms ?? 30 * DAY);
  let windows = base?.windows;
  if (r.has('windows') || !base) {
    const raw = r.obj.windows;
    if (!Array.isArray(raw) || raw.length === 0 || raw.length > 8) throw fieldError(r.path('windows'), 'must list 1 to 8 windows');
    const seen = new Set<number>();
    windows = raw.map((w, i) => {
      const wr = Reader.of(w, join(r.path('windows'), i)).only(['every', 'quota_usd', 'quota']);
      const every = wr.str('every', { required: true, max: 8 })!;
      const len = everyMs(every);
      if (len === null) throw fieldError(wr.path('every'), 'must be a length such as 30m, 5h, 7d or 1w (1 minute to 366 days)');
      if (seen.has(len)) throw fieldError(wr.path('every'), 'two windows have the same length');
      seen.add(len);
      const wu = wr.num('quota_usd', { min: 0, max: 1e9 });
      const wq = wr.num('quota', { min: 0, int: true, max: 1e15 });
      const quota = wu !== undefined ? usdToQuota(wu, perUsd) : wq;
      if (quota === undefined) throw fieldError(wr.path('quota_usd'), 'is required');
      return { every: every.trim(), quota };
    });
  }
  const models = r.has('models') ? (r.list('models', { max: 128 }) ?? null) : (base?.models ?? null);
  const overflow = r.oneOf('overflow', PLAN_OVERFLOWS) ?? base?.overflow ?? 'refuse';
  const enabled = r.bool('enabled') ?? base?.enabled ?? true;
  return { name, price_quota: price, duration_ms: duration, windows: windows!, models: models?.length ? models : null, overflow, enabled };
}
