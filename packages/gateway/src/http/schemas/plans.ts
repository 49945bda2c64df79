/**
 * The schemas of the plan routes (http/plan-routes.ts): plans with usage windows, their subscribers,
 * the user's plan and a provider's checkout.
 */
import { Type } from 'typebox';
import { ref } from './common.ts';

const Nullable = <T extends import('typebox').TSchema>(s: T) => Type.Union([s, Type.Null()]);
const Overflow = Type.Union([Type.Literal('refuse'), Type.Literal('balance')], { description: 'what a call past a window gets' });

const PlanWindow = Type.Object({
  every: Type.String({ description: '30m, 5h, 7d, 1w' }),
  quota: Type.Integer({ description: 'quota units per window' }),
  quota_usd: Type.Number(),
});

export const Plan = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    price_usd: Type.Number(),
    price_quota: Type.Integer(),
    duration_days: Type.Number({ description: 'how long one purchase lasts' }),
    windows: Type.Array(PlanWindow),
    models: Nullable(Type.Array(Type.String(), { description: 'the models covered; null: every model' })),
    overflow: Overflow,
    enabled: Type.Boolean(),
    created_at: Type.Integer(),
    updated_at: Type.Integer(),
    subscribers: Type.Optional(Type.Integer({ description: 'running subscriptions (lists only)' })),
  },
  { $id: 'Plan' },
);

/** A plan as created or changed; the plan service checks it in full (billing/plans.ts). */
export const PlanInput = Type.Object(
  {
    id: Type.Optional(Type.Integer({ description: 'PUT /api/plan only' })),
    name: Type.Optional(Type.String({ maxLength: 64 })),
    price_usd: Type.Optional(Type.Number()),
    price_quota: Type.Optional(Type.Integer()),
    duration_days: Type.Optional(Type.Number({ description: 'default 30' })),
    windows: Type.Optional(
      Type.Array(
        Type.Object(
          { every: Type.String(), quota_usd: Type.Optional(Type.Number()), quota: Type.Optional(Type.Integer()) },
          { additionalProperties: false },
        ),
        { description: '1 to 8 windows' },
      ),
    ),
    models: Type.Optional(Type.Array(Type.String())),
    overflow: Type.Optional(Overflow),
    enabled: Type.Optional(Type.Boolean()),
  },
  { $id: 'PlanInput', additionalProperties: false },
);

export const PlanSubscriber = Type.Object(
  {
    user_id: Type.Integer({ description: '0 for a team' }),
    username: Type.String({ description: 'empty for a team' }),
    team_id: Nullable(Type.Integer({ description: "a team's plan: the team (null: a user's)" })),
    team_name: Nullable(Type.String()),
    started_at: Type.Integer(),
    expires_at: Type.Integer(),
    stripe_subscription: Nullable(Type.String()),
  },
  { $id: 'PlanSubscriber' },
);

export const MyPlan = Type.Object(
  {
    plan: Nullable(ref(Plan)),
    subscription: Nullable(
      Type.Object({ started_at: Type.Integer(), expires_at: Type.Integer(), stripe_subscription: Nullable(Type.String()) }),
    ),
    windows: Type.Array(
      Type.Object({
        every: Type.String(),
        quota: Type.Integer(),
        quota_usd: Type.Number(),
        used: Type.Integer({ description: 'what the last `every` spent (calls in flight counted at their reserve)' }),
        used_usd: Type.Number(),
        started_at: Type.Integer({ description: "unix ms: now minus `every` (the rolling window's start)" }),
        resets_at: Nullable(Type.Integer({ description: 'unix ms: when the oldest spend in the window leaves it (null: nothing used)' })),
        clears_at: Nullable(Type.Integer({ description: 'unix ms: when the newest spend leaves it and the window is whole again' })),
      }),
    ),
    on_sale: Type.Optional(Type.Array(ref(Plan), { description: 'GET only' })),
  },
  { $id: 'MyPlan' },
);

export const PlanCheckout = Type.Object(
  {
    trade_no: Type.String(),
    url: Type.String({ description: 'where to pay' }),
    currency: Type.String(),
    amount: Type.Number(),
    recurring: Type.Boolean(),
  },
  { $id: 'PlanCheckout' },
);

export const PLAN_SCHEMAS = [Plan, PlanInput, PlanSubscriber, MyPlan, PlanCheckout];

export const PlanIdBody = Type.Object({ plan_id: Type.Integer() }, { additionalProperties: false });
export const PlanPayBody = Type.Object(
  { plan_id: Type.Integer(), recurring: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export const ProviderParams = Type.Object({ provider: Type.String({ description: 'e.g. stripe' }) });
