/**
 * `npm run bench:start`: time to the first answered request and idle memory of a fresh gateway, run
 * from the TypeScript source through tsx (how it ran before it was compiled) and from the compiled
 * build (`npm start`). Each variant starts `BENCH_START_ROUNDS` times (default 5) on a new SQLite
 * database; the medians are printed as a markdown table.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ROOT, freePort, rssMb } from './proc.ts';

const rounds = Number(process.env.BENCH_START_ROUNDS || 5);
const variants: { name: string; args: string[] }[] = [
  { name: 'source through tsx', args: ['--no-node-snapshot', '--import', 'tsx', join(ROOT, 'packages/gateway/src/main.ts'), 'serve'] },
  {
    name: 'compiled (npm start: bin/start.mjs, source maps of the bundle only)',
    args: ['--no-node-snapshot', join(ROOT, 'packages/gateway/bin/start.mjs'), 'serve'],
  },
  {
    name: "compiled, --enable-source-maps (every package's map too)",
    args: ['--no-node-snapshot', '--enable-source-maps', join(ROOT, 'packages/gateway/dist/main.js'), 'serve'],
  },
  { name: 'compiled, source maps off', args: ['--no-node-snapshot', join(ROOT, 'packages/gateway/dist/main.js'), 'serve'] },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function once(args: string[]): Promise<{ firstMs: number; rss: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'gh-start-'));
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: 'ignore',
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${join(dir, 'gh.db')}`,
      CRYPTO_SECRET: randomBytes(32).toString('hex'),
      GATEHOUSE_ROOT_PASSWORD: randomBytes(12).toString('hex'),
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
    },
  });
  try {
    let firstMs = NaN;
    for (let i = 0; i < 600 && Number.isNaN(firstMs); i++) {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/healthz`);
        if (r.status === 200) firstMs = performance.now() - t0;
      } catch {
        await sleep(10);
      }
    }
    await sleep(3000);
    return { firstMs, rss: rssMb(child.pid!) ?? NaN };
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

spawnSync(process.execPath, [join(ROOT, 'scripts/build-gateway.mjs')], { stdio: 'inherit' });
const lines = ['| how it runs | time to first answered request (median) | idle RSS after 3 s (median) |', '|---|---:|---:|'];
for (const v of variants) {
  const got: { firstMs: number; rss: number }[] = [];
  for (let i = 0; i < rounds; i++) got.push(await once(v.args));
  lines.push(`| ${v.name} | ${median(got.map((g) => g.firstMs)).toFixed(0)} ms | ${median(got.map((g) => g.rss)).toFixed(0)} MB |`);
}
process.stdout.write(`Node ${process.versions.node}, ${rounds} starts each, SQLite, console on\n\n${lines.join('\n')}\n`);
