/**
 * Cross-site request forgery, in Chromium: a user logged in to the console opens a page served on
 * another loopback origin (another port of the same host, so the browser counts it as the same site
 * and sends the SameSite=Lax session cookie). The page posts forms with text/plain, urlencoded and
 * multipart bodies and no-cors fetches at the gateway: a new access token, a command-line session,
 * an authenticator-app enrolment, a logout and a billed playground call. Every one is refused (403)
 * and nothing changes; the console itself, on its own origin, still does all of it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import type { Browser } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../../gateway/test/fakes/upstreams/openai.ts';
import { Api, eventually, launchBrowser, rootSession, startConsoleGateway, tr, type ConsoleGateway } from './support.ts';

let gw: ConsoleGateway;
let vendor: FakeOpenAI;
let browser: Browser;
let attacker: http.Server;
let attackerUrl = '';
/** What the attacker's page does, set per visit. */
let attack = '';

before(async () => {
  vendor = await startFakeOpenAI();
  gw = await startConsoleGateway();
  const api = await Api.login(gw.url);
  await api.ok('POST', '/api/channel', {
    name: 'loopback',
    type: 'openai',
    base_url: `${vendor.url}/v1`,
    keys: ['sk-vendor'],
    models: ['gpt-4o-mini'],
    groups: ['default'],
  });
  await api.ok('PUT', '/api/price', { model: 'gpt-4o-mini', input: 0.15, output: 0.6 });
  await api.ok('POST', `/api/user/1/quota`, { mode: 'add', amount_usd: 10 });
  // The attacker's site: same host as the gateway, another port.
  attacker = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><body>${attack}</body></html>`);
  });
  await new Promise<void>((ok) => attacker.listen(0, '127.0.0.1', ok));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  assert.notEqual(new URL(attackerUrl).origin, new URL(gw.url).origin);
  assert.equal(new URL(attackerUrl).hostname, new URL(gw.url).hostname, 'same site: the Lax cookie is sent');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await new Promise<void>((ok) => (attacker ? attacker.close(() => ok()) : ok()));
  await gw?.close();
  await vendor?.close();
});

/** A form that posts itself into a frame when the page loads. */
function form(action: string, enctype: string, fields: Record<string, string>, i: number): string {
  const inputs = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name='${k}' value='${v}'>`)
    .join('');
  return (
    `<iframe name="f${i}"></iframe><form id="a${i}" method="POST" action="${gw.url}${action}" enctype="${enctype}" target="f${i}">${inputs}</form>` +
    `<script>document.getElementById('a${i}').submit()</script>`
  );
}

/** The state an attack could change, read from the database and the vendor. */
function state() {
  const db = new Database(gw.db.url.replace(/^sqlite:/, ''), { readonly: true, fileMustExist: true });
  try {
    const u = db.prepare('SELECT access_token_hash AS token, quota FROM users WHERE id = 1').get() as {
      token: string | null;
      quota: number;
    };
    const sessions = (db.prepare('SELECT COUNT(*) AS n FROM sessions WHERE user_id = 1').get() as { n: number }).n;
    const totp = (db.prepare('SELECT COUNT(*) AS n FROM user_totp WHERE user_id = 1').get() as { n: number }).n;
    return { token: u.token, quota: u.quota, sessions, totp, vendorCalls: vendor.requests.length };
  } finally {
    db.close();
  }
}

test('a page on another origin of the same site cannot use the session cookie: forms and no-cors fetches are refused, nothing changes', async () => {
  const { ctx, page, problems } = await rootSession(browser, gw.url);
  const refused: Array<{ url: string; status: number }> = [];
  const chat = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] });
  const targets = ['/api/user/token', '/api/user/cli-session', '/api/user/2fa/setup', '/api/user/logout', '/pg/chat/completions'];
  // text/plain: the body can even be made to look like JSON (name + "=" + value).
  const plain = (i: number, action: string) => form(action, 'text/plain', { [`${chat.slice(0, -1)},"x":"`]: '"}' }, i);
  const kinds: Array<(i: number, action: string) => string> = [
    plain,
    (i, action) => form(action, 'application/x-www-form-urlencoded', { password: 'x' }, i),
    (i, action) => form(action, 'multipart/form-data', { password: 'x' }, i),
  ];
  const before = state();
  const evil = await ctx.newPage();
  evil.on('response', (r) => {
    if (r.url().startsWith(gw.url)) refused.push({ url: r.url(), status: r.status() });
  });
  let n = 0;
  for (const make of kinds) {
    attack = targets.map((t) => make(n++, t)).join('');
    await evil.goto(attackerUrl);
    await eventually(async () => assert.ok(refused.length >= n, `${refused.length} of ${n} answered`));
  }
  // A no-cors fetch (no preflight) with the cookie, with and without a body.
  attack = `<script>
    for (const p of ${JSON.stringify(targets)}) {
      fetch('${gw.url}' + p, { method: 'POST', mode: 'no-cors', credentials: 'include' });
      fetch('${gw.url}' + p, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(chat)} });
    }
  </script>`;
  await evil.goto(attackerUrl);
  await eventually(async () => assert.ok(refused.length >= n + 10, `${refused.length} of ${n + 10} answered`));
  assert.deepEqual(
    refused.filter((r) => r.status !== 403),
    [],
    'every cross-site request refused with 403',
  );
  assert.deepEqual(state(), before, 'nothing changed: no token, session, enrolment, logout or billed call');
  await evil.close();

  // The console on its own origin does all of it: a playground call, an enrolment, a command-line
  // session, and its logout — bodyless posts of its client included.
  problems.allow('/api/user/cli-session', 403);
  // (A string: the test's compiled functions carry helpers the page does not have.)
  const out = (await page.evaluate(`(async () => {
    const post = (p, b) => fetch(p, { method: 'POST', headers: b ? { 'content-type': 'application/json' } : {}, body: b }).then((r) => r.status);
    return {
      chat: await post('/pg/chat/completions', ${JSON.stringify(chat)}),
      setup: await post('/api/user/2fa/setup', '{}'),
      cli: await post('/api/user/cli-session', '{}'),
      bare: await post('/api/user/cli-session'),
    };
  })()`)) as Record<string, number>;
  assert.deepEqual(out, { chat: 200, setup: 200, cli: 200, bare: 403 });
  const after = state();
  assert.equal(after.vendorCalls, before.vendorCalls + 1);
  assert.equal(after.totp, 1);
  assert.ok(after.sessions > before.sessions);
  // The console's own logout (its client sends a JSON body with every post).
  await page.getByRole('button', { name: tr('en', 'layout.userMenu', { name: 'root' }) }).click();
  await page.getByRole('menuitem', { name: tr('en', 'layout.logout') }).click();
  await page.waitForURL((u) => u.pathname === '/login');
  assert.equal(state().sessions, after.sessions - 1);
  problems.assertNone('the console on its own origin');
  await ctx.close();
});
