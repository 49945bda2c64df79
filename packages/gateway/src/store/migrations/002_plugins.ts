import { bigint, str, text, type MigrationCtx } from './util.ts';

/** Plugin runtime tables: immutable plugin versions, and per plugin the active version and switch. */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await db.schema
    .createTable('plugin_versions')
    .addColumn('plugin_key', str(64), (c) => c.notNull())
    .addColumn('version', str(64), (c) => c.notNull())
    .addColumn('source', text(d), (c) => c.notNull())
    .addColumn('sha256', str(64), (c) => c.notNull())
    .addColumn('manifest', text(d), (c) => c.notNull())
    .addColumn('icon', text(d))
    .addColumn('icon_type', str(64))
    .addColumn('uploaded_at', bigint(d), (c) => c.notNull())
    .addPrimaryKeyConstraint('plugin_versions_pk', ['plugin_key', 'version'])
    .execute();

  await db.schema
    .createTable('plugins')
    .addColumn('plugin_key', str(64), (c) => c.primaryKey())
    .addColumn('active_version', str(64))
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('remark', text(d))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addColumn('updated_at', bigint(d), (c) => c.notNull())
    .execute();
}
