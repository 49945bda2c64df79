#!/usr/bin/env node
// The `gatehouse` command: runs the compiled gateway (dist/main.js, built by `npm install`, `npm run build` and
// `npm start`) with the flag the plugin sandbox needs — or, when the TypeScript source has changed since that
// build (or there is none), the source itself through tsx, so a command never runs stale code.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const compiled = join(here, '..', 'dist', 'main.js');
const launcher = join(here, 'start.mjs');
const source = join(here, '..', 'src');

/** The newest modification time under `dir` (ms). */
function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

let built = 0;
try {
  built = statSync(compiled).mtimeMs;
} catch {
  // never built
}
// The TypeScript loader as a file URL: a bare `tsx` would be looked up from the working directory.
const entry = built && built >= newest(source) ? [launcher] : ['--import', import.meta.resolve('tsx'), join(source, 'main.ts')];
const r = spawnSync(process.execPath, ['--no-node-snapshot', ...entry, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
