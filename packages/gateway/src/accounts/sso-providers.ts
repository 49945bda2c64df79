/**
 * Single sign-on providers (docs/sso.md): their validation (admin API and configuration file), and the
 * `sso_providers` table — list, create, update, delete. Client secrets are sealed at rest and never
 * leave this module but through `secretOf` (the flow's code exchange). Each provider records who last
 * changed it (`changed_by`, `changed_by_role`): a sign-in through it never lands in an account of that
 * role or above unless root made the change (accounts/sso.ts).
 */
import type { Core } from '../core.ts';
import { fail } from '../platform/errors.ts';
import { Reader, fieldError, isObj, join } from '../platform/validate.ts';
import type { SsoProviderRow } from '../store/schema-sso.ts';
import type { Role, UserPrincipal } from './types.ts';

const KINDS = ['oidc', 'github'] as const;
const MODES = ['link', 'create'] as const;
export const GITHUB_WEB = 'https://github.com';
export const GITHUB_API = 'https://api.github.com';
const DEFAULT_SCOPES = { oidc: ['openid', 'email', 'profile'], github: ['read:user', 'user:email'] };
const FIELDS = [
  'id',
  'kind',
  'name',
  'button_label',
  'issuer',
  'api_url',
  'client_id',
  'client_secret',
  'scopes',
  'account_mode',
  'default_group',
  'allow_insecure',
  'enabled',
  'sort',
];
/** How long a provider's discovery document is reused. */

export interface SsoProviderInput {
  id?: string;
  kind?: 'oidc' | 'github';
  name?: string;
  button_label?: string;
  issuer?: string;
  api_url?: string | null;
  client_id?: string;
  client_secret?: string;
  scopes?: string[];
  account_mode?: 'link' | 'create';
  default_group?: string;
  allow_insecure?: boolean;
  enabled?: boolean;
  sort?: number;
}

/** A provider as the admin API shows it: the secret only as `client_secret_set`. */
export interface SsoProviderView {
  id: string;
  kind: 'oidc' | 'github';
  name: string;
  button_label: string;
  issuer: string;
  api_url: string | null;
  client_id: string;
  client_secret_set: boolean;
  scopes: string[];
  account_mode: 'link' | 'create';
  default_group: string;
  allow_insecure: boolean;
  enabled: boolean;
  sort: number;
  /** Where the provider sends people back: register it with the provider. */
  redirect_uri: string;
  /** Who changed the provider last (null: the configuration file), and that person's role then. */
  changed_by: number | null;
  changed_by_role: Role;
  created_at: number;
  updated_at: number;
}

/** What the login page needs to draw a button. */
export interface SsoPublicProvider {
  id: string;
  name: string;
  button_label: string;
}

export const isLoopbackHost = (host: string) => /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i.test(host);

/** http:// is accepted for loopback addresses, or anywhere when the operator sets allow_insecure. */
export function checkUrl(v: string, at: string, allowInsecure: boolean): string {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw fieldError(at, 'must be an absolute http(s) URL');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw fieldError(at, 'must be an absolute http(s) URL');
  if (u.protocol === 'http:' && !allowInsecure && !isLoopbackHost(u.hostname)) {
    throw fieldError(at, 'must be https (http only for loopback addresses, or with allow_insecure: true)');
  }
  if (u.username || u.password) throw fieldError(at, 'must not carry credentials');
  return v.replace(/\/+$/, '');
}

/**
 * Validates a provider from the admin API or the configuration file. `create`: the whole provider
 * (defaults filled in); `update`: only the fields given. Needs no database.
 */
