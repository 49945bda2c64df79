/**
 * The rules of a model-call price beyond flat token rates, and the two things billing asks of any
 * price: the exact USD cost of a reported usage, and an upper bound of the cost of every usage within
 * given token bounds (what a reserve must hold, so that the settle never charges beyond it).
 *
 * - context tiers: the whole call at the rates of the highest tier its input exceeds;
 * - per-modality tokens: audio and image input and output, reasoning output, each at its own price
 *   (the tier's input or output price when not set);
 * - server tools: USD per 1,000 calls of each tool the upstream reports (`web_search` …);
 * - service tiers: a multiplier of the token cost per tier the upstream reports (`flex`, `priority`);
 * - an expression (billing/expr.ts) over the usage, the request's parameters and headers and the
 *   hour, yielding USD per 1M tokens' worth (New API's convention: `u("p") * 3 + u("c") * 15`).
 *
 * Stored as JSON in `prices.rules` in the field names of the API (`tiers`, `audio_input` …).
 */
import { compile, ExprError, type Compiled, type Facts } from './expr.ts';
import { upperBound, type FactRange } from './bounds.ts';
import { Reader, fieldError, isObj, join } from '../platform/validate.ts';

/** Rates of token kinds, USD per 1M tokens. */
export interface Rates {
  input: number;
  output: number;
  cachedInput: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
}

export interface PriceTier extends Rates {
  /** The tier applies to calls whose input exceeds this many tokens. */
  aboveInputTokens: number;
}

/** What a price holds besides its base rates (all optional: a flat price has none of it). */
export interface RuleSet {
  /** Ascending by `aboveInputTokens`. */
  tiers: PriceTier[];
  audioInput: number | null;
  audioOutput: number | null;
  imageInput: number | null;
  imageOutput: number | null;
  /** USD per 1M reasoning tokens; null: the output price. */
  reasoning: number | null;
  /** USD per 1,000 calls, by tool name (`web_search` …). */
  serverTools: Record<string, number>;
  /** Multiplier of the token cost, by the service tier the upstream reports. */
  serviceTiers: Record<string, number>;
  /** A model call's price expression (USD per 1M tokens' worth), compiled. */
  expression: Compiled | null;
}

/** What a call adds to its usage for the rules: the request's parameters and headers, its hour, its tools' bounds. */
export interface CallFacts {
  /** The request body as the caller sent it. */
  params: Record<string, unknown>;
  /** Request headers, lower-case names. */
  headers: Record<string, string>;
  /** UTC hour the call arrived (0–23). */
  hour: number;
  /** The most calls of each server tool the request allows (declared `max_uses`, or a bound). */
  toolBounds: Record<string, number>;
}

/** Usage beyond tokens of text (part of TokenUsage, billing/prices.ts). */
export interface RuleUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  cacheWriteTokens?: number;
  cacheWrite1hTokens?: number;
  reasoningTokens?: number;
  /** Parts of `inputTokens` / `outputTokens` that are audio or image tokens. */
  audioInputTokens?: number;
  audioOutputTokens?: number;
  imageInputTokens?: number;
  imageOutputTokens?: number;
  /** Calls of server tools the upstream reports, by tool name (`web_search`). */
  serverTools?: Record<string, number>;
  /** The service tier the upstream reports it served the call at. */
  serviceTier?: string;
}

/** Server-tool calls a request declaring the tool without a `max_uses` may make (the reserve's bound). */
export const SERVER_TOOL_CALLS_BOUND = 20;

/** The usage facts a model-call expression may read (New API's names). */
export const EXPRESSION_FACTS = [
  'p',
  'c',
  'len',
  'cr',
  'cc',
  'cc1h',
  'ai',
  'ao',
  'img',
  'img_o',
  'reasoning',
  'web_search',
  'service_tier',
  'hour',
];
const INPUT_FACTS = ['p', 'len', 'cr', 'cc', 'cc1h', 'ai', 'img'];
const OUTPUT_FACTS = ['c', 'ao', 'img_o', 'reasoning'];
const TOKEN_CEILING = 2_147_483_647;

export const emptyRules = (): RuleSet => ({
  tiers: [],
  audioInput: null,
  audioOutput: null,
  imageInput: null,
  imageOutput: null,
  reasoning: null,
  serverTools: {},
  serviceTiers: {},
  expression: null,
});

/** The rates of the highest tier `input` tokens exceed (the base rates when none). */
export function ratesFor(base: Rates, rules: RuleSet, input: number): Rates {
  let r = base;
  for (const t of rules.tiers) if (input > t.aboveInputTokens) r = t;
  return r;
}

const n0 = (v: number | undefined) => (v !== undefined && v > 0 ? v : 0);

