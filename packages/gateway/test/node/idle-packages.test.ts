/**
 * What an idle node has loaded: the compiled gateway (`bin/start.mjs`, as `npm start` runs it) on a fresh SQLite
 * database, once it answers, has imported none of the packages that only some calls need (docs/architecture.md,
 * "Build and processes"; docs/benchmarks.md#idle-memory). A resolve hook records every package the process
 * resolves; a static import of one of them anywhere in the gateway puts it back into every start and fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_CRYPTO_SECRET, TEST_ROOT_PASSWORD } from '../harness.ts';
import { listeningUrl } from '../child-gateway.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../../..');

/** Loaded on first use only: the call, provider or setting that needs each. */
const ON_FIRST_USE = [
  '@modelcontextprotocol/sdk', // the first /mcp request or MCP server connection
  'zod',
  'zod-to-json-schema',
  'hono',
  '@hono/node-server',
  'openid-client', // the first SSO sign-in
  'oauth4webapi',
  'jose', // SSO, Google service-account tokens
  '@smithy/signature-v4', // the first Bedrock access key
  '@smithy/eventstream-codec', // the first Bedrock event stream
  '@aws-crypto/sha256-js',
  'stripe', // the first payment
  '@simplewebauthn/server', // the first passkey ceremony
  'otplib', // the first TOTP
  'ioredis', // REDIS_URL
  'nodemailer', // the first mail
  'gpt-tokenizer', // the first token count
  '@opentelemetry/sdk-trace', // OTEL_*
];

/** Preloaded into the gateway: appends the name of every package resolved to the file in IDLE_PACKAGES_OUT. */
const HOOK = `
import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
const seen = new Set();
registerHooks({
  resolve(spec, ctx, next) {
    const r = next(spec, ctx);
    const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(r.url ?? '');
    if (m && !seen.has(m[1])) {
      seen.add(m[1]);
      appendFileSync(process.env.IDLE_PACKAGES_OUT, m[1] + '\\n');
    }
    return r;
  },
});
`;

test(
  'an idle node has loaded none of the packages only some calls need',
  // module.registerHooks is in Node.js from 22.15 and 23.5.
  { timeout: 120_000, skip: !('registerHooks' in nodeModule) && 'this Node.js has no module.registerHooks' },
  async () => {
    assert.equal(spawnSync(process.execPath, [join(ROOT, 'scripts/build-gateway.mjs')], { stdio: 'inherit' }).status, 0);
    const dir = mkdtempSync(join(tmpdir(), 'gh-idle-'));
    const out = join(dir, 'packages.txt');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${join(dir, 'gh.db')}`,
      CRYPTO_SECRET: TEST_CRYPTO_SECRET,
      GATEHOUSE_ROOT_PASSWORD: TEST_ROOT_PASSWORD,
      LOG_LEVEL: 'warn',
      IDLE_PACKAGES_OUT: out,
    };
    delete env.NODE_OPTIONS;
    const hook = `data:text/javascript,${encodeURIComponent(HOOK)}`;
    const child = spawn(process.execPath, ['--import', hook, join(ROOT, 'packages/gateway/bin/start.mjs'), 'serve'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await listeningUrl(child);
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
      assert.equal((await fetch(`${url}/readyz`)).status, 200);

      const loaded = new Set(readFileSync(out, 'utf8').split('\n').filter(Boolean));
      for (const p of ['fastify', 'kysely', 'better-sqlite3']) assert.ok(loaded.has(p), `the hook sees what a start loads: ${p}`);
      assert.deepEqual(
        ON_FIRST_USE.filter((p) => loaded.has(p)),
        [],
        'loaded by an idle node: import it where it is first needed (import()), not at the top of a module',
      );
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
