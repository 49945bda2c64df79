/**
 * What a call's prompt cache moved in money, for the usage reports: the cost of its cache writes, and
 * what its cache reads saved against the uncached input price (what the cached tokens would have cost at
 * the input price, less what they cost). Both are figured from the call's price when it is settled,
 * with the group ratio, in integer quota units rounded once each (billing/prices.ts), and kept on its
 * log row, so that a report never prices old calls at today's prices. They are figures for reports
 * only: the charge itself is the price book's `cost`, which already holds the writes.
 */
import { quotaUnits, type ModelPrice, type TokenUsage } from './prices.ts';

export interface CacheQuota {
  /** Cost of the cache-write tokens (5-minute and 1-hour writes at their prices). */
  write: number;
  /** Cached tokens at the input price minus at the cached-input price; negative when a read costs more than fresh input. */
  saving: number;
}

/** The cache money of `usage` at `price` (null or per-request: none, token prices are not used). */
export function cacheQuota(price: ModelPrice | null, u: TokenUsage, groupRatio: number, quotaPerUsd: number): CacheQuota {
  if (!price || price.perRequest !== null) return { write: 0, saving: 0 };
  // The same shares of the input as the cost takes (billing/prices.ts usdCost).
  const input = Math.max(0, u.inputTokens);
  const cached = Math.max(0, Math.min(u.cachedInputTokens ?? 0, input));
  const writes = Math.max(0, Math.min(u.cacheWriteTokens ?? 0, input - cached));
  const writes1h = Math.max(0, Math.min(u.cacheWrite1hTokens ?? 0, writes));
  const writeUsd = ((writes - writes1h) * price.cacheWrite5m + writes1h * price.cacheWrite1h) / 1e6;
  const savingUsd = (cached * (price.input - price.cachedInput)) / 1e6;
  const saving = quotaUnits(Math.abs(savingUsd), groupRatio, quotaPerUsd);
  return { write: quotaUnits(writeUsd, groupRatio, quotaPerUsd), saving: savingUsd < 0 ? -saving : saving };
}