export function parseSsoProvider(body: unknown, mode: 'create' | 'update', at = '', current?: SsoProviderRow): SsoProviderInput {
  if (!isObj(body)) throw fieldError(at || '(body)', 'must be an object');
  const r = new Reader(body, at).only(FIELDS);
  const out: SsoProviderInput = {};
  const creating = mode === 'create';
  if (creating)
    out.id = r.str('id', { required: true, max: 64, pattern: /^[a-z0-9][a-z0-9_-]{0,63}$/, hint: 'lower-case letters, digits, _ and -' })!;
  else if (r.has('id') && body.id !== current?.id) throw fieldError(join(at, 'id'), 'cannot be changed');
  const kind = r.has('kind') ? r.str('kind', { required: true }) : creating ? 'oidc' : current!.kind;
  if (!KINDS.includes(kind as never)) throw fieldError(join(at, 'kind'), `must be one of ${KINDS.join(', ')}`);
  if (!creating && kind !== current!.kind) throw fieldError(join(at, 'kind'), 'cannot be changed');
  if (creating) out.kind = kind as SsoProviderInput['kind'];
  const k = kind as 'oidc' | 'github';
  if (r.has('allow_insecure') || creating) out.allow_insecure = r.bool('allow_insecure') ?? false;
  const insecure = out.allow_insecure ?? Number(current?.allow_insecure) === 1;
  if (r.has('name') || creating) out.name = r.str('name', { required: true, max: 128 })!;
  if (r.has('button_label')) out.button_label = r.str('button_label', { max: 128 }) || undefined;
  if (creating && !out.button_label) out.button_label = `Sign in with ${out.name}`;
  if (r.has('issuer') || (creating && k === 'oidc')) {
    out.issuer = checkUrl(r.str('issuer', { required: true, max: 1000 })!, join(at, 'issuer'), insecure);
  } else if (creating) out.issuer = GITHUB_WEB;
  if (r.has('api_url')) {
    const v = r.nullableStr('api_url', { max: 1000 });
    if (k !== 'github' && v) throw fieldError(join(at, 'api_url'), 'is for GitHub providers only');
    out.api_url = v ? checkUrl(v, join(at, 'api_url'), insecure) : null;
  }
  if (k === 'github' && (creating || out.api_url === null) && !out.api_url) {
    const web = out.issuer ?? current?.issuer ?? GITHUB_WEB;
    out.api_url = web === GITHUB_WEB ? GITHUB_API : `${web}/api/v3`;
  }
  if (creating && k === 'oidc') out.api_url = null;
  if (r.has('client_id') || creating) out.client_id = r.str('client_id', { required: true, max: 500 })!;
  if (r.has('client_secret') || creating) {
    const v = body.client_secret;
    if (typeof v !== 'string' || v === '' || v.length > 2000)
      throw fieldError(join(at, 'client_secret'), 'is required (1-2000 characters)');
    out.client_secret = v;
  }
  if (r.has('scopes') || creating) {
    const raw = body.scopes;
    const list =
      typeof raw === 'string'
        ? raw.split(/[\s,]+/).filter(Boolean)
        : raw === undefined || raw === null
          ? DEFAULT_SCOPES[k]
          : r.list('scopes', { max: 32 })!;
    for (const s of list)
      if (!/^[\x21\x23-\x5B\x5D-\x7E]{1,200}$/.test(s)) throw fieldError(join(at, 'scopes'), `"${s}" is not a valid scope`);
    const scopes = [...new Set(list)];
    if (k === 'oidc' && !scopes.includes('openid')) scopes.unshift('openid');
    out.scopes = scopes;
  }
  if (r.has('account_mode') || creating) {
    const m = r.has('account_mode') ? r.str('account_mode', { required: true }) : 'link';
    if (!MODES.includes(m as never)) throw fieldError(join(at, 'account_mode'), `must be one of ${MODES.join(', ')}`);
    out.account_mode = m as SsoProviderInput['account_mode'];
  }
  if (r.has('default_group') || creating)
    out.default_group =
      r.str('default_group', { max: 64, pattern: /^[A-Za-z0-9_.-]{1,64}$/, hint: '1-64 letters, digits, _ . -' }) ?? 'default';
  if (r.has('enabled') || creating) out.enabled = r.bool('enabled') ?? true;
  if (r.has('sort') || creating) out.sort = r.num('sort', { int: true, min: -1e6, max: 1e6 }) ?? 0;
  return out;
}

/** The changer columns of a write by `actor` (null: the configuration file, with root's authority). */
function changer(actor: UserPrincipal | null): Pick<SsoProviderRow, 'changed_by' | 'changed_by_role'> {
  return { changed_by: actor?.id ?? null, changed_by_role: actor?.role ?? 'root' };
}

export class SsoProviders {
  constructor(private readonly core: Core) {}

  redirectUri(id: string, origin?: string): string {
    const base = this.core.config.publicUrl ?? origin ?? '';
    return `${base}/api/sso/${encodeURIComponent(id)}/callback`;
  }

  view(row: SsoProviderRow): SsoProviderView {
    return {
      id: row.id,
      kind: row.kind,
      name: row.name,
      button_label: row.button_label,
      issuer: row.issuer,
      api_url: row.api_url,
      client_id: row.client_id,
      client_secret_set: row.client_secret_sealed !== '',
      scopes: row.scopes.split(' ').filter(Boolean),
      account_mode: row.account_mode,
      default_group: row.default_group,
      allow_insecure: Number(row.allow_insecure) === 1,
      enabled: Number(row.enabled) === 1,
      sort: Number(row.sort),
      redirect_uri: this.redirectUri(row.id),
      changed_by: row.changed_by === null ? null : Number(row.changed_by),
      changed_by_role: row.changed_by_role,
      created_at: Number(row.created_at),
      updated_at: Number(row.updated_at),
    };
  }

  async row(id: string): Promise<SsoProviderRow | undefined> {
    return this.core.h.db.selectFrom('sso_providers').selectAll().where('id', '=', String(id)).executeTakeFirst();
  }

