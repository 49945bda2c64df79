/**
 * `npm start` runs the compiled gateway: the serving process is `node … packages/gateway/bin/start.mjs`,
 * which turns source maps on for the gateway's bundle and loads `dist/main.js`, with no TypeScript loader (read from its arguments and environment), and it serves
 * the console, the health endpoints, the admin API and a model call through a loopback upstream.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_CRYPTO_SECRET, TEST_ROOT_PASSWORD } from '../harness.ts';
import { listeningUrl } from '../child-gateway.ts';
import { AdminClient } from '../admin-client.ts';
import { startFakeOpenAI } from '../fakes/upstreams/openai.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../../..');

/** Every process descended from `pid`, with its arguments and environment. */
function descendants(pid: number): { pid: number; argv: string[]; env: string[] }[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const out: { pid: number; argv: string[]; env: string[] }[] = [];
  const within = (p: number): boolean => p === pid || (parent.has(p) && p !== 1 && within(parent.get(p)!));
  for (const [p] of parent) {
    if (p === pid || !within(p)) continue;
    try {
      out.push({
        pid: p,
        argv: readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').filter(Boolean),
        env: readFileSync(`/proc/${p}/environ`, 'utf8').split('\0'),
      });
    } catch {
      // gone
    }
  }
  return out;
}

test('npm start serves from compiled JavaScript, without a TypeScript loader', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gh-compiled-'));
  const up = await startFakeOpenAI();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${join(dir, 'gh.db')}`,
    CRYPTO_SECRET: TEST_CRYPTO_SECRET,
    GATEHOUSE_ROOT_PASSWORD: TEST_ROOT_PASSWORD,
    LOG_LEVEL: 'warn',
    CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true',
  };
  delete env.NODE_OPTIONS;
  const npm = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  try {
    const url = await listeningUrl(npm);

    const servers = descendants(npm.pid!).filter((p) => p.argv.some((a) => a.endsWith('start.mjs') || a.endsWith('main.ts')));
    assert.equal(servers.length, 1, `one serving process: ${JSON.stringify(servers.map((s) => s.argv))}`);
    const [server] = servers;
    assert.ok(
      server.argv.some((a) => a.endsWith('packages/gateway/bin/start.mjs')),
      `runs the compiled file through its launcher: ${server.argv.join(' ')}`,
    );
    assert.ok(
      readFileSync(join(ROOT, 'packages/gateway/bin/start.mjs'), 'utf8').includes("await import('../dist/main.js')"),
      'the launcher loads the compiled file',
    );
    for (const a of [...server.argv, ...server.env.filter((e) => e.startsWith('NODE_OPTIONS='))]) {
      assert.doesNotMatch(a, /tsx|ts-node|--loader|--experimental-strip-types/, `no TypeScript loader: ${a}`);
    }

    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    assert.equal((await fetch(`${url}/readyz`)).status, 200);
    const page = await fetch(`${url}/`, { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<div id="root">/, 'the console is served from its build');

    const root = await AdminClient.login(url);
    await root.ok('POST', '/api/channel', { name: 'up', type: 'openai', base_url: up.url, keys: ['sk-up'], models: ['gpt-compiled'] });
    await root.ok('PUT', '/api/price', { model: 'gpt-compiled', input: 1, output: 1 });
    const user = await root.ok('POST', '/api/user', { username: 'caller', password: 'caller-password', quota_usd: 1 });
    const { key } = await root.ok('POST', '/api/token', { user_id: user.id, name: 'k' });
    const chat = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-compiled', messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(chat.status, 200, await chat.clone().text());
    assert.equal(((await chat.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content, 'Hello world');
  } finally {
    try {
      process.kill(-npm.pid!, 'SIGTERM');
    } catch {
      /* gone */
    }
    await new Promise((r) => (npm.exitCode !== null ? r(null) : npm.once('exit', r)));
    await up.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