/** The facts an expression reads for a usage (New API's: p and c without the kinds the expression names apart). */
export function expressionFacts(expr: Compiled, u: RuleUsage, call: CallFacts | undefined): Facts {
  const uses = new Set(expr.facts);
  const input = n0(u.inputTokens);
  const output = n0(u.outputTokens);
  const cr = Math.min(n0(u.cachedInputTokens), input);
  const writes = Math.min(n0(u.cacheWriteTokens), input - cr);
  const cc1h = Math.min(n0(u.cacheWrite1hTokens), writes);
  const cc = uses.has('cc1h') ? writes - cc1h : writes;
  const ai = Math.min(n0(u.audioInputTokens), input - cr - writes);
  const img = Math.min(n0(u.imageInputTokens), input - cr - writes - ai);
  const ao = Math.min(n0(u.audioOutputTokens), output);
  const imgO = Math.min(n0(u.imageOutputTokens), output - ao);
  const reasoning = Math.min(n0(u.reasoningTokens), output - ao - imgO);
  let p = input;
  for (const [k, v] of [
    ['cr', cr],
    ['cc', cc],
    ['cc1h', cc1h],
    ['ai', ai],
    ['img', img],
  ] as const)
    if (uses.has(k)) p -= v;
  let c = output;
  for (const [k, v] of [
    ['ao', ao],
    ['img_o', imgO],
    ['reasoning', reasoning],
  ] as const)
    if (uses.has(k)) c -= v;
  const f: Facts = { p, c, len: input, cr, cc, cc1h, ai, img, ao, img_o: imgO, reasoning, web_search: n0(u.serverTools?.web_search) };
  if (u.serviceTier !== undefined) f.service_tier = u.serviceTier;
  if (call) {
    f.hour = call.hour;
    for (const k of expr.facts) {
      const v = requestFact(k, call);
      if (v !== undefined) f[k] = v;
    }
  }
  return f;
}

/** A `param:` or `header:` fact of the call (undefined when absent or not a plain value). */
function requestFact(k: string, call: CallFacts): number | string | boolean | undefined {
  if (k.startsWith('header:')) return call.headers[k.slice(7)];
  if (!k.startsWith('param:')) return undefined;
  let v: unknown = call.params;
  for (const part of k.slice(6).split('.')) v = isObj(v) ? v[part] : undefined;
  return typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' ? v : undefined;
}

/** USD of the token part of a usage by the rules: tiers, modalities, reasoning, the service tier. */
export function tokenUsd(base: Rates, rules: RuleSet, u: RuleUsage): number {
  const input = n0(u.inputTokens);
  const r = ratesFor(base, rules, input);
  const cached = Math.min(n0(u.cachedInputTokens), input);
  const writes = Math.min(n0(u.cacheWriteTokens), input - cached);
  const writes1h = Math.min(n0(u.cacheWrite1hTokens), writes);
  const uncached = input - cached - writes;
  const ai = Math.min(n0(u.audioInputTokens), uncached);
  const img = Math.min(n0(u.imageInputTokens), uncached - ai);
  const output = n0(u.outputTokens);
  const ao = Math.min(n0(u.audioOutputTokens), output);
  const imgO = Math.min(n0(u.imageOutputTokens), output - ao);
  const rs = rules.reasoning === null ? 0 : Math.min(n0(u.reasoningTokens), output - ao - imgO);
  const micro =
    (uncached - ai - img) * r.input +
    cached * r.cachedInput +
    (writes - writes1h) * r.cacheWrite5m +
    writes1h * r.cacheWrite1h +
    ai * (rules.audioInput ?? r.input) +
    img * (rules.imageInput ?? r.input) +
    ao * (rules.audioOutput ?? r.output) +
    imgO * (rules.imageOutput ?? r.output) +
    rs * (rules.reasoning ?? r.output) +
    (output - ao - imgO - rs) * r.output;
  const mult = u.serviceTier !== undefined ? (rules.serviceTiers[u.serviceTier] ?? 1) : 1;
  return (micro * mult) / 1e6;
}

/** What a usage adds to its log row beyond tokens of text (modalities, server tools, service tier). */
export function ruleUsageDetails(u: RuleUsage): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (u.audioInputTokens) out.audio_input_tokens = u.audioInputTokens;
  if (u.audioOutputTokens) out.audio_output_tokens = u.audioOutputTokens;
  if (u.imageInputTokens) out.image_input_tokens = u.imageInputTokens;
  if (u.imageOutputTokens) out.image_output_tokens = u.imageOutputTokens;
  if (u.serverTools && Object.keys(u.serverTools).length) out.server_tools = u.serverTools;
  if (u.serviceTier) out.service_tier = u.serviceTier;
  return out;
}

