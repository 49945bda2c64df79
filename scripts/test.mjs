#!/usr/bin/env node
/**
 * The whole test suite: lint, format check (Prettier), type-check, the web console's checks, unit tests, the
 * console's browser tests, then the integration suite once per database (SQLite, PostgreSQL, MySQL). Prints how
 * long each stage took and one closing summary with the totals.
 *
 *   node scripts/test.mjs                    everything
 *   node scripts/test.mjs --unit             lint, format check, type-check and unit tests only
 *   node scripts/test.mjs --no-lint          skip lint, the format check, type-check and the web console's checks
 *   node scripts/test.mjs --no-e2e           skip the browser tests of the console (packages/web/e2e)
 *   TEST_DBS=sqlite node scripts/test.mjs    integration suite on SQLite only (any comma-separated list)
 *   node scripts/test.mjs --only relay       only the test files whose path contains "relay" (repeatable), on SQLite,
 *                                            without lint and type-check: add --lint for those, TEST_DBS=… for
 *                                            other databases
 *   node scripts/test.mjs --name "refund"    only the tests whose name matches (node --test-name-pattern)
 *
 * A run that executed no test (an --only or --name that matched nothing) fails: it proves nothing.
 *
 * The browser tests run once, on SQLite (the console does not depend on the database), after the unit
 * tests; they build the console first when packages/web/dist is missing and drive Chromium
 * (CHROMIUM_PATH, default /usr/bin/chromium). Tests that drive coding-agent command lines import
 * packages/gateway/test/agents/clis.ts (or run.ts, built on it); when one is selected, that folder's package is installed first
 * (npm ci, once, again when its lock file changes).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, mkdtempSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { ensureAgents } from '../packages/gateway/test/agents/install.mjs';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
/** Every value of a repeatable option. */
const values = (name) => args.flatMap((a, i) => (a === name && args[i + 1] !== undefined ? [args[i + 1]] : []));
const only = values('--only');
const names = values('--name');
const unitOnly = args.includes('--unit');
// A run narrowed with --only skips lint and type-check unless --lint asks for them.
const noLint = args.includes('--no-lint') || (only.length > 0 && !args.includes('--lint'));
const noE2e = args.includes('--no-e2e');
const dbs = (process.env.TEST_DBS || (only.length ? 'sqlite' : 'sqlite,postgres,mysql'))
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
  skipped = 0,
  /** Tests that ran to a result (passed or failed), as the test runner counted them. */
  executed = 0;
const failures = [];
/** Each stage that ran, with how long it took. */
const stages = [];
const tmp = mkdtempSync(join(tmpdir(), 'gh-test-'));
const started = performance.now();

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Runs one stage: prints its title, then how long it took. `fn` returns false when the stage failed. */
function stage(name, fn) {
  console.log(`\n=== ${name} ===`);
  const t0 = performance.now();
  const ok = fn();
  const ms = performance.now() - t0;
  stages.push({ name, ms, ok });
  console.log(`--- ${name}: ${ok ? 'done' : 'FAILED'} in ${seconds(ms)}`);
  if (!ok) {
    failed++;
    failures.push(name);
  }
}

/** One `node --test` stage; its counts come from a TAP report beside the readable one. */
function nodeTest(label, files, env, concurrency = 3) {
  if (files.length === 0) return;
  const tap = join(tmp, `${label}.tap`);
  const t0 = performance.now();
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
      ...names.map((n) => `--test-name-pattern=${n}`),
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
    // A file in which no test ran (all filtered out by --name, or none declared) is reported as one passing
    // test named after the file: it is not a test.
    const empty = [...txt.matchAll(/^ok \d+ - (.+)$/gm)].filter((m) => files.includes(m[1])).length;
    p -= empty;
  } catch {}
  executed += p + f;
  if (code !== 0 && f === 0) f = 1;
  passed += p;
  failed += f;
  skipped += s;
  if (f) failures.push(label);
  const ms = performance.now() - t0;
  stages.push({ name: label, ms, ok: f === 0, counts: `${p} passed, ${f} failed${s ? `, ${s} skipped` : ''}` });
  console.log(`--- ${label}: ${p} passed, ${f} failed in ${seconds(ms)}`);
}

