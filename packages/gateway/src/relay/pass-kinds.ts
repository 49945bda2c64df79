/**
 * What the pass-through calls are, without running any (relay/passthrough.ts runs them): the kinds and
 * their endpoints, the call as the routes give it and as the pipeline runs it, the check of a body, the
 * upstream URLs, the bound of what a call can bill (its reserve's estimate), and the readers of their
 * answers (reported usage, output text) with the usage billed when an upstream reports none.
 */
import { Readable } from 'node:stream';
import type { TokenUsage } from '../billing/prices.ts';
import { countTokens, type TokenCounter } from '../billing/tokens.ts';
import { fail } from '../platform/errors.ts';
import { isObj } from '../platform/validate.ts';
import type { PipelineCall } from './pipeline/index.ts';
import type { RuntimeChannel } from './channels.ts';
import { scanBody, type BodyScan } from './body-scan.ts';
import { AV_CHARS_PER_TOKEN, BASE_OVERHEAD_TOKENS, inputBound, pricesOutput, textBound } from './estimate.ts';
import { encodeMultipart, type MultipartBody, type MultipartFile } from './multipart.ts';
import { applyParamOverride, hasOverride } from './providers/endpoint.ts';
import { passEndpoint, providerOfType } from './providers/registry.ts';
import type { ClientConn, RelayDeps, RelayPrincipal } from './call.ts';

export type PassKind =
  | 'images'
  | 'image_edits'
  | 'responses'
  | 'responses_compact'
  | 'audio_transcriptions'
  | 'audio_translations'
  | 'audio_speech'
  | 'rerank'
  | 'moderations'
  | 'alpha_search';

/** Endpoint → kind, for `Relay.handles(endpoint)`. */
export const PASS_ENDPOINTS: Record<string, PassKind> = {
  '/v1/images/generations': 'images',
  '/v1/images/edits': 'image_edits',
  '/v1/edits': 'image_edits',
  '/v1/responses': 'responses',
  '/v1/responses/compact': 'responses_compact',
  '/v1/audio/transcriptions': 'audio_transcriptions',
  '/v1/audio/translations': 'audio_translations',
  '/v1/audio/speech': 'audio_speech',
  '/v1/rerank': 'rerank',
  '/v1/moderations': 'moderations',
  '/v1/alpha/search': 'alpha_search',
};

const KINDS = new Set<string>(Object.values(PASS_ENDPOINTS));

const UPSTREAM_PATH: Record<PassKind, string> = {
  images: 'images/generations',
  image_edits: 'images/edits',
  responses: 'responses',
  responses_compact: 'responses/compact',
  audio_transcriptions: 'audio/transcriptions',
  audio_translations: 'audio/translations',
  audio_speech: 'audio/speech',
  rerank: 'rerank',
  moderations: 'moderations',
  alpha_search: 'alpha/search',
};

export const STREAMABLE = new Set<PassKind>(['images', 'image_edits', 'responses', 'audio_transcriptions', 'audio_speech']);

/** Output tokens reserved per image for models with token prices (gpt-image's largest: high quality, 1536 × 1024). */
export const IMAGE_OUTPUT_ALLOWANCE = 6240;
/** Output tokens of speech per UTF-8 byte of its text (speech bills about 1.4 a character; three times that). */
export const SPEECH_TOKENS_PER_BYTE = 4;
export const MAX_BODY = 256 * 1024 * 1024;

export interface PassCall {
  kind: PassKind;
  principal: RelayPrincipal;
  /** The JSON body; for multipart requests the fields (first value of each). */
  body: Record<string, unknown>;
  /** The JSON body as received. */
  raw: Buffer;
  /** A multipart request: every field value and the held files. */
  multipart?: { fields: Record<string, string[]>; files: MultipartFile[] };
  /** The body's media and depth, when the route's parser already walked it (relay/body-scan.ts). */
  scan?: BodyScan;
  endpoint: string;
  requestId: string;
  startedAt: bigint;
  client: ClientConn;
  /** The caller's OpenAI headers (relay/providers/endpoint.ts OPENAI_CALLER_HEADERS), sent to OpenAI-compatible upstreams. */
  vendorHeaders?: Record<string, string>;
  /** The request's headers (read by a price's expression, never its credentials: billing/call-facts.ts). */
  headers?: Record<string, string | string[] | undefined>;
}

