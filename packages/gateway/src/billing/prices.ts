/**
 * The price book: every `prices` row and `group_ratios` row held in memory, rebuilt when the `prices`
 * revision changes. The hot path reads it without touching the database.
 *
 * Token prices are USD per 1M tokens; `per_request` is USD per call; the rules beyond flat rates
 * (tiers, modalities, server tools, service tiers, an expression) are billing/price-rules.ts. A cost
 * is computed in USD, multiplied by the group ratio and `quotaPerUsd`, and rounded once to integer
 * quota units. `bound` is the most a call within token bounds can cost: the reserve.
 */
import type { Core } from '../core.ts';
import { PriceStore } from './price-store.ts';
import { CATALOG } from './catalog-data.ts';
import type { PriceRow } from '../store/schema-core.ts';
import {
  emptyRules,
  expressionBoundUsd,
  expressionFacts,
  resolveRules,
  tokenBoundUsd,
  tokenUsd,
  toolsBoundUsd,
  toolsUsd,
  type CallFacts,
  type RuleSet,
  type RuleUsage,
} from './price-rules.ts';

export type { CallFacts } from './price-rules.ts';

export const PRICES_REVISION = 'prices';

const NO_RULES = emptyRules();

/** The catalog's list prices (billing/catalog-data.ts), by model: what calls cost upstream before a channel's cost ratio. */
let listPrices: Map<string, ModelPrice> | null = null;
const listPricesOf = (): Map<string, ModelPrice> =>
  (listPrices ??= new Map(
    CATALOG.map((e) => [
      e.model,
      modelPriceOf({
        model: e.model,
        input: e.input,
        output: e.output,
        cached_input: e.cached_input ?? null,
        cache_write_5m: e.cache_write_5m ?? null,
        cache_write_1h: e.cache_write_1h ?? null,
        per_request: null,
        expression: null,
        rules: e.rules ? JSON.stringify(e.rules) : null,
      }),
    ]),
  ));

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
  /** Tiers, modalities, server tools, service tiers, the expression (billing/price-rules.ts); absent: none. */
  rules?: RuleSet;
}

/**
 * Token usage with OpenAI semantics: `inputTokens` includes cached and cache-write tokens (and audio
 * and image tokens); `cacheWrite1hTokens` is the part of `cacheWriteTokens` written for one hour.
 */
export type TokenUsage = RuleUsage;

export class PriceBook {
  private prices = new Map<string, ModelPrice>();
  private ratios = new Map<string, number>();

  constructor(private readonly core: Core) {}

