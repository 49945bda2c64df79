/**
 * Every YAML example in the documentation is a configuration file that `gatehouse config check` accepts,
 * so the docs cannot drift from the rules in load.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigFile } from './load.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const DOCS = [
  join(ROOT, 'README.md'),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(ROOT, 'docs', f)),
];

function yamlBlocks(md: string): string[] {
  return [...md.matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)].map((m) => m[1] as string);
}

test('every YAML example in README.md and docs/ is a valid configuration file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gh-docs-yaml-'));
  let n = 0;
  for (const file of DOCS) {
    for (const [i, block] of yamlBlocks(readFileSync(file, 'utf8')).entries()) {
      // Each ${NAME} the example reads gets a value of the shape a key needs.
      const env: NodeJS.ProcessEnv = {};
      for (const m of block.matchAll(/\$\{([A-Z0-9_]+)/g)) env[m[1] as string] = `sk-example${'x'.repeat(32)}${m[1]}`;
      const path = join(dir, `example-${n++}.yaml`);
      writeFileSync(path, block);
      assert.doesNotThrow(() => loadConfigFile(path, { quotaPerUsd: 500_000 }, env), `${file} YAML block ${i + 1}`);
    }
  }
  assert.ok(n > 0, 'the docs hold at least one YAML example');
});
