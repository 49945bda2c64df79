/**
 * The integration suite's layout (docs/architecture.md#tests): test files live in folders by area, the top
 * of `test/` holds only what they share, and what stands in for the outside world is in one `fakes/`.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const TEST = fileURLToPath(new URL('..', import.meta.url));

/** The shared support at the top of test/: the harness, the clients and the fixtures. */
const SHARED = ['admin-client.ts', 'api-conformance.ts', 'billing-fixtures.ts', 'child-gateway.ts', 'harness.ts', 'relay-fixtures.ts'];
const AREAS = ['accounts', 'admin', 'agents', 'billing', 'fakes', 'guardrails', 'mcp', 'node', 'relay', 'tasks', 'teams'];

test('test files are in folders by area; the top holds the shared support only', () => {
  const top = readdirSync(TEST, { withFileTypes: true });
  assert.deepEqual(
    top
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort(),
    SHARED,
    'a file at the top of test/ that is not shared support: move it into its area',
  );
  assert.deepEqual(
    top
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort(),
    AREAS,
    'a new folder of test/: name it in docs/architecture.md#tests and here',
  );
});

test('one fakes/ folder', () => {
  const fakes: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory() || e.name === 'node_modules' || e.name.startsWith('.')) continue;
      const p = join(dir, e.name);
      if (/^(fakes?|mocks?|stubs?|fixtures)$/.test(e.name)) fakes.push(relative(TEST, p));
      walk(p);
    }
  };
  walk(TEST);
  assert.deepEqual(fakes, ['fakes'], 'what stands in for the outside world goes in test/fakes/');
});
