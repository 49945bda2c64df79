/**
 * The canonical model every wire format converts to and from. A request in any format is decoded into a
 * CanonicalRequest and encoded into the upstream's format; responses and stream events take the way back.
 * Lossy steps are recorded in `dropped` so the relay can log them.
 */
import { GatewayError, fail } from '../../platform/errors.ts';
import { randomId } from '../../platform/ids.ts';
import { isObj as isObject } from '../../platform/validate.ts';

/**
 * Wire formats of model calls; `responses` (the OpenAI Responses API) is a caller's format only, never an
 * upstream's; `bedrock` (Amazon Bedrock Converse) is an upstream's only, never a caller's.
 */
export type WireFormat = 'openai' | 'anthropic' | 'gemini' | 'responses' | 'bedrock';

/** inputTokens includes cached and cache-write input tokens; outputTokens includes reasoning tokens. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  /** The part of cacheWriteTokens written for one hour (Anthropic's `cache_creation.ephemeral_1h_input_tokens`). */
  cacheWrite1hTokens?: number;
  reasoningTokens: number;
  /** Parts of inputTokens / outputTokens that are audio or image tokens (priced apart: billing/price-rules.ts). */
  audioInputTokens?: number;
  audioOutputTokens?: number;
  imageInputTokens?: number;
  imageOutputTokens?: number;
  /** Server-tool calls the upstream reports, by tool (`web_search`). */
  serverTools?: Record<string, number>;
  /** The service tier the upstream served the call at (`flex`, `priority`, `default` …). */
  serviceTier?: string;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error';

export type ImageSource = { kind: 'base64'; mediaType: string; data: string } | { kind: 'url'; url: string };

export interface TextPart {
  type: 'text';
  text: string;
  cacheControl?: unknown;
  /** Gemini thoughtSignature on a text part. */ signature?: string;
}
export interface ImagePart {
  type: 'image';
  source: ImageSource;
  detail?: string;
  cacheControl?: unknown;
}
export interface AudioPart {
  type: 'audio';
  data: string;
  format: string;
}
/** A document or other file: inline base64 data or a URL. */
export interface FilePart {
  type: 'file';
  mediaType?: string;
  data?: string;
  url?: string;
  filename?: string;
  cacheControl?: unknown;
}
/**
 * Model reasoning. `signature` is opaque and only valid for the vendor that issued it (`from`);
 * `redacted` holds Anthropic's encrypted redacted_thinking data.
 */
export interface ThinkingPart {
  type: 'thinking';
  text: string;
  signature?: string;
  redacted?: string;
  from?: WireFormat;
}

export type ContentPart = TextPart | ImagePart | AudioPart | FilePart | ThinkingPart;

export interface ToolCall {
  id: string;
  name: string;
  /** JSON text of the arguments, as OpenAI carries them. */
  arguments: string;
  /** Gemini thought signature attached to this function call. */
  thoughtSignature?: string;
  cacheControl?: unknown;
}

export interface SystemMessage {
  role: 'system';
  parts: ContentPart[];
}
export interface UserMessage {
  role: 'user';
  parts: ContentPart[];
  name?: string;
}
export interface AssistantMessage {
  role: 'assistant';
  parts: ContentPart[];
  toolCalls: ToolCall[];
  name?: string;
}
export interface ToolMessage {
  role: 'tool';
  toolCallId: string;
  name?: string;
  parts: ContentPart[];
  isError?: boolean;
  cacheControl?: unknown;
}
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

export interface Tool {
  name: string;
  description?: string;
  /** JSON schema of the arguments. */
  parameters?: Record<string, unknown>;
  strict?: boolean;
  cacheControl?: unknown;
  /** A Responses freeform (custom) tool offered as a function of one string `input`: its calls go back as `custom_tool_call`. */
  freeform?: boolean;
  /** A tool of a Responses `namespace` tool group, offered as `<namespace>__<name>`: its calls go back with the namespace. */
  namespace?: { namespace: string; name: string };
  /** A vendor-native tool (Anthropic server tool, Gemini googleSearch …): sent only to the same format. */
  native?: { format: WireFormat; value: unknown };
}

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name?: string; description?: string; schema?: Record<string, unknown>; strict?: boolean };

