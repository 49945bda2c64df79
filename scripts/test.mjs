#!/usr/bin/env node
/**
 * The whole test suite: lint, format check (Prettier), type-check, the web console's checks, unit tests, then the integration suite once per database
 * (SQLite, PostgreSQL, MySQL). Prints one closing line with the totals.
 *
 *   node scripts/test.mjs                 everything
 *   node scripts/test.mjs --unit          lint, format check, type-check and unit tests only
 *   node scripts/test.mjs --no-lint       skip lint, the format check, type-check and the web console's checks
 *   TEST_DBS=sqlite node scripts/test.mjs integration suite on SQLite only
 *   node scripts/test.mjs --only relay    only test files whose path contains "relay"
 *   node scripts/test.mjs --no-e2e        skip the browser tests of the console (packages/web/e2e)
 *
 * The browser tests run once, on SQLite (the console does not depend on the database), after the unit
 * tests; they build the console first when packages/web/dist is missing and drive Chromium
 * (CHROMIUM_PATH, default /usr/bin/chromium).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, mkdtempSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const noLint = args.includes('--no-lint');
const noE2e = args.includes('--no-e2e');
const onlyIdx = args.indexOf('--only');
const only = onlyIdx >= 0 ? args[onlyIdx + 1] : null;
const dbs = (process.env.TEST_DBS || 'sqlite,postgres,mysql')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, p));
  }
  return out;
}

function run(cmd, argv, env = {}) {
  const r = spawnSync(cmd, argv, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

// See scripts/exit-gc.mjs: test processes that ran plugin isolates must not abort at exit.
const exitGc = pathToFileURL(join(root, 'scripts/exit-gc.mjs')).href;

let passed = 0,
  failed = 0,
  skipped = 0;
const failures = [];
const tmp = mkdtempSync(join(tmpdir(), 'gh-test-'));

function nodeTest(label, files, env, concurrency = 3) {
  if (files.length === 0) return;
  const tap = join(tmp, `${label}.tap`);
  console.log(`\n=== ${label}: ${files.length} file(s) ===`);
  const code = run(
    process.execPath,
    [
      '--no-node-snapshot',
      '--import',
      exitGc,
      '--import',
      'tsx',
      '--test',
      `--test-concurrency=${concurrency}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tap}`,
      ...files,
    ],
    env,
  );
  let p = 0,
    f = 0,
    s = 0;
  try {
    const txt = readFileSync(tap, 'utf8');
    p = Number(/^# pass (\d+)/m.exec(txt)?.[1] ?? 0);
    f = Number(/^# fail (\d+)/m.exec(txt)?.[1] ?? 0);
    s = Number(/^# skipped (\d+)/m.exec(txt)?.[1] ?? 0);
  } catch {}
  if (code !== 0 && f === 0) f = 1;
  passed += p;
  failed += f;
  skipped += s;
  if (f) failures.push(label);
}

if (!noLint) {
  console.log('=== lint ===');
  if (run('npx', ['eslint', '.']) !== 0) {
    failed++;
    failures.push('lint');
  }
  console.log('=== format ===');
  if (run('npx', ['prettier', '--check', '--log-level', 'warn', '.']) !== 0) {
    console.log('Files above are not formatted: run "npm run format".');
    failed++;
    failures.push('format');
  }
  console.log('=== type-check ===');
  const sdk = existsSync(join(root, 'packages/plugin-sdk/src/index.ts')) ? run('npx', ['tsc', '-p', 'packages/plugin-sdk']) : 0;
  if (sdk !== 0 || run('npx', ['tsc', '-p', 'packages/gateway']) !== 0) {
    failed++;
    failures.push('type-check');
  }
  // The web console: its types, its generated API client against the gateway's OpenAPI document, and
  // the size of what the login page loads (built fresh).
  console.log('=== web console ===');
  if (run('npx', ['tsc', '-p', 'packages/web']) !== 0 || run('npx', ['tsc', '-p', 'packages/web/e2e']) !== 0) {
    failed++;
    failures.push('web type-check');
  }
  if (run('npm', ['run', '--silent', 'check-api', '-w', '@gatehouse/web']) !== 0) {
    failed++;
    failures.push('web API client');
  }
  if (
    run('npm', ['run', '--silent', 'build', '-w', '@gatehouse/web']) !== 0 ||
    run('npm', ['run', '--silent', 'size', '-w', '@gatehouse/web']) !== 0
  ) {
    failed++;
    failures.push('web bundle');
  }
}

const all = walk(root).filter((f) => !only || f.includes(only));
const e2e = all.filter((f) => f.startsWith('packages/web/e2e/'));
const unit = all.filter((f) => !e2e.includes(f) && (!/(^|\/)test\//.test(f) || f.startsWith('packages/plugin-sdk/test/')));
const integration = all.filter((f) => !unit.includes(f) && !e2e.includes(f));

nodeTest('unit', unit, {});
if (!unitOnly && !noE2e && e2e.length) {
  // The console in a real browser: one file at a time (each starts a gateway and a browser).
  if (!existsSync(join(root, 'packages/web/dist/index.html')) && run('npm', ['run', '--silent', 'build', '-w', '@gatehouse/web']) !== 0) {
    failed++;
    failures.push('web build for browser tests');
  } else {
    nodeTest('browser', e2e, { TEST_DB: 'sqlite' }, 1);
  }
}
if (!unitOnly) {
  for (const db of dbs) nodeTest(`integration-${db}`, integration, { TEST_DB: db });
}

console.log(
  `\n${failures.length ? `failed parts: ${failures.join(', ')}\n` : ''}Total: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`,
);
process.exit(failed ? 1 : 0);
