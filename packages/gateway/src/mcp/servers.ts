/**
 * Remote MCP servers (docs/mcp.md): their validation (admin API and configuration file) and the
 * `mcp_servers` table — list, create, update, delete. Header values and OAuth client secrets are
 * sealed at rest with the SecretBox and never leave this module but through `secretsOf` (the
 * upstream connection); views show header names and whether a secret is set.
 */
import type { Core } from '../core.ts';
import { fail } from '../platform/errors.ts';
import { isPublicHost } from '../platform/ssrf.ts';
import { Reader, fieldError, isObj, join } from '../platform/validate.ts';
import type { McpServerRow } from '../store/schema-mcp.ts';
import { MCP_SERVER_NAME, MCP_TOOL_NAME } from '../accounts/mcp-access.ts';

export const MCP_REVISION = 'mcp_servers';
const FIELDS = ['name', 'url', 'headers', 'oauth', 'tools', 'groups', 'description', 'enabled'];
const OAUTH_FIELDS = ['client_id', 'client_secret', 'scope', 'issuer'];
/** Headers the gateway sets itself on every upstream MCP request. */
const RESERVED_HEADERS = new Set(['content-type', 'accept', 'content-length', 'host', 'mcp-session-id', 'mcp-protocol-version']);

/** OAuth client credentials (the `client_credentials` grant) of a server. */
export interface McpOAuth {
  client_id: string;
  client_secret: string;
  scope?: string;
  /** The authorization server the credentials belong to; when set they are sent nowhere else. */
  issuer?: string;
}

export interface McpServerInput {
  name?: string;
  url?: string;
  headers?: Record<string, string> | null;
  oauth?: McpOAuth | null;
  tools?: string[] | null;
  groups?: string[] | null;
  description?: string | null;
  enabled?: boolean;
}

/** A server as the admin API shows it: header names only, never their values or the client secret. */
export interface McpServerView {
  name: string;
  url: string;
  header_names: string[];
  oauth: { client_id: string; scope: string | null; issuer: string | null; client_secret_set: boolean } | null;
  tools: string[] | null;
  groups: string[] | null;
  description: string | null;
  enabled: boolean;
  created_at: number;
  updated_at: number;
}

/** What the upstream connection needs of a server (opened secrets). */
export interface McpServerSpec {
  name: string;
  url: string;
  headers: Record<string, string>;
  oauth: McpOAuth | null;
  tools: ReadonlySet<string> | null;
  /** User groups whose keys may reach the server; null: every group. */
  groups: ReadonlySet<string> | null;
  description: string | null;
  /** Changes whenever the row does: a connection made for an older one is dropped. */
  version: number;
}

function checkUrl(v: string, at: string): string {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw fieldError(at, 'must be an absolute http(s) URL');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw fieldError(at, 'must be an absolute http(s) URL');
  if (u.username || u.password) throw fieldError(at, 'must not carry credentials (use headers or oauth)');
  return v;
}

