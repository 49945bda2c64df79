import { bigint, str, text, type MigrationCtx } from './util.ts';

/**
 * The MCP gateway (docs/mcp.md).
 *
 * `mcp_servers`: one row per remote MCP server (streamable HTTP) served at `/mcp`. `name` is the
 * namespace of its tools (`<name>__<tool>`). `headers_sealed` is the JSON object of headers sent with
 * every request, sealed with the SecretBox like channel keys; `oauth_sealed` the OAuth client
 * credentials (`{token_url?, client_id, client_secret, scope?}`), sealed too; both never returned.
 * `tools` is the JSON list of upstream tool names the server exposes (null: every tool it lists);
 * `groups` the JSON list of user groups whose keys may reach it (null: every group).
 *
 * `api_keys.mcp_tools`: the key's allow-list of MCP tools (JSON list of `server/tool` or `server/*`;
 * null: none).
 */
export async function up({ db, dialect: d }: MigrationCtx): Promise<void> {
  await db.schema
    .createTable('mcp_servers')
    .addColumn('name', str(64), (c) => c.primaryKey())
    .addColumn('url', str(1000), (c) => c.notNull())
    .addColumn('headers_sealed', text(d))
    .addColumn('oauth_sealed', text(d))
    .addColumn('tools', text(d))
    .addColumn('groups', text(d))
    .addColumn('description', str(500))
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', bigint(d), (c) => c.notNull())
    .addColumn('updated_at', bigint(d), (c) => c.notNull())
    .execute();
  await db.schema.alterTable('api_keys').addColumn('mcp_tools', text(d)).execute();
}
