/**
 * Google service-account credentials (the JSON key file a Google Cloud project issues) exchanged for
 * OAuth access tokens, for Vertex AI channels and for task plugins whose auth is `oauth2_jwt`
 * (`vertex_oauth`): a JWT signed with the key's private key (RS256, `jose`) is posted to the key's own
 * `token_uri` (the JWT-bearer grant, RFC 7523), and the token that comes back is cached per key until
 * a minute before it expires. Concurrent callers share one exchange; a token the upstream refused can
 * be dropped (`invalidate`) so the next call makes one new exchange.
 */
import { createHash } from 'node:crypto';
import type { importPKCS8 } from 'jose';
import type { UpstreamPools } from './upstream-pools.ts';
import { fail } from './errors.ts';

export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
/** A token is renewed this long before it expires. */
const EARLY_MS = 60_000;

export interface ServiceAccount {
  clientEmail: string;
  privateKey: string;
  privateKeyId?: string;
  tokenUri: string;
  projectId: string;
}

/** Reads a service-account JSON key; throws a 400-class error naming what is missing. */
export function parseServiceAccount(text: string): ServiceAccount {
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw fail('invalid_service_account', 'the key is not a service-account JSON key');
  }
  const s = (k: string) => (typeof j[k] === 'string' ? (j[k] as string) : '');
  if (!s('client_email') || !s('private_key')) {
    throw fail('invalid_service_account', 'the service-account key needs "client_email" and "private_key"');
  }
  return {
    clientEmail: s('client_email'),
    privateKey: s('private_key'),
    privateKeyId: s('private_key_id') || undefined,
    tokenUri: s('token_uri') || DEFAULT_TOKEN_URI,
    projectId: s('project_id'),
  };
}

/** Whether a channel key looks like a service-account JSON key (rather than an API key). */
export const isServiceAccountKey = (key: string): boolean => key.trimStart().startsWith('{');

interface Cached {
  token: string;
  expiresAt: number;
}

export class GoogleTokens {
  private cache = new Map<string, Cached>();
  /** Channel keys already read: the key text → the parsed account (a call does not parse or hash it again). */
  private accounts = new Map<string, ServiceAccount>();
  private inFlight = new Map<string, Promise<Cached>>();
  /** Exchanges made (read by tests and metrics). */
  exchanges = 0;

  constructor(
    private readonly pools: UpstreamPools,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cache id of an account, computed once per parsed account. */
  private static readonly ids = new WeakMap<ServiceAccount, string>();
  private static id(sa: ServiceAccount): string {
    let id = GoogleTokens.ids.get(sa);
    if (!id) {
      id = createHash('sha256').update(`${sa.clientEmail}\n${sa.tokenUri}\n${sa.privateKey}`).digest('hex');
      GoogleTokens.ids.set(sa, id);
    }
    return id;
  }

  /** The service account of a channel key (its JSON text), read once per key; throws as parseServiceAccount. */
  account(key: string): ServiceAccount {
    let sa = this.accounts.get(key);
    if (!sa) {
      sa = parseServiceAccount(key);
      if (this.accounts.size >= 1000) this.accounts.clear();
      this.accounts.set(key, sa);
    }
    return sa;
  }

  /** An access token for the key (cached, shared, renewed shortly before it expires). */
  async token(sa: ServiceAccount, scope: string = CLOUD_PLATFORM_SCOPE): Promise<string> {
    const id = `${GoogleTokens.id(sa)}\n${scope}`;
    const c = this.cache.get(id);
    if (c && c.expiresAt - EARLY_MS > this.now()) return c.token;
    let p = this.inFlight.get(id);
    if (!p) {
      p = this.exchange(sa, scope).finally(() => this.inFlight.delete(id));
      this.inFlight.set(id, p);
    }
    const got = await p;
    this.cache.set(id, got);
    return got.token;
  }

  /** Drops the cached token of a key (the upstream refused it): the next call exchanges once more. */
  invalidate(sa: ServiceAccount, scope: string = CLOUD_PLATFORM_SCOPE): void {
    this.cache.delete(`${GoogleTokens.id(sa)}\n${scope}`);
  }

  private async exchange(sa: ServiceAccount, scope: string): Promise<Cached> {
    this.exchanges++;
    let key: Awaited<ReturnType<typeof importPKCS8>>;
    try {
      key = await (await import('jose')).importPKCS8(sa.privateKey, 'RS256');
    } catch {
      throw fail('invalid_service_account', 'the service-account private key cannot be read');
    }
    const iat = Math.floor(this.now() / 1000);
    const { SignJWT } = await import('jose');
    const jwt = await new SignJWT({ scope })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(sa.privateKeyId ? { kid: sa.privateKeyId } : {}) })
      .setIssuer(sa.clientEmail)
      .setSubject(sa.clientEmail)
      .setAudience(sa.tokenUri)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(key);
    let url: URL;
    try {
      url = new URL(sa.tokenUri);
    } catch {
      throw fail('invalid_service_account', 'the service-account "token_uri" is not a URL');
    }
    const res = await this.pools.send({
      url,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwt }).toString(),
    });
    const text = await res.body.text();
    let j: { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } = {};
    try {
      j = JSON.parse(text) as typeof j;
    } catch {
      // not JSON: reported below
    }
    if (res.statusCode !== 200 || typeof j.access_token !== 'string') {
      const why =
        typeof j.error_description === 'string' ? j.error_description : typeof j.error === 'string' ? j.error : `HTTP ${res.statusCode}`;
      throw fail('upstream_auth_failed', `the service account's token exchange failed: ${why.slice(0, 200)}`);
    }
    const ttl = typeof j.expires_in === 'number' && j.expires_in > 0 ? j.expires_in : 3600;
    return { token: j.access_token, expiresAt: this.now() + ttl * 1000 };
  }
}