export interface Reasoning {
  /** false turns thinking off explicitly. */
  enabled?: boolean;
  effort?: string;
  budgetTokens?: number;
  includeThoughts?: boolean;
}

export interface CanonicalRequest {
  /** Model asked for; '' for Gemini (the model is in the URL and the relay fills it in). */
  model: string;
  messages: Message[];
  tools?: Tool[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  maxTokens?: number;
  stop?: string[];
  n?: number;
  /** Gemini chooses streaming by URL: the relay sets this for Gemini input and reads it for Gemini upstreams. */
  stream: boolean;
  /** The client asked for a final usage chunk (OpenAI `stream_options.include_usage`; always true for others). */
  includeUsage: boolean;
  responseFormat?: ResponseFormat;
  reasoning?: Reasoning;
  user?: string;
  /** Unknown top-level fields of the source format; sent only when the target format is the source format. */
  extra: Record<string, unknown>;
  sourceFormat: WireFormat;
  /** Fields dropped or changed by conversion (decoding and encoding append here). */
  dropped: string[];
  /** Gemini generationConfig keys kept verbatim for Gemini → Gemini (unknown keys, thinkingConfig, responseSchema). */
  geminiGenerationConfig?: Record<string, unknown>;
  /** Name of the OpenAI max-tokens field the caller used, kept for OpenAI → OpenAI. */
  openaiMaxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /**
   * Set by an encoder that asked for the response format through a forced tool (structured-output.ts):
   * the tool's name, whose call is the answer's text on the way back.
   */
  outputTool?: string;
}

export interface CanonicalChoice {
  index: number;
  /** Text, thinking and image parts of the assistant message, in order. */
  parts: ContentPart[];
  toolCalls: ToolCall[];
  finishReason: FinishReason;
}

export interface CanonicalResponse {
  id: string;
  model?: string;
  created?: number;
  choices: CanonicalChoice[];
  usage: Usage;
  dropped?: string[];
}

export type CanonicalStreamEvent =
  | { type: 'start'; id?: string; model?: string; usage?: Partial<Usage> }
  | { type: 'text'; index: number; text: string }
  | { type: 'thinking'; index: number; text?: string; signature?: string; redacted?: string; from?: WireFormat }
  | { type: 'tool_call_start'; index: number; toolIndex: number; id: string; name: string; thoughtSignature?: string }
  | { type: 'tool_call_args'; index: number; toolIndex: number; delta: string }
  | { type: 'finish'; index: number; reason: FinishReason }
  /** Cumulative usage so far; a later event replaces an earlier one. */
  | { type: 'usage'; usage: Usage }
  | { type: 'error'; message: string; code?: string };

export interface StreamDecoder {
  push(ev: { event?: string; data: string }): CanonicalStreamEvent[];
  end(): CanonicalStreamEvent[];
}
export interface StreamEncoder {
  push(ev: CanonicalStreamEvent): string;
  end(): string;
}
export interface StreamEncoderOptions {
  model: string;
  requestId: string;
  includeUsage: boolean;
  created?: number;
}

// ---------- helpers shared by the codecs ----------

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });

/**
 * Appends a turn of `role` to `turns` (Anthropic's and Bedrock's messages, which alternate user and
 * assistant): into the last turn when it has the same role. Tool results lead a user turn, so blocks
 * that start with one (`isResult`) go before the first block of the merged turn that does not belong
 * with the results (`withResults`, by default `isResult`).
 */
export function pushTurn<B>(
  turns: { role: 'user' | 'assistant'; content: B[] }[],
  role: 'user' | 'assistant',
  blocks: B[],
  isResult: (b: B) => boolean,
  withResults: (b: B) => boolean = isResult,
): void {
  if (!blocks.length) return;
  const last = turns[turns.length - 1];
  if (!last || last.role !== role) {
    turns.push({ role, content: blocks });
    return;
  }
  const i = role === 'user' && isResult(blocks[0]) ? last.content.findIndex((b) => !withResults(b)) : -1;
  if (i >= 0) last.content.splice(i, 0, ...blocks);
  else last.content.push(...blocks);
}

