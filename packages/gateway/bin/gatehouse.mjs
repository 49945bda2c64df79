#!/usr/bin/env node
// Runs the TypeScript entry point through tsx, with the flag the plugin sandbox needs.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const r = spawnSync(process.execPath, ['--no-node-snapshot', '--import', 'tsx', join(here, '..', 'src', 'main.ts'), ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
