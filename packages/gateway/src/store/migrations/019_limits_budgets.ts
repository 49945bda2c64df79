import { bigint, str, type MigrationCtx } from './util.ts';

/**
 * Rate limits and period budgets of keys and users (accounts/rate-limits.ts, billing/budgets.ts).
 *
 * `rpm`, `tpm`, `max_concurrency`: requests and tokens per minute and calls at once; 0 = no limit.
 * `budget_quota` with `budget_period` (`day` | `week` | `month`): what the key or user may spend per
 * period, in quota units; null = no budget.
 *
 * `budget_spend` holds what each owner (`k:<key id>` or `u:<user id>`) spent in each period, one row
 * per (owner, period start): a new period is a new row, so nothing has to reset it. `budget_reserves`
 * names, per ledger ref, the period rows its reserve was taken against, so that the settle or refund
 * (on any node, for a task days later) corrects those rows and no others.
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  for (const table of ['api_keys', 'users']) {
    await db.schema
      .alterTable(table)
      .addColumn('rpm', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable(table)
      .addColumn('tpm', bigint(d), (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable(table)
      .addColumn('max_concurrency', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable(table).addColumn('budget_quota', bigint(d)).execute();
    await db.schema.alterTable(table).addColumn('budget_period', str(8)).execute();
  }
  await db.schema
    .createTable('budget_spend')
    .addColumn('owner', str(32), (c) => c.notNull())
    .addColumn('period_start', bigint(d), (c) => c.notNull())
    .addColumn('spent', bigint(d), (c) => c.notNull())
    .addPrimaryKeyConstraint('budget_spend_pk', ['owner', 'period_start'])
    .execute();
  await db.schema
    .createTable('budget_reserves')
    .addColumn('ref', str(128), (c) => c.notNull())
    .addColumn('owner', str(32), (c) => c.notNull())
    .addColumn('period_start', bigint(d), (c) => c.notNull())
    .addPrimaryKeyConstraint('budget_reserves_pk', ['ref', 'owner'])
    .execute();
}