export const isPassCall = (c: { kind: string }): c is PassCall => KINDS.has(c.kind);

/** One pass-through call as the pipeline runs it. */
export interface PassCtx extends PipelineCall {
  call: PassCall;
  kind: PassKind;
  /** Multiplies a per-request price (`n` images). */
  mult: number;
}

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Whether a channel can serve a kind: OpenAI-compatible channels all of them (alpha search only when declared), Azure most. */
export function servesKind(ch: RuntimeChannel, kind: PassKind): boolean {
  return providerOfType(ch.type)?.endpoint?.servesPass?.(ch, kind) ?? false;
}

export function passUrl(ch: RuntimeChannel, kind: PassKind, model: string): URL {
  return passEndpoint(ch.type).passUrl!(ch, UPSTREAM_PATH[kind], model, kind === 'responses');
}

/** Where a read of a stored response goes (`suffix` '' | '/cancel' | '/input_items'). */
export function responseUrl(ch: RuntimeChannel, id: string, suffix: string, query: string): URL {
  return passEndpoint(ch.type).responseUrl!(ch, id, suffix, query);
}

export function checkBody(kind: PassKind, b: Record<string, unknown>, multipart: boolean): void {
  const bad = (m: string) => fail('invalid_request', m);
  switch (kind) {
    case 'images':
    case 'image_edits':
      if (typeof b.prompt !== 'string' || !b.prompt) throw bad('"prompt" is required and must be a non-empty string');
      break;
    case 'audio_transcriptions':
    case 'audio_translations':
      if (!multipart) throw bad('the request must be multipart/form-data with a "file" part');
      break;
    case 'audio_speech':
      if (typeof b.input !== 'string' || !b.input) throw bad('"input" is required and must be a non-empty string');
      break;
    case 'rerank': {
      const q = b.query;
      const qOk = (typeof q === 'string' && q.trim() !== '') || (isObj(q) && typeof q.text === 'string' && q.text.trim() !== '');
      if (!qOk) throw bad('"query" is required and must not be empty');
      if (!Array.isArray(b.documents) || b.documents.length === 0) throw bad('"documents" is required and must be a non-empty list');
      break;
    }
    case 'moderations':
      if (b.input === undefined || b.input === null || b.input === '' || (Array.isArray(b.input) && b.input.length === 0))
        throw bad('"input" is required');
      break;
    default:
  }
}

/** Text of an `input` value of Responses, moderations or rerank documents (strings, parts, messages). */
function textOf(v: unknown, depth = 0): string {
  if (typeof v === 'string') return v;
  if (depth > 6) return '';
  if (Array.isArray(v)) return v.map((x) => textOf(x, depth + 1)).join('\n');
  if (isObj(v)) {
    if (typeof v.text === 'string') return v.text;
    if (v.content !== undefined) return textOf(v.content, depth + 1);
    if (typeof v.output === 'string') return v.output;
    if (typeof v.arguments === 'string') return v.arguments;
  }
  return '';
}

export function promptOf(kind: PassKind, b: Record<string, unknown>): string {
  switch (kind) {
    case 'images':
    case 'image_edits':
      return str(b.prompt);
    case 'responses':
    case 'responses_compact':
      return str(b.instructions) + '\n' + textOf(b.input);
    case 'rerank':
      return textOf(b.query) + '\n' + textOf(b.documents);
    case 'moderations':
      return textOf(b.input);
    case 'audio_speech':
      return str(b.input);
    default:
      return '';
  }
}

/** Output text of a Responses object (counted when the upstream reports no usage). */
export function responseOutputText(j: unknown): string {
  if (!isObj(j) || !Array.isArray(j.output)) return '';
  let t = '';
  for (const item of j.output as unknown[]) {
    if (!isObj(item)) continue;
    if (Array.isArray(item.content)) for (const c of item.content) if (isObj(c) && typeof c.text === 'string') t += c.text;
    if (typeof item.arguments === 'string') t += str(item.name) + item.arguments;
  }
  return t;
}

