/**
 * The statements on `plans` and `plan_subscriptions` (billing/plans.ts runs them). A purchase's
 * change of a subscription runs in the caller's transaction, with the ledger's charge or claim.
 */
import type { Insertable, Selectable, Updateable } from 'kysely';
import { insertId, type Db, type DbOrTx, type Dialect } from '../store/db.ts';
import type { PlanRow, PlanSubscriptionRow } from '../store/schema-plans.ts';

export type Plan = Selectable<PlanRow>;
export type Subscription = Selectable<PlanSubscriptionRow>;

/**
 * Who holds a subscription: a user (their id) or a team (`{teamId}`). A team's row keeps `user_id` at
 * the negative team id (migration 037), so both are found by the unique `user_id`.
 */
export type Holder = number | { teamId: number };
const rowUser = (h: Holder): number => (typeof h === 'number' ? h : -h.teamId);
const rowTeam = (h: Holder): number | null => (typeof h === 'number' ? null : h.teamId);

export class PlanStore {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  listPlans(): Promise<Plan[]> {
    return this.db.selectFrom('plans').selectAll().orderBy('id').execute();
  }

  getPlan(id: number, db: DbOrTx = this.db): Promise<Plan | undefined> {
    return db.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst();
  }

  planByName(name: string): Promise<Plan | undefined> {
    return this.db.selectFrom('plans').selectAll().where('name', '=', name).executeTakeFirst();
  }

  insertPlan(tx: DbOrTx, row: Insertable<PlanRow>): Promise<number> {
    return insertId(tx, this.dialect, 'plans', row as Record<string, unknown>);
  }

  async updatePlan(tx: DbOrTx, id: number, set: Updateable<PlanRow>): Promise<boolean> {
    const r = await tx.updateTable('plans').set(set).where('id', '=', id).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async deletePlan(tx: DbOrTx, id: number): Promise<boolean> {
    const r = await tx.deleteFrom('plans').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** The subscriptions that have not ended at `now`. */
  activeSubscriptions(now: number): Promise<Subscription[]> {
    return this.db.selectFrom('plan_subscriptions').selectAll().where('expires_at', '>', now).execute();
  }

  subscriptionOf(holder: Holder, db: DbOrTx = this.db): Promise<Subscription | undefined> {
    return db.selectFrom('plan_subscriptions').selectAll().where('user_id', '=', rowUser(holder)).executeTakeFirst();
  }

  subscriptionByStripe(ref: string): Promise<Subscription | undefined> {
    return this.db.selectFrom('plan_subscriptions').selectAll().where('stripe_subscription', '=', ref).executeTakeFirst();
  }

  /** The subscribers of plan `planId` (users and teams), with their names, newest ending last. */
  subscribers(planId: number, now: number) {
    return this.db
      .selectFrom('plan_subscriptions as s')
      .leftJoin('users as u', 'u.id', 's.user_id')
      .leftJoin('teams as t', 't.id', 's.team_id')
      .select(['s.user_id', 's.team_id', 'u.username', 't.name as team_name', 's.started_at', 's.expires_at', 's.stripe_subscription'])
      .where('s.plan_id', '=', planId)
      .where('s.expires_at', '>', now)
      .orderBy('s.expires_at')
      .execute();
  }

  /** How many users and teams hold plan `planId` now. */
  async subscriberCount(planId: number, now: number): Promise<number> {
    const r = await this.db
      .selectFrom('plan_subscriptions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('plan_id', '=', planId)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /**
   * Grants plan `plan` to `holder` (a user or a team) for `durationMs` in `tx` (the row locked by its update): a running
   * subscription of the same plan is extended from its end; otherwise the plan starts now (its windows
   * count from here). Returns the subscription after the change.
   */
  async grant(tx: DbOrTx, holder: Holder, plan: Plan, now: number, stripeRef?: string): Promise<Subscription> {
    const dur = Number(plan.duration_ms);
    const cur = await this.subscriptionOf(holder, tx);
    if (!cur) {
      await tx
        .insertInto('plan_subscriptions')
        .values({
          user_id: rowUser(holder),
          team_id: rowTeam(holder),
          plan_id: plan.id,
          started_at: now,
          expires_at: now + dur,
          stripe_subscription: stripeRef ?? null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    } else {
      const running = Number(cur.plan_id) === Number(plan.id) && Number(cur.expires_at) > now;
      // The update is conditional on the row read, so a concurrent grant cannot be lost.
      const r = await tx
        .updateTable('plan_subscriptions')
        .set({
          plan_id: plan.id,
          started_at: running ? Number(cur.started_at) : now,
          expires_at: (running ? Number(cur.expires_at) : now) + dur,
          stripe_subscription: stripeRef ?? cur.stripe_subscription,
          updated_at: now,
        })
        .where('id', '=', Number(cur.id))
        .where('expires_at', '=', Number(cur.expires_at))
        .where('plan_id', '=', Number(cur.plan_id))
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) throw new Error('the subscription changed meanwhile');
    }
    return (await this.subscriptionOf(holder, tx))!;
  }

  /** Ends user `userId`'s plan at `now` (an admin's cancel). */
  async end(userId: number, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('plan_subscriptions')
      .set({ expires_at: now, updated_at: now })
      .where('user_id', '=', userId)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }
}
