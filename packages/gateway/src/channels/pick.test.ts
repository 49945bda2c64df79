/** The channel choice rule shared by model calls and task submissions (channels/pick.ts). */
import test from 'node:test';
import assert from 'node:assert/strict';
import { orderRanked, pickRanked, type Ranked } from './pick.ts';

interface Ch extends Ranked {
  id: string;
}
const ch = (id: string, priority: number, weight: number): Ch => ({ id, priority, weight });
const self = (c: Ch) => c;

/** A generator of the values 0, 1/n, 2/n, … (n draws cover [0, 1) evenly). */
function sweep(n: number): () => number {
  let i = 0;
  return () => (i++ % n) / n;
}

function counts(list: Ch[], n: number): Record<string, number> {
  const rand = sweep(n);
  const out: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const c = pickRanked(list, self, rand)!;
    out[c.id] = (out[c.id] ?? 0) + 1;
  }
  return out;
}

test('nothing to pick from: null; one candidate: that one', () => {
  assert.equal(pickRanked([], self), null);
  assert.equal(pickRanked([ch('a', 0, 0)], self)?.id, 'a');
});

test('only the highest priority tier is drawn from', () => {
  const c = counts([ch('low', 0, 100), ch('high-a', 5, 1), ch('high-b', 5, 3)], 400);
  assert.deepEqual(c, { 'high-a': 100, 'high-b': 300 });
});

test('within a tier, a zero-weight channel is never drawn while a weighted one is there', () => {
  const c = counts([ch('zero', 1, 0), ch('w', 1, 10), ch('zero2', 1, 0)], 1000);
  assert.deepEqual(c, { w: 1000 });
});

test('a tier whose weights are all zero is drawn from uniformly', () => {
  const c = counts([ch('a', 2, 0), ch('b', 2, 0), ch('c', 2, 0), ch('d', 2, 0), ch('low', 1, 50)], 400);
  assert.deepEqual(c, { a: 100, b: 100, c: 100, d: 100 });
});

test('an order: tiers from the highest, weighted channels before zero-weight ones within a tier', () => {
  const list = [ch('z1', 3, 0), ch('w1', 3, 5), ch('low', 1, 9), ch('w2', 3, 1), ch('z2', 3, 0), ch('mid', 2, 0)];
  for (let i = 0; i < 50; i++) {
    const order = orderRanked(list, self).map((c) => c.id);
    assert.equal(order.length, list.length);
    assert.deepEqual(new Set(order.slice(0, 2)), new Set(['w1', 'w2']));
    assert.deepEqual(new Set(order.slice(2, 4)), new Set(['z1', 'z2']));
    assert.deepEqual(order.slice(4), ['mid', 'low']);
  }
});

test('the first of an order follows the weights', () => {
  const list = [ch('a', 0, 1), ch('b', 0, 2), ch('z', 0, 0)];
  // Weights 1 and 2: draws below 1/3 take a, the rest b; z comes last either way.
  assert.deepEqual(
    orderRanked(list, self, () => 0.2).map((c) => c.id),
    ['a', 'b', 'z'],
  );
  assert.deepEqual(
    orderRanked(list, self, () => 0.5).map((c) => c.id),
    ['b', 'a', 'z'],
  );
});
