/**
 * The tokenizer's estimate of a call's input (docs/relay.md#billing, docs/limits.md): the text the model
 * reads is counted with the OpenAI encoding of the model (o200k_base, or cl100k_base for the models of
 * that generation) and multiplied by a margin of the model's vendor family, so that for English, Chinese
 * and source code it lies between 1.0 and 1.5 times what the upstream reports
 * (`input-estimate.test.ts` holds it on the corpora of `test/fakes/corpora/`):
 *
 * | family | counted with | Latin text × | East Asian text × | why |
 * |---|---|---|---|---|
 * | OpenAI | the model's own encoding | 1.1 | 1.1 | exact but for the hidden framing |
 * | Claude | o200k_base | 1.5 | 1.7 | Anthropic: o200k undercounts Claude by 15–20 % on prose, more on code (about 30 %) and Chinese (about 43 %) |
 * | Claude Opus 4.7 and later | o200k_base | 1.95 | 1.7 | the newer tokenizer: 1.2–1.46 × the previous one on English, 1.13–1.39 × on code, 1.0–1.07 × on CJK |
 * | Gemini | o200k_base | 1.35 | 1.0 | Gemini's SentencePiece (Gemma 3's): 1.02 × o200k on English, 1.20 × on code, 0.86 × on Chinese |
 * | any other | o200k_base | 1.3 | 1.2 | DeepSeek, Qwen, Llama 3 measured 0.99–1.03 × on English and code, 0.71–1.03 × on Chinese |
 *
 * The East Asian part of a text is taken as one token per character of those scripts (at most the count),
 * the rest as Latin. Framing tokens per message, per request and for a tool prompt are added after the
 * margin. A call whose channels serve several families is estimated for the dearest.
 *
 * The estimate is what the tokenizer says, not a bound: an upstream may bill more (a text its tokenizer
 * splits worse than the margin allows). The reserve built on it is therefore settled exactly, and the
 * byte bound of relay/estimate.ts stays the ceiling: the estimate is never more than it.
 */
import { measureText, type EncodingName } from '../billing/tokens.ts';
import type { TokenUsage } from '../billing/prices.ts';
import { INLINE_KEYS, REF_KEYS, URL_KEYS } from './body-scan.ts';
import { ChannelType } from '../channels/types.ts';
import type { RuntimeChannel } from './channels.ts';
import { upstreamModel } from './providers/endpoint.ts';

export interface TokenFamily {
  name: string;
  encoding: EncodingName;
  /** Margin on the tokens of Latin (non East Asian) text. */
  text: number;
  /** Margin on the tokens of East Asian text. */
  cjk: number;
  /** Framing tokens per message (role markers, separators). */
  perMessage: number;
  /** Framing tokens per request (the reply's priming). */
  base: number;
  /** The vendor's tool-use prompt, added when the request declares tools. */
  tools: number;
}

export const FAMILIES = {
  openai: { name: 'openai', encoding: 'o200k_base', text: 1.1, cjk: 1.1, perMessage: 4, base: 3, tools: 64 },
  openaiCl100k: { name: 'openai-cl100k', encoding: 'cl100k_base', text: 1.1, cjk: 1.1, perMessage: 4, base: 3, tools: 64 },
  // Claude's tool-use system prompt is 264–530 tokens by model and tool choice.
  claude: { name: 'claude', encoding: 'o200k_base', text: 1.5, cjk: 1.7, perMessage: 4, base: 8, tools: 600 },
  claude47: { name: 'claude-4.7', encoding: 'o200k_base', text: 1.95, cjk: 1.7, perMessage: 4, base: 8, tools: 800 },
  gemini: { name: 'gemini', encoding: 'o200k_base', text: 1.35, cjk: 1.0, perMessage: 2, base: 2, tools: 64 },
  other: { name: 'other', encoding: 'o200k_base', text: 1.3, cjk: 1.2, perMessage: 4, base: 8, tools: 1024 },
} as const satisfies Record<string, TokenFamily>;

