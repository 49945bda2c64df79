import { bigint, str, text, type MigrationCtx } from './util.ts';

/**
 * Responses served by converting to another vendor's format keep their conversation (the messages in
 * and the answer out, canonical JSON) so that a later `previous_response_id` can continue it.
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await db.schema
    .createTable('relay_conversations')
    .addColumn('response_id', str(191), (c) => c.primaryKey())
    .addColumn('user_id', bigint(d), (c) => c.notNull())
    .addColumn('model', str(191), (c) => c.notNull())
    .addColumn('messages', text(d), (c) => c.notNull())
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('relay_conversations_created').on('relay_conversations').column('created_at').execute();
}