/** Validates a server from the admin API or the configuration file; `update`: only the fields given. Needs no database. */
export function parseMcpServer(body: unknown, mode: 'create' | 'update', at = ''): McpServerInput {
  if (!isObj(body)) throw fieldError(at || '(body)', 'must be an object');
  const r = new Reader(body, at).only(FIELDS);
  const out: McpServerInput = {};
  const creating = mode === 'create';
  if (creating || r.has('name'))
    out.name = r.str('name', { required: true, max: 32, pattern: MCP_SERVER_NAME, hint: 'lower-case letters, digits and -, 1-32' })!;
  if (creating || r.has('url')) out.url = checkUrl(r.str('url', { required: true, max: 1000 })!, join(at, 'url'));
  if (body.headers === null) out.headers = null;
  else if (r.has('headers')) {
    const h = r.object('headers', { values: 'string' })!;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(h)) {
      const name = k.toLowerCase();
      if (!/^[a-z0-9!#$%&'*+.^_`|~-]{1,100}$/.test(name))
        throw fieldError(join(at, 'headers'), `"${k.slice(0, 100)}" is not a header name`);
      if (RESERVED_HEADERS.has(name)) throw fieldError(join(at, 'headers'), `"${k}" is set by the gateway`);
      if (/[\r\n\0]/.test(v as string) || (v as string).length > 8000)
        throw fieldError(join(join(at, 'headers'), k), 'must be one line of at most 8000 characters');
      headers[name] = v as string;
    }
    if (Object.keys(headers).length > 32) throw fieldError(join(at, 'headers'), 'at most 32 headers');
    out.headers = headers;
  }
  if (body.oauth === null) out.oauth = null;
  else if (r.has('oauth')) {
    const o = Reader.of(body.oauth, join(at, 'oauth')).only(OAUTH_FIELDS);
    const oauth: McpOAuth = {
      client_id: o.str('client_id', { required: true, max: 500 })!,
      client_secret: o.str('client_secret', { required: true, max: 2000 })!,
    };
    const scope = o.str('scope', { max: 1000 });
    if (scope) oauth.scope = scope;
    const issuer = o.str('issuer', { max: 1000 });
    if (issuer) oauth.issuer = checkUrl(issuer, join(join(at, 'oauth'), 'issuer'));
    out.oauth = oauth;
  }
  if (body.tools === null) out.tools = null;
  else if (r.has('tools')) {
    out.tools = r.list('tools', {
      max: 128,
      item: (s, p) => {
        if (!MCP_TOOL_NAME.test(s)) throw fieldError(p, 'must be a tool name (A-Z, a-z, 0-9, _ . -)');
      },
    })!;
  }
  if (body.groups === null) out.groups = null;
  else if (r.has('groups')) {
    out.groups = r.list('groups', {
      max: 64,
      item: (s, p) => {
        if (!/^[A-Za-z0-9_.-]{1,64}$/.test(s)) throw fieldError(p, 'must be a group name (letters, digits, _ . -)');
      },
    })!;
  }
  if (body.description === null) out.description = null;
  else if (r.has('description')) out.description = r.str('description', { max: 500 }) ?? null;
  if (creating || r.has('enabled')) out.enabled = r.bool('enabled') ?? true;
  return out;
}

const jsonOrNull = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

export class McpServers {
  constructor(private readonly core: Core) {}

  view(row: McpServerRow): McpServerView {
    const oauth = row.oauth_sealed ? (JSON.parse(this.core.secrets.open(row.oauth_sealed)) as McpOAuth) : null;
    const headers = row.headers_sealed ? (JSON.parse(this.core.secrets.open(row.headers_sealed)) as Record<string, string>) : {};
    return {
      name: row.name,
      url: row.url,
      header_names: Object.keys(headers).sort(),
      oauth: oauth
        ? { client_id: oauth.client_id, scope: oauth.scope ?? null, issuer: oauth.issuer ?? null, client_secret_set: !!oauth.client_secret }
        : null,
      tools: row.tools ? (JSON.parse(row.tools) as string[]) : null,
      groups: row.groups ? (JSON.parse(row.groups) as string[]) : null,
      description: row.description,
      enabled: Number(row.enabled) === 1,
      created_at: Number(row.created_at),
      updated_at: Number(row.updated_at),
    };
  }

  /** Opened secrets of a row: for the upstream connection only. */
  specOf(row: McpServerRow): McpServerSpec {
    return {
      name: row.name,
      url: row.url,
      headers: row.headers_sealed ? (JSON.parse(this.core.secrets.open(row.headers_sealed)) as Record<string, string>) : {},
      oauth: row.oauth_sealed ? (JSON.parse(this.core.secrets.open(row.oauth_sealed)) as McpOAuth) : null,
      tools: row.tools ? new Set(JSON.parse(row.tools) as string[]) : null,
      groups: row.groups ? new Set(JSON.parse(row.groups) as string[]) : null,
      description: row.description,
      version: Number(row.updated_at),
    };
  }

  /** The URL's host must be public unless CONTENT_ALLOW_PRIVATE_ADDRESSES=true (the connection is checked again). */
  private async checkHost(url: string): Promise<void> {
    if (this.core.config.contentAllowPrivateAddresses) return;
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (!(await isPublicHost(host)))
      throw fieldError('url', 'must resolve to a public address (or set CONTENT_ALLOW_PRIVATE_ADDRESSES=true)');
  }

  row(name: string): Promise<McpServerRow | undefined> {
    return this.core.h.db.selectFrom('mcp_servers').selectAll().where('name', '=', String(name)).executeTakeFirst();
  }

  async mustRow(name: string): Promise<McpServerRow> {
    const row = await this.row(name);
    if (!row) throw fail('mcp_server_not_found', { name: String(name).slice(0, 64) });
    return row;
  }

  /** Every server, by name. */
  rows(): Promise<McpServerRow[]> {
    return this.core.h.db.selectFrom('mcp_servers').selectAll().orderBy('name').execute();
  }

  async list(): Promise<McpServerView[]> {
    return (await this.rows()).map((r) => this.view(r));
  }

  async get(name: string): Promise<McpServerView> {
    return this.view(await this.mustRow(name));
  }

  async create(input: McpServerInput): Promise<McpServerView> {
    if (await this.row(input.name!)) throw fail('mcp_server_exists', { name: input.name }, { details: { field: 'name' } });
    await this.checkHost(input.url!);
    const now = Date.now();
    await this.core.h.db
      .insertInto('mcp_servers')
      .values({
        name: input.name!,
        url: input.url!,
        headers_sealed: input.headers && Object.keys(input.headers).length ? this.core.secrets.seal(JSON.stringify(input.headers)) : null,
        oauth_sealed: input.oauth ? this.core.secrets.seal(JSON.stringify(input.oauth)) : null,
        tools: jsonOrNull(input.tools?.length ? input.tools : null),
        groups: jsonOrNull(input.groups?.length ? input.groups : null),
        description: input.description ?? null,
        enabled: input.enabled === false ? 0 : 1,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await this.core.cache.bump(MCP_REVISION);
    return this.get(input.name!);
  }

  /** Applies the given fields; `headers` and `oauth` replace the stored ones whole. */
  async update(name: string, input: McpServerInput): Promise<{ view: McpServerView; changed: boolean }> {
    const cur = await this.mustRow(name);
    if (input.name !== undefined && input.name !== cur.name) throw fieldError('name', 'cannot be changed');
    const spec = this.specOf(cur);
    const set: Partial<McpServerRow> = {};
    if (input.url !== undefined && input.url !== cur.url) {
      await this.checkHost(input.url);
      set.url = input.url;
    }
    if (input.headers !== undefined && stable(input.headers ?? {}) !== stable(spec.headers))
      set.headers_sealed =
        input.headers && Object.keys(input.headers).length ? this.core.secrets.seal(JSON.stringify(input.headers)) : null;
    if (input.oauth !== undefined && stable(input.oauth) !== stable(spec.oauth))
      set.oauth_sealed = input.oauth ? this.core.secrets.seal(JSON.stringify(input.oauth)) : null;
    if (input.tools !== undefined) {
      const t = jsonOrNull(input.tools?.length ? input.tools : null);
      if (t !== cur.tools) set.tools = t;
    }
    if (input.groups !== undefined) {
      const g = jsonOrNull(input.groups?.length ? input.groups : null);
      if (g !== cur.groups) set.groups = g;
    }
    if (input.description !== undefined && input.description !== cur.description) set.description = input.description;
    if (input.enabled !== undefined && (input.enabled ? 1 : 0) !== Number(cur.enabled)) set.enabled = input.enabled ? 1 : 0;
    const changed = Object.keys(set).length > 0;
    if (changed) {
      set.updated_at = Math.max(Date.now(), Number(cur.updated_at) + 1);
      await this.core.h.db.updateTable('mcp_servers').set(set).where('name', '=', cur.name).execute();
      await this.core.cache.bump(MCP_REVISION);
    }
    return { view: await this.get(cur.name), changed };
  }

  async delete(name: string): Promise<McpServerView> {
    const cur = await this.mustRow(name);
    await this.core.h.db.deleteFrom('mcp_servers').where('name', '=', cur.name).execute();
    await this.core.cache.bump(MCP_REVISION);
    return this.view(cur);
  }
}

function stable(v: unknown): string {
  if (!isObj(v)) return JSON.stringify(v ?? null);
  return JSON.stringify(Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))));
}
