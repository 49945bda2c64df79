/**
 * Fallbacks across models (docs/relay.md#fallbacks-across-models): which model a call goes on with when
 * its model failed with an error class it falls back on, and the prices of every model a call may end
 * up served by, so that its reserve covers the dearest of them (the call is then settled at the price
 * of the model that answered).
 */
import type { ModelPrice } from '../billing/prices.ts';
import type { RelayDeps, RelayPrincipal } from './call.ts';
import type { RuntimeChannel } from './channels.ts';
import type { FallbackClass } from './routing.ts';

/** The most models one call may pass through (the one asked for included). */
const MAX_CHAIN = 8;

/** One step of a call's chain, as its log row records it. */
export interface ChainStep {
  from: string;
  model: string;
  on: FallbackClass;
}

/** Every model `model` may fall back to, directly or through others (in breadth-first order, without repeats). */
export function reachable(d: Pick<RelayDeps, 'routing'>, model: string): string[] {
  const seen = new Set([model]);
  const queue = [model];
  const out: string[] = [];
  while (queue.length && out.length < MAX_CHAIN) {
    for (const r of d.routing.fallbacks(queue.shift()!)) {
      if (seen.has(r.model)) continue;
      seen.add(r.model);
      out.push(r.model);
      queue.push(r.model);
    }
  }
  return out;
}

/** The prices of `model` and of every model it may fall back to (for the reserve). */
export function chainPrices(d: Pick<RelayDeps, 'routing' | 'prices'>, model: string, own: ModelPrice | null): Array<ModelPrice | null> {
  return [own, ...reachable(d, model).map((m) => d.prices.get(m))];
}

/**
 * The model a call goes on with after `from` failed with `cls`: the first of `from`'s fallbacks on that
 * class that the call has not been through, the caller may use, has a price (unless unpriced models are
 * allowed) and some channel serves (`serves`). Null when there is none.
 */
export function nextModel(
  d: Pick<RelayDeps, 'routing' | 'prices' | 'core'>,
  principal: RelayPrincipal,
  from: string,
  cls: FallbackClass,
  chain: readonly ChainStep[],
  first: string,
  serves: (model: string) => RuntimeChannel[],
): { model: string; candidates: RuntimeChannel[]; price: ModelPrice | null } | null {
  if (chain.length + 1 >= MAX_CHAIN) return null;
  const been = new Set([first, ...chain.map((s) => s.model)]);
  for (const r of d.routing.fallbacks(from)) {
    if (!r.on.includes(cls) || been.has(r.model)) continue;
    if (principal.models && !principal.models.has(r.model)) continue;
    const price = d.prices.get(r.model);
    if (!price && !d.core.config.relayAllowUnpricedModels) continue;
    const candidates = serves(r.model);
    if (candidates.length === 0) continue;
    return { model: r.model, candidates, price };
  }
  return null;
}