export function bad(field: string, problem: string): GatewayError {
  return fail('invalid_request', `invalid request: ${field} ${problem}`, { details: { param: field } });
}

/** platform/validate.ts's `isObj`, whose values the codecs read as they come (`any`). */
export const isObj = isObject as (v: unknown) => v is Record<string, any>;

/** The JSON object an SSE event's data carries; null for `[DONE]`, empty data, non-JSON and non-objects. */
export function eventJson(data: string): Record<string, any> | null {
  const d = data.trim();
  if (!d || d === '[DONE]') return null;
  let j: unknown;
  try {
    j = JSON.parse(d);
  } catch {
    return null;
  }
  return isObj(j) ? j : null;
}

/** The error event of a vendor's error object in a stream: its message, and its code or status when it has one. */
export function upstreamError(message: unknown, code: unknown): CanonicalStreamEvent {
  return { type: 'error', message: String(message ?? 'upstream error'), code: code ? String(code) : undefined };
}

/** The start event of a stream whose chunks each carry its id and model (the first one's are taken). */
export function streamStart(id: unknown, model: unknown): CanonicalStreamEvent {
  return { type: 'start', id: typeof id === 'string' ? id : undefined, model: typeof model === 'string' ? model : undefined };
}

export function num(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw bad(field, 'must be a number');
  return v;
}

export function int(v: unknown, field: string): number | undefined {
  const n = num(v, field);
  if (n !== undefined && !Number.isInteger(n)) throw bad(field, 'must be an integer');
  return n;
}

/** The most output tokens a request may name (no model comes near it); more is a 400, never a reserve. */
export const MAX_OUTPUT_TOKENS_LIMIT = 16_777_216;
/** The most choices (`n`, `candidateCount`) a request may ask for. */
export const MAX_CHOICES = 128;

/** A count of output tokens: an integer from 1 to MAX_OUTPUT_TOKENS_LIMIT (400 otherwise). */
export function tokenCount(v: unknown, field: string): number | undefined {
  const n = int(v, field);
  if (n !== undefined && (n < 1 || n > MAX_OUTPUT_TOKENS_LIMIT))
    throw bad(field, `must be an integer from 1 to ${MAX_OUTPUT_TOKENS_LIMIT}`);
  return n;
}

/** A number of choices: an integer from 1 to MAX_CHOICES (400 otherwise). */
export function choiceCount(v: unknown, field: string): number | undefined {
  const n = int(v, field);
  if (n !== undefined && (n < 1 || n > MAX_CHOICES)) throw bad(field, `must be an integer from 1 to ${MAX_CHOICES}`);
  return n;
}

export function str(v: unknown, field: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw bad(field, 'must be a string');
  return v;
}

export function n0(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** Copies the keys of `body` not in `known` into a new object. */
export function unknownFields(body: Record<string, unknown>, known: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!known.has(k)) out[k] = v;
  return out;
}

/** Adds `extra` to an upstream body when the target is the source format, notes it as dropped otherwise. */
export function applyExtra(target: WireFormat, req: CanonicalRequest, body: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(req.extra)) {
    if (req.sourceFormat === target) {
      if (!(k in body)) body[k] = v;
    } else req.dropped.push(k);
  }
  if (target !== 'gemini' && req.geminiGenerationConfig) {
    for (const k of Object.keys(req.geminiGenerationConfig))
      if (k !== 'thinkingConfig' && k !== 'responseSchema') req.dropped.push(`generationConfig.${k}`);
  }
}

export function parseDataUrl(url: string): { mediaType: string; data: string } | null {
  const m = /^data:([^;,]+)?((?:;[^;,]+)*?);base64,(.*)$/s.exec(url);
  if (!m) return null;
  return { mediaType: m[1] || 'application/octet-stream', data: m[3] };
}

export function imageFromUrl(url: string, detail?: string): ImagePart {
  const d = parseDataUrl(url);
  const part: ImagePart = { type: 'image', source: d ? { kind: 'base64', mediaType: d.mediaType, data: d.data } : { kind: 'url', url } };
  if (detail) part.detail = detail;
  return part;
}

