/**
 * The gateway's check against cross-site request forgery, over raw HTTP as browsers send it (the
 * browser itself: packages/web/e2e/csrf.test.ts): a change made with the session cookie from another
 * origin (Origin, Sec-Fetch-Site), or without a JSON body (a form's text/plain, urlencoded or multipart
 * body, a bodyless post), is refused with 403 before anything happens; the console's own origin with
 * a JSON body passes; bearer tokens are not affected.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, TEST_ROOT_PASSWORD } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';

test('changes made with the session cookie come from the console origin with a JSON body, or are refused with 403 and change nothing', async () => {
  const gw = await startTestGateway({ env: { PUBLIC_URL: 'https://console.example.com' } });
  try {
    const root = await AdminClient.login(gw.url);
    const login = await fetch(`${gw.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'root', password: TEST_ROOT_PASSWORD }),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const own = new URL(gw.url).origin;
    const sessions = async () =>
      Number(
        (
          await gw.core.h.db
            .selectFrom('sessions')
            .select((e) => e.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const totp = async () => (await gw.core.h.db.selectFrom('user_totp').select('user_id').execute()).length;
    const send = (path: string, headers: Record<string, string>, body?: string, method = 'POST') =>
      fetch(gw.url + path, { method, headers: { cookie, ...headers }, body });
    const before = { sessions: await sessions(), totp: await totp() };

    const forged: Array<[string, Record<string, string>, string | undefined]> = [
      // A form on a page of another origin of the same site (another port): the Lax cookie is sent.
      [
        'text/plain form, same-site',
        { origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-site', 'content-type': 'text/plain' },
        '{"x":"=y"}',
      ],
      ['urlencoded form', { origin: 'http://127.0.0.1:1', 'content-type': 'application/x-www-form-urlencoded' }, 'a=b'],
      ['multipart form', { 'sec-fetch-site': 'same-site', 'content-type': 'multipart/form-data; boundary=x' }, '--x--\r\n'],
      ['JSON with a foreign origin', { origin: 'https://evil.example', 'content-type': 'application/json' }, '{}'],
      ['JSON, cross-site', { 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }, '{}'],
      ['an opaque origin', { origin: 'null', 'content-type': 'application/json' }, '{}'],
      // Same origin, but not a JSON body: what a no-cors fetch or a form can send.
      ['same origin, text/plain', { origin: own, 'sec-fetch-site': 'same-origin', 'content-type': 'text/plain' }, '{}'],
      ['same origin, no body', { origin: own, 'sec-fetch-site': 'same-origin' }, undefined],
      ['no headers, no body', {}, undefined],
    ];
    for (const path of ['/api/user/cli-session', '/api/user/2fa/setup', '/api/user/logout', '/pg/chat/completions', '/api/user/token']) {
      for (const [what, headers, body] of forged) {
        const r = await send(path, headers, body);
        const text = await r.text();
        assert.equal(r.status, 403, `${path}, ${what}: ${text}`);
        const out = JSON.parse(text) as { message?: string; error?: { message: string } };
        assert.match(out.message ?? out.error!.message, /^refused: /, 'in the family envelope');
      }
    }
    assert.deepEqual({ sessions: await sessions(), totp: await totp() }, before, 'nothing changed');
    assert.equal((await fetch(`${gw.url}/api/user/self`, { headers: { cookie } })).status, 200, 'still logged in');
    // A PUT and a DELETE from another origin are refused too.
    assert.equal(
      (await send('/api/user/self/alerts', { origin: 'https://evil.example', 'content-type': 'application/json' }, '{}', 'PUT')).status,
      403,
    );
    assert.equal((await send('/api/sso/providers/x', { origin: 'https://evil.example' }, undefined, 'DELETE')).status, 403);

    // The console: its own origin (the request's address, or PUBLIC_URL's) with a JSON body.
    const ok = (headers: Record<string, string>) => send('/api/user/2fa/setup', { 'content-type': 'application/json', ...headers }, '{}');
    assert.equal((await ok({ origin: own, 'sec-fetch-site': 'same-origin' })).status, 200);
    assert.equal((await ok({ origin: 'https://console.example.com' })).status, 200);
    // A client that is not a browser (neither header) with a JSON body, as the command line.
    assert.equal((await ok({})).status, 200);
    // A DELETE without a body from the console is fine (a 404 here: no such provider).
    assert.equal((await send('/api/sso/providers/x', { origin: own, 'sec-fetch-site': 'same-origin' }, undefined, 'DELETE')).status, 404);
    // Bearer tokens are not sent by browsers on their own: no check.
    assert.equal(
      (
        await fetch(`${gw.url}/api/user/cli-session`, {
          method: 'POST',
          headers: { authorization: `Bearer ${root.token}`, origin: 'https://evil.example' },
        })
      ).status,
      200,
    );
    // The logout of the console itself.
    assert.equal(
      (await send('/api/user/logout', { origin: own, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' }, '{}')).status,
      200,
    );
    assert.equal((await fetch(`${gw.url}/api/user/self`, { headers: { cookie } })).status, 401);
  } finally {
    await gw.stop();
  }
});