/** Token usage as an upstream reports it for these endpoints (Responses, gpt-image, transcription, rerank, chat-like). */
export function passUsage(j: unknown): TokenUsage | null {
  if (!isObj(j)) return null;
  const u = isObj(j.usage) ? j.usage : isObj(j.response) && isObj(j.response.usage) ? j.response.usage : null;
  if (!u) return null;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.round(v) : 0);
  const inDet = isObj(u.input_tokens_details) ? u.input_tokens_details : isObj(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const outDet = isObj(u.output_tokens_details)
    ? u.output_tokens_details
    : isObj(u.completion_tokens_details)
      ? u.completion_tokens_details
      : {};
  const input =
    n(u.input_tokens) || n(u.prompt_tokens) || (u.output_tokens === undefined && u.completion_tokens === undefined ? n(u.total_tokens) : 0);
  const output = n(u.output_tokens) || n(u.completion_tokens);
  if (!input && !output) return null;
  const out: TokenUsage = {
    inputTokens: input,
    outputTokens: output,
    cachedInputTokens: n(inDet.cached_tokens),
    cacheWriteTokens: 0,
    reasoningTokens: n(outDet.reasoning_tokens),
  };
  return withBilledExtras(j, out, inDet, outDet, n);
}

/** Audio and image tokens, web searches (Responses' `web_search_call` items) and the service tier of an answer. */
function withBilledExtras(
  j: Record<string, unknown>,
  out: TokenUsage,
  inDet: Record<string, unknown>,
  outDet: Record<string, unknown>,
  n: (v: unknown) => number,
): TokenUsage {
  if (n(inDet.audio_tokens)) out.audioInputTokens = n(inDet.audio_tokens);
  if (n(inDet.image_tokens)) out.imageInputTokens = n(inDet.image_tokens);
  if (n(outDet.audio_tokens)) out.audioOutputTokens = n(outDet.audio_tokens);
  if (n(outDet.image_tokens)) out.imageOutputTokens = n(outDet.image_tokens);
  const r = isObj(j.response) ? j.response : j;
  if (Array.isArray(r.output)) {
    const searches = r.output.filter((o) => isObj(o) && o.type === 'web_search_call').length;
    if (searches) out.serverTools = { web_search: searches };
  }
  if (typeof r.service_tier === 'string') out.serviceTier = r.service_tier;
  return out;
}

/** The usage billed when the upstream reported none (see docs/relay.md, "Other OpenAI-format calls"). */
export async function fallbackUsage(ctx: PassCtx, outputText: string, counter?: TokenCounter): Promise<TokenUsage> {
  const prompt = promptOf(ctx.kind, ctx.call.body);
  const out = async () => (counter ? counter.total() : outputText ? countTokens(outputText) : 0);
  switch (ctx.kind) {
    case 'images':
    case 'image_edits':
      // A 1024² high-quality image each (the reserve's bound is the largest size).
      return { inputTokens: (await countTokens(prompt)) + 8, outputTokens: 4160 * ctx.mult };
    case 'audio_speech':
      return { inputTokens: prompt.length, outputTokens: 0 };
    case 'audio_transcriptions':
    case 'audio_translations':
      return { inputTokens: 0, outputTokens: await out() };
    case 'rerank':
    case 'moderations':
      return { inputTokens: await countTokens(prompt), outputTokens: 0 };
    case 'responses':
    case 'responses_compact':
      return { inputTokens: await countTokens(prompt), outputTokens: await out() };
    default:
      return { inputTokens: 0, outputTokens: 0 };
  }
}

