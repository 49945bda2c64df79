#!/usr/bin/env node
// The `gatehouse` command: runs the compiled gateway (dist/main.js, built by `npm install` or `npm run build`)
// with the flag the plugin sandbox needs; from a checkout that was never built, the TypeScript source through tsx.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const compiled = join(here, '..', 'dist', 'main.js');
const entry = existsSync(compiled)
  ? ['--enable-source-maps', compiled]
  : ['--import', 'tsx', join(here, '..', 'src', 'main.ts')];
const r = spawnSync(process.execPath, ['--no-node-snapshot', ...entry, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
