/**
 * The price book: every `prices` row and `group_ratios` row held in memory, rebuilt when the `prices`
 * revision changes. The hot path reads it without touching the database.
 *
 * Token prices are USD per 1M tokens; `per_request` is USD per call. A cost is computed in USD,
 * multiplied by the group ratio and `quotaPerUsd`, and rounded once to integer quota units.
 */
import type { Core } from '../core.ts';
import { PriceStore } from './price-store.ts';

export const PRICES_REVISION = 'prices';

export interface ModelPrice {
  model: string;
  /** USD per 1M input tokens (uncached). */
  input: number;
  /** USD per 1M output tokens. */
  output: number;
  /** USD per 1M cached input tokens; defaults to `input` when not set. */
  cachedInput: number;
  /** USD per 1M prompt-cache write tokens kept 5 minutes; defaults to 1.25 × `input`. */
  cacheWrite5m: number;
  /** USD per 1M prompt-cache write tokens kept 1 hour; defaults to 2 × `input`. */
  cacheWrite1h: number;
  /** USD per call; when set, token prices are not used. */
  perRequest: number | null;
}

/** Token usage with OpenAI semantics: `inputTokens` includes cached and cache-write tokens. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  cacheWriteTokens?: number;
  /** The part of `cacheWriteTokens` written for one hour (the rest is written for five minutes). */
  cacheWrite1hTokens?: number;
  reasoningTokens?: number;
}

export class PriceBook {
  private prices = new Map<string, ModelPrice>();
  private ratios = new Map<string, number>();

  constructor(private readonly core: Core) {}

  async load(): Promise<void> {
    const store = new PriceStore(this.core.h);
    const [rows, ratios] = await Promise.all([store.all(), store.ratios()]);
    const next = new Map<string, ModelPrice>();
    for (const r of rows) {
      const input = r.input === null ? 0 : Number(r.input);
      next.set(r.model, {
        model: r.model,
        input,
        output: r.output === null ? 0 : Number(r.output),
        cachedInput: r.cached_input === null ? input : Number(r.cached_input),
        cacheWrite5m: r.cache_write_5m === null ? input * CACHE_WRITE_5M_FACTOR : Number(r.cache_write_5m),
        cacheWrite1h: r.cache_write_1h === null ? input * CACHE_WRITE_1H_FACTOR : Number(r.cache_write_1h),
        perRequest: r.per_request === null ? null : Number(r.per_request),
      });
    }
    this.prices = next;
    this.ratios = new Map(ratios.map((r) => [r.group_name, Number(r.ratio)]));
  }

  /** The price of `model`, or null when none is set. */
  get(model: string): ModelPrice | null {
    return this.prices.get(model) ?? null;
  }

  /** The group's multiplier (1 when not set). */
  groupRatio(group: string): number {
    return this.ratios.get(group) ?? 1;
  }

  /** Cost in quota units, rounded once. `price` null = free. */
  cost(price: ModelPrice | null, usage: TokenUsage, group: string): number {
    return quotaUnits(usdCost(price, usage), this.groupRatio(group), this.core.config.quotaPerUsd);
  }
}

/** Default prices of prompt-cache writes, as multiples of the input price (Anthropic's). */
export const CACHE_WRITE_5M_FACTOR = 1.25;
export const CACHE_WRITE_1H_FACTOR = 2;

/**
 * Raw USD cost of a usage at a price (before the group ratio): uncached input, cached input (cache
 * reads), cache writes (5-minute and 1-hour) and output each at their price.
 */
export function usdCost(price: ModelPrice | null, u: TokenUsage): number {
  if (!price) return 0;
  if (price.perRequest !== null) return price.perRequest;
  const input = Math.max(0, u.inputTokens);
  const cached = Math.max(0, Math.min(u.cachedInputTokens ?? 0, input));
  const writes = Math.max(0, Math.min(u.cacheWriteTokens ?? 0, input - cached));
  const writes1h = Math.max(0, Math.min(u.cacheWrite1hTokens ?? 0, writes));
  const uncached = input - cached - writes;
  const output = Math.max(0, u.outputTokens);
  return (
    (uncached * price.input +
      cached * price.cachedInput +
      (writes - writes1h) * price.cacheWrite5m +
      writes1h * price.cacheWrite1h +
      output * price.output) /
    1e6
  );
}

/**
 * USD → integer quota units. A cost too large to count (non-finite or beyond 2^53) is never turned
 * into 0: it becomes Number.MAX_SAFE_INTEGER, which no balance covers; one that is not a number at all
 * is an error.
 */
export function quotaUnits(usd: number, groupRatio: number, quotaPerUsd: number): number {
  const q = usd * groupRatio * quotaPerUsd;
  if (Number.isNaN(q)) throw new Error('a cost that is not a number');
  if (q <= 0) return 0;
  if (q >= Number.MAX_SAFE_INTEGER) return Number.MAX_SAFE_INTEGER;
  return Math.round(q);
}
