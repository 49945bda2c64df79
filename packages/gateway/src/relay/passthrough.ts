/**
 * The OpenAI-format calls that go to an OpenAI-compatible (or Azure) upstream as they are: images
 * (generations, edits — JSON or multipart), Responses (create, compact, and reads of relay-created
 * ids), audio (transcriptions, translations, speech), rerank, moderations and alpha search.
 *
 * Same routing, retries, health, billing and logs as the chat path: both run through the call
 * pipeline (relay/pipeline.ts), this file supplying its strategy. The body is sent as
 * received unless the channel maps the model or overrides parameters; multipart bodies are re-encoded
 * from the held parts; answers (JSON, text, SSE, audio bytes) are passed back as they come and only
 * read on the side for usage.
 */
import { Readable } from 'node:stream';
import type { KeyPrincipal } from '../accounts/types.ts';
import { checkModelAccess } from '../accounts/keys.ts';
import { quotaUnits, usdCost, type TokenUsage } from '../billing/prices.ts';
import { countTokens, TokenCounter } from '../billing/tokens.ts';
import { callFacts, readsCall } from '../billing/call-facts.ts';
import { echo, fail } from '../platform/errors.ts';
import { ChannelType } from '../channels/types.ts';
import type { AttemptOutcome } from './attempts.ts';
import { logAttemptError, msSince } from './accounting.ts';
import { Pipeline, type PipelineCall, type StreamRelay } from './pipeline.ts';
import type { RuntimeChannel } from './channels.ts';
import { upstreamErrorMessage } from './providers/index.ts';
import { choiceCount, tokenCount } from './providers/canonical.ts';
import { scanBody, type BodyScan } from './body-scan.ts';
import { AV_CHARS_PER_TOKEN, BASE_OVERHEAD_TOKENS, inputBound, isPriced, pricesOutput, textBound } from './estimate.ts';
import { encodeMultipart, type MultipartBody, type MultipartFile } from './multipart.ts';
import { applyParamOverride, hasOverride, upstreamHeaders, upstreamModel } from './providers/endpoint.ts';
import { passEndpoint, providerOfType } from './providers/registry.ts';
import { networkMessage } from './upstream.ts';
import type { ClientConn, RelayDeps, RelayPrincipal } from './call.ts';
import { ResponseStore } from './response-store.ts';
import { SseFramer, type SseEvent } from './sse.ts';
import { redactSecrets, sentSecrets } from '../platform/redact.ts';
import { readText, type UpstreamResponse } from './upstream.ts';
import { isObj } from '../platform/validate.ts';

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

const STREAMABLE = new Set<PassKind>(['images', 'image_edits', 'responses', 'audio_transcriptions', 'audio_speech']);

