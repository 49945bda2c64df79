/**
 * The protocols of single sign-on (docs/sso.md): the authorization-code flow with PKCE, state and
 * nonce for OpenID Connect providers (`openid-client`, discovery cached per provider) and GitHub's
 * OAuth, up to the person the provider vouches for (`SsoProfile`). What a sign-in does with that
 * person is accounts/sso.ts. The flow's secrets (state, nonce, PKCE verifier) travel in a short-lived
 * cookie sealed with the SecretBox, so any node may answer the callback. `openid-client` is loaded by the
 * first sign-in that begins or returns, not at start.
 */
import type * as Oidc from 'openid-client';
import type { Core } from '../core.ts';
import { fail } from '../platform/errors.ts';
import { isObj, parseEmailAddress, type Obj } from '../platform/validate.ts';
import type { SsoProviderRow } from '../store/schema-sso.ts';
import { GITHUB_API, isLoopbackHost, type SsoProviders } from './sso-providers.ts';

export const SSO_STATE_COOKIE = 'gatehouse_sso';
/** Time a person has to come back from the provider. */
export const SSO_FLOW_TTL_MS = 10 * 60 * 1000;
/** How long a provider's discovery document is reused. */
const DISCOVERY_TTL_MS = 10 * 60 * 1000;
const HTTP_TIMEOUT_MS = 15_000;

/** The person a provider vouched for. */
export interface SsoProfile {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  /** Suggested username (GitHub login, preferred_username, e-mail local part). */
  username: string | null;
  displayName: string | null;
}

export interface FlowState {
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
  /** A link of the provider to this account (the profile's "link", not a login); absent for a login. */
  l?: number;
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

/** openid-client, loaded when first used (its PKCE helpers serve GitHub's flow too). */
const openid = (): Promise<typeof Oidc> => import('openid-client');

export class SsoProtocols {
  private readonly discovered = new Map<string, { at: number; config: Promise<Oidc.Configuration> }>();

  constructor(
    private readonly core: Core,
    private readonly providers: SsoProviders,
  ) {}

  /** Forgets a provider's discovery document (the provider was deleted). */
  forget(id: string): void {
    this.discovered.delete(id);
  }

  private insecureAllowed(row: SsoProviderRow): boolean {
    return Number(row.allow_insecure) === 1 || isLoopbackHost(new URL(row.issuer).hostname);
  }

  private async oidcConfig(row: SsoProviderRow): Promise<Oidc.Configuration> {
    const key = row.id;
    let hit = this.discovered.get(key);
    if (!hit || hit.at !== Number(row.updated_at)) {
      const [issuer, secret, insecure] = [new URL(row.issuer), this.providers.secretOf(row), this.insecureAllowed(row)];
      const config = openid().then((oidc) =>
        oidc.discovery(issuer, row.client_id, secret, undefined, {
          execute: insecure ? [oidc.allowInsecureRequests] : [],
          timeout: HTTP_TIMEOUT_MS / 1000,
        }),
      );
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

  /**
   * Begins a flow at provider `row`: the authorization URL to send the browser to and the sealed flow
   * cookie to set. `redirectUri`: where the provider sends the browser back; `link`: the account a
   * profile link is for (absent for a login).
   */
  async begin(row: SsoProviderRow, redirectUri: string, next: unknown, link?: number): Promise<{ url: string; cookie: string }> {
    const oidc = await openid();
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
      ...(link !== undefined ? { l: link } : {}),
    };
    return { url: url.href, cookie: this.core.secrets.seal(JSON.stringify(flow)) };
  }

  /** The flow of the callback's cookie, checked: made for provider `id`, not expired. */
  openFlow(id: string, cookie: string | undefined): FlowState {
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
   * The person the provider vouches for at the callback: checks the state (and for OpenID the ID
   * token with its nonce) and exchanges the code with the PKCE verifier. `callbackUrl` is the full URL
   * the browser came back to.
   */
  async profile(row: SsoProviderRow, flow: FlowState, callbackUrl: URL): Promise<SsoProfile> {
    const err = callbackUrl.searchParams.get('error');
    if (err) throw fail('sso_denied', { reason: err.slice(0, 100) });
    const state = callbackUrl.searchParams.get('state');
    if (!state || state !== flow.s)
      throw fail('sso_invalid_state', 'single sign-on refused: the state does not match; start the login again');
    return row.kind === 'oidc' ? this.oidcProfile(row, flow, callbackUrl) : this.githubProfile(row, flow, callbackUrl);
  }

  private async oidcProfile(row: SsoProviderRow, flow: FlowState, callbackUrl: URL): Promise<SsoProfile> {
    const oidc = await openid();
    const config = await this.oidcConfig(row);
    // The provider answers at the redirect URI registered with it, whatever address reached us.
    const current = new URL(flow.r);
    current.search = callbackUrl.search;
    let tokens: Awaited<ReturnType<typeof Oidc.authorizationCodeGrant>>;
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
          client_secret: this.providers.secretOf(row),
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
}