/** `major-minor` of a Claude model name (`claude-opus-4-7`, `claude-3-5-sonnet-…`, `anthropic.claude-sonnet-4-5-…`); null when it has none. */
function claudeVersion(m: string): [number, number] | null {
  const parts = m.slice(m.indexOf('claude') + 6).split(/[-_.@:]/);
  for (let i = 0; i < parts.length; i++) {
    if (!/^\d{1,2}$/.test(parts[i])) continue;
    const minor = /^\d{1,2}$/.test(parts[i + 1] ?? '') ? Number(parts[i + 1]) : 0;
    return [Number(parts[i]), minor];
  }
  return null;
}

/** The family of a model name, or null when the name says nothing about its tokenizer. */
export function familyOfModel(model: string): TokenFamily | null {
  const m = model.toLowerCase();
  if (m.includes('claude')) {
    const v = claudeVersion(m);
    return v && (v[0] > 4 || (v[0] === 4 && v[1] >= 7)) ? FAMILIES.claude47 : FAMILIES.claude;
  }
  const base = m.slice(m.lastIndexOf('/') + 1);
  if (m.includes('gemini') || base.startsWith('gemma')) return FAMILIES.gemini;
  if (/^(gpt-4(-|$)|gpt-3\.5|gpt-35|text-embedding-(ada|3))/.test(base)) return FAMILIES.openaiCl100k;
  if (/^(gpt-|chatgpt-|o[1-9](-|$)|codex-|computer-use|omni-moderation)/.test(base)) return FAMILIES.openai;
  return null;
}

/** The family of `upstreamModel` served by a channel of `channelType`. */
export function familyOf(upstreamModel: string, channelType: number): TokenFamily {
  const f = familyOfModel(upstreamModel);
  if (f) return f;
  if (channelType === ChannelType.anthropic) return FAMILIES.claude;
  if (channelType === ChannelType.gemini || channelType === ChannelType.vertex) return FAMILIES.gemini;
  return FAMILIES.other;
}

/** What the model reads of a request body. */
export interface BodyText {
  /** Every string the model reads, joined by newlines. */
  text: string;
  /** Numbers in arrays (token arrays of embeddings and completions: one token each). */
  tokenIds: number;
  /** Messages (and a system prompt) of the request. */
  messages: number;
  /** The request declares tools. */
  tools: boolean;
}

/** Keys whose value is a schema the vendor renders as text, keys and all: counted as their JSON. */
const SCHEMA_KEYS = new Set(['tools', 'functions', 'response_format', 'responseSchema', 'responseJsonSchema', 'response_schema']);
/**
 * Keys whose value, when it is an object, the model reads as JSON, keys and numbers too: a tool call's
 * arguments (Anthropic `input`, Gemini `args`), a function's answer (Gemini `response`), an output format.
 */
const JSON_OBJECT_KEYS = new Set(['input', 'args', 'response', 'format', 'schema', 'parameters', 'input_schema']);
/** Keys whose strings are not read as text (the model's name, roles and part types: framing). */
const SKIP_KEYS = new Set(['model', 'role', 'type']);
const MESSAGE_KEYS = ['messages', 'contents', 'input'];
const SYSTEM_KEYS = ['system', 'systemInstruction', 'system_instruction', 'instructions'];

/**
 * The text of a parsed body: its strings but media data, media URLs and file references (bounded apart,
 * relay/estimate.ts), the model name and roles; schemas (tools, response formats) and the arguments of
 * tool calls as JSON. Iterative: no
 * depth limit of its own (the body was walked by `scanBody`, which refuses deep nesting, before).
 */
