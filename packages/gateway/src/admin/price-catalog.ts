/**
 * The list-price catalog (billing/catalog-data.ts) for administrators: what it holds beside the price
 * book, its adoption in one action (every entry, or the models named; prices already set are kept
 * unless `overwrite`, so an operator's own prices stay), and the price editor's preview: what a
 * call with a given usage would cost at a price being edited or at a model's saved price.
 */
import { CATALOG, type CatalogEntry } from '../billing/catalog-data.ts';
import { modelPriceOf, quotaUnits, usdBound, usdCost } from '../billing/prices.ts';
import { callFacts } from '../billing/call-facts.ts';
import { ratesFor } from '../billing/price-rules.ts';
import { PriceStore } from '../billing/price-store.ts';
import type { Core } from '../core.ts';
import { echo, fail } from '../platform/errors.ts';
import { Reader, fieldError, isObj } from '../platform/validate.ts';
import type { PriceAdmin, PriceInput } from './prices.ts';
import type { Actor } from './users.ts';

export interface CatalogView extends CatalogEntry {
  /** The price book has a price for the model. */
  priced: boolean;
}

export interface ImportResult {
  /** Models whose price was set from the catalog. */
  imported: string[];
  /** Models kept at the price already set (without `overwrite`). */
  kept: string[];
}

export interface PreviewResult {
  quota: number;
  usd: number;
  /** The reserve a call of these token counts would hold (the price's bound). */
  bound_quota: number;
  /** The context tier the input reached (its `above_input_tokens`), null: the base rates. */
  tier: number | null;
  group_ratio: number;
}

const USAGE_FIELDS = {
  input_tokens: 'inputTokens',
  output_tokens: 'outputTokens',
  cached_input_tokens: 'cachedInputTokens',
  cache_write_tokens: 'cacheWriteTokens',
  cache_write_1h_tokens: 'cacheWrite1hTokens',
  reasoning_tokens: 'reasoningTokens',
  audio_input_tokens: 'audioInputTokens',
  audio_output_tokens: 'audioOutputTokens',
  image_input_tokens: 'imageInputTokens',
  image_output_tokens: 'imageOutputTokens',
} as const;

/** A catalog entry as a price of the price book. */
export function catalogPrice(e: CatalogEntry): PriceInput {
  return {
    model: e.model,
    input: e.input,
    output: e.output,
    cached_input: e.cached_input ?? null,
    cache_write_5m: e.cache_write_5m ?? null,
    cache_write_1h: e.cache_write_1h ?? null,
    per_request: null,
    expression: null,
    rules: e.rules ?? null,
  };
}

export class PriceCatalog {
  constructor(
    private readonly core: Core,
    private readonly prices: PriceAdmin,
  ) {}

  private get store() {
    return new PriceStore(this.core.h);
  }

  async list(): Promise<CatalogView[]> {
    const priced = new Set((await this.store.all()).map((r) => r.model));
    return CATALOG.map((e) => ({ ...e, priced: priced.has(e.model) }));
  }

  parseImport(raw: unknown): { models: string[] | null; overwrite: boolean } {
    const r = Reader.of(raw ?? {}).only(['models', 'overwrite']);
    const models = r.list('models', { max: 191 }) ?? null;
    for (const m of models ?? []) if (!CATALOG.some((e) => e.model === m)) throw fieldError('models', `"${echo(m)}" is not in the catalog`);
    return { models, overwrite: r.bool('overwrite') ?? false };
  }

  /** Sets the catalog's prices (of `models`, or all); a model already priced is kept unless `overwrite`. */
  async import(o: { models: string[] | null; overwrite: boolean }, actor: Actor = null): Promise<ImportResult> {
    const priced = new Set((await this.store.all()).map((r) => r.model));
    const out: ImportResult = { imported: [], kept: [] };
    for (const e of CATALOG) {
      if (o.models && !o.models.includes(e.model)) continue;
      if (priced.has(e.model) && !o.overwrite) {
        out.kept.push(e.model);
        continue;
      }
      // Checked as any price the API is given.
      const { rules, ...rates } = catalogPrice(e);
      await this.prices.set(this.prices.parse({ ...rates, ...rules }), actor);
      out.imported.push(e.model);
    }
    return out;
  }

  /**
   * What a call would cost: `price` (a price as the editor holds it, checked as when saved) or the saved
   * price of `model`; `usage` in tokens (and `server_tools`, `service_tier`); optional `params`,
   * `headers`, `hour` for an expression; `group` for its ratio.
   */
  async preview(raw: unknown): Promise<PreviewResult> {
    const r = Reader.of(raw).only(['model', 'price', 'usage', 'params', 'headers', 'hour', 'group']);
    let input: PriceInput;
    if (r.obj.price !== undefined) input = this.prices.parse(r.obj.price, 'price');
    else {
      const model = r.str('model', { required: true, max: 191 })!;
      const row = await this.store.byModel(model);
      if (!row) throw fail('price_not_found', { model: echo(model) });
      input = { ...this.prices.view(row), rules: row.rules ? JSON.parse(row.rules) : null };
    }
    const p = modelPriceOf({ ...input, rules: input.rules ? JSON.stringify(input.rules) : null });
    const ur = Reader.of(r.obj.usage ?? {}, 'usage').only([...Object.keys(USAGE_FIELDS), 'server_tools', 'service_tier']);
    const usage: Record<string, unknown> = { inputTokens: 0, outputTokens: 0 };
    for (const [k, field] of Object.entries(USAGE_FIELDS)) {
      const v = ur.num(k, { min: 0, max: 2_147_483_647, int: true });
      if (v !== undefined) usage[field] = v;
    }
    const tools = ur.object('server_tools');
    if (tools) {
      for (const [k, v] of Object.entries(tools))
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw fieldError(`usage.server_tools.${k}`, 'must be a count');
      usage.serverTools = tools;
    }
    const tier = ur.str('service_tier', { max: 64 });
    if (tier) usage.serviceTier = tier;
    const params = isObj(r.obj.params) ? r.obj.params : {};
    const headers = r.object('headers', { values: 'string' }) as Record<string, string> | undefined;
    const hour = r.num('hour', { min: 0, max: 23, int: true });
    const call = callFacts(params, headers, hour === undefined ? Date.now() : Date.UTC(2000, 0, 1, hour));
    for (const [name, n] of Object.entries((usage.serverTools as Record<string, number>) ?? {})) {
      call.toolBounds[name] = Math.max(call.toolBounds[name] ?? 0, n);
    }
    const u = usage as unknown as Parameters<typeof usdCost>[1];
    const group = r.str('group', { max: 64 }) ?? 'default';
    const ratioRow = await this.store.ratioOf(group);
    const ratio = ratioRow ? Number(ratioRow.ratio) : 1;
    const qpu = this.core.config.quotaPerUsd;
    const usd = usdCost(p, u, call);
    const boundUsd = usdBound(p, u.inputTokens, u.outputTokens, call, (u.cacheWriteTokens ?? 0) > 0);
    const rates = p.rules ? ratesFor(p, p.rules, u.inputTokens) : p;
    return {
      quota: quotaUnits(usd, ratio, qpu),
      usd: Math.round(usd * ratio * 1e9) / 1e9,
      bound_quota: quotaUnits(boundUsd, ratio, qpu),
      tier: 'aboveInputTokens' in rates ? (rates as { aboveInputTokens: number }).aboveInputTokens : null,
      group_ratio: ratio,
    };
  }
}
