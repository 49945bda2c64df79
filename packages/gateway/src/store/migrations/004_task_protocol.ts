import { text, type MigrationCtx } from './util.ts';

/** Host-protocol facts stored with a task (for example the Responses `background` flag). */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('protocol', text(d)).execute();
}
