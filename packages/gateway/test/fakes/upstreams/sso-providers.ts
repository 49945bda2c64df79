/**
 * Sign-in providers on loopback for single sign-on tests: a real OpenID provider (the `oidc-provider`
 * package, its development login and consent forms) and a small GitHub-shaped OAuth server
 * (/login/oauth/authorize, /login/oauth/access_token, /user, /user/emails, PKCE S256), plus a tiny
 * cookie-keeping browser that follows redirects and fills in the provider's forms.
 */
// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- the console's browser tests compile this file without the test folder
/// <reference path="./oidc-provider.d.ts" />
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export interface OidcPerson {
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
}

export interface OidcClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An OpenID provider at http://127.0.0.1:port. Accounts are logins of `people` (any password). */
export async function startOidcProvider(
  clients: OidcClient[],
  people: Record<string, OidcPerson>,
): Promise<{ issuer: string; close(): Promise<void> }> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_q, s) => {
    s.statusCode = 503;
    s.end();
  };
  const server = createServer((req, res) => handler(req, res));
  const issuer = await listen(server);
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'test' };
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({
      ...c,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'] },
    async findAccount(_ctx, id) {
      const p = people[id];
      if (!p) return undefined;
      return {
        accountId: id,
        async claims() {
          return { sub: id, ...p };
        },
      };
    },
  });
  // The development forms log their own notice: keep the test output quiet.
  provider.on('server_error', () => {});
  handler = provider.callback();
  return {
    issuer,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface GithubUser {
  id: number;
  login: string;
  name?: string;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
}

/**
 * A GitHub-shaped OAuth server: the authorize page approves at once for `current.user` (set by the
 * test), the token endpoint checks client secret, redirect URI and the PKCE verifier.
 */
export async function startGithubLike(client: {
  client_id: string;
  client_secret: string;
}): Promise<{ url: string; current: { user: GithubUser | null }; close(): Promise<void> }> {
  const current: { user: GithubUser | null } = { user: null };
  const codes = new Map<string, { user: GithubUser; redirect: string; challenge: string }>();
  const tokens = new Map<string, GithubUser>();
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      const p = url.searchParams;
      if (p.get('client_id') !== client.client_id || !current.user || p.get('code_challenge_method') !== 'S256')
        return json(res, 400, { error: 'bad_request' });
      const code = randomBytes(12).toString('hex');
      codes.set(code, { user: current.user, redirect: p.get('redirect_uri')!, challenge: p.get('code_challenge')! });
      const back = new URL(p.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', p.get('state') ?? '');
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        const f = new URLSearchParams(body);
        const c = codes.get(f.get('code') ?? '');
        codes.delete(f.get('code') ?? '');
        const pkce = createHash('sha256')
          .update(f.get('code_verifier') ?? '')
          .digest('base64url');
        if (f.get('client_id') !== client.client_id || f.get('client_secret') !== client.client_secret)
          return json(res, 200, { error: 'incorrect_client_credentials' });
        if (!c || c.redirect !== f.get('redirect_uri') || c.challenge !== pkce) return json(res, 200, { error: 'bad_verification_code' });
        const token = `gho_${randomBytes(12).toString('hex')}`;
        tokens.set(token, c.user);
        json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
      });
      return;
    }
    const user = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (req.method === 'GET' && url.pathname === '/user') {
      if (!user) return json(res, 401, { message: 'Bad credentials' });
      return json(res, 200, { id: user.id, login: user.login, name: user.name ?? null, email: null });
    }
    if (req.method === 'GET' && url.pathname === '/user/emails') {
      if (!user) return json(res, 401, { message: 'Bad credentials' });
      return json(
        res,
        200,
        user.emails.map((e) => ({ ...e, visibility: null })),
      );
    }
    json(res, 404, { message: 'Not Found' });
  });
  const url = await listen(server);
  return {
    url,
    current,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A cookie-keeping client (one jar for every loopback port, as a browser keeps per host). */
export class MiniBrowser {
  readonly jar = new Map<string, string>();

  private keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const gone = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]) < Date.now()));
      if (gone || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<Response> {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: this.cookieHeader(), ...headers } });
    this.keep(res);
    return res;
  }

  async post(url: string, form: Record<string, string>): Promise<Response> {
    const res = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    this.keep(res);
    return res;
  }

  /**
   * Follows redirects from `url`, logging in as `login` and consenting on the provider's forms, until
   * a redirect reaches `stopAt` (a URL prefix). Returns that URL without requesting it.
   */
  async driveTo(url: string, stopAt: string, login: string): Promise<string> {
    let next = url;
    for (let hops = 0; hops < 20; hops++) {
      if (next.startsWith(stopAt)) return next;
      const res = await this.get(next);
      if (res.status >= 300 && res.status < 400) {
        next = new URL(res.headers.get('location')!, next).href;
        continue;
      }
      const html = await res.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
      if (res.status !== 200 || !action || !prompt) throw new Error(`unexpected page at ${next}: HTTP ${res.status} ${html.slice(0, 300)}`);
      const target = new URL(action.replace(/&amp;/g, '&'), next).href;
      const posted = await this.post(target, prompt === 'login' ? { prompt, login, password: 'any-password' } : { prompt });
      if (posted.status < 300 || posted.status >= 400)
        throw new Error(`form at ${target} answered HTTP ${posted.status}: ${(await posted.text()).slice(0, 300)}`);
      next = new URL(posted.headers.get('location')!, target).href;
    }
    throw new Error('too many redirects');
  }
}