if (!noLint) {
  stage('lint', () => run('npx', ['eslint', '.']) === 0);
  stage('format', () => {
    if (run('npx', ['prettier', '--check', '--log-level', 'warn', '.']) === 0) return true;
    console.log('Files above are not formatted: run "npm run format".');
    return false;
  });
  stage('type-check', () => {
    const sdk = existsSync(join(root, 'packages/plugin-sdk/src/index.ts')) ? run('npx', ['tsc', '-p', 'packages/plugin-sdk']) : 0;
    return sdk === 0 && run('npx', ['tsc', '-p', 'packages/gateway']) === 0;
  });
  // The web console: its types, its generated API client against the gateway's OpenAPI document, and
  // the size of what the login page loads (built fresh).
  stage('web checks', () => {
    let ok = true;
    if (run('npx', ['tsc', '-p', 'packages/web']) !== 0 || run('npx', ['tsc', '-p', 'packages/web/e2e']) !== 0) {
      console.log('web: the type-check failed');
      ok = false;
    }
    if (run('npm', ['run', '--silent', 'check-api', '-w', '@gatehouse/web']) !== 0) {
      console.log('web: the generated API client is stale');
      ok = false;
    }
    if (
      run('npm', ['run', '--silent', 'build', '-w', '@gatehouse/web']) !== 0 ||
      run('npm', ['run', '--silent', 'size', '-w', '@gatehouse/web']) !== 0
    ) {
      console.log('web: the build or the bundle budget failed');
      ok = false;
    }
    return ok;
  });
}

const all = walk(root).filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
const e2e = all.filter((f) => f.startsWith('packages/web/e2e/'));
const unit = all.filter((f) => !e2e.includes(f) && (!/(^|\/)test\//.test(f) || f.startsWith('packages/plugin-sdk/test/')));
const integration = all.filter((f) => !unit.includes(f) && !e2e.includes(f));
const runsE2e = !unitOnly && !noE2e && e2e.length > 0;
const runsIntegration = !unitOnly && dbs.length > 0 && integration.length > 0;

if (only.length && all.length === 0) {
  console.log(
    `\n--only ${only.map((o) => `"${o}"`).join(' ')} matched no test file (paths are relative to the repository, e.g. packages/gateway/test/relay-chat).`,
  );
}

nodeTest('unit', unit, {});
if (runsE2e) {
  // The console in a real browser: one file at a time (each starts a gateway and a browser).
  if (!existsSync(join(root, 'packages/web/dist/index.html'))) {
    stage('web build for browser tests', () => run('npm', ['run', '--silent', 'build', '-w', '@gatehouse/web']) === 0);
  }
  if (!failures.includes('web build for browser tests')) nodeTest('browser', e2e, { TEST_DB: 'sqlite' }, 1);
}
if (runsIntegration) {
  // Tests that drive a coding agent's command line find it in packages/gateway/test/agents (its own package).
  if (integration.some((f) => /\/agents\/(clis|run)\.ts/.test(readFileSync(join(root, f), 'utf8')))) {
    stage('coding agents install', () => {
      try {
        ensureAgents((line) => console.log(line));
        return true;
      } catch (e) {
        console.log(e.message);
        return false;
      }
    });
  }
  for (const db of dbs) nodeTest(`integration-${db}`, integration, { TEST_DB: db });
}

if (executed === 0) {
  const why = only.length || names.length ? 'check --only and --name' : 'no test file was found';
  console.log(`\nNo test ran (${why}): a run that executes nothing fails.`);
  failed++;
  failures.push('no test ran');
}

const total = performance.now() - started;
const width = Math.max(...stages.map((s) => s.name.length), 5);
console.log('\nDurations:');
for (const s of stages)
  console.log(
    `  ${s.name.padEnd(width)}  ${seconds(s.ms).padStart(9)}  ${s.ok ? '' : 'FAILED'}${s.counts ? ` (${s.counts})` : ''}`.trimEnd(),
  );
console.log(`  ${'total'.padEnd(width)}  ${seconds(total).padStart(9)}`);
console.log(
  `\n${failures.length ? `failed parts: ${failures.join(', ')}\n` : ''}Total: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`,
);
process.exit(failed ? 1 : 0);
