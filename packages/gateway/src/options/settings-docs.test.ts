/**
 * Every setting is said once: each environment variable the gateway reads (platform/config.ts and any
 * other `env.NAME` of the source), each older name of one (ENV_ALIASES) and each known option
 * (KNOWN_OPTIONS) is the first cell of exactly one table row of docs/configuration.md, and no name is
 * the first cell of two rows.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENV_ALIASES, loadConfig } from '../platform/config.ts';
import { KNOWN_OPTIONS } from './options.ts';

const SRC = fileURLToPath(new URL('..', import.meta.url));
const DOC = fileURLToPath(new URL('../../../../docs/configuration.md', import.meta.url));

/** Read by the gateway but set by it, not by people: the cluster primary marks its workers. */
const INTERNAL = new Set(['GATEHOUSE_WORKER']);

/** The names in the first cell of each table row of the document, with how many rows name each. */
function documented(): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of readFileSync(DOC, 'utf8').split('\n')) {
    const m = /^\|([^|]*)\|/.exec(line);
    if (!m || /^[\s:-]*$/.test(m[1])) continue;
    for (const n of m[1].matchAll(/`([A-Za-z][A-Za-z0-9_]*)`/g)) out.set(n[1], (out.get(n[1]) ?? 0) + 1);
  }
  return out;
}

/** The variables loadConfig reads, found by giving it an environment that records every name asked. */
function configVariables(): Set<string> {
  const read = new Set<string>();
  const env = new Proxy({} as NodeJS.ProcessEnv, {
    get(_t, k) {
      if (typeof k !== 'string') return undefined;
      read.add(k);
      // A secret given, so that no secret file is written for the default SQLite path.
      return k === 'CRYPTO_SECRET' ? 'x'.repeat(32) : undefined;
    },
  });
  loadConfig(env);
  return read;
}

/** `env.NAME`, `env['NAME']` and `num(env, 'NAME')`-style reads anywhere in the source. */
function sourceVariables(dir = SRC, out = new Set<string>()): Set<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) sourceVariables(p, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) {
      const text = readFileSync(p, 'utf8');
      for (const re of [
        /\benv\.([A-Z][A-Z0-9_]*)\b/g,
        /\benv\[\s*'([A-Z][A-Z0-9_]*)'\s*\]/g,
        /\b(?:num|bool)\(\s*env,\s*'([A-Z][A-Z0-9_]*)'/g,
      ]) {
        for (const m of text.matchAll(re)) out.add(m[1]);
      }
    }
  }
  return out;
}

test('the recording environment sees the variables of loadConfig, older names included', () => {
  const vars = configVariables();
  for (const n of ['PORT', 'DATABASE_URL', 'PUBLIC_URL', 'TASK_TIMEOUT_SECONDS', 'SERVER_ADDRESS', 'TASK_TIMEOUT_MINUTES'])
    assert.ok(vars.has(n), n);
});

test('every setting appears in exactly one row of docs/configuration.md', () => {
  const doc = documented();
  const settings = new Set([...configVariables(), ...sourceVariables(), ...Object.keys(ENV_ALIASES), ...Object.keys(KNOWN_OPTIONS)]);
  for (const n of INTERNAL) settings.delete(n);
  const missing = [...settings].filter((n) => !doc.has(n)).sort();
  assert.deepEqual(missing, [], 'settings missing from docs/configuration.md');
  const twice = [...doc].filter(([, c]) => c > 1).map(([n]) => n);
  assert.deepEqual(twice, [], 'named in more than one row of docs/configuration.md');
});

test('every older name is documented with the setting it now is', () => {
  const text = readFileSync(DOC, 'utf8');
  const rows = new Map<string, string>();
  for (const m of text.matchAll(/^\| `(\w+)`(?: \(option\))? \| `(\w+)` \|/gm)) rows.set(m[1], m[2]);
  for (const [old, { name }] of Object.entries(ENV_ALIASES)) assert.equal(rows.get(old), name, old);
  for (const [key, spec] of Object.entries(KNOWN_OPTIONS)) if (spec.aliasOf) assert.equal(rows.get(key), spec.aliasOf, key);
});
