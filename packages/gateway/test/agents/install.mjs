/**
 * Installs this folder's package (the coding-agent command lines of packages/gateway/test/agents/clis.ts) with
 * `npm ci` when it is missing or its lock file changed since the last install. Used by scripts/test.mjs before a
 * run that selects a test needing it, and by clis.ts when such a test is run on its own. Two processes that
 * call it at once install once: the second waits for the first.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const AGENTS_DIR = dirname(fileURLToPath(import.meta.url));
const STAMP = join(AGENTS_DIR, 'node_modules', '.installed-lock');
const LOCK = join(AGENTS_DIR, '.installing');
const WAIT_MS = 15 * 60_000;

const wanted = () =>
  createHash('sha256')
    .update(readFileSync(join(AGENTS_DIR, 'package-lock.json')))
    .digest('hex');
const current = () => (existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : '');
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** True when the installed packages match the lock file. */
export function agentsInstalled() {
  return current() === wanted();
}

/**
 * Makes sure the packages are installed; returns whether it had to install them. `log` receives one line
 * before an install starts.
 */
export function ensureAgents(log = (line) => process.stderr.write(`${line}\n`)) {
  if (agentsInstalled()) return false;
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      if (agentsInstalled()) return false;
      if (Date.now() > deadline) throw new Error(`another install of ${AGENTS_DIR} has not finished: remove ${LOCK} if none is running`);
      sleep(500);
    }
  }
  try {
    if (agentsInstalled()) return false;
    log(`installing the coding-agent command lines for the tests (npm ci in ${AGENTS_DIR})`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    execFileSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: AGENTS_DIR, stdio: ['ignore', 'inherit', 'inherit'] });
    writeFileSync(STAMP, `${wanted()}\n`);
    return true;
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
