import { bigint, str, text, withId, type MigrationCtx } from './util.ts';

/**
 * Plans with usage windows (billing/plans.ts).
 *
 * `plans`: what an operator sells — a price (quota units), how long one purchase lasts
 * (`duration_ms`), its windows as JSON (`[{every, quota}]`), the models it covers (JSON list, null:
 * all) and what happens past a window (`overflow`: `refuse` | `balance`).
 * `plan_subscriptions`: a user's plan, one row per user: which plan, since when, until
 * when, and the Stripe subscription that renews it, if any.
 * `redemptions.plan_id`: a code that grants a plan instead of crediting quota.
 * What a plan spent is kept per minute in `budget_spend` (billing/plan-windows.ts: rolling windows).
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await withId(db.schema.createTable('plans'), d)
    .addColumn('name', str(64), (c) => c.notNull().unique())
    .addColumn('price_quota', bigint(d), (c) => c.notNull())
    .addColumn('duration_ms', bigint(d), (c) => c.notNull())
    .addColumn('windows', text(d), (c) => c.notNull())
    .addColumn('models', text(d))
    .addColumn('overflow', str(8), (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addColumn('updated_at', bigint(d), (c) => c.notNull())
    .execute();
  await withId(db.schema.createTable('plan_subscriptions'), d)
    .addColumn('user_id', bigint(d), (c) => c.notNull().unique())
    .addColumn('plan_id', bigint(d), (c) => c.notNull())
    .addColumn('started_at', bigint(d), (c) => c.notNull())
    .addColumn('expires_at', bigint(d), (c) => c.notNull())
    .addColumn('stripe_subscription', str(128))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addColumn('updated_at', bigint(d), (c) => c.notNull())
    .execute();
  await db.schema.alterTable('redemptions').addColumn('plan_id', bigint(d)).execute();
}