export function imageUrlOf(src: ImageSource): string {
  return src.kind === 'url' ? src.url : `data:${src.mediaType};base64,${src.data}`;
}

export function guessMime(url: string, fallback = 'image/jpeg'): string {
  const ext = /\.([a-z0-9]+)(?:$|[?#])/i.exec(url)?.[1]?.toLowerCase();
  const map: Record<string, string> = {
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    gif: 'image/gif',
    webp: 'image/webp',
    pdf: 'application/pdf',
    mp3: 'audio/mp3',
    wav: 'audio/wav',
    mp4: 'video/mp4',
    txt: 'text/plain',
  };
  return (ext && map[ext]) || fallback;
}

export function textOf(parts: ContentPart[]): string {
  let s = '';
  for (const p of parts) if (p.type === 'text') s += p.text;
  return s;
}

export const newToolCallId = (): string => 'call_' + randomId(24);

/**
 * Gemini thought signatures ride inside tool-call ids when a call passes through a format that has no
 * field for them (OpenAI, Anthropic): `<id>__ts__<base64url signature>`. Clients echo ids verbatim, so
 * the signature comes back with the next turn and is restored for the Gemini upstream.
 */
const SIG_MARK = '__ts__';
/** Marker for a signature that is not canonical base64: its UTF-8 text is carried instead. */
const SIG_MARK_TEXT = '__tsu__';

export function idWithSignature(id: string, sig?: string): string {
  if (!sig || id.includes(SIG_MARK) || id.includes(SIG_MARK_TEXT)) return id;
  const bytes = Buffer.from(sig, 'base64');
  if (bytes.toString('base64') === sig) return id + SIG_MARK + bytes.toString('base64url');
  return id + SIG_MARK_TEXT + Buffer.from(sig, 'utf8').toString('base64url');
}

export function splitSignedId(id: string): { id: string; signature?: string } {
  let i = id.indexOf(SIG_MARK_TEXT);
  if (i >= 0) {
    const sig = Buffer.from(id.slice(i + SIG_MARK_TEXT.length), 'base64url').toString('utf8');
    return { id: id.slice(0, i), signature: sig || undefined };
  }
  i = id.indexOf(SIG_MARK);
  if (i < 0) return { id };
  const sig = Buffer.from(id.slice(i + SIG_MARK.length), 'base64url').toString('base64');
  return { id: id.slice(0, i), signature: sig || undefined };
}

/** Gemini thought signatures shown to Anthropic clients carry this prefix so they are not sent to Anthropic. */
export const GEMINI_SIG_PREFIX = 'gemini:';

export function safeJsonParse(s: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(s) };
  } catch {
    return { ok: false };
  }
}

/** Parses tool-call arguments into an object (what Anthropic and Gemini want); records loss. */
export function argsObject(args: string, dropped: string[] | undefined, where: string): Record<string, unknown> {
  if (!args.trim()) return {};
  const r = safeJsonParse(args);
  if (r.ok && isObj(r.value)) return r.value;
  dropped?.push(`${where}: tool arguments are not a JSON object; sent wrapped as {"_raw": …}`);
  return { _raw: args };
}

export function argsText(v: unknown): string {
  if (v === undefined || v === null) return '{}';
  if (isObj(v) && Object.keys(v).length === 1 && typeof v._raw === 'string') return v._raw;
  return JSON.stringify(v);
}

export function sse(data: unknown, event?: string): string {
  return (event ? `event: ${event}\n` : '') + `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** Thinking budget for a reasoning effort, and back. */
export function budgetForEffort(effort: string | undefined): number | undefined {
  switch (effort) {
    case 'minimal':
      return 1024;
    case 'low':
      return 2048;
    case 'medium':
      return 8192;
    case 'high':
      return 24576;
    default:
      return undefined;
  }
}

export function effortForBudget(budget: number): string {
  if (budget <= 1024) return 'minimal';
  if (budget <= 4096) return 'low';
  if (budget <= 12288) return 'medium';
  return 'high';
}

export function clampInt(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, Math.round(v)));
}
