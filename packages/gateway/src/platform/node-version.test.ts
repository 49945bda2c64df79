/** The supported Node.js range, read the way package.json's `engines.node` writes it, and the advice given outside it. */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtAbi, describeRange, nativeModuleProblem, nodeSupported, nodeVersionProblem } from './node-version.ts';

const RANGE = '^22.14.0 || ^24.0.0';

test('versions inside and outside ^22.14.0 || ^24.0.0', () => {
  for (const v of ['v22.14.0', '22.20.1', 'v24.0.0', 'v24.21.0']) assert.equal(nodeSupported(RANGE, v), true, v);
  for (const v of ['v20.20.2', 'v22.13.9', 'v23.1.0', 'v25.0.0', 'v18.0.0']) assert.equal(nodeSupported(RANGE, v), false, v);
  assert.equal(nodeSupported('>=20.0.0', 'v25.1.0'), true);
  // A form this check does not read blocks nothing.
  assert.equal(nodeSupported('22.x', 'v20.0.0'), true);
});

test('the range in words', () => {
  assert.equal(describeRange(RANGE), '22 (22.14 or later) or 24');
  assert.equal(describeRange('^20.0.0 || ^22.14.1 || >=24.1.0'), '20, 22 (22.14.1 or later) or 24.1 or later');
});

test('a Node.js outside the range is told which ones fit and how to get one', () => {
  assert.equal(nodeVersionProblem(RANGE, 'v24.21.0', '/x/node'), null);
  const m = nodeVersionProblem(RANGE, 'v20.20.2', '/usr/bin/node')!;
  assert.match(m, /^Gatehouse needs Node\.js 22 \(22\.14 or later\) or 24; this is Node\.js 20\.20\.2 \(\/usr\/bin\/node\)\./);
  assert.match(m, /scripts\/fetch-node\.sh 24/);
  assert.match(m, /nvm install 24 && nvm use 24/);
  assert.match(m, /https:\/\/nodejs\.org\/en\/download/);
});

test('a native module built for another Node.js gets the rebuild command; other errors are left alone', () => {
  const err = new Error(
    "The module '/r/node_modules/isolated-vm/build/Release/isolated_vm.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 137. This version of Node.js requires\nNODE_MODULE_VERSION 127. Please try re-compiling or re-installing",
  );
  const m = nativeModuleProblem(err, 'v22.14.0', '127')!;
  assert.match(m, /built for Node\.js 24 \(NODE_MODULE_VERSION 137\), but this is Node\.js 22\.14\.0 \(NODE_MODULE_VERSION 127\)/);
  assert.match(m, /isolated_vm\.node/);
  assert.match(m, /npm rebuild better-sqlite3 isolated-vm/);
  assert.equal(nativeModuleProblem(new Error('ENOENT: no such file'), 'v22.14.0', '127'), null);
});

test('a native module linked against another V8 fails in dlopen: the version it was built for is read from the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-abi-'));
  const file = join(dir, 'isolated_vm.node');
  writeFileSync(file, Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0]), Buffer.from('\0node_register_module_v127\0')]));
  try {
    assert.equal(builtAbi(file), '127');
    const err = Object.assign(new Error(`${file}: undefined symbol: _ZN2v811ArrayBuffer9Allocator10ReallocateEPvmm`), {
      code: 'ERR_DLOPEN_FAILED',
    });
    const m = nativeModuleProblem(err, 'v24.21.0', '137')!;
    assert.match(
      m,
      /^A native module in node_modules was built for Node\.js 22 \(NODE_MODULE_VERSION 127\), but this is Node\.js 24\.21\.0 \(NODE_MODULE_VERSION 137\): \S+isolated_vm\.node\.\n/,
    );
    // Built for this very Node.js: the undefined symbol has another cause, and the error is left alone.
    assert.equal(nativeModuleProblem(err, 'v22.14.0', '127'), null);
    assert.equal(nativeModuleProblem(new Error('/nowhere/x.node: undefined symbol: y'), 'v24.21.0', '137'), null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
