/**
 * Single sign-on: the providers (generic OpenID Connect with discovery, or GitHub OAuth as a preset),
 * the authorization-code flow with PKCE, state and nonce, and what a login does with the person the
 * provider vouches for: sign in the account linked to that subject, or on the first login link the
 * account holding the same verified e-mail (account_mode `link`) or create a new one.
 *
 * The flow's secrets (state, nonce, PKCE verifier) travel in a short-lived cookie sealed with the
 * SecretBox, so any node may answer the callback. Client secrets are sealed at rest and never leave
 * this module.
 */
import { randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import type { Core } from '../core.ts';
import { fail } from '../platform/errors.ts';
import { Reader, fieldError, isObj, join, parseEmailAddress, type Obj } from '../platform/validate.ts';
import type { SsoProviderRow } from '../store/schema-sso.ts';
import type { Users } from './users.ts';
import { UserStore } from './user-store.ts';
import type { UserPrincipal } from './types.ts';

export const SSO_STATE_COOKIE = 'gatehouse_sso';
/** Time a person has to come back from the provider. */
export const SSO_FLOW_TTL_MS = 10 * 60 * 1000;
const KINDS = ['oidc', 'github'] as const;
const MODES = ['link', 'create'] as const;
const GITHUB_WEB = 'https://github.com';
const GITHUB_API = 'https://api.github.com';
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
const DISCOVERY_TTL_MS = 10 * 60 * 1000;
const HTTP_TIMEOUT_MS = 15_000;

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
  created_at: number;
  updated_at: number;
}

/** What the login page needs to draw a button. */
export interface SsoPublicProvider {
  id: string;
  name: string;
  button_label: string;
}

/** The person a provider vouched for. */
export interface SsoProfile {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  /** Suggested username (GitHub login, preferred_username, e-mail local part). */
  username: string | null;
  displayName: string | null;
}

interface FlowState {
  /** provider id */
  p: string;
  s: string;
  n: string;
  v: string;
  /** redirect_uri used at the start (the callback must send the same). */
  r: string;
  /** The console path to return to after the login. */
  t: string;
  e: number;
}

/** Only same-origin console paths (printable ASCII, as browsers send them) are followed after a login. */
export function safeReturnPath(next: unknown): string {
  return typeof next === 'string' &&
    next.length <= 1000 &&
    next.startsWith('/') &&
    !next.startsWith('//') &&
    !next.startsWith('/\\') &&
    !next.startsWith('/login') &&
    !next.startsWith('/api/') &&
    ![...next].some((c) => c.charCodeAt(0) < 0x21 || c.charCodeAt(0) > 0x7e)
    ? next
    : '/';
}

/** Finds the account holding a verified e-mail address; null when none does. */
export type VerifiedEmailLookup = (email: string) => Promise<number | null>;

const isLoopbackHost = (host: string) => /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i.test(host);

/** http:// is accepted for loopback addresses, or anywhere when the operator sets allow_insecure. */
function checkUrl(v: string, at: string, allowInsecure: boolean): string {
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

function firstString(...v: unknown[]): string | null {
  for (const x of v) if (typeof x === 'string' && x.trim() !== '') return x.trim();
  return null;
}

async function fetchJson(url: string, init: RequestInit, what: string): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) });
  } catch (e) {
    throw fail('sso_provider_unreachable', `${what}: ${(e as Error).message}`);
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw fail('sso_provider_error', `${what}: HTTP ${res.status}, not JSON`);
  }
  if (!res.ok) throw fail('sso_provider_error', `${what}: HTTP ${res.status}`);
  return body;
}

export class Sso {
  private readonly discovered = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();
  private readonly emailLookups: VerifiedEmailLookup[] = [];

  constructor(
    private readonly core: Core,
    private readonly users: Users,
  ) {
    // Accounts that signed in before with a provider that vouched for the address.
    this.emailLookups.push(async (email) => {
      const row = await this.core.h.db
        .selectFrom('sso_identities')
        .select('user_id')
        .where('email', '=', email)
        .where('email_verified', '=', 1)
        .orderBy('id')
        .executeTakeFirst();
      return row ? Number(row.user_id) : null;
    });
  }

