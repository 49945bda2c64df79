/**
 * Model prices (USD per 1M tokens, USD per request, the rules beyond flat rates, or a billing
 * expression stored as given) and group ratios (multipliers per user group, 1 when absent). Every
 * change bumps `prices`.
 */
import { validateExpression, type SchemaField } from '../billing/expr.ts';
import { compileModelExpression, isModelExpression, parseRules, RULE_FIELDS, type RulesInput } from '../billing/price-rules.ts';
import type { Core } from '../core.ts';
import { echo, fail } from '../platform/errors.ts';
import type { PriceRow } from '../store/schema-core.ts';
import { PriceStore } from '../billing/price-store.ts';
import type { Changes } from './changes.ts';
import type { Actor } from './users.ts';
import type { AuditLog } from '../logs/audit.ts';
import { Reader, fieldError, type Page } from '../platform/validate.ts';

const PRICE_FIELDS = [
  'model',
  'input',
  'output',
  'cached_input',
  'cache_write_5m',
  'cache_write_1h',
  'per_request',
  'expression',
  ...RULE_FIELDS,
];

export interface PriceInput {
  model: string;
  input: number | null;
  output: number | null;
  cached_input: number | null;
  /** USD per 1M prompt-cache write tokens kept 5 minutes / 1 hour; null: 1.25× / 2× `input`. */
  cache_write_5m: number | null;
  cache_write_1h: number | null;
  per_request: number | null;
  expression: string | null;
  /** Tiers, modality prices, server tools, service tiers (billing/price-rules.ts); null: none. */
  rules: RulesInput | null;
}

/** A price as the API shows it: the rule fields beside the rates. */
export type PriceView = Omit<PriceInput, 'rules'> & RulesInput & { updated_at: number };

export interface GroupRatioView {
  group: string;
  ratio: number;
}

const rulesJson = (r: RulesInput | null): string | null => (r ? JSON.stringify(r) : null);

export class PriceAdmin {
  /**
   * `usageSchema(model)` gives the usage facts a task price may read: for `<pluginKey>::<model>` the
   * installed plugin's schema for that model, else null (the expression is then checked for syntax
   * and evaluation only).
   */
  constructor(
    private readonly core: Core,
    private readonly changes: Changes,
    private readonly usageSchema: (model: string) => Record<string, SchemaField> | null = () => null,
    private readonly audit: AuditLog | null = null,
  ) {}

  private get store() {
    return new PriceStore(this.core.h);
  }

  /** A whole price (fields not given are cleared). `model` may come from outside the object (config map form). */
  parse(raw: unknown, at = '', model?: string): PriceInput {
    const r = Reader.of(raw, at).only(model === undefined ? PRICE_FIELDS : PRICE_FIELDS.filter((f) => f !== 'model'));
    const m = model ?? r.str('model', { required: true, max: 191 })!;
    if (!m || m.length > 191) throw fieldError(r.path('model'), 'must be 1-191 characters');
    const n = (k: string) => r.nullableNum(k, { min: 0, max: 1e9 }) ?? null;
    const out: PriceInput = {
      model: m,
      input: n('input'),
      output: n('output'),
      cached_input: n('cached_input'),
      cache_write_5m: n('cache_write_5m'),
      cache_write_1h: n('cache_write_1h'),
      per_request: n('per_request'),
      expression: r.nullableStr('expression', { max: 65536 }) ?? null,
      rules: parseRules(r),
    };
    if (
      out.input === null &&
      out.output === null &&
      out.cached_input === null &&
      out.cache_write_5m === null &&
      out.cache_write_1h === null &&
      out.per_request === null &&
      out.expression === null &&
      out.rules === null
    ) {
      throw fieldError(at || 'body', 'give input/output (USD per 1M tokens), per_request (USD) or expression');
    }
    if (out.expression !== null) {
      try {
        // A task price (`<plugin>::<model>`) reads the plugin's usage facts; a plain model's is a model
        // call's (its usage and request) when it reads only those, else a task price by the model's name.
        if (m.includes('::')) validateExpression(out.expression, this.usageSchema(m));
        else if (isModelExpression(out.expression)) compileModelExpression(out.expression);
        else validateExpression(out.expression, null);
      } catch (e) {
        throw fieldError(r.path('expression'), (e as Error).message);
      }
    }
    return out;
  }

