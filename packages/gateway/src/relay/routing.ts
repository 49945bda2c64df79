/**
 * Routing policies of model calls (docs/relay.md#routing-policies): the balancing strategy of each
 * group and model (`ChannelRouting`), the fallbacks of a model to other models by error class
 * (`ModelFallbacks`), and what the strategies and the per-channel caps read — the calls in flight on
 * each channel of this node and each channel's recent time to first byte.
 *
 * Both options are parsed once per distinct stored text and a (group, model)'s strategy is resolved
 * once per change of them, so a call costs a map lookup here.
 */
import { isObj } from '../platform/validate.ts';
import { pickRanked } from '../channels/pick.ts';
import type { RuntimeChannel } from './channels.ts';

export const STRATEGIES = ['priority', 'least_busy', 'latency', 'cost'] as const;
export type Strategy = (typeof STRATEGIES)[number];
export const FALLBACK_CLASSES = ['context_length', 'content_policy', 'rate_limit', 'unavailable'] as const;
export type FallbackClass = (typeof FALLBACK_CLASSES)[number];
export interface FallbackRule {
  model: string;
  on: FallbackClass[];
}

/** Option keys (options/options.ts) and the configuration file's top-level entries they stand for. */
export const ROUTING_OPTION = 'ChannelRouting';
export const FALLBACKS_OPTION = 'ModelFallbacks';

/** Every this many picks of the `latency` strategy, the channel measured longest ago is tried (exploration). */
export const EXPLORE_EVERY = 10;
/** Weight of a new time-to-first-byte sample in a channel's moving average. */
const EWMA_ALPHA = 0.3;

const NAME_RE = /^[^\s]{1,200}$/;

function parseJson(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('must be JSON');
  }
}

/** `{<group or *>: {<model or *>: strategy}}` → group → model → strategy. Throws with what is wrong. */
export function parseRouting(text: string): Map<string, Map<string, Strategy>> {
  const v = parseJson(text);
  if (!isObj(v)) throw new Error('must be a mapping {<group or *>: {<model or *>: strategy}}');
  const out = new Map<string, Map<string, Strategy>>();
  for (const [group, models] of Object.entries(v)) {
    if (!NAME_RE.test(group)) throw new Error(`group "${group.slice(0, 64)}" is not a group name`);
    if (!isObj(models)) throw new Error(`${group}: must be a mapping {<model or *>: strategy}`);
    const m = new Map<string, Strategy>();
    for (const [model, s] of Object.entries(models)) {
      if (!NAME_RE.test(model)) throw new Error(`${group}: "${model.slice(0, 64)}" is not a model name`);
      if (typeof s !== 'string' || !(STRATEGIES as readonly string[]).includes(s))
        throw new Error(`${group}.${model}: must be one of ${STRATEGIES.join(', ')}`);
      m.set(model, s as Strategy);
    }
    out.set(group, m);
  }
  return out;
}

/** `{<model>: [{model, on: [class…]}]}` → model → its fallbacks in order. Throws with what is wrong. */
export function parseFallbacks(text: string): Map<string, FallbackRule[]> {
  const v = parseJson(text);
  if (!isObj(v)) throw new Error('must be a mapping {<model>: [{model, on: [error classes]}]}');
  const out = new Map<string, FallbackRule[]>();
  for (const [model, list] of Object.entries(v)) {
    if (!NAME_RE.test(model)) throw new Error(`"${model.slice(0, 64)}" is not a model name`);
    if (!Array.isArray(list)) throw new Error(`${model}: must be a list of {model, on}`);
    if (list.length > 16) throw new Error(`${model}: at most 16 fallbacks`);
    const rules: FallbackRule[] = list.map((r, i) => {
      const at = `${model}[${i}]`;
      if (!isObj(r)) throw new Error(`${at}: must be {model, on}`);
      for (const k of Object.keys(r)) if (k !== 'model' && k !== 'on') throw new Error(`${at}: unknown field "${k.slice(0, 64)}"`);
      if (typeof r.model !== 'string' || !NAME_RE.test(r.model)) throw new Error(`${at}.model: must be a model name`);
      if (r.model === model) throw new Error(`${at}.model: a model cannot fall back to itself`);
      const on = r.on === undefined ? [...FALLBACK_CLASSES] : r.on;
      if (!Array.isArray(on) || on.length === 0 || on.some((c) => !(FALLBACK_CLASSES as readonly unknown[]).includes(c)))
        throw new Error(`${at}.on: must be a list of ${FALLBACK_CLASSES.join(', ')}`);
      return { model: r.model, on: [...new Set(on as FallbackClass[])] };
    });
    out.set(model, rules);
  }
  return out;
}

