/**
 * The public models and prices list (GET /api/pricing, option PublicPricingEnabled): every model some
 * enabled channel serves in some group and that has a price, with its price in each such group (USD
 * per million tokens, or per call, times the group's ratio). Built from the in-memory channels and
 * prices; nothing about channels themselves (names, addresses, keys) is in it.
 */
import { roundUsd, type PriceBook } from '../billing/prices.ts';
import type { ChannelIndex } from './channels.ts';

export interface PublicGroupPrice {
  /** USD per 1M tokens (null for a per-call price). */
  input: number | null;
  output: number | null;
  cached_input: number | null;
  /** USD per call, when the model is priced per call. */
  per_request: number | null;
}

export interface PublicPricing {
  groups: Array<{ group: string; ratio: number }>;
  models: Array<{ model: string; groups: string[]; prices: Record<string, PublicGroupPrice> }>;
}

export function publicPricing(channels: ChannelIndex, prices: PriceBook): PublicPricing {
  const byModel = new Map<string, Set<string>>();
  for (const ch of channels.all()) {
    if (ch.status !== 1) continue;
    for (const m of ch.models) {
      let s = byModel.get(m);
      if (!s) byModel.set(m, (s = new Set()));
      for (const g of ch.groups) s.add(g);
    }
  }
  const groups = new Set<string>();
  const models: PublicPricing['models'] = [];
  for (const model of [...byModel.keys()].sort()) {
    const p = prices.get(model);
    if (!p) continue;
    const gs = [...byModel.get(model)!].sort();
    const out: Record<string, PublicGroupPrice> = {};
    for (const g of gs) {
      groups.add(g);
      const r = prices.groupRatio(g);
      out[g] =
        p.perRequest !== null
          ? { input: null, output: null, cached_input: null, per_request: roundUsd(p.perRequest * r) }
          : { input: roundUsd(p.input * r), output: roundUsd(p.output * r), cached_input: roundUsd(p.cachedInput * r), per_request: null };
    }
    models.push({ model, groups: gs, prices: out });
  }
  return { groups: [...groups].sort().map((group) => ({ group, ratio: prices.groupRatio(group) })), models };
}
