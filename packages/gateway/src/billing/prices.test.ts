/** The cost of a usage: uncached input, cache reads, 5-minute and 1-hour cache writes and output each at their price. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quotaUnits, usdCost, type ModelPrice } from './prices.ts';

const price: ModelPrice = { model: 'm', input: 3, output: 15, cachedInput: 0.3, cacheWrite5m: 3.75, cacheWrite1h: 6, perRequest: null };

test('cache writes are priced apart from plain input, the 1-hour part at its own price', () => {
  // 1,000 uncached + 2,000 read + 400 written for 5 minutes + 600 written for 1 hour; 100 out.
  const usd = usdCost(price, {
    inputTokens: 4000,
    cachedInputTokens: 2000,
    cacheWriteTokens: 1000,
    cacheWrite1hTokens: 600,
    outputTokens: 100,
  });
  assert.equal(usd, (1000 * 3 + 2000 * 0.3 + 400 * 3.75 + 600 * 6 + 100 * 15) / 1e6);
  assert.equal(quotaUnits(usd, 1, 500_000), 5100);
});

test('no cache writes: the cost is what it was (writes never exceed the input, the 1-hour part never exceeds the writes)', () => {
  assert.equal(usdCost(price, { inputTokens: 1000, outputTokens: 10 }), (1000 * 3 + 10 * 15) / 1e6);
  // Inconsistent counts from an upstream are clamped rather than billed twice.
  assert.equal(
    usdCost(price, { inputTokens: 100, cachedInputTokens: 80, cacheWriteTokens: 500, cacheWrite1hTokens: 900, outputTokens: 0 }),
    (80 * 0.3 + 20 * 6) / 1e6,
  );
});

test('a price per request ignores tokens', () => {
  assert.equal(usdCost({ ...price, perRequest: 0.02 }, { inputTokens: 10 ** 6, cacheWriteTokens: 10 ** 6, outputTokens: 5 }), 0.02);
});
