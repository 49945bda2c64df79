/**
 * A fresh clone installs cleanly: `npm install` in a new `git clone` of this repository (its committed state)
 * leaves `git status` empty — package-lock.json is not rewritten and the build it runs writes only ignored
 * files — and the coding-agent command lines some tests use stay out of it (test/agents is a package of its
 * own, installed only for those tests).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_DB } from '../harness.ts';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));

test(
  'npm install on a fresh clone leaves the tree clean and installs no coding agent',
  { skip: TEST_DB !== 'sqlite' && 'database-independent', timeout: 600_000 },
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-clone-'));
    try {
      execFileSync('git', ['clone', '--quiet', ROOT, dir], { stdio: 'pipe' });
      // The npm of this Node.js; no setting of the surrounding shell's npm run (npm_config_*) leaks in.
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
      execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'pipe', env, maxBuffer: 64 * 1024 * 1024 });
      const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: dir, encoding: 'utf8' });
      const diff = status ? execFileSync('git', ['diff'], { cwd: dir, encoding: 'utf8' }).slice(0, 4000) : '';
      assert.equal(status, '', `npm install changed the tree:\n${status}\n${diff}`);
      assert.ok(existsSync(join(dir, 'packages/gateway/dist/main.js')), 'the gateway was built');
      assert.ok(existsSync(join(dir, 'packages/web/dist/index.html')), 'the console was built');
      for (const p of ['@openai/codex', '@anthropic-ai/claude-code']) {
        assert.ok(!existsSync(join(dir, 'node_modules', p)), `${p} is not part of a plain install`);
      }
      assert.ok(!existsSync(join(dir, 'packages/gateway/test/agents/node_modules')), 'the agents package is not installed');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