/** USD of the server-tool calls of a usage. */
export function toolsUsd(rules: RuleSet, u: RuleUsage): number {
  let usd = 0;
  for (const [name, per1000] of Object.entries(rules.serverTools)) usd += (n0(u.serverTools?.[name]) * per1000) / 1000;
  return usd;
}

/** The most a call of up to `input` / `output` tokens can cost by the token rules (USD). */
export function tokenBoundUsd(base: Rates, rules: RuleSet, input: number, output: number, cacheWrites: boolean): number {
  let worst = 0;
  for (const r of [base, ...rules.tiers.filter((t) => input > t.aboveInputTokens)]) {
    const inMax = Math.max(
      r.input,
      r.cachedInput,
      rules.audioInput ?? r.input,
      rules.imageInput ?? r.input,
      cacheWrites ? Math.max(r.cacheWrite5m, r.cacheWrite1h) : 0,
    );
    const outMax = Math.max(r.output, rules.audioOutput ?? r.output, rules.imageOutput ?? r.output, rules.reasoning ?? r.output);
    worst = Math.max(worst, input * inMax + output * outMax);
  }
  return (worst * Math.max(1, ...Object.values(rules.serviceTiers))) / 1e6;
}

/** The most the server tools of a call can cost (USD), with the calls of each tool the request allows. */
export function toolsBoundUsd(rules: RuleSet, call: CallFacts | undefined): number {
  let usd = 0;
  for (const [name, per1000] of Object.entries(rules.serverTools)) usd += ((call?.toolBounds[name] ?? 0) * per1000) / 1000;
  return usd;
}

/** The most an expression can yield (USD) for a call of up to `input` / `output` tokens. */
export function expressionBoundUsd(expr: Compiled, input: number, output: number, call: CallFacts | undefined): number {
  const range = (k: string): FactRange | undefined => {
    if (INPUT_FACTS.includes(k)) return [0, input];
    if (OUTPUT_FACTS.includes(k)) return [0, output];
    if (k === 'web_search') return [0, call?.toolBounds.web_search ?? 0];
    if (k === 'service_tier') return 'unknown';
    if (!call) return k === 'hour' ? [0, 23] : 'unknown';
    if (k === 'hour') return { value: call.hour };
    const v = requestFact(k, call);
    return v === undefined ? undefined : { value: v };
  };
  return upperBound(expr.root, range) / 1e6;
}

/** Whether an expression reads only what a model call has (else it is a task's price, by a plain model name). */
export function isModelExpression(source: string): boolean {
  try {
    return compile(source).facts.every((k) => EXPRESSION_FACTS.includes(k) || k.startsWith('param:') || k.startsWith('header:'));
  } catch {
    return true;
  }
}

/**
 * Compiles a model call's expression and checks it when it is saved: it reads only the usage facts,
 * request parameters (`param()`), headers (`header()`) and the hour; it has an upper bound whatever
 * the request; and it is a finite, non-negative price at the corners of the usage.
 */
export function compileModelExpression(source: string): Compiled {
  const c = compile(source);
  for (const k of c.facts) {
    if (!EXPRESSION_FACTS.includes(k) && !k.startsWith('param:') && !k.startsWith('header:')) {
      throw new ExprError(`u("${k}") is not a fact of a model call (${EXPRESSION_FACTS.join(', ')}, param(), header(), hour())`);
    }
  }
  if (!Number.isFinite(expressionBoundUsd(c, TOKEN_CEILING, TOKEN_CEILING, undefined))) {
    throw new ExprError('the expression has no upper bound (a request parameter or header it reads must not make it unbounded)');
  }
  for (const n of [0, 1, 1000, 250_000]) {
    c.eval({ p: n, c: n, len: n, cr: 0, cc: 0, cc1h: 0, ai: 0, ao: 0, img: 0, img_o: 0, reasoning: 0, web_search: 0, hour: 0 });
  }
  return c;
}

// ---------- the stored and the API shape ----------

const RATE_FIELDS = ['input', 'output', 'cached_input', 'cache_write_5m', 'cache_write_1h'] as const;
export const RULE_FIELDS = [
  'tiers',
  'audio_input',
  'audio_output',
  'image_input',
  'image_output',
  'reasoning',
  'web_search',
  'server_tools',
  'service_tiers',
];

/** The rules as the API and the YAML file give them (snake_case; absent fields are not set). */
export interface RulesInput {
  tiers?: Array<{
    above_input_tokens: number;
    input: number;
    output: number;
    cached_input?: number | null;
    cache_write_5m?: number | null;
    cache_write_1h?: number | null;
  }>;
  audio_input?: number;
  audio_output?: number;
  image_input?: number;
  image_output?: number;
  reasoning?: number;
  web_search?: number;
  server_tools?: Record<string, number>;
  service_tiers?: Record<string, number>;
}

