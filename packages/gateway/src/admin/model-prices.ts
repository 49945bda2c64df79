/**
 * The models a group may call with the prices its members pay: the price book's USD prices times the
 * group ratio (per 1M tokens, or per call), for `GET /api/user/models`.
 */
import { roundUsd, type PriceBook } from '../billing/prices.ts';

export interface GroupModelPrice {
  model: string;
  /** False when the price book has no price for the model. */
  priced: boolean;
  /** USD per 1M tokens, group ratio applied; null when priced per call or not priced. */
  input: number | null;
  output: number | null;
  cached_input: number | null;
  /** USD per 1M prompt-cache write tokens kept 5 minutes / 1 hour, group ratio applied. */
  cache_write_5m: number | null;
  cache_write_1h: number | null;
  /** USD per call, group ratio applied. */
  per_request: number | null;
}

export interface GroupModels {
  group: string;
  group_ratio: number;
  items: GroupModelPrice[];
}

export function groupModelPrices(models: readonly string[], book: PriceBook, group: string): GroupModels {
  const ratio = book.groupRatio(group);
  const items = [...models].sort().map((model): GroupModelPrice => {
    const p = book.get(model);
    const none = { input: null, output: null, cached_input: null, cache_write_5m: null, cache_write_1h: null };
    if (!p) return { model, priced: false, ...none, per_request: null };
    if (p.perRequest !== null) return { model, priced: true, ...none, per_request: roundUsd(p.perRequest * ratio) };
    return {
      model,
      priced: true,
      input: roundUsd(p.input * ratio),
      output: roundUsd(p.output * ratio),
      cached_input: roundUsd(p.cachedInput * ratio),
      cache_write_5m: roundUsd(p.cacheWrite5m * ratio),
      cache_write_1h: roundUsd(p.cacheWrite1h * ratio),
      per_request: null,
    };
  });
  return { group, group_ratio: ratio, items };
}
