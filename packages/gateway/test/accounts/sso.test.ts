/**
 * Single sign-on against real providers on loopback: an OpenID provider (oidc-provider) and a
 * GitHub-shaped OAuth server, several at once. The test drives the authorization-code flow over HTTP
 * as a browser would (redirects, the provider's login and consent forms) and checks: accounts created
 * or linked by verified e-mail per the provider's account_mode, refusal when an unverified address
 * would link, state and nonce tampering refused, client secrets sealed at rest and in no answer, the
 * admin API for admins only, the `sso:` section of the configuration file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'otplib';
import { startTestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { UserStore } from '../../src/accounts/user-store.ts';
import { MiniBrowser, startGithubLike, startOidcProvider } from '../fakes/upstreams/sso-providers.ts';

const CORP_SECRET = 'corp-client-secret-0123456789abcdef';
const CORP2_SECRET = 'corp2-client-secret-abcdef0123456789';
const GH_SECRET = 'github-client-secret-fedcba9876543210';

test('single sign-on: OpenID and GitHub providers at once, link or create by verified e-mail, tampering refused, secrets sealed', async () => {
  const gw = await startTestGateway();
  const cb = (id: string) => `${gw.url}/api/sso/${id}/callback`;
  const op = await startOidcProvider(
    [
      { client_id: 'gatehouse', client_secret: CORP_SECRET, redirect_uris: [cb('corp')] },
      { client_id: 'gatehouse-2', client_secret: CORP2_SECRET, redirect_uris: [cb('corp2')] },
    ],
    {
      alice: { email: 'Alice@Example.com', email_verified: true, name: 'Alice Liddell', preferred_username: 'alice' },
      bob: { email: 'bob@example.com', email_verified: false, preferred_username: 'bob' },
      eve: { email: 'root@example.com', email_verified: true, preferred_username: 'eve' },
    },
  );
  const gh = await startGithubLike({ client_id: 'gh-client', client_secret: GH_SECRET });
  try {
    const root = await AdminClient.login(gw.url);

    // --- providers through the admin API -----------------------------------------------------
    await root.fails(
      400,
      'POST',
      '/api/sso/providers',
      { id: 'corp', name: 'Corp', issuer: 'http://idp.example.com', client_id: 'x', client_secret: 'y' },
      'issuer',
    );
    await root.fails(
      400,
      'POST',
      '/api/sso/providers',
      { id: 'Bad Id', name: 'Corp', issuer: op.issuer, client_id: 'x', client_secret: 'y' },
      'id',
    );
    await root.fails(400, 'POST', '/api/sso/providers', { id: 'corp', name: 'Corp', issuer: op.issuer, client_id: 'x' }, 'client_secret');
    const created = await root.call('POST', '/api/sso/providers', {
      id: 'corp',
      name: 'Corp ID',
      issuer: op.issuer,
      client_id: 'gatehouse',
      client_secret: CORP_SECRET,
      scopes: 'email profile',
      button_label: 'Sign in with Corp',
    });
    assert.equal(created.status, 200, created.text);
    const corp = created.body.data;
    assert.equal(corp.kind, 'oidc');
    assert.deepEqual(corp.scopes, ['openid', 'email', 'profile']);
    assert.equal(corp.account_mode, 'link');
    assert.equal(corp.client_secret_set, true);
    assert.equal(corp.redirect_uri, '/api/sso/corp/callback');
    await root.fails(409, 'POST', '/api/sso/providers', {
      id: 'corp',
      name: 'Again',
      issuer: op.issuer,
      client_id: 'x',
      client_secret: 'y',
    });
    const ghView = await root.ok('POST', '/api/sso/providers', {
      id: 'github',
      kind: 'github',
      name: 'GitHub',
      issuer: gh.url,
      api_url: gh.url,
      client_id: 'gh-client',
      client_secret: GH_SECRET,
      sort: 1,
    });
    assert.deepEqual(ghView.scopes, ['read:user', 'user:email']);
    assert.equal(ghView.button_label, 'Sign in with GitHub');
    await root.ok('POST', '/api/sso/providers', {
      id: 'corp2',
      name: 'Corp (separate accounts)',
      issuer: op.issuer,
      client_id: 'gatehouse-2',
      client_secret: CORP2_SECRET,
      account_mode: 'create',
      default_group: 'sso',
      sort: 2,
    });

    // Sealed at rest, never in an answer.
    const rows = await gw.core.h.db.selectFrom('sso_providers').select(['id', 'client_secret_sealed']).execute();
    assert.equal(rows.length, 3);
    for (const r of rows) {
      assert.match(r.client_secret_sealed, /^v1:/);
      for (const s of [CORP_SECRET, CORP2_SECRET, GH_SECRET]) assert.ok(!r.client_secret_sealed.includes(s));
    }
    const answers = [
      (await root.call('GET', '/api/sso/providers')).text,
      (await root.call('GET', '/api/sso/providers/corp')).text,
      (await root.call('PUT', '/api/sso/providers/corp', { client_secret: CORP_SECRET, name: 'Corp ID' })).text,
      (await root.call('GET', '/api/audit?target_type=sso_provider')).text,
      await (await fetch(`${gw.url}/api/sso/providers/public`)).text(),
    ];
    for (const a of answers)
      for (const s of [CORP_SECRET, CORP2_SECRET, GH_SECRET]) assert.ok(!a.includes(s), `secret leaked in ${a.slice(0, 200)}`);
    const audit = JSON.parse(answers[3]).data.items as Array<{ action: string }>;
    assert.ok(audit.some((e) => e.action === 'sso_provider.create'));

    // The login page's list: enabled providers, id, name and label only.
    const pub = (await (await fetch(`${gw.url}/api/sso/providers/public`)).json()) as { data: Array<Record<string, unknown>> };
    assert.deepEqual(pub.data, [
      { id: 'corp', name: 'Corp ID', button_label: 'Sign in with Corp' },
      { id: 'github', name: 'GitHub', button_label: 'Sign in with GitHub' },
      { id: 'corp2', name: 'Corp (separate accounts)', button_label: 'Sign in with Corp (separate accounts)' },
    ]);

    // Admins only.
    const alicePw = await root.ok('POST', '/api/user', { username: 'plain', password: 'plain-password-1' });
    assert.ok(alicePw.id);
    const plain = await AdminClient.login(gw.url, 'plain', 'plain-password-1');
    await plain.fails(403, 'GET', '/api/sso/providers');
    await plain.fails(403, 'POST', '/api/sso/providers', { id: 'x', name: 'x', issuer: op.issuer, client_id: 'x', client_secret: 'y' });
    assert.equal((await fetch(`${gw.url}/api/sso/providers`)).status, 401);

    const self = async (b: MiniBrowser) => {
      const r = await b.get(`${gw.url}/api/user/self`);
      return {
        status: r.status,
        body: (await r.json()) as { data: { id: number; username: string; group: string; display_name: string } },
      };
    };

    // --- a real authorization-code flow with the OpenID provider: first login creates --------
    const b1 = new MiniBrowser();
    const start = await b1.get(`${gw.url}/api/sso/corp/start`);
    assert.equal(start.status, 302);
    const authz = new URL(start.headers.get('location')!);
    assert.ok(authz.href.startsWith(op.issuer));
    assert.equal(authz.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(authz.searchParams.get('state') && authz.searchParams.get('nonce'));
    assert.equal(authz.searchParams.get('redirect_uri'), cb('corp'));
    const back = await b1.driveTo(authz.href, cb('corp'), 'alice');
    const done = await b1.get(back);
    assert.equal(done.status, 302, await done.clone().text());
    assert.equal(done.headers.get('location'), '/');
    assert.ok(b1.jar.has('gatehouse_session'));
    assert.ok(!b1.jar.has('gatehouse_sso'), 'the flow cookie is cleared');
    const alice = await self(b1);
    assert.equal(alice.status, 200);
    assert.equal(alice.body.data.username, 'alice');
    assert.equal(alice.body.data.display_name, 'Alice Liddell');

    // The same person again: the same account, back at the page the login was started from.
    const b1b = new MiniBrowser();
    const again = await b1b.get(
      await b1b.driveTo(
        (await b1b.get(`${gw.url}/api/sso/corp/start?next=${encodeURIComponent('/keys?page=2')}`)).headers.get('location')!,
        cb('corp'),
        'alice',
      ),
    );
    assert.equal(again.status, 302);
    assert.equal(again.headers.get('location'), '/keys?page=2');
    assert.equal((await self(b1b)).body.data.id, alice.body.data.id);

    // --- state tampering: the provider's answer with another state is refused ----------------
    const b2 = new MiniBrowser();
    const back2 = new URL(await b2.driveTo((await b2.get(`${gw.url}/api/sso/corp/start`)).headers.get('location')!, cb('corp'), 'alice'));
    back2.searchParams.set('state', 'forged-state-value');
    const tampered = await b2.get(back2.href);
    assert.equal(tampered.status, 400);
    assert.match(((await tampered.json()) as { message: string }).message, /state/i);
    assert.ok(!b2.jar.has('gatehouse_session'));

    // --- nonce tampering: an authorization request with another nonce gives an ID token that is refused
    const b3 = new MiniBrowser();
    const authz3 = new URL((await b3.get(`${gw.url}/api/sso/corp/start`)).headers.get('location')!);
    authz3.searchParams.set('nonce', 'forged-nonce-value');
    const back3 = await b3.driveTo(authz3.href, cb('corp'), 'alice');
    const tampered3 = await b3.get(back3);
    assert.equal(tampered3.status, 400);
    assert.match(((await tampered3.json()) as { message: string }).message, /nonce/i);
    assert.ok(!b3.jar.has('gatehouse_session'));

    // No flow cookie (the login started in another browser): refused; a browser goes back to the login page.
    const b4 = new MiniBrowser();
    const back4 = await b4.driveTo((await b4.get(`${gw.url}/api/sso/corp/start`)).headers.get('location')!, cb('corp'), 'alice');
    b4.jar.delete('gatehouse_sso');
    const noCookie = await b4.get(back4, { accept: 'text/html' });
    assert.equal(noCookie.status, 302);
    assert.equal(noCookie.headers.get('location'), '/login?sso_error=sso_invalid_state');
    assert.ok(!b4.jar.has('gatehouse_session'));
    // A flow cookie from one provider does not complete another's callback.
    const b5 = new MiniBrowser();
    await b5.get(`${gw.url}/api/sso/github/start`);
    assert.equal((await b5.get(`${cb('corp')}?code=x&state=y`)).status, 400);

    // --- GitHub preset: a verified e-mail links to alice's account ---------------------------
    gh.current.user = {
      id: 4242,
      login: 'alice-gh',
      name: 'Alice on GitHub',
      emails: [
        { email: 'old@example.com', primary: false, verified: false },
        { email: 'alice@example.com', primary: true, verified: true },
      ],
    };
    const g1 = new MiniBrowser();
    const gStart = await g1.get(`${gw.url}/api/sso/github/start?next=${encodeURIComponent('//evil.example/x')}`);
    assert.equal(gStart.status, 302);
    const gAuthz = new URL(gStart.headers.get('location')!);
    assert.equal(gAuthz.origin + gAuthz.pathname, `${gh.url}/login/oauth/authorize`);
    const gDone = await g1.get(await g1.driveTo(gAuthz.href, cb('github'), 'unused'));
    assert.equal(gDone.status, 302, await gDone.clone().text());
    assert.equal(gDone.headers.get('location'), '/', 'only same-origin console paths are followed');
    assert.equal((await self(g1)).body.data.id, alice.body.data.id, 'linked by verified e-mail');

    // GitHub state tampering.
    const g2 = new MiniBrowser();
    const gBack2 = new URL(
      await g2.driveTo((await g2.get(`${gw.url}/api/sso/github/start`)).headers.get('location')!, cb('github'), 'unused'),
    );
    gBack2.searchParams.set('state', 'forged');
    assert.equal((await g2.get(gBack2.href)).status, 400);
    assert.ok(!g2.jar.has('gatehouse_session'));

    // An unverified address that would link is refused.
    gh.current.user = { id: 666, login: 'mallory', emails: [{ email: 'alice@example.com', primary: true, verified: false }] };
    const g3 = new MiniBrowser();
    const refused = await g3.get(
      await g3.driveTo((await g3.get(`${gw.url}/api/sso/github/start`)).headers.get('location')!, cb('github'), 'unused'),
    );
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { message: string }).message.includes('verified'), true);
    assert.ok(!g3.jar.has('gatehouse_session'));
    assert.equal(await gw.core.h.db.selectFrom('users').select('id').where('username', '=', 'mallory').executeTakeFirst(), undefined);

    // An unverified address that matches nobody: a new account (the address cannot link later).
    const b6 = new MiniBrowser();
    assert.equal(
      (await b6.get(await b6.driveTo((await b6.get(`${gw.url}/api/sso/corp/start`)).headers.get('location')!, cb('corp'), 'bob'))).status,
      302,
    );
    const bob = await self(b6);
    assert.equal(bob.body.data.username, 'bob');

    // A root account is never linked by e-mail, even a verified one (here from a further source of
    // verified addresses, as confirmed sign-up addresses would be).
    const rootRow = await gw.core.h.db.selectFrom('users').select('id').where('username', '=', 'root').executeTakeFirstOrThrow();
    gw.services.sso.sso.addVerifiedEmailLookup(async (email) => (email === 'root@example.com' ? Number(rootRow.id) : null));
    const e1 = new MiniBrowser();
    const toRoot = await e1.get(
      await e1.driveTo((await e1.get(`${gw.url}/api/sso/corp/start`)).headers.get('location')!, cb('corp'), 'eve'),
    );
    assert.equal(toRoot.status, 403);
    assert.match(((await toRoot.json()) as { message: string }).message, /root/);
    assert.ok(!e1.jar.has('gatehouse_session'));

    // --- account_mode create: the same verified e-mail gets a separate account -----------------
    const c1 = new MiniBrowser();
    const cDone = await c1.get(
      await c1.driveTo((await c1.get(`${gw.url}/api/sso/corp2/start`)).headers.get('location')!, cb('corp2'), 'alice'),
    );
    assert.equal(cDone.status, 302);
    const alice2 = await self(c1);
    assert.notEqual(alice2.body.data.id, alice.body.data.id);
    assert.equal(alice2.body.data.username, 'alice-2');
    assert.equal(alice2.body.data.group, 'sso');

    // --- changes, disabling and deleting ------------------------------------------------------
    await root.ok('PUT', '/api/sso/providers/corp2', { enabled: false });
    assert.equal((await fetch(`${gw.url}/api/sso/corp2/start`, { redirect: 'manual' })).status, 404);
    const pub2 = (await (await fetch(`${gw.url}/api/sso/providers/public`)).json()) as { data: Array<{ id: string }> };
    assert.deepEqual(
      pub2.data.map((p) => p.id),
      ['corp', 'github'],
    );
    await root.fails(400, 'PUT', '/api/sso/providers/corp', { kind: 'github' }, 'kind');
    await root.fails(400, 'PUT', '/api/sso/providers/corp', { api_url: 'https://api.example.com' }, 'api_url');
    const ghe = await root.ok('PUT', '/api/sso/providers/github', { issuer: 'https://github.example.com', api_url: null });
    assert.equal(ghe.api_url, 'https://github.example.com/api/v3');
    await root.fails(400, 'PUT', '/api/sso/providers/corp', { id: 'other' }, 'id');
    await root.ok('DELETE', '/api/sso/providers/corp2');
    await root.fails(404, 'GET', '/api/sso/providers/corp2');
    assert.equal((await fetch(`${gw.url}/api/sso/nope/start`, { redirect: 'manual' })).status, 404);
    // The accounts stay; the sign-in links of the deleted provider are gone.
    assert.equal((await self(c1)).status, 200);
    assert.equal(
      await gw.core.h.db.selectFrom('sso_identities').select('id').where('provider_id', '=', 'corp2').executeTakeFirst(),
      undefined,
    );
  } finally {
    await gw.stop();
    await op.close();
    await gh.close();
  }
});

test('single sign-on: the sso: section of the configuration file creates providers with sealed secrets, idempotently', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gh-sso-'));
  const file = join(dir, 'gatehouse.yaml');
  writeFileSync(
    file,
    [
      'sso:',
      '  - id: corp',
      '    name: Corp ID',
      '    issuer: https://id.example.com',
      '    client_id: gatehouse',
      '    client_secret: file-corp-secret-value-456',
      '    scopes: [openid, email]',
      '    account_mode: create',
      '  - id: github',
      '    kind: github',
      '    name: GitHub',
      '    client_id: gh-client',
      '    client_secret: gh-secret-value-123',
      '',
    ].join('\n'),
  );
  const env = { GATEHOUSE_CONFIG: file };
  const gw = await startTestGateway({ env });
  let restarted: Awaited<ReturnType<typeof startTestGateway>> | null = null;
  try {
    const root = await AdminClient.login(gw.url);
    const list = await root.call('GET', '/api/sso/providers');
    assert.ok(!list.text.includes('file-corp-secret-value-456') && !list.text.includes('gh-secret-value-123'));
    const byId = Object.fromEntries((list.body.data as Array<{ id: string }>).map((p) => [p.id, p])) as Record<
      string,
      Record<string, unknown>
    >;
    assert.equal(byId.corp.account_mode, 'create');
    assert.deepEqual(byId.corp.scopes, ['openid', 'email']);
    assert.equal(byId.github.issuer, 'https://github.com');
    assert.equal(byId.github.api_url, 'https://api.github.com');
    const sealed = await gw.core.h.db
      .selectFrom('sso_providers')
      .select('client_secret_sealed')
      .where('id', '=', 'corp')
      .executeTakeFirstOrThrow();
    assert.equal(gw.core.secrets.open(sealed.client_secret_sealed), 'file-corp-secret-value-456');
    const updatedAt = byId.corp.updated_at;
    await gw.stop({ keepDb: true });
    restarted = await startTestGateway({ db: gw.db, env });
    const root2 = await AdminClient.login(restarted.url);
    const again = await root2.ok('GET', '/api/sso/providers/corp');
    assert.equal(again.updated_at, updatedAt, 'applying the same file again changes nothing');
    // PUBLIC_URL builds the redirect URI, in the views and in the authorization request.
    await restarted.stop({ keepDb: true });
    restarted = await startTestGateway({ db: gw.db, env: { ...env, PUBLIC_URL: 'https://console.example.com/' } });
    const root3 = await AdminClient.login(restarted.url);
    assert.equal((await root3.ok('GET', '/api/sso/providers/github')).redirect_uri, 'https://console.example.com/api/sso/github/callback');
    const start = await fetch(`${restarted.url}/api/sso/github/start`, { redirect: 'manual' });
    assert.equal(start.status, 302);
    const authz = new URL(start.headers.get('location')!);
    assert.equal(authz.origin + authz.pathname, 'https://github.com/login/oauth/authorize');
    assert.equal(authz.searchParams.get('redirect_uri'), 'https://console.example.com/api/sso/github/callback');
    assert.equal(authz.searchParams.get('scope'), 'read:user user:email');
    assert.match(
      start.headers.get('set-cookie') ?? '',
      /^gatehouse_sso=v1%3A[^;]+; Max-Age=600; Path=\/api\/sso\/; HttpOnly; SameSite=Lax/,
    );
  } finally {
    if (restarted) await restarted.stop();
    else await gw.stop();
  }
});

test('a provider an admin changed never signs in to an admin or root account; admins link providers on their profile with password and second factor', async () => {
  const gw = await startTestGateway();
  const cb = (id: string) => `${gw.url}/api/sso/${id}/callback`;
  const op = await startOidcProvider(
    [
      { client_id: 'corp-client', client_secret: CORP_SECRET, redirect_uris: [cb('corp')] },
      { client_id: 'evil-client', client_secret: CORP2_SECRET, redirect_uris: [cb('evil')] },
    ],
    {
      // The identity provider of a provider is whoever runs it: it can assert any verified address.
      victim: { email: 'victim@example.com', email_verified: true, preferred_username: 'victim-sso' },
      rooty: { email: 'root@example.com', email_verified: true, preferred_username: 'rooty' },
      pat: { email: 'pat@example.com', email_verified: true, preferred_username: 'pat-sso' },
    },
  );
  try {
    const root = await AdminClient.login(gw.url);
    const mallory = await root.ok('POST', '/api/user', { username: 'mallory', password: 'mallory-password', role: 'admin' });
    const victim = await root.ok('POST', '/api/user', { username: 'victim', password: 'victim-password', role: 'admin' });
    const pat = await root.ok('POST', '/api/user', { username: 'pat', password: 'pat-password' });
    const rootId = Number((await root.ok('GET', '/api/user/self')).id);
    // Addresses the accounts confirmed (as sign-up's verification links would).
    for (const [id, email] of [
      [victim.id, 'victim@example.com'],
      [rootId, 'root@example.com'],
      [pat.id, 'pat@example.com'],
    ] as const)
      await new UserStore(gw.core.h).insertEmail({ user_id: id, email, verified_at: Date.now(), pending_bonus: 0, updated_at: Date.now() });
    const admin = await AdminClient.login(gw.url, 'mallory', 'mallory-password');
    const signIn = async (provider: string, who: string) => {
      const b = new MiniBrowser();
      const back = await b.driveTo((await b.get(`${gw.url}/api/sso/${provider}/start`)).headers.get('location')!, cb(provider), who);
      const res = await b.get(back);
      const self = b.jar.has('gatehouse_session') ? await (await b.get(`${gw.url}/api/user/self`)).json() : null;
      return {
        status: res.status,
        body: res.status >= 400 ? ((await res.json()) as { message: string }) : null,
        self: self as { data: { id: number } } | null,
      };
    };

    // --- the attack: an admin declares a provider whose identity provider it runs ---
    await admin.ok('POST', '/api/sso/providers', {
      id: 'evil',
      name: 'Evil',
      issuer: op.issuer,
      client_id: 'evil-client',
      client_secret: CORP2_SECRET,
    });
    for (const who of ['victim', 'rooty']) {
      const r = await signIn('evil', who);
      assert.equal(r.status, 403, `${who}: ${JSON.stringify(r.body)}`);
      assert.match(r.body!.message, /single sign-on refused/);
      assert.equal(r.self, null, `${who}: no session`);
    }
    assert.equal(
      await gw.core.h.db.selectFrom('sso_identities').select('id').where('user_id', 'in', [victim.id, rootId]).executeTakeFirst(),
      undefined,
      'nothing linked',
    );
    const view = await root.ok('GET', '/api/sso/providers/evil');
    assert.equal(view.changed_by_role, 'admin');
    assert.equal(view.changed_by, mallory.id);
    // Ordinary users, whom the admin may manage anyway, sign in through it.
    const asPat = await signIn('evil', 'pat');
    assert.equal(asPat.status, 302);
    assert.equal(asPat.self?.data.id, pat.id);

    // --- a provider root declared: an admin account is still never linked by e-mail ---
    await root.ok('POST', '/api/sso/providers', {
      id: 'corp',
      name: 'Corp',
      issuer: op.issuer,
      client_id: 'corp-client',
      client_secret: CORP_SECRET,
    });
    const byEmail = await signIn('corp', 'victim');
    assert.equal(byEmail.status, 403);
    assert.match(byEmail.body!.message, /never linked by e-mail/);

    // --- the victim links it on its profile: password and, as it has one, its second factor ---
    const login = await fetch(`${gw.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'victim', password: 'victim-password' }),
    });
    const session = login.headers.get('set-cookie')!.split(';')[0];
    const api = (method: string, path: string, body: unknown = {}) =>
      fetch(gw.url + path, { method, headers: { cookie: session, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const setup = (await (await api('POST', '/api/user/2fa/setup')).json()) as { data: { secret: string } };
    const enabled = (await (await api('POST', '/api/user/2fa/enable', { code: await generate({ secret: setup.data.secret }) })).json()) as {
      data: { recovery_codes: string[] };
    };
    const rc = enabled.data.recovery_codes;
    assert.equal((await api('POST', '/api/user/sso/corp/link')).status, 403, 'no password');
    const noCode = await api('POST', '/api/user/sso/corp/link', { password: 'victim-password' });
    assert.equal(noCode.status, 403, 'no second factor');
    assert.match(((await noCode.json()) as { message: string }).message, /^code: /);
    const started = await api('POST', '/api/user/sso/corp/link', { password: 'victim-password', code: rc[0] });
    assert.equal(started.status, 200);
    const url = ((await started.json()) as { data: { url: string } }).data.url;
    const lb = new MiniBrowser();
    lb.jar.set('gatehouse_session', session.split('=')[1]);
    for (const c of started.headers.getSetCookie()) lb.jar.set(c.split('=')[0], c.split(';')[0].slice(c.indexOf('=') + 1));
    const linked = await lb.get(await lb.driveTo(url, cb('corp'), 'victim'));
    assert.equal(linked.status, 302, await linked.clone().text());
    assert.equal(linked.headers.get('location'), '/profile?sso_linked=corp');
    const list = (await (await fetch(`${gw.url}/api/user/sso`, { headers: { cookie: session } })).json()) as {
      data: Array<{ id: string; linked: { provider_id: string } | null }>;
    };
    assert.equal(list.data.find((p) => p.id === 'corp')!.linked?.provider_id, 'corp');
    // Now the provider signs in to it (then asks for the second factor, as a password login does).
    const viaCorp = new MiniBrowser();
    const done = await viaCorp.get(
      await viaCorp.driveTo((await viaCorp.get(`${gw.url}/api/sso/corp/start`)).headers.get('location')!, cb('corp'), 'victim'),
    );
    assert.equal(done.status, 302);
    assert.match(done.headers.get('location')!, /^\/login\?second_factor=/);

    // --- an admin changes the root-declared provider: its sign-ins to admin accounts stop ---
    await admin.ok('PUT', '/api/sso/providers/corp', { name: 'Corp (changed)' });
    assert.equal((await root.ok('GET', '/api/sso/providers/corp')).changed_by_role, 'admin');
    const after = await signIn('corp', 'victim');
    assert.equal(after.status, 403);
    assert.match(after.body!.message, /last changed by/);
    // A link cannot be started through it either.
    assert.equal((await api('POST', '/api/user/sso/corp/link', { password: 'victim-password', code: rc[1] })).status, 403);
    // Root saves it as it is: root vouches for it again.
    await root.ok('PUT', '/api/sso/providers/corp', {});
    assert.equal((await root.ok('GET', '/api/sso/providers/corp')).changed_by_role, 'root');
    const again = await signIn('corp', 'victim');
    assert.equal(again.status, 302);
  } finally {
    await gw.stop();
    await op.close();
  }
});
