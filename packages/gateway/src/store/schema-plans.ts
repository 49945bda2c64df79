/** The tables of plans with usage windows (billing/plans.ts, migration 030). */
import type { Generated } from 'kysely';

export interface PlanRow {
  id: Generated<number>;
  name: string;
  /** What one purchase costs, in quota units. */
  price_quota: number;
  /** How long one purchase lasts. */
  duration_ms: number;
  /** JSON `[{every, quota}]` (billing/plan-windows.ts). */
  windows: string;
  /** JSON list of the models the plan covers; null: every model. */
  models: string | null;
  /** `refuse` | `balance`: what a call past a window gets. */
  overflow: string;
  enabled: number;
  created_at: number;
  updated_at: number;
}

/** A user's plan (one row per user) or a team's (`team_id`; `user_id` is then the negative team id). */
export interface PlanSubscriptionRow {
  id: Generated<number>;
  user_id: number;
  /** The team holding the plan (migration 037); null: the user's own plan. */
  team_id: number | null;
  plan_id: number;
  /** The windows count from here. */
  started_at: number;
  expires_at: number;
  /** The Stripe subscription that renews it (`sub_…`), if any. */
  stripe_subscription: string | null;
  created_at: number;
  updated_at: number;
}

export interface PlanTables {
  plans: PlanRow;
  plan_subscriptions: PlanSubscriptionRow;
}
