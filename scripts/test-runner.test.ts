/**
 * The test command (scripts/test.mjs) refuses a run that executed no test, whether --only matched no file or
 * --name matched no test in the files it did match, and it says why; a narrowed run that executes tests passes,
 * skips lint and type-check, and reports each stage's duration.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function runTests(...args: string[]) {
  // Without the variable that tells a test process it runs under `node --test` (the runner's own would skip its files).
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const r = spawnSync(process.execPath, ['scripts/test.mjs', ...args], { cwd: ROOT, encoding: 'utf8', env: { ...env, TEST_DBS: '' } });
  return { code: r.status, out: r.stdout + r.stderr };
}

test('an --only that matches no test file fails and names the pattern', () => {
  const r = runTests('--only', 'packages/gateway/test/no-such-area');
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /--only "packages\/gateway\/test\/no-such-area" matched no test file/);
  assert.match(r.out, /No test ran \(check --only and --name\): a run that executes nothing fails\./);
  assert.match(r.out, /Total: 0 passed, 1 failed/);
});

test('files that match but run no test (a --name that matches nothing) fail the run too', () => {
  const r = runTests('--only', 'platform/redact.test', '--name', 'no test is called this');
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /=== unit: 1 file\(s\) ===/);
  assert.match(r.out, /--- unit: 0 passed, 0 failed/);
  assert.match(r.out, /No test ran/);
  assert.doesNotMatch(r.out, /recursively/);
});

test('a narrowed run that executes tests passes, without lint or type-check, and reports the durations', () => {
  const r = runTests('--only', 'platform/redact.test');
  assert.equal(r.code, 0, r.out);
  assert.doesNotMatch(r.out, /=== (lint|type-check|format|web checks) ===/);
  assert.match(r.out, /--- unit: 2 passed, 0 failed in \d+\.\d s/);
  assert.match(r.out, /Durations:\n {2}unit +\d+\.\d s +\(2 passed, 0 failed\)\n {2}total +\d+\.\d s/);
  assert.match(r.out, /Total: 2 passed, 0 failed/);
});