  async load(): Promise<void> {
    const store = new PriceStore(this.core.h);
    const [rows, ratios] = await Promise.all([store.all(), store.ratios()]);
    const next = new Map<string, ModelPrice>();
    for (const r of rows) next.set(r.model, modelPriceOf(r));
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
  cost(price: ModelPrice | null, usage: TokenUsage, group: string, call?: CallFacts): number {
    return quotaUnits(usdCost(price, usage, call), this.groupRatio(group), this.core.config.quotaPerUsd);
  }

  /**
   * What a usage cost the operator upstream (quota units, no group ratio): its list price — the
   * catalog's price of the model the upstream served (`upstreamModel`, after mapping), else of the
   * model called, else the price book's — times the channel's `cost_ratio`.
   */
  upstreamCost(price: ModelPrice | null, usage: TokenUsage, costRatio: number, call?: CallFacts, upstreamModel?: string): number {
    const list =
      (upstreamModel !== undefined ? listPricesOf().get(upstreamModel) : undefined) ??
      (price ? listPricesOf().get(price.model) : undefined);
    return quotaUnits(usdCost(list ?? price, usage, call), costRatio, this.core.config.quotaPerUsd);
  }

  /**
   * The most a call of up to `inputTokens` / `outputTokens` tokens can cost (quota units, rounded
   * up): at least `cost` of any usage within those bounds. `cacheWrites`: the request marks prompt-cache
   * breakpoints, so its input may be billed as cache writes.
   */
  bound(price: ModelPrice | null, usage: TokenUsage, group: string, call?: CallFacts, cacheWrites = false): number {
    const usd = usdBound(price, usage.inputTokens, usage.outputTokens, call, cacheWrites);
    const q = usd * this.groupRatio(group) * this.core.config.quotaPerUsd;
    if (Number.isNaN(q)) throw new Error('a cost that is not a number');
    if (q <= 0) return 0;
    if (q >= Number.MAX_SAFE_INTEGER) return Number.MAX_SAFE_INTEGER;
    // Rounded up, and never below what the same usage costs rounded (float sums may differ in the last bit).
    return Math.max(Math.ceil(q - 1e-6), quotaUnits(usd, this.groupRatio(group), this.core.config.quotaPerUsd));
  }
}

/** Whether a price can make a call cost something. */
export function chargesAnything(price: ModelPrice | null): boolean {
  if (!price) return false;
  if (price.perRequest !== null) return price.perRequest > 0;
  const r = price.rules ?? NO_RULES;
  return (
    r.expression !== null ||
    price.input > 0 ||
    price.output > 0 ||
    price.cachedInput > 0 ||
    r.tiers.some((t) => t.input > 0 || t.output > 0) ||
    Object.values(r.serverTools).some((v) => v > 0)
  );
}

/** Whether output tokens can cost something at this price (then the output asked for must be bounded). */
export function chargesOutput(price: ModelPrice | null): boolean {
  if (!price || price.perRequest !== null) return false;
  const r = price.rules ?? NO_RULES;
  return (
    r.expression !== null ||
    price.output > 0 ||
    r.tiers.some((t) => t.output > 0) ||
    [r.audioOutput, r.imageOutput, r.reasoning].some((v) => v !== null && v > 0)
  );
}

/** The price of a stored row (or of one being edited: the price editor's preview). */
export function modelPriceOf(r: Omit<PriceRow, 'updated_at'>): ModelPrice {
  const input = r.input === null ? 0 : Number(r.input);
  const base = {
    input,
    output: r.output === null ? 0 : Number(r.output),
    cachedInput: r.cached_input === null ? input : Number(r.cached_input),
    cacheWrite5m: r.cache_write_5m === null ? input * CACHE_WRITE_5M_FACTOR : Number(r.cache_write_5m),
    cacheWrite1h: r.cache_write_1h === null ? input * CACHE_WRITE_1H_FACTOR : Number(r.cache_write_1h),
  };
  // A task price (`<plugin>::<model>`) keeps its expression for the task catalog; a model call's is its rule.
  const expression = r.model.includes('::') ? null : r.expression;
  return {
    model: r.model,
    ...base,
    perRequest: r.per_request === null ? null : Number(r.per_request),
    rules: resolveRules(r.rules ?? null, expression, base),
  };
}

/** Default prices of prompt-cache writes, as multiples of the input price (Anthropic's). */
export const CACHE_WRITE_5M_FACTOR = 1.25;
export const CACHE_WRITE_1H_FACTOR = 2;

/** A USD price as shown to people (price lists, the price editor): rounded to nine decimals. */
export const roundUsd = (v: number): number => Math.round(v * 1e9) / 1e9;

/**
 * Raw USD cost of a usage at a price (before the group ratio): a price per request; else the
 * expression of the price, when it has one; else uncached input, cached input (cache reads), cache
 * writes (5-minute and 1-hour), audio and image tokens, reasoning and output each at their price in
 * the context tier the input reaches, times the service tier's multiplier, plus server-tool calls.
 */
export function usdCost(price: ModelPrice | null, u: TokenUsage, call?: CallFacts): number {
  if (!price) return 0;
  if (price.perRequest !== null) return price.perRequest;
  const rules = price.rules ?? NO_RULES;
  const expr = rules.expression;
  if (expr) {
    try {
      return expr.eval(expressionFacts(expr, u, call)) / 1e6;
    } catch {
      // A value the expression cannot price (checked when saved, so rare): the token rates price it.
    }
  }
  return tokenUsd(price, rules, u) + toolsUsd(rules, u);
}

/** The most any usage of up to `input` / `output` tokens can cost at a price (USD, before the group ratio). */
export function usdBound(price: ModelPrice | null, input: number, output: number, call?: CallFacts, cacheWrites = false): number {
  if (!price) return 0;
  if (price.perRequest !== null) return price.perRequest;
  const rules = price.rules ?? NO_RULES;
  if (rules.expression) return expressionBoundUsd(rules.expression, input, output, call);
  return tokenBoundUsd(price, rules, input, output, cacheWrites) + toolsBoundUsd(rules, call);
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
