/**
 * Small helpers are defined once (docs/architecture.md#layers): each of the shared helpers below is
 * declared in its home module only and imported everywhere else, never written again under its name.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('..', import.meta.url));

/** Helper → the module (relative to src/) that defines it. */
const HOMES: Record<string, string> = {
  isObj: 'platform/validate.ts',
  stableJson: 'platform/validate.ts',
  signBody: 'platform/crypto.ts',
  sha256Hex: 'platform/crypto.ts',
  roundUsd: 'billing/prices.ts',
};

/**
 * Re-declarations a module keeps on purpose, each importing the home module's helper: the codecs' `isObj`
 * is platform/validate.ts's, typed for the loosely typed values they read.
 */
const TYPED_ALIASES = new Set(['relay/providers/canonical.ts isObj']);

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

test('each shared helper is declared in its home module only', () => {
  const found: string[] = [];
  const homes = new Set<string>();
  for (const f of sources(SRC)) {
    const rel = relative(SRC, f).split('\\').join('/');
    const text = readFileSync(f, 'utf8');
    for (const [name, home] of Object.entries(HOMES)) {
      const declared = new RegExp(`^\\s*(?:export\\s+)?(?:async\\s+)?(?:function\\s*\\*?\\s*|const\\s+|let\\s+|var\\s+)${name}\\b`, 'm');
      if (!declared.test(text)) continue;
      if (rel === home) homes.add(name);
      else if (!TYPED_ALIASES.has(`${rel} ${name}`)) found.push(`${rel} ${name}`);
    }
  }
  assert.deepEqual(found, [], 'helpers written again outside their home module: import them instead');
  assert.deepEqual([...homes].sort(), Object.keys(HOMES).sort(), 'every helper is declared in its home module');
});
