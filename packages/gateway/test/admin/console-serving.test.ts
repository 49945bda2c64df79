/**
 * The web console served by the gateway from a build directory: cache headers, content types,
 * precompressed files, CSP on the HTML, SPA fallback for client routes, API and model routes winning,
 * plugin prefixes staying the plugin's, and a missing or broken build stopping `gatehouse serve`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { TEST_ROOT_PASSWORD, createTestDatabase, startTestGateway } from '../harness.ts';
import { startChild, stopChild } from '../child-gateway.ts';
import { CONSOLE_CSP, acceptsEncoding, loadConsoleSite, serveConsoleFallback } from '../../src/http/console-routes.ts';

const INDEX =
  '<!doctype html><html lang="en"><head><link rel="icon" href="/favicon.svg"><link rel="stylesheet" href="/assets/index-Bx12.css">' +
  '<script type="module" crossorigin src="/assets/index-Ab34.js"></script></head><body><div id="root"></div></body></html>';
const JS = 'console.log("gatehouse console");'.repeat(50);

function fakeBuild(opts: { index?: string | null; js?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'gh-console-'));
  mkdirSync(join(dir, 'assets'));
  if (opts.index !== null) writeFileSync(join(dir, 'index.html'), opts.index ?? INDEX);
  if (opts.js !== false) {
    writeFileSync(join(dir, 'assets/index-Ab34.js'), JS);
    writeFileSync(join(dir, 'assets/index-Ab34.js.br'), brotliCompressSync(JS));
    writeFileSync(join(dir, 'assets/index-Ab34.js.gz'), gzipSync(JS));
  }
  writeFileSync(join(dir, 'assets/index-Bx12.css'), 'body{margin:0}');
  writeFileSync(join(dir, 'assets/logo-9f.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(dir, 'assets/font-77.woff2'), Buffer.from([0x77, 0x4f, 0x46, 0x32]));
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

test('console: index uncached with CSP, hashed assets immutable, content types, compression, SPA fallback, APIs win', async () => {
  const dir = fakeBuild();
  const gw = await startTestGateway({ env: { CONSOLE_ENABLED: 'true', CONSOLE_DIR: dir } });
  try {
    const root = await fetch(`${gw.url}/`, { headers: html });
    assert.equal(root.status, 200);
    assert.equal(root.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(root.headers.get('cache-control'), 'no-cache');
    assert.equal(await root.text(), INDEX);
    const csp = root.headers.get('content-security-policy')!;
    assert.equal(csp, CONSOLE_CSP);
    const scriptSrc = csp
      .split(';')
      .map((d) => d.trim())
      .find((d) => d.startsWith('script-src'))!;
    assert.equal(scriptSrc, "script-src 'self'", 'no inline or eval scripts');
    assert.ok(!/unsafe-eval/.test(csp));
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /connect-src 'self'/);
    assert.match(csp, /img-src 'self' data: blob:/);
    assert.equal(root.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(root.headers.get('referrer-policy'), 'same-origin');

    // ETag revalidation of the uncached index.
    const etag = root.headers.get('etag')!;
    assert.ok(etag);
    const again = await fetch(`${gw.url}/`, { headers: { ...html, 'if-none-match': etag } });
    assert.equal(again.status, 304);

    // Hashed assets: a year, immutable, the right types.
    const js = await fetch(`${gw.url}/assets/index-Ab34.js`, { headers: { 'accept-encoding': 'identity' } });
    assert.equal(js.status, 200);
    assert.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(js.headers.get('content-encoding'), null);
    assert.equal(await js.text(), JS);
    for (const [path, type] of [
      ['/assets/index-Bx12.css', 'text/css; charset=utf-8'],
      ['/assets/logo-9f.svg', 'image/svg+xml'],
      ['/assets/font-77.woff2', 'font/woff2'],
    ]) {
      const r = await fetch(gw.url + path);
      assert.equal(r.status, 200, path);
      assert.equal(r.headers.get('content-type'), type, path);
      assert.equal(r.headers.get('cache-control'), 'public, max-age=31536000, immutable', path);
      await r.arrayBuffer();
    }

    // Precompressed siblings (read raw through node:http: fetch would decode them).
    const raw = async (enc: string) => {
      const { request } = await import('node:http');
      return new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        request(`${gw.url}/assets/index-Ab34.js`, { headers: { 'accept-encoding': enc } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        })
          .on('error', reject)
          .end();
      });
    };
    const br = await raw('gzip, deflate, br');
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'Accept-Encoding');
    assert.equal(brotliDecompressSync(br.body).toString(), JS);
    const gz = await raw('gzip');
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gz.body).toString(), JS);
    const refusedBr = await raw('br;q=0, gzip');
    assert.equal(refusedBr.headers['content-encoding'], 'gzip');

    // A missing asset is a 404, never index.html.
    const missing = await fetch(`${gw.url}/assets/index-OLD.js`, { headers: html });
    assert.equal(missing.status, 404);
    assert.doesNotMatch(await missing.text(), /<html/);

    // Top-level build files: uncached.
    const icon = await fetch(`${gw.url}/favicon.svg`);
    assert.equal(icon.status, 200);
    assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
    assert.equal(icon.headers.get('cache-control'), 'no-cache');
    await icon.text();

    // Client routes fall back to index.html (with its CSP), but only for HTML navigations.
    for (const path of ['/dashboard', '/logs/123', '/settings/options?tab=relay', '/zh/keys']) {
      const r = await fetch(gw.url + path, { headers: html });
      assert.equal(r.status, 200, path);
      assert.equal(r.headers.get('cache-control'), 'no-cache', path);
      assert.equal(r.headers.get('content-security-policy'), CONSOLE_CSP, path);
      assert.equal(await r.text(), INDEX, path);
    }
    const notHtml = await fetch(`${gw.url}/dashboard`, { headers: { accept: 'application/json' } });
    assert.equal(notHtml.status, 404);
    assert.equal(((await notHtml.json()) as { error: { code: string } }).error.code, 'not_found');
    const post = await fetch(`${gw.url}/dashboard`, { method: 'POST', headers: html });
    assert.equal(post.status, 404);
    await post.text();

    // API and model routes win, even for a browser navigation.
    const self = await fetch(`${gw.url}/api/user/self`, { headers: html });
    assert.equal(self.status, 401);
    assert.equal(((await self.json()) as { success: boolean }).success, false);
    const unknownApi = await fetch(`${gw.url}/api/nothing-here`, { headers: html });
    assert.equal(unknownApi.status, 404);
    assert.deepEqual(await unknownApi.json(), { success: false, message: 'no route for GET /api/nothing-here', data: null });
    for (const path of [
      '/v1/models',
      '/v1/no-such-endpoint',
      '/v1beta/models',
      '/pg/chat/completions',
      '/mj/task/1/fetch',
      '/metrics',
      '/v1',
    ]) {
      const r = await fetch(gw.url + path, { headers: html });
      assert.notEqual(r.status, 200, path);
      assert.match(r.headers.get('content-type') ?? '', /application\/json/, path);
      assert.doesNotMatch(await r.text(), /<html/, path);
    }
    const health = await fetch(`${gw.url}/healthz`, { headers: html });
    assert.deepEqual(await health.json(), { ok: true });
  } finally {
    await gw.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("console: a plugin's native route prefix is never the console's", async () => {
  const site = loadConsoleSite(fakeBuild());
  const app = Fastify();
  app.setNotFoundHandler((req, reply) => {
    if (serveConsoleFallback(site, req, reply, (p) => p.startsWith('/suno/'))) return reply;
    return reply.code(404).send({ error: 'json 404' });
  });
  try {
    const plugin = await app.inject({ method: 'GET', url: '/suno/unknown', headers: html });
    assert.equal(plugin.statusCode, 404);
    assert.deepEqual(plugin.json(), { error: 'json 404' });
    const client = await app.inject({ method: 'GET', url: '/sunoish', headers: html });
    assert.equal(client.statusCode, 200);
    assert.equal(client.body, INDEX);
    const head = await app.inject({ method: 'HEAD', url: '/users', headers: html });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers['content-length'], String(Buffer.byteLength(INDEX)));
  } finally {
    await app.close();
    rmSync(site.dir, { recursive: true, force: true });
  }
});

test('console: Accept-Encoding parsing honours q=0', () => {
  assert.equal(acceptsEncoding('gzip, br', 'br'), true);
  assert.equal(acceptsEncoding('gzip;q=0.5, br;q=0', 'br'), false);
  assert.equal(acceptsEncoding('gzip;q=0.5, br;q=0', 'gzip'), true);
  assert.equal(acceptsEncoding('identity', 'gzip'), false);
  assert.equal(acceptsEncoding(undefined, 'gzip'), false);
});

test('console: a missing or broken build stops the start with a message that says how to build it', async () => {
  const empty = fakeBuild({ index: null });
  const broken = fakeBuild({ js: false });
  const noScript = fakeBuild({ index: '<!doctype html><html><body></body></html>' });
  try {
    await assert.rejects(
      startTestGateway({ env: { CONSOLE_ENABLED: 'true', CONSOLE_DIR: empty } }),
      (e: Error) =>
        /the web console is not built/.test(e.message) &&
        e.message.includes('npm run build -w @gatehouse/web') &&
        e.message.includes('CONSOLE_ENABLED=false'),
    );
    await assert.rejects(
      startTestGateway({ env: { CONSOLE_ENABLED: 'true', CONSOLE_DIR: broken } }),
      (e: Error) =>
        e.message.includes('index.html refers to /assets/index-Ab34.js, which is not in the build') && e.message.includes('npm install'),
    );
    assert.throws(() => loadConsoleSite(noScript), /is broken: index.html has no <html> or <script>/);

    // `gatehouse serve` itself: exits with the message instead of serving a blank page.
    const db = await createTestDatabase();
    try {
      let child;
      await assert.rejects(
        (async () => {
          child = await startChild(db, 'console-check', { CONSOLE_ENABLED: 'true', CONSOLE_DIR: empty });
        })(),
        (e: Error) =>
          /gateway exited \(1\)/.test(e.message) &&
          /the web console is not built/.test(e.message) &&
          e.message.includes('npm run build -w @gatehouse/web'),
      );
      await stopChild(child);
    } finally {
      await db.drop();
    }
  } finally {
    for (const d of [empty, broken, noScript]) rmSync(d, { recursive: true, force: true });
  }
});

test('console: the readable signed-in hint follows the session cookie (login, logout, and the page itself)', async () => {
  const dir = fakeBuild();
  const gw = await startTestGateway({ env: { CONSOLE_ENABLED: 'true', CONSOLE_DIR: dir } });
  const hintOf = (r: Response) => r.headers.getSetCookie().find((c) => c.startsWith('gatehouse_signed_in='));
  try {
    const login = await fetch(`${gw.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'root', password: TEST_ROOT_PASSWORD }),
    });
    assert.equal(login.status, 200);
    const set = hintOf(login);
    assert.ok(set?.startsWith('gatehouse_signed_in=1;'), `login sets the hint: ${set}`);
    assert.doesNotMatch(set!, /HttpOnly/i, 'the console can read it');
    assert.match(set!, /Path=\//);
    const session = login.headers
      .getSetCookie()
      .find((c) => c.startsWith('gatehouse_session='))!
      .split(';')[0];

    // A session opened before the hint existed: the page brings the hint in.
    const page = await fetch(`${gw.url}/`, { headers: { ...html, cookie: session } });
    assert.equal(page.status, 200);
    assert.ok(hintOf(page)?.startsWith('gatehouse_signed_in=1;'));
    const both = await fetch(`${gw.url}/channels`, { headers: { ...html, cookie: `${session}; gatehouse_signed_in=1` } });
    assert.equal(hintOf(both), undefined, 'nothing to change');
    // The session cookie is gone (expired, cleared): the page drops the hint.
    const gone = await fetch(`${gw.url}/`, { headers: { ...html, cookie: 'gatehouse_signed_in=1' } });
    assert.match(hintOf(gone) ?? '', /^gatehouse_signed_in=;.*Expires=Thu, 01 Jan 1970/);

    const out = await fetch(`${gw.url}/api/user/logout`, {
      method: 'POST',
      headers: { cookie: `${session}; gatehouse_signed_in=1`, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(out.status, 200);
    assert.match(hintOf(out) ?? '', /^gatehouse_signed_in=;.*Expires=Thu, 01 Jan 1970/, 'logout clears it');
  } finally {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