const usd = (r: Reader, k: string) => r.nullableNum(k, { min: 0, max: 1e9 }) ?? undefined;

/** Reads the rule fields of a price object (the others are the caller's); null when it has none. */
export function parseRules(r: Reader): RulesInput | null {
  const out: RulesInput = {};
  for (const k of ['audio_input', 'audio_output', 'image_input', 'image_output', 'reasoning', 'web_search'] as const) {
    const v = usd(r, k);
    if (v !== undefined) out[k] = v;
  }
  if (r.obj.tiers !== undefined && r.obj.tiers !== null) {
    if (!Array.isArray(r.obj.tiers)) throw fieldError(r.path('tiers'), 'must be a list of {above_input_tokens, input, output, …}');
    if (r.obj.tiers.length > 16) throw fieldError(r.path('tiers'), 'must have at most 16 tiers');
    let last = -1;
    out.tiers = r.obj.tiers.map((t, i) => {
      const tr = Reader.of(t, join(r.path('tiers'), i)).only(['above_input_tokens', ...RATE_FIELDS]);
      const above = tr.num('above_input_tokens', { required: true, min: 0, max: TOKEN_CEILING, int: true })!;
      if (above <= last) throw fieldError(tr.path('above_input_tokens'), 'must be greater than the tier before');
      last = above;
      const tier: NonNullable<RulesInput['tiers']>[number] = {
        above_input_tokens: above,
        input: tr.num('input', { required: true, min: 0, max: 1e9 })!,
        output: tr.num('output', { required: true, min: 0, max: 1e9 })!,
      };
      // Rates not given follow the tier's input as the base rates follow theirs.
      for (const k of ['cached_input', 'cache_write_5m', 'cache_write_1h'] as const) {
        const v = tr.nullableNum(k, { min: 0, max: 1e9 });
        if (v !== undefined && v !== null) tier[k] = v;
      }
      return tier;
    });
    if (!out.tiers.length) delete out.tiers;
  }
  for (const k of ['server_tools', 'service_tiers'] as const) {
    const o = r.object(k);
    if (!o) continue;
    const m: Record<string, number> = {};
    for (const [name, v] of Object.entries(o)) {
      const at = join(r.path(k), name);
      if (!/^[a-z0-9_.-]{1,64}$/.test(name)) throw fieldError(at, 'must be a name of lower-case letters, digits, _ . -');
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > (k === 'service_tiers' ? 100 : 1e9)) {
        throw fieldError(at, k === 'service_tiers' ? 'must be a multiplier from 0 to 100' : 'must be USD per 1,000 calls (0 or more)');
      }
      m[name] = v;
    }
    if (Object.keys(m).length) out[k] = m;
  }
  return Object.keys(out).length ? out : null;
}

/** The rule set of stored rules (`rules` JSON) and an expression, for base rates `base`. */
export function resolveRules(raw: string | null, expression: string | null, base: Rates): RuleSet {
  const rules = emptyRules();
  // An expression reading a task's usage facts prices tasks of the model's name, not model calls.
  if (expression && isModelExpression(expression)) {
    try {
      rules.expression = compile(expression);
    } catch {
      rules.expression = null;
    }
  }
  if (!raw) return rules;
  let j: RulesInput;
  try {
    j = JSON.parse(raw) as RulesInput;
  } catch {
    return rules;
  }
  const ratio = (v: number, of: number) => (base.input > 0 ? (v * of) / base.input : v);
  rules.tiers = (j.tiers ?? []).map((t) => ({
    aboveInputTokens: t.above_input_tokens,
    input: t.input,
    output: t.output,
    cachedInput: t.cached_input ?? ratio(base.cachedInput, t.input),
    cacheWrite5m: t.cache_write_5m ?? ratio(base.cacheWrite5m, t.input),
    cacheWrite1h: t.cache_write_1h ?? ratio(base.cacheWrite1h, t.input),
  }));
  rules.audioInput = j.audio_input ?? null;
  rules.audioOutput = j.audio_output ?? null;
  rules.imageInput = j.image_input ?? null;
  rules.imageOutput = j.image_output ?? null;
  rules.reasoning = j.reasoning ?? null;
  rules.serverTools = { ...(j.server_tools ?? {}) };
  if (j.web_search !== undefined) rules.serverTools.web_search = j.web_search;
  rules.serviceTiers = { ...(j.service_tiers ?? {}) };
  return rules;
}