export function bodyText(body: unknown): BodyText {
  const out: string[] = [];
  let tokenIds = 0;
  let messages = 0;
  let tools = false;
  if (typeof body !== 'object' || body === null) return { text: typeof body === 'string' ? body : '', tokenIds, messages, tools };
  const top = body as Record<string, unknown>;
  for (const k of MESSAGE_KEYS) if (Array.isArray(top[k])) messages += (top[k] as unknown[]).length;
  for (const k of SYSTEM_KEYS) if (top[k] !== undefined) messages++;
  tools = top.tools !== undefined || top.functions !== undefined;
  const vals: unknown[] = [body];
  const keys: string[] = [''];
  while (vals.length) {
    const v = vals.pop();
    const key = keys.pop()!;
    if (typeof v === 'string') {
      if (SKIP_KEYS.has(key) || URL_KEYS.has(key) || REF_KEYS.has(key) || (INLINE_KEYS.has(key) && v.length > 256)) continue;
      if (v.startsWith('data:') && v.length > 256) continue;
      out.push(v);
      continue;
    }
    if (typeof v === 'number') {
      tokenIds++;
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (SCHEMA_KEYS.has(key) || (JSON_OBJECT_KEYS.has(key) && !Array.isArray(v))) {
      out.push(JSON.stringify(v));
      continue;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        vals.push(v[i]);
        keys.push(key);
      }
      continue;
    }
    const o = v as Record<string, unknown>;
    const ks = Object.keys(o);
    for (let i = ks.length - 1; i >= 0; i--) {
      const x = o[ks[i]];
      // Numbers of an object are settings (temperature, max_tokens …), not tokens: only array elements count.
      if (typeof x === 'object' || typeof x === 'string') {
        vals.push(x);
        keys.push(ks[i]);
      }
    }
  }
  return { text: out.join('\n'), tokenIds, messages, tools };
}

/** The estimate of a text measured in a family's encoding (`tokens`, of which `cjk` characters are East Asian). */
export function familyEstimate(f: TokenFamily, tokens: number, cjk: number, t: Omit<BodyText, 'text'>): number {
  const east = Math.min(tokens, cjk);
  return Math.ceil(f.text * (tokens - east) + f.cjk * east) + t.tokenIds + f.perMessage * t.messages + f.base + (t.tools ? f.tools : 0);
}

/** The estimate of a body's input for the dearest of `families` (its text counted once per encoding; none: any other vendor's). */
export async function estimateInput(body: unknown, families: readonly TokenFamily[]): Promise<number> {
  if (!families.length) families = [FAMILIES.other];
  const t = bodyText(body);
  const measured = new Map<EncodingName, { tokens: number; cjk: number }>();
  let best = 0;
  for (const f of families) {
    let m = measured.get(f.encoding);
    if (!m) {
      m = await measureText(t.text, f.encoding);
      measured.set(f.encoding, m);
    }
    best = Math.max(best, familyEstimate(f, m.tokens, m.cjk, t));
  }
  return best;
}

/** What `tightenInput` reads and sets of a call (relay/pipeline/types.ts `PipelineCall`). */
export interface TightenedCall {
  model: string;
  call: { body: unknown };
  /** Input tokens the reserve covers. */
  inputBound: number;
  /** The part of `inputBound` its text makes; set to 0 once estimated. */
  textBound?: number;
}

/**
 * Replaces the text part of a call's input bound by the tokenizer's estimate for the families of the
 * models its channels serve, never raising it; once per call. Returns `est` with that input (`est`
 * itself when nothing changed).
 */
export async function tightenInput(ctx: TightenedCall, candidates: readonly RuntimeChannel[], est: TokenUsage): Promise<TokenUsage> {
  const bound = ctx.textBound ?? 0;
  if (!bound) return est;
  ctx.textBound = 0;
  const families = new Set<TokenFamily>();
  for (const ch of candidates) families.add(familyOf(upstreamModel(ch, ctx.model), ch.type));
  if (!families.size) families.add(familyOfModel(ctx.model) ?? FAMILIES.other);
  const tokens = await estimateInput(ctx.call.body, [...families]);
  if (tokens >= bound) return est;
  ctx.inputBound = ctx.inputBound - bound + tokens;
  return { ...est, inputTokens: Math.max(0, est.inputTokens - bound + tokens) };
}
