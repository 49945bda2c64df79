/**
 * The exit's wait for isolate teardowns (teardown.ts): none when no isolate was disposed lately, the
 * rest of TEARDOWN_MS after the last disposal otherwise.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEARDOWN_MS, isolateDisposed, isolatesTornDown } from './teardown.ts';

test('the exit waits out the teardown of the isolate disposed last, and no longer', async () => {
  let t = performance.now();
  await isolatesTornDown();
  assert.ok(performance.now() - t < TEARDOWN_MS / 2, 'no isolate disposed: no wait');
  isolateDisposed();
  t = performance.now();
  await isolatesTornDown();
  assert.ok(performance.now() - t >= TEARDOWN_MS - 5, 'an isolate just disposed: the whole teardown time');
  t = performance.now();
  await isolatesTornDown();
  assert.ok(performance.now() - t < TEARDOWN_MS / 2, 'waited out already: no second wait');
});
