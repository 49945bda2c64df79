import type { MigrationCtx } from './util.ts';

/**
 * Per-channel caps of the relay's routing (docs/relay.md#routing-policies): `max_concurrency`, the calls in
 * flight above which the channel is skipped, and `max_input_tokens`, the estimated prompt above which it is
 * skipped. 0 (every existing channel) is no cap.
 */
export async function up({ db }: MigrationCtx): Promise<void> {
  for (const col of ['max_concurrency', 'max_input_tokens']) {
    await db.schema
      .alterTable('channels')
      .addColumn(col, 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  }
}
