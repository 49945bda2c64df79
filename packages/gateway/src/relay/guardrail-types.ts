/**
 * Guardrails as the relay sees them (docs/guardrails.md): the verdict a guardrail plugin answers, the
 * bindings of the `Guardrails` option (which plugin checks which calls, at which stage) and their
 * parser. The plugins themselves run in the task host's sandbox; the relay reaches them only through
 * the `GuardrailRunner` the composition root gives it.
 */
import { isObj } from '../platform/validate.ts';

export type GuardrailStage = 'input' | 'output';

export interface MaskSpan {
  index: number;
  start: number;
  end: number;
  replacement: string;
}

export type GuardrailVerdict =
  | { action: 'allow' }
  | { action: 'block'; reason: string }
  | { action: 'mask'; spans: MaskSpan[] }
  | { action: 'annotate'; tags: string[] };

/** What the relay tells a guardrail about the call (no secrets: ids and names only). */
export interface GuardrailContext {
  model: string;
  userId: number;
  keyId: number | null;
  group: string;
  requestId: string;
  endpoint: string;
  /** The binding's settings, over the plugin's `meta.config`. */
  config?: Record<string, unknown>;
}

/** Runs one installed guardrail plugin's `check` (the plugin host implements it). */
export interface GuardrailRunner {
  /** Whether a guardrail of this key is installed and enabled. */
  has(key: string): boolean;
  check(key: string, ctx: GuardrailContext, stage: GuardrailStage, texts: string[]): Promise<GuardrailVerdict>;
}

export interface GuardrailBinding {
  plugin: string;
  stage: 'input' | 'output' | 'both';
  keys?: number[];
  users?: number[];
  groups?: string[];
  models?: string[];
  on_error: 'block' | 'allow';
  config?: Record<string, unknown>;
}

const SCOPES = ['keys', 'users', 'groups', 'models'] as const;
const FIELDS = new Set(['plugin', 'stage', 'on_error', 'config', ...SCOPES]);

/** Parses the `Guardrails` option (JSON list of bindings); throws Error with a readable message. */
export function parseGuardrailBindings(text: string): GuardrailBinding[] {
  if (!text.trim()) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error('must be a JSON list of {plugin, stage, keys|users|groups|models, on_error}');
  }
  if (!Array.isArray(raw)) throw new Error('must be a list of {plugin, stage, keys|users|groups|models, on_error}');
  if (raw.length > 100) throw new Error('at most 100 guardrail bindings');
  return raw.map((b, i) => {
    const at = `[${i}]`;
    if (!isObj(b)) throw new Error(`${at} must be a mapping`);
    for (const k of Object.keys(b)) if (!FIELDS.has(k)) throw new Error(`${at}.${k} is not a field of a guardrail binding`);
    if (typeof b.plugin !== 'string' || !/^[a-z0-9][a-z0-9_-]{0,29}$/.test(b.plugin))
      throw new Error(`${at}.plugin must be a guardrail plugin key`);
    const stage = b.stage ?? 'both';
    if (stage !== 'input' && stage !== 'output' && stage !== 'both') throw new Error(`${at}.stage must be input, output or both`);
    const onError = b.on_error ?? 'block';
    if (onError !== 'block' && onError !== 'allow') throw new Error(`${at}.on_error must be block or allow`);
    const out: GuardrailBinding = { plugin: b.plugin, stage, on_error: onError };
    if (b.config !== undefined) {
      if (!isObj(b.config) || JSON.stringify(b.config).length > 64 * 1024)
        throw new Error(`${at}.config must be a mapping (at most 64 KiB as JSON)`);
      out.config = b.config;
    }
    for (const s of SCOPES) {
      const v = b[s];
      if (v === undefined || v === null) continue;
      if (!Array.isArray(v) || v.length === 0 || v.length > 1000) throw new Error(`${at}.${s} must be a non-empty list`);
      if (s === 'keys' || s === 'users') {
        if (!v.every((x) => Number.isSafeInteger(x) && (x as number) > 0)) throw new Error(`${at}.${s} must list ids (whole numbers > 0)`);
        out[s] = v as number[];
      } else {
        if (!v.every((x) => typeof x === 'string' && x.length > 0 && x.length <= 200)) throw new Error(`${at}.${s} must list names`);
        out[s] = v as string[];
      }
    }
    return out;
  });
}

/** A binding with its scopes as sets, for the per-call match. */
export interface ResolvedBinding {
  plugin: string;
  input: boolean;
  output: boolean;
  onError: 'block' | 'allow';
  keys: Set<number> | null;
  users: Set<number> | null;
  groups: Set<string> | null;
  models: Set<string> | null;
  config: Record<string, unknown> | undefined;
}

export function resolveBindings(list: GuardrailBinding[]): ResolvedBinding[] {
  const set = <T>(v: T[] | undefined) => (v ? new Set(v) : null);
  return list.map((b) => ({
    plugin: b.plugin,
    input: b.stage !== 'output',
    output: b.stage !== 'input',
    onError: b.on_error,
    keys: set(b.keys),
    users: set(b.users),
    groups: set(b.groups),
    models: set(b.models),
    config: b.config,
  }));
}

/** Checks a plugin's answer; returns a message when it is not a verdict for `texts`. */
export function checkVerdict(v: unknown, texts: readonly string[]): string | null {
  if (!isObj(v)) return 'check() must return an object with an action';
  switch (v.action) {
    case 'allow':
      return null;
    case 'block':
      return typeof v.reason === 'string' ? null : 'a block verdict needs a reason (string)';
    case 'annotate':
      return Array.isArray(v.tags) && v.tags.length <= 32 && v.tags.every((t) => typeof t === 'string' && t.length > 0 && t.length <= 100)
        ? null
        : 'an annotate verdict needs tags: a list of at most 32 strings (1-100 characters)';
    case 'mask': {
      if (!Array.isArray(v.spans)) return 'a mask verdict needs spans: [{index, start, end, replacement}]';
      for (const s of v.spans as unknown[]) {
        if (!isObj(s)) return 'each span must be {index, start, end, replacement}';
        const { index, start, end, replacement } = s;
        if (!Number.isSafeInteger(index) || (index as number) < 0 || (index as number) >= texts.length)
          return `span index ${String(index)} names no text`;
        const len = texts[index as number].length;
        if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || (start as number) < 0 || (end as number) > len || start! > end!)
          return `span ${String(start)}..${String(end)} is outside text ${String(index)}`;
        if (typeof replacement !== 'string') return 'a span replacement must be a string';
      }
      return null;
    }
    default:
      return 'action must be allow, block, mask or annotate';
  }
}

/** Applies mask spans to the texts (spans of one text applied from the end, overlapping ones skipped). */
export function applySpans(texts: string[], spans: MaskSpan[]): string[] {
  const out = texts.slice();
  const byText = new Map<number, MaskSpan[]>();
  for (const s of spans) byText.set(s.index, [...(byText.get(s.index) ?? []), s]);
  for (const [i, list] of byText) {
    list.sort((a, b) => b.start - a.start);
    let t = out[i];
    let floor = Infinity;
    for (const s of list) {
      if (s.end > floor) continue;
      t = t.slice(0, s.start) + s.replacement + t.slice(s.end);
      floor = s.start;
    }
    out[i] = t;
  }
  return out;
}
