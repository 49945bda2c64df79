/**
 * Guardrail plugins as operators handle them (docs/guardrails.md): `gatehouse plugin validate` and
 * `plugin test` on guardrail files, installing through POST /api/plugin/guardrail (invalid sources
 * refused with the field at fault, the kinds kept apart), the listing, the test against a sample text,
 * and the Guardrails option refusing bindings that are not valid.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { loadGuardrail } from '../../src/plugins/runtime/guardrail.ts';
import { fixtureCases, runFixtureCases } from '../../src/plugins/runtime/fixtures.ts';

const BIN = fileURLToPath(new URL('../../bin/gatehouse.mjs', import.meta.url));
const EXAMPLES = fileURLToPath(new URL('../../../../examples/guardrails/', import.meta.url));
const TASK_EXAMPLE = fileURLToPath(new URL('../../../../examples/plugins/example-video.js', import.meta.url));

function cli(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

const GOOD = `export const meta = { apiVersion: 1, kind: 'guardrail', key: 'shout', name: 'Shout', version: '1.0.0', author: { name: 't' } };
export function check(ctx, input) {
  const i = input.texts.findIndex((t) => t.includes('hello'));
  if (i < 0) return { action: 'allow' };
  const s = input.texts[i].indexOf('hello');
  return { action: 'mask', spans: [{ index: i, start: s, end: s + 5, replacement: 'HELLO' }] };
}`;

let gw: TestGateway;
let root: AdminClient;
before(async () => {
  gw = await startTestGateway();
  root = await AdminClient.login(gw.url);
});
after(async () => {
  await gw?.stop();
});

test('plugin validate accepts each example guardrail and runs its fixture; it rejects a broken one naming the fault', async () => {
  for (const name of ['pii-mask', 'deny-words', 'secret-detect', 'json-schema']) {
    // The command once; the same loader and fixture runner in process for the others.
    const g = await loadGuardrail(readFileSync(join(EXAMPLES, `${name}.js`), 'utf8'), { timeoutMs: 5000, memoryMb: 64, poolSize: 1 });
    const cases = fixtureCases(JSON.parse(readFileSync(join(EXAMPLES, `${name}.fixture.json`), 'utf8')));
    const results = await runFixtureCases(g, cases);
    g.dispose();
    assert.ok(results.length >= 3 && results.every((r) => r.ok), JSON.stringify(results));
    if (name !== 'pii-mask') continue;
    const v = await cli(['plugin', 'validate', join(EXAMPLES, `${name}.js`)]);
    assert.equal(v.code, 0, v.out);
    assert.match(v.out, new RegExp(`^ok ${name}@1\\.0\\.0 \\(guardrail;`));
    const t = await cli(['plugin', 'test', join(EXAMPLES, `${name}.js`), '--fixture', join(EXAMPLES, `${name}.fixture.json`)]);
    assert.equal(t.code, 0, t.out);
    assert.match(t.out, / 0 failed/);
  }
  const dir = mkdtempSync(join(tmpdir(), 'guardrail-'));
  const bad = join(dir, 'bad.js');
  writeFileSync(bad, GOOD.replace('export function check', 'export function inspect'));
  const r = await cli(['plugin', 'validate', bad]);
  assert.notEqual(r.code, 0);
  assert.match(r.out, /export inspect: a guardrail exports only meta and check/);
  writeFileSync(bad, GOOD.replace("version: '1.0.0'", "version: 'one'"));
  assert.match((await cli(['plugin', 'validate', bad])).out, /meta\.version: must be a semantic version/);
});

test('POST /api/plugin/guardrail installs, lists and tests a guardrail; invalid sources and the other kind are refused', async () => {
  const up = await root.ok('POST', '/api/plugin/guardrail', { source: GOOD });
  assert.equal(up.plugin, 'shout');
  const list = await root.ok('GET', '/api/plugin/guardrail');
  assert.deepEqual(
    list.map((g: any) => [g.key, g.runtime_status]),
    [['shout', 'registered']],
  );
  assert.ok(!(await root.ok('GET', '/api/plugin/task')).some((p: any) => p.key === 'shout'), 'task plugins do not list guardrails');

  const t = await root.ok('POST', '/api/plugin/guardrail/shout/test', { stage: 'input', text: 'say hello there' });
  assert.deepEqual(t.verdict.action, 'mask');
  assert.deepEqual(t.texts, ['say HELLO there']);

  // Disabled, it checks nothing and cannot be tried; enabled again, it serves.
  await root.ok('POST', '/api/plugin/guardrail/shout/status', { enabled: false });
  assert.equal((await root.ok('GET', '/api/plugin/guardrail'))[0].runtime_status, 'disabled');
  await root.fails(404, 'POST', '/api/plugin/guardrail/shout/test', { text: 'hello' });
  await root.ok('POST', '/api/plugin/guardrail/shout/status', { enabled: true });
  assert.equal((await root.ok('GET', '/api/plugin/guardrail'))[0].runtime_status, 'registered');
  // A second version, then the first activated again.
  await root.ok('POST', '/api/plugin/guardrail', { source: GOOD.replace("'1.0.0'", "'1.1.0'").replace("'HELLO'", "'Hello!'") });
  assert.deepEqual((await root.ok('POST', '/api/plugin/guardrail/shout/test', { text: 'hello' })).texts, ['Hello!']);
  await root.ok('POST', '/api/plugin/task/shout/activate', { version: '1.0.0' });
  assert.deepEqual((await root.ok('POST', '/api/plugin/guardrail/shout/test', { text: 'hello' })).texts, ['HELLO']);

  const missing = await root.fails(400, 'POST', '/api/plugin/guardrail', { source: GOOD.replace(/export function check[\s\S]*/, '') });
  assert.match(missing.body.message, /export check: is required/);
  const unknown = await root.fails(400, 'POST', '/api/plugin/guardrail', {
    source: GOOD.replace("author: { name: 't' }", "author: { name: 't' }, models: ['x']"),
  });
  assert.match(unknown.body.message, /meta\.models: is not a field of a guardrail manifest/);
  const task = await root.fails(400, 'POST', '/api/plugin/guardrail', { source: readFileSync(TASK_EXAMPLE, 'utf8') });
  assert.match(task.body.message, /meta\.kind: must be "guardrail"|is not a field/);
  const other = await root.fails(400, 'POST', '/api/plugin/task', { source: GOOD });
  assert.match(other.body.message, /this is a guardrail plugin: install it with POST \/api\/plugin\/guardrail/);
});

test('the Guardrails option refuses bindings that are not valid, naming the fault', async () => {
  for (const [value, msg] of [
    ['[{"plugin": "shout", "stage": "sideways"}]', /stage must be input, output or both/],
    ['[{"plugin": "shout", "on_error": "ignore"}]', /on_error must be block or allow/],
    ['[{"plugin": "shout", "keys": ["a"]}]', /keys must list ids/],
    ['{"plugin": "shout"}', /must be a list/],
  ] as const) {
    const r = await root.call('PUT', '/api/option', { options: { Guardrails: value } });
    assert.equal(r.status, 400, r.text);
    assert.match(r.body.message, msg);
  }
  await root.ok('PUT', '/api/option', { options: { Guardrails: '[{"plugin": "shout", "stage": "input", "groups": ["default"]}]' } });
});