/** Vendors' texts of a prompt that does not fit the model's window (OpenAI, Anthropic, Gemini, Bedrock, Mistral …). */
const CONTEXT_RE =
  /context_length_exceeded|context[ _-]?length|context window|prompt is too long|maximum context|input (token count|is too long)|too many (input )?tokens|exceeds the maximum number of tokens|token limit|string_above_max_length|reduce the length of the messages/i;
/** Vendors' texts of a refusal by their content rules (OpenAI, Azure, Anthropic, Gemini, Bedrock guardrails). */
const POLICY_RE =
  /content_policy_violation|content[ _-]?filter|content management policy|usage polic|safety (system|settings|filter)|responsible ai|blocked by|prohibited content|guardrail/i;

/** The fallback class of an upstream answer that the relay would hand to the caller as it is (a 4xx). */
export function classifyClientError(status: number, text: string): FallbackClass | null {
  if (status < 400 || status >= 500) return null;
  if (CONTEXT_RE.test(text)) return 'context_length';
  if (POLICY_RE.test(text)) return 'content_policy';
  return null;
}

/** The fallback class of a call whose channels were all tried (or none could take it). */
export function classifyExhausted(lastStatus: number | null, skippedForSize: boolean): FallbackClass {
  if (lastStatus === null && skippedForSize) return 'context_length';
  return lastStatus === 429 ? 'rate_limit' : 'unavailable';
}

/** What the caps and strategies read of a channel beyond the fields of RuntimeChannel they need. */
interface ChannelStats {
  inFlight: number;
  /** Moving average of the time to first byte, ms (null: never measured). */
  ttfb: number | null;
  /** When the last sample was taken (ms; 0: never). */
  sampledAt: number;
}

/** A model name that can be sent as a header value as it is. */
const HEADER_SAFE = /^[\x21-\x7e]{1,256}$/;

/** The `x-gatehouse-model` header of an answer: the model that answered (another than the one asked for after a fallback). */
export function modelHeader(model: string): Record<string, string> {
  return HEADER_SAFE.test(model) ? { 'x-gatehouse-model': model } : {};
}

/** A channel's price multiplier (`cost_ratio`; 1 when it has none). */
export function channelCost(ch: RuntimeChannel): number {
  const own = (ch as { costRatio?: unknown }).costRatio;
  if (typeof own === 'number' && Number.isFinite(own)) return own;
  const s = ch.settings.cost_ratio;
  return typeof s === 'number' && Number.isFinite(s) && s >= 0 ? s : 1;
}

export class Routing {
  private readonly stats = new Map<number, ChannelStats>();
  private routingText: string | null = null;
  private routing = new Map<string, Map<string, Strategy>>();
  private resolved = new Map<string, Strategy>();
  private fallbackText: string | null = null;
  private fallbackMap = new Map<string, FallbackRule[]>();
  private picks = 0;

  constructor(private readonly options: { get(key: string): string | undefined }) {}