  view(r: PriceRow): PriceView {
    const n = (v: number | null) => (v === null ? null : Number(v));
    let rules: RulesInput = {};
    try {
      rules = r.rules ? (JSON.parse(r.rules) as RulesInput) : {};
    } catch {
      rules = {};
    }
    return {
      ...rules,
      model: r.model,
      input: n(r.input),
      output: n(r.output),
      cached_input: n(r.cached_input),
      cache_write_5m: n(r.cache_write_5m),
      cache_write_1h: n(r.cache_write_1h),
      per_request: n(r.per_request),
      expression: r.expression,
      updated_at: Number(r.updated_at),
    };
  }

  async list(q: { page: number; pageSize: number; offset: number; keyword?: string }): Promise<Page<PriceView>> {
    const { rows, total } = await this.store.page(q.keyword, q.pageSize, q.offset);
    return { items: rows.map((r) => this.view(r)), total, page: q.page, page_size: q.pageSize };
  }

  async get(model: string): Promise<PriceView> {
    const r = await this.store.byModel(model);
    if (!r) throw fail('price_not_found', { model: echo(model) });
    return this.view(r);
  }

  /** Inserts or replaces a price; returns whether anything changed. */
  async set(p: PriceInput, actor: Actor = null): Promise<{ view: PriceView; changed: boolean }> {
    const cur = await this.store.byModel(p.model);
    const same =
      cur &&
      (['input', 'output', 'cached_input', 'cache_write_5m', 'cache_write_1h', 'per_request'] as const).every(
        (k) => (cur[k] === null ? null : Number(cur[k])) === p[k],
      ) &&
      cur.expression === p.expression &&
      (cur.rules ?? null) === rulesJson(p.rules);
    if (cur && same) return { view: this.view(cur), changed: false };
    const row = { ...p, rules: rulesJson(p.rules), updated_at: Date.now() };
    if (cur) await this.store.update(p.model, row);
    else await this.store.insert(row);
    await this.changes.changed('prices');
    const view = await this.get(p.model);
    const strip = ({ updated_at: _u, ...rest }: PriceView) => rest;
    await this.audit?.record(
      actor,
      cur ? 'price.update' : 'price.create',
      { type: 'price', id: p.model },
      cur ? strip(this.view(cur)) : null,
      strip(view),
    );
    return { view, changed: true };
  }

  async remove(model: string, actor: Actor = null): Promise<void> {
    const cur = await this.store.byModel(model);
    const deleted = await this.store.remove(model);
    if (!cur || deleted === 0) throw fail('price_not_found', { model: echo(model) });
    await this.changes.changed('prices');
    const { updated_at: _u, ...before } = this.view(cur);
    await this.audit?.record(actor, 'price.delete', { type: 'price', id: model }, before, null);
  }

  async listRatios(): Promise<GroupRatioView[]> {
    const rows = await this.store.ratios();
    return rows.map((r) => ({ group: r.group_name, ratio: Number(r.ratio) }));
  }

  parseRatio(raw: unknown, at = ''): GroupRatioView {
    const r = Reader.of(raw, at).only(['group', 'ratio']);
    const group = r.str('group', { required: true, max: 64, pattern: /^[A-Za-z0-9_.-]+$/, hint: 'must be letters, digits, _ . -' })!;
    const ratio = r.num('ratio', { required: true, min: 0, max: 1e6 })!;
    return { group, ratio };
  }

  async setRatio(v: GroupRatioView, actor: Actor = null): Promise<boolean> {
    const cur = await this.store.ratioOf(v.group);
    if (cur && Number(cur.ratio) === v.ratio) return false;
    if (cur) await this.store.updateRatio(v.group, v.ratio);
    else await this.store.insertRatio(v.group, v.ratio);
    await this.changes.changed('prices');
    await this.audit?.record(
      actor,
      cur ? 'group_ratio.update' : 'group_ratio.create',
      { type: 'group_ratio', id: v.group },
      cur ? { ratio: Number(cur.ratio) } : null,
      { ratio: v.ratio },
    );
    return true;
  }

  async removeRatio(group: string, actor: Actor = null): Promise<void> {
    const cur = await this.store.ratioOf(group);
    const deleted = await this.store.removeRatio(group);
    if (!cur || deleted === 0) throw fail('group_ratio_not_found', { group });
    await this.changes.changed('prices');
    await this.audit?.record(actor, 'group_ratio.delete', { type: 'group_ratio', id: group }, { ratio: Number(cur.ratio) }, null);
  }
}
