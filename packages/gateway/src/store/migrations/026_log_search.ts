import type { MigrationCtx } from './util.ts';

/**
 * The log search by key, model and channel reads through an index led by the filter's column, newest
 * first, as the search by user (`logs_user_created`) and by request id (`logs_request`) already did:
 * a page then costs the same with ten thousand rows or fifty million. Each index is one more B-tree the
 * log writer's batches update (off the call's path); on a large existing table the migration builds
 * them once, which takes a while (docs/benchmarks.md has the times).
 */
export async function up({ db }: MigrationCtx): Promise<void> {
  await db.schema.createIndex('logs_key_created').on('logs').columns(['key_id', 'created_at']).execute();
  await db.schema.createIndex('logs_model_created').on('logs').columns(['model', 'created_at']).execute();
  await db.schema.createIndex('logs_channel_created').on('logs').columns(['channel_id', 'created_at']).execute();
}