/** Output tokens reserved per image for models with token prices (gpt-image's largest: high quality, 1536 × 1024). */
export const IMAGE_OUTPUT_ALLOWANCE = 6240;
/** Output tokens of speech per UTF-8 byte of its text (speech bills about 1.4 a character; three times that). */
const SPEECH_TOKENS_PER_BYTE = 4;
const MAX_BODY = 256 * 1024 * 1024;

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
interface Ctx extends PipelineCall {
  call: PassCall;
  kind: PassKind;
  /** Multiplies a per-request price (`n` images). */
  mult: number;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Whether a channel can serve a kind: OpenAI-compatible channels all of them (alpha search only when declared), Azure most. */
export function servesKind(ch: RuntimeChannel, kind: PassKind): boolean {
  return providerOfType(ch.type)?.endpoint?.servesPass?.(ch, kind) ?? false;
}

export function passUrl(ch: RuntimeChannel, kind: PassKind, model: string): URL {
  return passEndpoint(ch.type).passUrl!(ch, UPSTREAM_PATH[kind], model, kind === 'responses');
}

/** Where a read of a stored response goes (`suffix` '' | '/cancel' | '/input_items'). */
function responseUrl(ch: RuntimeChannel, id: string, suffix: string, query: string): URL {
  return passEndpoint(ch.type).responseUrl!(ch, id, suffix, query);
}

function checkBody(kind: PassKind, b: Record<string, unknown>, multipart: boolean): void {
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

function promptOf(kind: PassKind, b: Record<string, unknown>): string {
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
function responseOutputText(j: unknown): string {
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

export class PassThrough {
  readonly responses: ResponseStore;
  /** The call pipeline with this family's strategy (relay/pipeline.ts). */
  private readonly pipe: Pipeline<Ctx>;

  constructor(
    private readonly d: RelayDeps,
    private readonly track: <T>(p: Promise<T>) => Promise<T>,
  ) {
    this.responses = new ResponseStore(d.core);
    this.pipe = new Pipeline<Ctx>(d, track, {
      holds: false,
      attempt: (ctx, ch, key, keyIndex) => this.attempt(ctx, ch, key, keyIndex),
      sticky: (ctx) => ctx.call.multipart === undefined,
      reserveOf: (ctx, u) => this.reserveOf(ctx, u),
      cost: (ctx, u) => this.cost(ctx, u),
      logDetails: (ctx, u) => ({
        ...(ctx.mult > 1 ? { n: ctx.mult } : {}),
        attempts: ctx.attempts,
        reasoning_tokens: u.reasoningTokens ?? 0,
      }),
      settleDeferMs: () => 0,
    });
  }

  /** Whether a channel with the Responses API serves `model` in `group` (else Responses calls are converted). */
  servesResponses(group: string, model: unknown): boolean {
    return typeof model === 'string' && this.d.channels.candidates(group, model).some((c) => servesKind(c, 'responses'));
  }

  async handle(call: PassCall): Promise<void> {
    const { body, principal, kind } = call;
    const model = body.model;
    if (typeof model !== 'string' || !model) throw fail('invalid_request', '"model" is required and must be a string');
    checkBody(kind, body, !!call.multipart);
    if (principal.models) checkModelAccess(principal as KeyPrincipal, model);
    const all = this.d.channels.candidates(principal.group, model);
    const candidates = all.filter((c) => servesKind(c, kind));
    if (candidates.length === 0) {
      if (kind === 'alpha_search') {
        throw fail(
          'no_available_channel',
          `no channel that supports alpha search serves model "${echo(model)}" in group "${principal.group}"`,
        );
      }
      throw fail('no_available_channel', { model: echo(model), group: principal.group });
    }
    const price = this.d.prices.get(model);
    if (!price && !this.d.core.config.relayAllowUnpricedModels) {
      throw fail('model_price_not_set', { model: echo(model) });
    }
    const isImages = kind === 'images' || kind === 'image_edits';
    // Multipart fields are text: a number there is read as one.
    const nField = call.multipart && typeof body.n === 'string' && body.n.trim() !== '' ? Number(body.n) : body.n;
    const mult = isImages ? (choiceCount(nField, 'n') ?? 1) : 1;
    const maxAsked = kind === 'responses' ? tokenCount(body.max_output_tokens, 'max_output_tokens') : undefined;
    const stream = STREAMABLE.has(kind) && (body.stream === true || body.stream === 'true');
    const ctx: Ctx = {
      call,
      kind,
      model,
      stream,
      price,
      mult,
      payer: this.d.budgets.payer(principal, model),
      reserved: 0,
      grant: null,
      maxOut: null,
      n: 1,
      inputBound: 0,
      cacheWrites: false,
      extensions: 0,
      attempts: [],
      upstreamWaitMs: 0,
      firstByteMs: null,
      started: false,
      admission: null,
      ...(readsCall(price?.rules) ? { priceCall: callFacts(body, call.headers, Date.now()) } : {}),
    };
    await this.pipe.run(ctx, candidates, this.estimateUsage(ctx, maxAsked));
  }

  // ---------- billing ----------

  /**
   * Cost in quota units: a per-request price × `n` (images), else token prices on the usage; rounded once.
   */
  private cost(ctx: Ctx, u: TokenUsage): number {
    if (!ctx.price) return 0;
    const usd = usdCost(ctx.price, u, ctx.priceCall) * (ctx.price.perRequest !== null ? ctx.mult : 1);
    return quotaUnits(usd, this.d.prices.groupRatio(ctx.call.principal.group), this.d.core.config.quotaPerUsd);
  }

  /** The reserve of a usage: its bound at the price's rules (a price per request × `n`), at least 1 unit for a priced call. */
  private reserveOf(ctx: Ctx, u: TokenUsage): number {
    const c =
      ctx.price && ctx.price.perRequest === null
        ? this.d.prices.bound(ctx.price, u, ctx.call.principal.group, ctx.priceCall)
        : this.cost(ctx, u);
    return c < 1 && isPriced(ctx.price) ? 1 : c;
  }

  /**
   * An upper bound of what the upstream can bill (docs/relay.md#billing): input from the body's bytes
   * and media (relay/estimate.ts); output per kind — images IMAGE_OUTPUT_ALLOWANCE each, speech
   * SPEECH_TOKENS_PER_BYTE of its text, transcripts one token per AV_CHARS_PER_TOKEN bytes of audio,
   * Responses the max_output_tokens the gateway sends (set when absent, like chat's max_tokens).
   * Per-request prices need no bound: they are exact by construction.
   */
  private estimateUsage(ctx: Ctx, maxAsked: number | undefined): TokenUsage {
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
        const limit = this.d.policy.modelMaxOutput(ctx.model);
        let out = maxAsked ?? this.d.policy.defaultMaxOutput(ctx.model);
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

  private buildBody(ctx: Ctx, ch: RuntimeChannel, upModel: string): { body: string | Buffer | Readable; multipart?: MultipartBody } {
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
    if (max !== null)
      b.max_output_tokens = typeof b.max_output_tokens === 'number' && b.max_output_tokens < max ? b.max_output_tokens : max;
    return { body: JSON.stringify(b) };
  }

  private async attempt(ctx: Ctx, ch: RuntimeChannel, key: string, keyIndex: number): Promise<AttemptOutcome> {
    const upModel = upstreamModel(ch, ctx.model);
    const { body, multipart } = this.buildBody(ctx, ch, upModel);
    const headers = upstreamHeaders(
      ch,
      key,
      ctx.stream,
      ch.type === ChannelType.openai || ch.type === ChannelType.azure ? ctx.call.vendorHeaders : undefined,
    );
    if (multipart) {
      headers['content-type'] = multipart.contentType;
      headers['content-length'] = String(multipart.length);
    }
    if (ctx.kind === 'audio_speech' && !ctx.stream) headers.accept = '*/*';
    else if (ctx.kind === 'audio_transcriptions' || ctx.kind === 'audio_translations') headers.accept = '*/*';
    const t0 = process.hrtime.bigint();
    const url = passUrl(ch, ctx.kind, upModel);
    const up = await this.d.pools.send({ url, method: 'POST', headers, body });
    if (up.statusCode >= 400) {
      // An upstream error may echo the credentials it got: they never go further than here.
      const text = redactSecrets(await readText(up.body, 256 * 1024), sentSecrets([key], headers, url));
      const message = upstreamErrorMessage('openai', up.statusCode, text);
      return (
        this.pipe.refusal(up, message) ?? {
          kind: 'client_error',
          status: up.statusCode,
          body: text,
          contentType: String(up.headers['content-type'] ?? 'application/json'),
          message,
        }
      );
    }
    const ctype = String(up.headers['content-type'] ?? '');
    ctx.upstreamWaitMs = msSince(t0);
    if (ctype.includes('text/event-stream')) {
      this.pipe.begin(ctx, 200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      const s = new PassSse(ctx.kind === 'responses' ? (id) => this.remember(ctx, id, ch, keyIndex) : null);
      const metered = ctx.kind === 'responses' && ctx.maxOut !== null && ctx.reserved > 0;
      await this.pipe.stream(ctx, ch, upModel, up, s, up.statusCode, metered);
      return { kind: 'done' };
    }
    const jsonish = ctype.includes('json');
    if (!jsonish && !ctype.startsWith('text/')) {
      // Binary answers (speech audio): streamed through with the upstream's content type.
      const h: Record<string, string> = { 'content-type': ctype || 'application/octet-stream' };
      const len = up.headers['content-length'];
      if (typeof len === 'string') h['content-length'] = len;
      this.pipe.begin(ctx, up.statusCode, h);
      await this.pipe.stream(ctx, ch, upModel, up, new ByteStream(false), up.statusCode, false);
      return { kind: 'done' };
    }
    const text = await readText(up.body, MAX_BODY);
    ctx.upstreamWaitMs = msSince(t0);
    let json: unknown = null;
    if (jsonish) {
      try {
        json = JSON.parse(text);
      } catch {
        return { kind: 'retry', status: 502, message: `upstream returned a body that is not JSON (status ${up.statusCode})` };
      }
    }
    this.pipe.begin(ctx, up.statusCode, { 'content-type': ctype || 'application/json', 'content-length': String(Buffer.byteLength(text)) });
    const reported = passUsage(json);
    // The rate limits' token windows are corrected to the reported usage before the caller has the answer.
    if (reported) ctx.admission?.end(reported.inputTokens + reported.outputTokens);
    ctx.call.client.res.end(text);
    if (ctx.kind === 'responses' && isObj(json) && typeof json.id === 'string') this.remember(ctx, json.id, ch, keyIndex);
    const outText =
      ctx.kind === 'responses' || ctx.kind === 'responses_compact'
        ? responseOutputText(json)
        : jsonish
          ? str((json as { text?: unknown } | null)?.text)
          : text;
    const usage = reported ?? (await fallbackUsage(ctx, outText));
    this.pipe.settle(ctx, ch, upModel, usage, up.statusCode, { upstreamUsage: !!reported });
    return { kind: 'done' };
  }

  private remember(ctx: Ctx, id: string, ch: RuntimeChannel, keyIndex: number): void {
    if (ctx.call.body.store === false) return;
    void this.track(
      this.responses.remember(id, { userId: ctx.call.principal.userId, channelId: ch.id, keyIndex, model: ctx.model }).catch((e) => {
        this.d.core.log.warn({ err: (e as Error).message, requestId: ctx.call.requestId }, 'could not record the response id');
      }),
    );
  }

  // ---------- reads of relay-created responses ----------

  /**
   * GET / DELETE / cancel / input_items of a Responses id this relay created for the caller: sent to
   * the channel and key that created it, the answer passed back as it is. Free; one log row. Returns
   * false when the id is not one of the caller's relay-created responses.
   */
  async responseOp(o: {
    principal: RelayPrincipal;
    id: string;
    op: 'get' | 'delete' | 'cancel' | 'input_items';
    query: string;
    endpoint: string;
    requestId: string;
    startedAt: bigint;
    client: ClientConn;
  }): Promise<boolean> {
    const rec = await this.responses.lookup(o.id, o.principal.userId);
    if (!rec) return false;
    const ch = this.d.channels.get(rec.channelId);
    if (!ch)
      throw fail('not_found', `No response found with id '${o.id.slice(0, 80)}' (its channel no longer exists).`, {
        type: 'invalid_request_error',
      });
    const key = ch.keys[rec.keyIndex] ?? ch.keys[0] ?? '';
    const suffix = o.op === 'cancel' ? '/cancel' : o.op === 'input_items' ? '/input_items' : '';
    const method = o.op === 'delete' ? 'DELETE' : o.op === 'cancel' ? 'POST' : 'GET';
    const headers = upstreamHeaders(ch, key, /[?&]stream=true/.test(o.query));
    delete headers['content-type'];
    const call: PassCall = {
      kind: 'responses',
      principal: o.principal,
      body: {},
      raw: Buffer.alloc(0),
      endpoint: o.endpoint,
      requestId: o.requestId,
      startedAt: o.startedAt,
      client: o.client,
    };
    const ctx: Ctx = {
      call,
      kind: 'responses',
      model: rec.model,
      stream: false,
      price: null,
      mult: 1,
      maxOut: null,
      n: 1,
      inputBound: 0,
      cacheWrites: false,
      extensions: 0,
      payer: { userId: o.principal.userId, keyId: o.principal.keyId, unlimitedKey: true },
      reserved: 0,
      grant: null,
      attempts: [],
      upstreamWaitMs: 0,
      firstByteMs: null,
      started: false,
      admission: null,
    };

    const t0 = process.hrtime.bigint();
    let up: UpstreamResponse;
    const url = responseUrl(ch, o.id, suffix, o.query);
    try {
      up = await this.d.pools.send({ url, method, headers });
    } catch (e) {
      const message = networkMessage(e);
      logAttemptError(this.d.logs, ctx, ch, 0, message, 1);
      throw fail('upstream_error', message);
    }
    ctx.upstreamWaitMs = msSince(t0);
    const ctype = String(up.headers['content-type'] ?? 'application/json');
    if (ctype.includes('text/event-stream')) {
      this.pipe.begin(ctx, up.statusCode, { 'content-type': ctype, 'cache-control': 'no-cache' });
      await this.pipe.stream(ctx, ch, rec.model, up, new ByteStream(true), up.statusCode, false);
      return true;
    }
    let text = await readText(up.body, MAX_BODY);
    if (up.statusCode >= 400) text = redactSecrets(text, sentSecrets([key], headers, url));
    ctx.upstreamWaitMs = msSince(t0);
    this.pipe.begin(ctx, up.statusCode, { 'content-type': ctype, 'content-length': String(Buffer.byteLength(text)) });
    o.client.res.end(text);
    this.pipe.settle(ctx, ch, upstreamModel(ch, rec.model), { inputTokens: 0, outputTokens: 0 }, up.statusCode, { op: o.op });
    return true;
  }
}

/** The usage billed when the upstream reported none (see docs/relay.md, "Other OpenAI-format calls"). */
async function fallbackUsage(ctx: Ctx, outputText: string, counter?: TokenCounter): Promise<TokenUsage> {
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

/**
 * SSE answers (Responses streams, image and speech events): forwarded byte for byte; events are read
 * on the side for usage (`response.completed` or any event with `usage`), the response id and output text.
 * A Responses stream whose output is priced is metered event by event (relay/pipeline.ts); when the
 * balance cannot cover an event it ends with an `error` event (`insufficient_quota`).
 */
class PassSse implements StreamRelay<Ctx> {
  text = '';
  readonly framer = new SseFramer();
  private seen: TokenUsage | null = null;
  private idSeen = false;

  /** `onId`: told the id of a Responses stream's response. */
  constructor(private readonly onId: ((id: string) => void) | null) {}

  private onEvent(ev: SseEvent): void {
    const data = ev.data;
    if (!data || data[0] !== '{') return;
    let j: Record<string, unknown>;
    try {
      j = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return;
    }
    const type = str(j.type) || ev.event || '';
    if (type.endsWith('.delta') && typeof j.delta === 'string' && !type.includes('audio') && !type.includes('partial_image'))
      this.text += j.delta;
    if (!this.idSeen && this.onId && isObj(j.response) && typeof j.response.id === 'string') {
      this.idSeen = true;
      this.onId(j.response.id);
    }
    this.seen = passUsage(j) ?? this.seen;
  }

  chunk(chunk: Buffer): Buffer {
    for (const ev of this.framer.push(chunk)) this.onEvent(ev);
    return chunk;
  }

  end(): string {
    for (const ev of this.framer.end()) this.onEvent(ev);
    return '';
  }

  event(ev: SseEvent): string {
    this.onEvent(ev);
    return ev.raw;
  }

  tail(): string {
    return '';
  }

  frame(out: string | Buffer): string | Buffer {
    return out;
  }

  close(cut: boolean): string {
    if (!cut) return '';
    const message = 'quota exhausted: the balance cannot cover more output for this request';
    return `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'insufficient_quota', message, param: null })}\n\n`;
  }

  async usage(
    ctx: Ctx,
    cutAt: number | null,
    _clientGone: boolean,
    counter: TokenCounter,
  ): Promise<{ usage: TokenUsage; reported: boolean }> {
    const reported = this.seen;
    if (cutAt !== null) {
      return {
        usage: {
          inputTokens: reported?.inputTokens || (await countTokens(promptOf(ctx.kind, ctx.call.body))),
          outputTokens: cutAt,
          cachedInputTokens: reported?.cachedInputTokens ?? 0,
        },
        reported: false,
      };
    }
    return { usage: reported ?? (await fallbackUsage(ctx, '', counter)), reported: reported !== null };
  }
}

/** Other answers streamed through as they are (speech audio, reads of stored responses' event streams). */
class ByteStream implements StreamRelay<Ctx> {
  text = '';
  readonly framer = null;

  /** `free`: nothing is billed (reads of stored responses); else the usage is counted from the request. */
  constructor(private readonly free: boolean) {}

  chunk(chunk: Buffer): Buffer {
    return chunk;
  }

  end(): string {
    return '';
  }

  event(): string {
    return '';
  }

  tail(): string {
    return '';
  }

  frame(out: string | Buffer): string | Buffer {
    return out;
  }

  close(): string {
    return '';
  }

  async usage(ctx: Ctx): Promise<{ usage: TokenUsage; reported: boolean }> {
    return { usage: this.free ? { inputTokens: 0, outputTokens: 0 } : await fallbackUsage(ctx, ''), reported: false };
  }
}