  /** Adds a source of verified e-mail addresses (e.g. addresses users confirmed) for linking. */
  addVerifiedEmailLookup(fn: VerifiedEmailLookup): void {
    this.emailLookups.unshift(fn);
  }

  // ---- providers ---------------------------------------------------------------------------------

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
      created_at: Number(row.created_at),
      updated_at: Number(row.updated_at),
    };
  }

  async row(id: string): Promise<SsoProviderRow | undefined> {
    return this.core.h.db.selectFrom('sso_providers').selectAll().where('id', '=', String(id)).executeTakeFirst();
  }

  private async mustRow(id: string): Promise<SsoProviderRow> {
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

  async create(input: SsoProviderInput): Promise<SsoProviderView> {
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
        created_at: now,
        updated_at: now,
      })
      .execute();
    return this.get(input.id!);
  }

  /** Updates the given fields; returns the view and whether anything changed. */
  async update(id: string, input: SsoProviderInput): Promise<{ view: SsoProviderView; changed: boolean }> {
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
    await this.core.h.db.deleteFrom('sso_identities').where('provider_id', '=', cur.id).execute();
    await this.core.h.db.deleteFrom('sso_providers').where('id', '=', cur.id).execute();
    this.discovered.delete(cur.id);
    return this.view(cur);
  }

  private secretOf(row: SsoProviderRow): string {
    return this.core.secrets.open(row.client_secret_sealed);
  }

  // ---- the flow ----------------------------------------------------------------------------------

  private insecureAllowed(row: SsoProviderRow): boolean {
    return Number(row.allow_insecure) === 1 || isLoopbackHost(new URL(row.issuer).hostname);
  }

  private async oidcConfig(row: SsoProviderRow): Promise<oidc.Configuration> {
    const key = row.id;
    let hit = this.discovered.get(key);
    if (!hit || hit.at !== Number(row.updated_at)) {
      const config = oidc.discovery(new URL(row.issuer), row.client_id, this.secretOf(row), undefined, {
        execute: this.insecureAllowed(row) ? [oidc.allowInsecureRequests] : [],
        timeout: HTTP_TIMEOUT_MS / 1000,
      });
      const entry = { at: Number(row.updated_at), config };
      hit = entry;
      this.discovered.set(key, entry);
      const forget = () => {
        if (this.discovered.get(key) === entry) this.discovered.delete(key);
      };
      config.catch(forget);
      setTimeout(forget, DISCOVERY_TTL_MS).unref();
    }
    try {
      return await hit.config;
    } catch (e) {
      throw fail('sso_provider_unreachable', `discovery at ${row.issuer} failed: ${(e as Error).message}`);
    }
  }

  /**
   * Begins a login: the provider's authorization URL to redirect to and the sealed flow cookie to
   * set. `origin` is the request's own address, used when PUBLIC_URL is not set.
   */
  async start(id: string, origin: string, next?: unknown): Promise<{ url: string; cookie: string }> {
    const row = await this.mustRow(id);
    if (Number(row.enabled) !== 1) throw fail('sso_provider_not_found', { id: row.id });
    const redirectUri = this.redirectUri(row.id, origin);
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const verifier = oidc.randomPKCECodeVerifier();
    const challenge = await oidc.calculatePKCECodeChallenge(verifier);
    let url: URL;
    if (row.kind === 'oidc') {
      const config = await this.oidcConfig(row);
      url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: row.scopes,
        state,
        nonce,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
    } else {
      url = new URL(`${row.issuer}/login/oauth/authorize`);
      url.search = new URLSearchParams({
        client_id: row.client_id,
        redirect_uri: redirectUri,
        scope: row.scopes,
        state,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        allow_signup: 'false',
      }).toString();
    }
    const flow: FlowState = {
      p: row.id,
      s: state,
      n: nonce,
      v: verifier,
      r: redirectUri,
      t: safeReturnPath(next),
      e: Date.now() + SSO_FLOW_TTL_MS,
    };
    return { url: url.href, cookie: this.core.secrets.seal(JSON.stringify(flow)) };
  }

  private openFlow(id: string, cookie: string | undefined): FlowState {
    const refuse = (why: string) => fail('sso_invalid_state', { reason: why });
    if (!cookie) throw refuse('the login was not started in this browser (no flow cookie)');
    let flow: FlowState;
    try {
      flow = JSON.parse(this.core.secrets.open(cookie)) as FlowState;
    } catch {
      throw refuse('the flow cookie is not valid');
    }
    if (flow.p !== id) throw refuse('the login was started with another provider');
    if (!(flow.e > Date.now())) throw refuse('the login took too long');
    return flow;
  }

  /**
   * Completes a login at the callback: checks state (and for OpenID the ID token with its nonce),
   * exchanges the code with the PKCE verifier, and returns the account signed in to with the console
   * path to go back to.
   * `callbackUrl` is the full URL the browser came back to.
   */
  async callback(id: string, callbackUrl: URL, flowCookie: string | undefined): Promise<{ user: UserPrincipal; returnTo: string }> {
    const row = await this.mustRow(id);
    if (Number(row.enabled) !== 1) throw fail('sso_provider_not_found', { id: row.id });
    const flow = this.openFlow(row.id, flowCookie);
    const err = callbackUrl.searchParams.get('error');
    if (err) throw fail('sso_denied', { reason: err.slice(0, 100) });
    const state = callbackUrl.searchParams.get('state');
    if (!state || state !== flow.s)
      throw fail('sso_invalid_state', 'single sign-on refused: the state does not match; start the login again');
    const profile = row.kind === 'oidc' ? await this.oidcProfile(row, flow, callbackUrl) : await this.githubProfile(row, flow, callbackUrl);
    return { user: await this.signIn(row, profile), returnTo: safeReturnPath(flow.t) };
  }

  private async oidcProfile(row: SsoProviderRow, flow: FlowState, callbackUrl: URL): Promise<SsoProfile> {
    const config = await this.oidcConfig(row);
    // The provider answers at the redirect URI registered with it, whatever address reached us.
    const current = new URL(flow.r);
    current.search = callbackUrl.search;
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: flow.v,
        expectedState: flow.s,
        expectedNonce: flow.n,
        idTokenExpected: true,
      });
    } catch (e) {
      const cause = (e as { cause?: unknown }).cause;
      const why = cause instanceof Error ? `${(e as Error).message}: ${cause.message}` : (e as Error).message;
      throw fail('sso_failed', { reason: why });
    }
    const claims = tokens.claims();
    if (!claims) throw fail('sso_failed', 'single sign-on refused: no ID token');
    let info: Record<string, unknown> = { ...claims };
    if (claims.email === undefined && config.serverMetadata().userinfo_endpoint) {
      try {
        info = { ...(await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)), ...claims };
      } catch (e) {
        throw fail('sso_provider_error', `userinfo: ${(e as Error).message}`);
      }
    }
    const email = firstString(info.email);
    return {
      subject: claims.sub,
      email: parseEmailAddress(email),
      emailVerified: info.email_verified === true || info.email_verified === 'true',
      username: firstString(info.preferred_username, info.nickname, email?.split('@')[0]),
      displayName: firstString(info.name, info.preferred_username),
    };
  }

  private async githubProfile(row: SsoProviderRow, flow: FlowState, callbackUrl: URL): Promise<SsoProfile> {
    const code = callbackUrl.searchParams.get('code');
    if (!code) throw fail('sso_failed', 'single sign-on refused: no authorization code');
    const token = (await fetchJson(
      `${row.issuer}/login/oauth/access_token`,
      {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: row.client_id,
          client_secret: this.secretOf(row),
          code,
          redirect_uri: flow.r,
          code_verifier: flow.v,
        }).toString(),
      },
      'GitHub token exchange',
    )) as Obj;
    if (typeof token.access_token !== 'string') {
      throw fail('sso_failed', { reason: typeof token.error === 'string' ? token.error.slice(0, 100) : 'no access token' });
    }
    const headers = { authorization: `Bearer ${token.access_token}`, accept: 'application/vnd.github+json', 'user-agent': 'gatehouse' };
    const api = row.api_url ?? GITHUB_API;
    const user = (await fetchJson(`${api}/user`, { headers }, 'GitHub /user')) as Obj;
    if (typeof user.id !== 'number' && typeof user.id !== 'string') throw fail('sso_provider_error', 'GitHub /user: no id');
    let email: string | null = null;
    let verified = false;
    const emails = await fetchJson(`${api}/user/emails`, { headers }, 'GitHub /user/emails').catch(() => null);
    if (Array.isArray(emails)) {
      const list = emails.filter(isObj).filter((e) => typeof e.email === 'string');
      const pick =
        list.find((e) => e.primary === true && e.verified === true) ??
        list.find((e) => e.verified === true) ??
        list.find((e) => e.primary === true);
      if (pick) {
        email = pick.email as string;
        verified = pick.verified === true;
      }
    }
    if (!email && typeof user.email === 'string' && user.email) email = user.email;
    return {
      subject: String(user.id),
      email: parseEmailAddress(email),
      emailVerified: verified,
      username: firstString(user.login),
      displayName: firstString(user.name, user.login),
    };
  }

  private async findByVerifiedEmail(email: string): Promise<number | null> {
    for (const fn of this.emailLookups) {
      const id = await fn(email);
      if (id !== null) return id;
    }
    return null;
  }

  /** The account of a vouched-for person: linked before, linked now by verified e-mail, or created. */
  async signIn(row: SsoProviderRow, p: SsoProfile): Promise<UserPrincipal> {
    const db = this.core.h.db;
    const now = Date.now();
    const known = await db
      .selectFrom('sso_identities')
      .select(['id', 'user_id'])
      .where('provider_id', '=', row.id)
      .where('subject', '=', p.subject)
      .executeTakeFirst();
    let userId: number;
    if (known) {
      userId = Number(known.user_id);
      await db
        .updateTable('sso_identities')
        .set({ email: p.email, email_verified: p.emailVerified ? 1 : 0, last_login_at: now })
        .where('id', '=', known.id)
        .execute();
    } else {
      let linkTo: number | null = null;
      if (row.account_mode === 'link' && p.email) {
        const owner = await this.findByVerifiedEmail(p.email);
        if (owner !== null) {
          if (!p.emailVerified) {
            throw fail('sso_email_unverified');
          }
          // Whoever controls a provider (admins declare them) could otherwise take the root account.
          const role = await new UserStore(this.core.h).byId(owner);
          if (role?.role === 'root') {
            throw fail('sso_link_refused');
          }
          linkTo = owner;
        }
      }
      userId = linkTo ?? (await this.createAccount(row, p));
      try {
        await db
          .insertInto('sso_identities')
          .values({
            provider_id: row.id,
            subject: p.subject,
            user_id: userId,
            email: p.email,
            email_verified: p.emailVerified ? 1 : 0,
            created_at: now,
            last_login_at: now,
          })
          .execute();
      } catch (e) {
        // The same person finishing two logins at once: the first link wins.
        const again = await db
          .selectFrom('sso_identities')
          .select('user_id')
          .where('provider_id', '=', row.id)
          .where('subject', '=', p.subject)
          .executeTakeFirst();
        if (!again) throw e;
        userId = Number(again.user_id);
      }
      this.core.log.info(
        { provider: row.id, user_id: userId, linked: linkTo !== null },
        linkTo !== null ? 'sso identity linked to an account' : 'sso account created',
      );
    }
    const u = await new UserStore(this.core.h).byId(userId);
    if (!u) throw fail('user_disabled', 'the account linked to this sign-in no longer exists');
    if (Number(u.status) !== 1) throw fail('user_disabled');
    return { id: Number(u.id), username: u.username, role: u.role, group: u.group_name };
  }

  private async createAccount(row: SsoProviderRow, p: SsoProfile): Promise<number> {
    const base = (p.username ?? `${row.id}-${p.subject}`).replace(/[^A-Za-z0-9_.@-]/g, '').slice(0, 56) || `${row.id}-user`;
    for (let i = 0; i < 20; i++) {
      const username = i === 0 ? base : i < 10 ? `${base}-${i + 1}` : `${base}-${randomBytes(3).toString('hex')}`;
      if ((await new UserStore(this.core.h).idByName(username)) !== null) continue;
      try {
        // No password: the person signs in with the provider (and may set one later, accounts/reauth.ts).
        return await this.users.create({
          username,
          password: null,
          displayName: (p.displayName ?? username).slice(0, 64),
          group: row.default_group,
        });
      } catch (e) {
        if ((await new UserStore(this.core.h).idByName(username)) === null) throw e;
      }
    }
    throw fail('username_taken');
  }
}
