/** The cache figures of a call: write spend and read saving in quota units, rounded once each, with the group ratio. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cacheQuota } from './cache-quota.ts';
import type { ModelPrice } from './prices.ts';

const Q = 500_000;
const price = (p: Partial<ModelPrice> = {}): ModelPrice => ({
  model: 'm',
  input: 3,
  output: 15,
  cachedInput: 0.3,
  cacheWrite5m: 3.75,
  cacheWrite1h: 6,
  perRequest: null,
  ...p,
});

test('writes at their 5-minute and 1-hour prices; reads saved at input less cached input; the group ratio multiplies both', () => {
  const usage = { inputTokens: 4000, outputTokens: 100, cachedInputTokens: 2000, cacheWriteTokens: 1000, cacheWrite1hTokens: 600 };
  assert.deepEqual(cacheQuota(price(), usage, 1, Q), { write: 2550, saving: 2700 });
  assert.deepEqual(cacheQuota(price(), usage, 2, Q), { write: 5100, saving: 5400 });
  // Rounded once: 750 × 1.5 µ$ = 562.5 units.
  assert.deepEqual(
    cacheQuota(price({ input: 2, cachedInput: 0.5 }), { inputTokens: 1000, outputTokens: 0, cachedInputTokens: 750 }, 1, Q),
    {
      write: 0,
      saving: 563,
    },
  );
});

test('no cache, no price, a per-request price: nothing; a read dearer than input saves a negative amount', () => {
  assert.deepEqual(cacheQuota(price(), { inputTokens: 1000, outputTokens: 10 }, 1, Q), { write: 0, saving: 0 });
  const usage = { inputTokens: 1000, outputTokens: 10, cachedInputTokens: 500, cacheWriteTokens: 500 };
  assert.deepEqual(cacheQuota(null, usage, 1, Q), { write: 0, saving: 0 });
  assert.deepEqual(cacheQuota(price({ perRequest: 0.01 }), usage, 1, Q), { write: 0, saving: 0 });
  assert.deepEqual(cacheQuota(price({ cachedInput: 4 }), { inputTokens: 1000, outputTokens: 0, cachedInputTokens: 1000 }, 1, Q), {
    write: 0,
    saving: -500,
  });
});

test('reported tokens beyond the input are held to it, as the cost holds them', () => {
  // 900 cached of 1000 input leaves 100 for writes, all of them 1-hour at most.
  const usage = { inputTokens: 1000, outputTokens: 0, cachedInputTokens: 900, cacheWriteTokens: 400, cacheWrite1hTokens: 700 };
  assert.deepEqual(cacheQuota(price(), usage, 1, Q), {
    write: Math.round(((100 * 6) / 1e6) * Q),
    saving: Math.round(((900 * 2.7) / 1e6) * Q),
  });
});
