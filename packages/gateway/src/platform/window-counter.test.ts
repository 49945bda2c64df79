import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WindowCounter } from './window-counter.ts';
import type { CounterCore } from './window-counter.ts';

// Without Redis the counter lives in memory and answers synchronously.
const core = { redis: null, cache: { redisPrefix: null } } satisfies CounterCore;

test('a window starts with the first count, reads add nothing, and the count restarts when it ends', () => {
  const c = new WindowCounter(core, 't');
  assert.deepEqual(c.add('a', 1000, 0, 0), { n: 0, leftMs: 1000 });
  assert.deepEqual(c.add('a', 1000, 1, 100), { n: 1, leftMs: 900 });
  assert.deepEqual(c.add('a', 1000, 1, 999), { n: 2, leftMs: 1 });
  assert.deepEqual(c.add('b', 1000, 1, 999), { n: 1, leftMs: 1000 }, 'names are counted apart');
  assert.deepEqual(c.add('a', 1000, 1, 1000), { n: 1, leftMs: 1000 }, 'a new window');
});
