import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadPlugin, PluginCallError, type LoadedPlugin } from '../../src/plugins/runtime/index.ts';

const dir = new URL('../fakes/plugins/hostile/', import.meta.url);
const opts = { timeoutMs: 300, memoryMb: 32, poolSize: 2 };
const hostile = await loadPlugin(readFileSync(new URL('hostile.js', dir), 'utf8'), opts);
const good = await loadPlugin(readFileSync(new URL('../../../../../../examples/plugins/example-video.js', dir), 'utf8'), opts);
after(() => {
  hostile.dispose();
  good.dispose();
});

async function callError(p: LoadedPlugin, hook: string, ...args: unknown[]): Promise<PluginCallError> {
  try {
    await p.call(hook, ...args);
  } catch (e) {
    assert.ok(e instanceof PluginCallError, `expected PluginCallError, got ${String(e)}`);
    return e;
  }
  assert.fail(`${hook} should have failed`);
}

const healthy = async () => {
  assert.equal(await hostile.call('native.ok'), 'ok');
  assert.equal(
    ((await good.call('buildQueryRequest', { baseUrl: 'https://a', taskId: 't' })) as { url: string }).url,
    'https://a/v1/videos/t',
  );
};

test('an infinite loop times out, the isolate is replaced, other plugins keep serving', async () => {
  const other = good.call('protocols.compat_video.decodeRequest', { body: { kind: 'json', value: { prompt: 'x' } }, model: 'clip-1' });
  const e = await callError(hostile, 'native.spin');
  assert.equal(e.kind, 'timeout');
  assert.equal(e.pluginKey, 'hostile');
  assert.equal(e.hook, 'native.spin');
  assert.match(e.message, /timed out after 300 ms/);
  assert.doesNotMatch(e.message, /at .*\.ts/);
  assert.ok(await other);
  await healthy();
});

test('a memory bomb hits the isolate memory limit and is contained', async () => {
  const e = await callError(hostile, 'native.memoryBomb');
  assert.ok(e.kind === 'memory' || e.kind === 'timeout', e.message);
  await healthy();
});

test('deep recursion surfaces as a thrown error', async () => {
  // A time limit far beyond what the recursion needs: it must end in a stack overflow, not in the
  // 300 ms limit, however busy the machine (a loaded CI runner once took longer than that to overflow).
  const patient = await loadPlugin(readFileSync(new URL('hostile.js', dir), 'utf8'), { ...opts, timeoutMs: 20_000 });
  try {
    const e = await callError(patient, 'native.recurse');
    assert.equal(e.kind, 'thrown');
    assert.match(e.detail, /call stack/i);
  } finally {
    patient.dispose();
  }
  await healthy();
});

test('cyclic, enormous and non-JSON results are refused', async () => {
  assert.match((await callError(hostile, 'native.cyclic')).detail, /cyclic/);
  const big = await callError(hostile, 'native.enormous');
  assert.ok(['invalid_result', 'memory'].includes(big.kind), big.message);
  assert.match((await callError(hostile, 'native.bigint')).detail, /not JSON-serialisable/);
  await healthy();
});

test('thrown values become readable messages capped near 500 characters', async () => {
  assert.equal((await callError(hostile, 'native.throwsObject')).detail, 'thrown plain object');
  const long = await callError(hostile, 'native.throwsLong');
  assert.ok(long.detail.length <= 501, String(long.detail.length));
});

test('no escape through the constructors of utils functions, eval or Function; no host globals', async () => {
  const out = (await hostile.call('native.escapes')) as Record<string, unknown>;
  for (const k of [
    'ctorOfUtilsFn',
    'ctorOfUtils',
    'ctorOfConsole',
    'globalFunction',
    'eval',
    'indirectEval',
    'generatorCtor',
    'arrowCtor',
  ]) {
    assert.equal(out[k], 'blocked: EvalError', k);
  }
  for (const k of ['typeofProcess', 'typeofRequire', 'typeofSetTimeout', 'typeofFetch', 'typeofWebAssembly'])
    assert.equal(out[k], 'undefined', k);
  assert.deepEqual(
    (out.globals as string[]).filter(
      (g) =>
        !/^(decodeURI|decodeURIComponent|encodeURI|encodeURIComponent|escape|unescape|isFinite|isNaN|parseFloat|parseInt|globalThis|undefined|eval)$/.test(
          g,
        ),
    ),
    ['console', 'utils'],
  );
});

test('prototype tampering breaks only the tampering isolate; the dispatcher and other plugins are intact', async () => {
  // Tamper in every isolate of the pool.
  await Promise.all([hostile.call('native.tamper'), hostile.call('native.tamper')]);
  const echoed = (await hostile.call('native.echo', { a: [1, 2] })) as { got: unknown; polluted: boolean };
  assert.deepEqual(echoed.got, { a: [1, 2] });
  assert.equal(typeof echoed.polluted, 'boolean');
  await healthy();
  // The plugin replaced JSON.parse/stringify and String.prototype.split; the dispatcher still works.
  assert.deepEqual(await hostile.call('parseTaskResult', {}, {}, {}), { status: 'SUCCESS' });
});

test('hooks receive deep copies: a mutation inside does not reach the host object', async () => {
  const input = { value: 'original' };
  await hostile.call('native.mutateInput', input);
  assert.equal(input.value, 'original');
});

test('a module that never finishes evaluating is refused at load', async () => {
  await assert.rejects(loadPlugin(readFileSync(new URL('load-loop.js', dir), 'utf8'), opts), /timed out/);
});

test('bounded concurrency: calls beyond the pool wait, then fail admission after the time limit', async () => {
  const p = await loadPlugin(readFileSync(new URL('hostile.js', dir), 'utf8'), {
    ...opts,
    poolSize: 1,
    timeoutMs: 2000,
    admissionTimeoutMs: 100,
  });
  try {
    const slow = p.call('native.slowButFine', { ms: 400 });
    const waiting = p.call('native.ok');
    const e = await waiting.then(
      () => null,
      (x: PluginCallError) => x,
    );
    assert.equal(e?.kind, 'admission');
    assert.equal(await slow, 'done');
    assert.equal(await p.call('native.ok'), 'ok');
  } finally {
    p.dispose();
  }
});
