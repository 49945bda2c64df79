import { bigint, double, text, type MigrationCtx } from './util.ts';

/**
 * Prices beyond flat rates and what calls cost the operator: `prices.rules` (JSON: context tiers,
 * modality and reasoning prices, server tools, service tiers; billing/price-rules.ts),
 * `channels.cost_ratio` (what the operator pays the vendor relative to list prices), and the
 * upstream cost of each call on its log row and in the hourly roll-ups.
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await db.schema.alterTable('prices').addColumn('rules', text(d)).execute();
  await db.schema
    .alterTable('channels')
    .addColumn('cost_ratio', double(d), (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable('logs')
    .addColumn('upstream_cost', bigint(d), (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('usage_hourly')
    .addColumn('upstream_cost', bigint(d), (c) => c.notNull().defaultTo(0))
    .execute();
}
