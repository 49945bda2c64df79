/**
 * The log search's totals read from its indexes alone. The first page of a search sums up to the newest
 * TOTALS_CAP rows of the filter (admin/logs.ts, logTotals in logs/writer.ts); with indexes of the
 * filter's column and the time only, each of those rows was then fetched from the table: on MariaDB,
 * whose table is its clustered primary key, ten thousand random page reads, half a second to more
 * than a second on a table larger than its buffer pool. The indexes led by the time, the user, the key,
 * the model and the channel now also carry what the totals read — the type, the quota and the tokens,
 * and the name the user and key filters compare — so the totals are an index range on all three
 * databases (an index-only scan on PostgreSQL once the table is vacuumed). Each replaces the index of
 * the same lead it widens (the pages read through it as before); the new one is built before the old
 * one is dropped, so a search stays indexed during the migration. On a large table this builds five
 * indexes once (docs/benchmarks.md has the times); they are wider, so the log writer's batches write a
 * little more.
 */
import type { MigrationCtx } from './util.ts';

/**
 * What every widened index carries after its lead: the time and the id (the pages' order, newest first:
 * InnoDB adds the primary key to a secondary index only after all its columns, so the id must come before
 * the summed columns for the index to give that order), then the summed columns.
 */
const AFTER_LEAD = ['created_at', 'id', 'type', 'quota', 'prompt_tokens', 'completion_tokens'];

/** The log indexes with the totals' columns: name, columns, and the narrower index each replaces. */
export const LOG_TOTALS_INDEXES: ReadonlyArray<{ name: string; columns: string[]; replaces: string }> = [
  { name: 'logs_created_totals', columns: AFTER_LEAD, replaces: 'logs_created' },
  { name: 'logs_user_totals', columns: ['user_id', ...AFTER_LEAD, 'username'], replaces: 'logs_user_created' },
  { name: 'logs_key_totals', columns: ['key_id', ...AFTER_LEAD, 'key_name'], replaces: 'logs_key_created' },
  { name: 'logs_model_totals', columns: ['model', ...AFTER_LEAD], replaces: 'logs_model_created' },
  { name: 'logs_channel_totals', columns: ['channel_id', ...AFTER_LEAD], replaces: 'logs_channel_created' },
];

export async function up({ db, dialect }: MigrationCtx): Promise<void> {
  for (const ix of LOG_TOTALS_INDEXES) {
    await db.schema.createIndex(ix.name).on('logs').columns(ix.columns).execute();
    let drop = db.schema.dropIndex(ix.replaces);
    if (dialect === 'mysql') drop = drop.on('logs');
    await drop.execute();
  }
}
