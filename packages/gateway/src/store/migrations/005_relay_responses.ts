import { bigint, str, type MigrationCtx } from './util.ts';

/** Which channel and key created a relay-served Responses id (reads go back there). */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await db.schema
    .createTable('relay_responses')
    .addColumn('response_id', str(191), (c) => c.primaryKey())
    .addColumn('user_id', bigint(d), (c) => c.notNull())
    .addColumn('channel_id', bigint(d), (c) => c.notNull())
    .addColumn('key_index', 'integer', (c) => c.notNull())
    .addColumn('model', str(191), (c) => c.notNull())
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('relay_responses_created').on('relay_responses').column('created_at').execute();
}
