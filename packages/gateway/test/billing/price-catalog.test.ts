/**
 * The list-price catalog adopted in one action by `gatehouse price import` (prices already set are
 * kept, `--overwrite` replaces them, a model may be overridden afterwards); the rules of a price
 * declared in the YAML file; and the refusals of rules that cannot be priced or bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestGateway, TEST_DB, TEST_ROOT_PASSWORD } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { CATALOG } from '../../src/billing/catalog-data.ts';

const BIN = fileURLToPath(new URL('../../bin/gatehouse.mjs', import.meta.url));

function cli(args: string[], env: NodeJS.ProcessEnv, input = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env, GATEHOUSE_TOKEN: '', GATEHOUSE_URL: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '',
      stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    p.stdin.end(input);
  });
}

test('every catalog entry names its source and date, once per model; native vendors and presets are covered', () => {
  const models = new Set<string>();
  for (const e of CATALOG) {
    assert.ok(!models.has(e.model), `${e.model} once`);
    models.add(e.model);
    assert.match(e.source, /^https:\/\//, e.model);
    assert.match(e.as_of, /^\d{4}-\d{2}-\d{2}$/, e.model);
  }
  for (const vendor of ['openai', 'anthropic', 'gemini', 'deepseek', 'moonshot', 'qwen', 'xai', 'mistral', 'groq']) {
    assert.ok(
      CATALOG.some((e) => e.vendor === vendor),
      vendor,
    );
  }
});

test(
  'gatehouse price import adopts the catalog in one action, keeping prices already set unless --overwrite',
  { skip: TEST_DB !== 'sqlite' && 'database-independent' },
  async () => {
    const gw = await startTestGateway();
    const home = mkdtempSync(join(tmpdir(), 'gatehouse-price-'));
    const env = { HOME: home, XDG_CONFIG_HOME: '' };
    try {
      const admin = await AdminClient.login(gw.url);
      const login = await cli(['login', '--url', gw.url, '--username', 'root', '--password-stdin'], env, `${TEST_ROOT_PASSWORD}\n`);
      assert.equal(login.code, 0, login.stderr);
      // The operator's own price of one model, set before.
      await admin.ok('PUT', '/api/price', { model: 'gpt-4o', input: 2, output: 8 });

      const all = await cli(['price', 'import'], env);
      assert.equal(all.code, 0, all.stderr);
      assert.match(all.stdout, new RegExp(`Imported ${CATALOG.length - 1} price\\(s\\) from the catalog; kept 1 already set \\(gpt-4o;`));
      const sonnet = await admin.ok('GET', '/api/price/claude-sonnet-4-5');
      assert.deepEqual(
        [sonnet.input, sonnet.output, sonnet.cached_input, sonnet.cache_write_5m, sonnet.tiers, sonnet.web_search],
        [3, 15, 0.3, 3.75, [{ above_input_tokens: 200_000, input: 6, output: 22.5 }], 10],
      );
      assert.equal((await admin.ok('GET', '/api/price/gpt-4o')).input, 2, 'the operator price is kept');
      const listed = await cli(['price', 'catalog'], env);
      assert.match(listed.stdout, /claude-sonnet-4-5 +anthropic +3 +15/);

      const over = await cli(['price', 'import', 'gpt-4o', '--overwrite'], env);
      assert.equal(over.code, 0, over.stderr);
      assert.match(over.stdout, /Imported 1 price\(s\)/);
      assert.equal((await admin.ok('GET', '/api/price/gpt-4o')).input, 2.5);

      const unknown = await cli(['price', 'import', 'no-such-model'], env);
      assert.notEqual(unknown.code, 0);
      assert.match(unknown.stderr, /"no-such-model" is not in the catalog/);
    } finally {
      await gw.stop();
    }
  },
);

test('the rules of a price from the YAML file, and rules that cannot be priced refused in the envelope', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-rules-'));
  const path = join(dir, 'gatehouse.yaml');
  writeFileSync(
    path,
    `prices:
  claude-sonnet-4-5:
    input: 3
    output: 15
    tiers: [{ above_input_tokens: 200000, input: 6, output: 22.5 }]
    web_search: 10
  gpt-5: { input: 1.25, output: 10, service_tiers: { flex: 0.5, priority: 2 } }
  night-owl: { expression: 'hour() < 6 ? u("p") * 1 + u("c") * 2 : u("p") * 2 + u("c") * 4' }
`,
  );
  const gw = await startTestGateway({ env: { GATEHOUSE_CONFIG: path } });
  try {
    const admin = await AdminClient.login(gw.url);
    assert.deepEqual((await admin.ok('GET', '/api/price/gpt-5')).service_tiers, { flex: 0.5, priority: 2 });
    const preview = await admin.ok('POST', '/api/price/preview', {
      model: 'claude-sonnet-4-5',
      usage: { input_tokens: 250_000, output_tokens: 2_000, server_tools: { web_search: 3 } },
    });
    assert.deepEqual([preview.quota, preview.tier], [772_500 + 15_000, 200_000]);
    const night = await admin.ok('POST', '/api/price/preview', {
      model: 'night-owl',
      usage: { input_tokens: 1e6, output_tokens: 0 },
      hour: 3,
    });
    assert.equal(night.quota, 500_000);
    await admin.fails(400, 'PUT', '/api/price', { model: 'x', expression: 'u("p") / param("n")' }, 'expression');
    await admin.fails(400, 'PUT', '/api/price', { model: 'x', input: 1, tiers: [{ above_input_tokens: 10, input: 2 }] }, 'tiers[0].output');
    await admin.fails(400, 'PUT', '/api/price', { model: 'x', input: 1, service_tiers: { flex: -1 } }, 'service_tiers.flex');
  } finally {
    await gw.stop();
  }
});
