import { withId, bigint, str, text, double, type MigrationCtx } from './util.ts';

export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await withId(db.schema.createTable('users'), d)
    .addColumn('username', str(64), (c) => c.notNull().unique())
    .addColumn('password_hash', str(255), (c) => c.notNull())
    .addColumn('display_name', str(128), (c) => c.notNull().defaultTo(''))
    .addColumn('role', str(16), (c) => c.notNull().defaultTo('user'))
    .addColumn('group_name', str(64), (c) => c.notNull().defaultTo('default'))
    .addColumn('quota', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('used_quota', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('request_count', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('access_token_hash', str(64), (c) => c.unique())
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addColumn('updated_at', bigint(d), (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id_hash', str(64), (c) => c.primaryKey())
    .addColumn('user_id', bigint(d), (c) => c.notNull())
    .addColumn('expires_at', bigint(d), (c) => c.notNull())
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('api_keys'), d)
    .addColumn('user_id', bigint(d), (c) => c.notNull())
    .addColumn('name', str(128), (c) => c.notNull().defaultTo(''))
    .addColumn('key_hash', str(64), (c) => c.notNull().unique())
    .addColumn('key_hint', str(32), (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('expires_at', bigint(d))
    .addColumn('unlimited_quota', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('remain_quota', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('used_quota', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('models', text(d))
    .addColumn('allowed_ips', text(d))
    .addColumn('group_name', str(64))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addColumn('accessed_at', bigint(d))
    .execute();
  await db.schema.createIndex('api_keys_user').on('api_keys').column('user_id').execute();

  await withId(db.schema.createTable('channels'), d)
    .addColumn('name', str(128), (c) => c.notNull().unique())
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('base_url', str(512), (c) => c.notNull().defaultTo(''))
    .addColumn('keys_sealed', text(d), (c) => c.notNull())
    .addColumn('key_mode', str(16), (c) => c.notNull().defaultTo('random'))
    .addColumn('key_state', text(d), (c) => c.notNull())
    .addColumn('models', text(d), (c) => c.notNull())
    .addColumn('groups', text(d), (c) => c.notNull())
    .addColumn('priority', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('weight', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('model_mapping', text(d), (c) => c.notNull())
    .addColumn('header_override', text(d), (c) => c.notNull())
    .addColumn('param_override', text(d), (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('status_reason', text(d))
    .addColumn('settings', text(d), (c) => c.notNull())
    .addColumn('test_model', str(128))
    .addColumn('response_time_ms', 'integer')
    .addColumn('tested_at', bigint(d))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addColumn('updated_at', bigint(d), (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('prices')
    .addColumn('model', str(191), (c) => c.primaryKey())
    .addColumn('input', double(d))
    .addColumn('output', double(d))
    .addColumn('cached_input', double(d))
    .addColumn('per_request', double(d))
    .addColumn('expression', text(d))
    .addColumn('updated_at', bigint(d), (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('group_ratios')
    .addColumn('group_name', str(64), (c) => c.primaryKey())
    .addColumn('ratio', double(d), (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('options')
    .addColumn('key', str(128), (c) => c.primaryKey())
    .addColumn('value', text(d), (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('ledger'), d)
    .addColumn('user_id', bigint(d), (c) => c.notNull())
    .addColumn('key_id', bigint(d))
    .addColumn('ref', str(128), (c) => c.notNull())
    .addColumn('kind', str(32), (c) => c.notNull())
    .addColumn('amount', bigint(d), (c) => c.notNull())
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addUniqueConstraint('ledger_ref_kind', ['ref', 'kind'])
    .execute();
  await db.schema.createIndex('ledger_user').on('ledger').columns(['user_id', 'created_at']).execute();

  await withId(db.schema.createTable('logs'), d)
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addColumn('type', str(16), (c) => c.notNull())
    .addColumn('request_id', str(64), (c) => c.notNull())
    .addColumn('user_id', bigint(d))
    .addColumn('username', str(64))
    .addColumn('key_id', bigint(d))
    .addColumn('key_name', str(128))
    .addColumn('group_name', str(64))
    .addColumn('model', str(191))
    .addColumn('upstream_model', str(191))
    .addColumn('channel_id', bigint(d))
    .addColumn('endpoint', str(128))
    .addColumn('status_code', 'integer')
    .addColumn('prompt_tokens', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('completion_tokens', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('cached_tokens', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('quota', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('latency_ms', bigint(d), (c) => c.notNull().defaultTo(0))
    .addColumn('first_byte_ms', bigint(d))
    .addColumn('is_stream', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('content', text(d))
    .addColumn('other', text(d))
    .execute();
  await db.schema.createIndex('logs_created').on('logs').column('created_at').execute();
  await db.schema.createIndex('logs_user_created').on('logs').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('logs_request').on('logs').column('request_id').execute();

  await db.schema
    .createTable('revisions')
    .addColumn('name', str(64), (c) => c.primaryKey())
    .addColumn('value', bigint(d), (c) => c.notNull())
    .execute();
}
