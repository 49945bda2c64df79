/**
 * The one rule for choosing among channels, shared by model calls (`relay/channels.ts`) and task
 * submissions (`tasks/lifecycle/catalog.ts`), as in New API: the highest priority tier first; within
 * it a weighted random draw among the channels whose weight is above zero. A channel of weight zero is
 * drawn only when no channel of its tier with a weight is left, and a tier whose weights are all zero
 * is drawn from uniformly.
 */

/** What the rule reads of a channel. */
export interface Ranked {
  priority: number;
  weight: number;
}

/**
 * Draws one of `items` by the rule (null when empty). `of` gives an item's priority and weight;
 * `rand` returns a number in [0, 1).
 */
export function pickRanked<T>(items: readonly T[], of: (item: T) => Ranked, rand: () => number = Math.random): T | null {
  if (items.length === 0) return null;
  let top = -Infinity;
  for (const it of items) if (of(it).priority > top) top = of(it).priority;
  const tier = items.filter((it) => of(it).priority === top);
  const weighted = tier.filter((it) => of(it).weight > 0);
  const pool = weighted.length ? weighted : tier;
  let chosen = pool[0];
  if (pool.length > 1) {
    const w = (it: T) => (weighted.length ? of(it).weight : 1);
    const total = pool.reduce((s, it) => s + w(it), 0);
    let r = rand() * total;
    for (const it of pool) {
      r -= w(it);
      if (r < 0) {
        chosen = it;
        break;
      }
    }
  }
  return chosen;
}

/** Every one of `items` in the order repeated draws by the rule (without putting back) give. */
export function orderRanked<T>(items: readonly T[], of: (item: T) => Ranked, rand: () => number = Math.random): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (pool.length) {
    const next = pickRanked(pool, of, rand)!;
    pool.splice(pool.indexOf(next), 1);
    out.push(next);
  }
  return out;
}