  /** The strategy of `model` for `group`: the group's entry for the model, its `*`, then `*`'s, else priority. */
  strategy(group: string, model: string): Strategy {
    const text = this.options.get(ROUTING_OPTION) ?? '';
    if (text !== this.routingText) {
      this.routingText = text;
      this.resolved = new Map();
      try {
        this.routing = parseRouting(text);
      } catch {
        this.routing = new Map();
      }
    }
    if (this.routing.size === 0) return 'priority';
    const k = `${group}\n${model}`;
    let s = this.resolved.get(k);
    if (s === undefined) {
      const g = this.routing.get(group);
      const any = this.routing.get('*');
      s = g?.get(model) ?? g?.get('*') ?? any?.get(model) ?? any?.get('*') ?? 'priority';
      if (this.resolved.size > 10_000) this.resolved.clear();
      this.resolved.set(k, s);
    }
    return s;
  }

  /** The fallbacks of `model` in order (empty when it has none). */
  fallbacks(model: string): readonly FallbackRule[] {
    const text = this.options.get(FALLBACKS_OPTION) ?? '';
    if (text !== this.fallbackText) {
      this.fallbackText = text;
      try {
        this.fallbackMap = parseFallbacks(text);
      } catch {
        this.fallbackMap = new Map();
      }
    }
    return this.fallbackMap.get(model) ?? [];
  }

  private stat(id: number): ChannelStats {
    let s = this.stats.get(id);
    if (!s) this.stats.set(id, (s = { inFlight: 0, ttfb: null, sampledAt: 0 }));
    return s;
  }

  /** A call starts on a channel (this node's count). */
  begin(id: number): void {
    this.stat(id).inFlight++;
  }

  /** A call on a channel ended. */
  end(id: number): void {
    const s = this.stat(id);
    if (s.inFlight > 0) s.inFlight--;
  }

  inFlight(id: number): number {
    return this.stats.get(id)?.inFlight ?? 0;
  }

  /** Records a time to first byte of a channel (ms). */
  sample(id: number, ms: number): void {
    const s = this.stat(id);
    s.ttfb = s.ttfb === null ? ms : s.ttfb + EWMA_ALPHA * (ms - s.ttfb);
    s.sampledAt = Date.now();
  }

  /** A channel's moving average of its time to first byte (null: never measured on this node). */
  latency(id: number): number | null {
    return this.stats.get(id)?.ttfb ?? null;
  }

  /** Whether a channel may take one more call of `inputTokens` (its caps). */
  admits(ch: RuntimeChannel, inputTokens: number): 'ok' | 'full' | 'too_long' {
    if (ch.maxInputTokens > 0 && inputTokens > ch.maxInputTokens) return 'too_long';
    if (ch.maxConcurrency > 0 && this.inFlight(ch.id) >= ch.maxConcurrency) return 'full';
    return 'ok';
  }

  /**
   * Chooses one of `items` (non-empty) by `strategy`. Every strategy keeps the priority tiers: it ranks
   * within the highest tier, ties drawn by weight as `priority` draws.
   */
  choose<T>(strategy: Strategy, items: readonly T[], of: (t: T) => RuntimeChannel): T {
    if (strategy === 'priority' || items.length === 1) return pickRanked(items, of)!;
    let top = -Infinity;
    for (const it of items) if (of(it).priority > top) top = of(it).priority;
    const tier = items.filter((it) => of(it).priority === top);
    if (tier.length === 1) return tier[0];
    let score: (t: T) => number;
    if (strategy === 'least_busy') score = (t) => this.inFlight(of(t).id);
    else if (strategy === 'cost') score = (t) => channelCost(of(t));
    else {
      // Exploration: every EXPLORE_EVERY-th pick goes to the channel measured longest ago, so one that was
      // slow (or failing) and has recovered is measured again.
      if (++this.picks % EXPLORE_EVERY === 0) {
        let oldest = tier[0];
        for (const t of tier) if (this.stat(of(t).id).sampledAt < this.stat(of(oldest).id).sampledAt) oldest = t;
        return oldest;
      }
      // A channel never measured goes first (it is measured by that call).
      score = (t) => this.latency(of(t).id) ?? -1;
    }
    let best = Infinity;
    for (const t of tier) best = Math.min(best, score(t));
    return pickRanked(
      tier.filter((t) => score(t) === best),
      of,
    )!;
  }
}