  async mustRow(id: string): Promise<SsoProviderRow> {
    const row = await this.row(id);
    if (!row) throw fail('sso_provider_not_found', { id: String(id).slice(0, 64) });
    return row;
  }

  async list(): Promise<SsoProviderView[]> {
    const rows = await this.core.h.db.selectFrom('sso_providers').selectAll().orderBy('sort').orderBy('id').execute();
    return rows.map((r) => this.view(r));
  }

  async get(id: string): Promise<SsoProviderView> {
    return this.view(await this.mustRow(id));
  }

  /** The enabled providers, for the login page's buttons. */
  async listPublic(): Promise<SsoPublicProvider[]> {
    const rows = await this.core.h.db
      .selectFrom('sso_providers')
      .select(['id', 'name', 'button_label'])
      .where('enabled', '=', 1)
      .orderBy('sort')
      .orderBy('id')
      .execute();
    return rows.map((r) => ({ id: r.id, name: r.name, button_label: r.button_label }));
  }

  /** Creates a provider; `actor` (null: the configuration file, which counts as root) is recorded as its changer. */
  async create(input: SsoProviderInput, actor: UserPrincipal | null): Promise<SsoProviderView> {
    if (await this.row(input.id!)) throw fail('sso_provider_exists', { id: input.id }, { details: { field: 'id' } });
    const now = Date.now();
    await this.core.h.db
      .insertInto('sso_providers')
      .values({
        id: input.id!,
        kind: input.kind!,
        name: input.name!,
        button_label: input.button_label!,
        issuer: input.issuer!,
        api_url: input.api_url ?? null,
        client_id: input.client_id!,
        client_secret_sealed: this.core.secrets.seal(input.client_secret!),
        scopes: input.scopes!.join(' '),
        account_mode: input.account_mode!,
        default_group: input.default_group!,
        allow_insecure: input.allow_insecure ? 1 : 0,
        enabled: input.enabled ? 1 : 0,
        sort: input.sort ?? 0,
        ...changer(actor),
        created_at: now,
        updated_at: now,
      })
      .execute();
    return this.get(input.id!);
  }

  /**
   * Updates the given fields; returns the view and whether anything changed. `actor` (null: the
   * configuration file, which counts as root) becomes the provider's changer when something changed or
   * when the changer was someone of another role (root saving a provider as it is takes it over).
   */
  async update(id: string, input: SsoProviderInput, actor: UserPrincipal | null): Promise<{ view: SsoProviderView; changed: boolean }> {
    const cur = await this.mustRow(id);
    const set: Partial<SsoProviderRow> = {};
    const put = <K extends keyof SsoProviderRow>(k: K, v: SsoProviderRow[K] | undefined) => {
      if (v !== undefined && v !== cur[k]) set[k] = v;
    };
    put('name', input.name);
    put('button_label', input.button_label);
    put('issuer', input.issuer);
    put('api_url', input.api_url);
    put('client_id', input.client_id);
    put('scopes', input.scopes?.join(' '));
    put('account_mode', input.account_mode);
    put('default_group', input.default_group);
    put('allow_insecure', input.allow_insecure === undefined ? undefined : input.allow_insecure ? 1 : 0);
    put('enabled', input.enabled === undefined ? undefined : input.enabled ? 1 : 0);
    put('sort', input.sort);
    if (input.client_secret !== undefined && input.client_secret !== this.secretOf(cur))
      set.client_secret_sealed = this.core.secrets.seal(input.client_secret);
    // An http:// address saved earlier must still pass when allow_insecure is turned off.
    if (set.allow_insecure === 0) {
      checkUrl(set.issuer ?? cur.issuer, 'issuer', false);
      const api = set.api_url !== undefined ? set.api_url : cur.api_url;
      if (api) checkUrl(api, 'api_url', false);
    }
    const by = changer(actor);
    if (Object.keys(set).length > 0 || by.changed_by_role !== cur.changed_by_role) Object.assign(set, by);
    const changed = Object.keys(set).length > 0;
    if (changed) {
      set.updated_at = Math.max(Date.now(), Number(cur.updated_at) + 1);
      await this.core.h.db.updateTable('sso_providers').set(set).where('id', '=', cur.id).execute();
    }
    return { view: await this.get(cur.id), changed };
  }

  /** Deletes a provider and the sign-in links made through it (the accounts stay). */
  async delete(id: string): Promise<SsoProviderView> {
    const cur = await this.mustRow(id);
    await this.core.h.db.deleteFrom('sso_providers').where('id', '=', cur.id).execute();
    return this.view(cur);
  }

  /** The provider's client secret, opened (for the code exchange only). */
  secretOf(row: SsoProviderRow): string {
    return this.core.secrets.open(row.client_secret_sealed);
  }
}