/** The body of a call for a channel: as received unless the model, an override or the output limit changes it; multipart re-encoded. */
export function passBody(
  ctx: PassCtx,
  ch: RuntimeChannel,
  upModel: string,
): { body: string | Buffer | Readable; multipart?: MultipartBody } {
  const { call } = ctx;
  if (call.multipart) {
    const fields: Array<[string, string]> = [];
    for (const [k, vs] of Object.entries(call.multipart.fields)) {
      if (k === 'model') continue;
      if (k in ch.paramOverride) continue;
      for (const v of vs) fields.push([k, v]);
    }
    fields.unshift(['model', upModel]);
    for (const [k, v] of Object.entries(ch.paramOverride)) {
      if (v !== null && k !== 'model') fields.push([k, typeof v === 'string' ? v : JSON.stringify(v)]);
    }
    const mp = encodeMultipart(fields, call.multipart.files);
    return { body: Readable.from(mp.chunks(), { objectMode: false }), multipart: mp };
  }
  const max = ctx.maxOut;
  const maxChanges = max !== null && call.body.max_output_tokens !== max;
  if (upModel === call.body.model && !hasOverride(ch) && !maxChanges) return { body: call.raw };
  const b: Record<string, unknown> = { ...call.body, model: upModel };
  applyParamOverride(b, ch.paramOverride);
  if (max !== null) b.max_output_tokens = typeof b.max_output_tokens === 'number' && b.max_output_tokens < max ? b.max_output_tokens : max;
  return { body: JSON.stringify(b) };
}

/**
 * An upper bound of what the upstream can bill (docs/relay.md#billing): input from the body's bytes
 * and media (relay/estimate.ts); output per kind — images IMAGE_OUTPUT_ALLOWANCE each, speech
 * SPEECH_TOKENS_PER_BYTE of its text, transcripts one token per AV_CHARS_PER_TOKEN bytes of audio,
 * Responses the max_output_tokens the gateway sends (set when absent, like chat's max_tokens).
 * Per-request prices need no bound: they are exact by construction.
 */
export function passEstimate(ctx: PassCtx, policy: RelayDeps['policy'], maxAsked: number | undefined): TokenUsage {
  const { call } = ctx;
  const b = call.body;
  if (!ctx.price || ctx.price.perRequest !== null) return { inputTokens: 0, outputTokens: 0 };
  let bytes = call.raw.length;
  let scan: BodyScan = { inlineChars: 0, images: 0, avChars: 0, fileChars: 0, refs: 0 };
  if (call.multipart) {
    bytes = 0;
    for (const vs of Object.values(call.multipart.fields)) for (const v of vs) bytes += Buffer.byteLength(v) + 8;
    for (const f of call.multipart.files) {
      if (f.mimeType.startsWith('image/') || ctx.kind === 'image_edits') scan.images++;
      else scan = { ...scan, avChars: scan.avChars + f.data.length };
    }
  } else {
    scan = call.scan ?? scanBody(b);
  }
  const input = inputBound(bytes, scan, b.tools !== undefined);
  ctx.inputBound = input;
  // The text of a JSON body may be estimated with the tokenizer instead (tightenInput, relay/input-estimate.ts); a form's is not.
  if (!call.multipart) ctx.textBound = textBound(bytes, scan, b.tools !== undefined);
  switch (ctx.kind) {
    case 'images':
    case 'image_edits':
      return { inputTokens: input, outputTokens: IMAGE_OUTPUT_ALLOWANCE * ctx.mult };
    case 'audio_speech':
      return { inputTokens: input, outputTokens: ctx.price.output > 0 ? SPEECH_TOKENS_PER_BYTE * Buffer.byteLength(str(b.input)) : 0 };
    case 'audio_transcriptions':
    case 'audio_translations':
      return { inputTokens: input, outputTokens: Math.ceil(scan.avChars / AV_CHARS_PER_TOKEN) + BASE_OVERHEAD_TOKENS };
    case 'responses':
    case 'responses_compact': {
      if (!pricesOutput(ctx.price)) return { inputTokens: input, outputTokens: 0 };
      if (ctx.kind === 'responses_compact') return { inputTokens: input, outputTokens: input };
      const limit = policy.modelMaxOutput(ctx.model);
      let out = maxAsked ?? policy.defaultMaxOutput(ctx.model);
      if (limit !== undefined && out > limit) out = limit;
      ctx.maxOut = out;
      return { inputTokens: input, outputTokens: out };
    }
    case 'rerank':
    case 'moderations':
      return { inputTokens: input, outputTokens: 0 };
    default:
      return { inputTokens: 0, outputTokens: 0 };
  }
}
