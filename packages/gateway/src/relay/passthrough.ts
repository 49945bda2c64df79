/**
 * The OpenAI-format calls that go to an OpenAI-compatible (or Azure) upstream as they are: images
 * (generations, edits — JSON or multipart), Responses (create, compact, and reads of relay-created
 * ids), audio (transcriptions, translations, speech), rerank, moderations and alpha search.
 *
 * Same routing, retries, health, billing and logs as the chat path (relay.ts): the body is sent as
 * received unless the channel maps the model or overrides parameters; multipart bodies are re-encoded
 * from the held parts; answers (JSON, text, SSE, audio bytes) are passed back as they come and only
 * read on the side for usage.
 */
import { Readable } from 'node:stream';
import type { KeyPrincipal } from '../accounts/types.ts';
import { checkModelAccess } from '../accounts/keys.ts';
import type { Admission } from '../accounts/rate-limits.ts';
import type { Payer } from '../billing/ledger.ts';
import { quotaUnits, usdCost, type ModelPrice, type TokenUsage } from '../billing/prices.ts';
import { countTokens, countTokensSync, loadTokenizer, TokenCounter } from '../billing/tokens.ts';
import { echo, GatewayError } from '../platform/errors.ts';
import { ChannelType } from './channel-types.ts';
import { runAttempts, type AttemptCallInfo, type AttemptOutcome } from './attempts.ts';
import { affinityKey } from './affinity.ts';
import { callLogRow, logAttemptError, refundGrant, runReserved, settleThenLog } from './accounting.ts';
import { ledgerGrant } from '../billing/allowance.ts';
import type { RuntimeChannel } from './channels.ts';
import { upstreamErrorMessage } from './providers/index.ts';
import { choiceCount, tokenCount } from './providers/canonical.ts';
import { scanBody, type BodyScan } from './body-scan.ts';
import { AV_CHARS_PER_TOKEN, BASE_OVERHEAD_TOKENS, fitOutput, inputBound, isPriced, MIN_OUTPUT_TOKENS, pricesOutput } from './estimate.ts';
import { encodeMultipart, type MultipartBody, type MultipartFile } from './multipart.ts';
import { applyParamOverride, hasOverride, upstreamHeaders, upstreamModel } from './providers/endpoint.ts';
import { passEndpoint, providerOfType } from './providers/registry.ts';
import { networkMessage, retryAfter } from './upstream.ts';
import type { ClientConn, RelayDeps, RelayPrincipal } from './call.ts';
import { ResponseStore } from './response-store.ts';
import { SseFramer, type SseEvent } from './sse.ts';
import { redactSecrets, sentSecrets } from '../platform/redact.ts';
import { readText, type UpstreamResponse } from './upstream.ts';

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
}

export const isPassCall = (c: { kind: string }): c is PassCall => KINDS.has(c.kind);

interface Ctx {
  call: PassCall;
  kind: PassKind;
  model: string;
  stream: boolean;
  price: ModelPrice | null;
  /** Multiplies a per-request price (`n` images). */
  mult: number;
  payer: Payer;
  estimate: TokenUsage;
  reserved: number;
  /** Responses: max_output_tokens the gateway sends and reserved for (null: sent as the caller wrote it). */
  maxOut: number | null;
  attempts: Array<{ channel: number; status: number; error?: string }>;
  upstreamWaitMs: number;
  firstByteMs: number | null;
  started: boolean;
  /** The call's place in its rate limits (accounts/rate-limits.ts); null when none applies. */
  admission: Admission | null;
}

const msSince = (t: bigint): number => Number(process.hrtime.bigint() - t) / 1e6;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
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
  const bad = (m: string) => new GatewayError(400, 'invalid_request', m);
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
  return {
    inputTokens: input,
    outputTokens: output,
    cachedInputTokens: n(inDet.cached_tokens),
    cacheWriteTokens: 0,
    reasoningTokens: n(outDet.reasoning_tokens),
  };
}

export class PassThrough {
  readonly responses: ResponseStore;

  constructor(
    private readonly d: RelayDeps,
    private readonly track: <T>(p: Promise<T>) => Promise<T>,
  ) {
    this.responses = new ResponseStore(d.core);
  }

  /** Whether a channel with the Responses API serves `model` in `group` (else Responses calls are converted). */
  servesResponses(group: string, model: unknown): boolean {
    return typeof model === 'string' && this.d.channels.candidates(group, model).some((c) => servesKind(c, 'responses'));
  }

  async handle(call: PassCall): Promise<void> {
    const { body, principal, kind } = call;
    const model = body.model;
    if (typeof model !== 'string' || !model) throw new GatewayError(400, 'invalid_request', '"model" is required and must be a string');
    checkBody(kind, body, !!call.multipart);
    if (principal.models) checkModelAccess(principal as KeyPrincipal, model);
    const all = this.d.channels.candidates(principal.group, model);
    const candidates = all.filter((c) => servesKind(c, kind));
    if (candidates.length === 0) {
      if (kind === 'alpha_search') {
        throw new GatewayError(
          503,
          'no_available_channel',
          `no channel that supports alpha search serves model "${echo(model)}" in group "${principal.group}"`,
        );
      }
      throw new GatewayError(503, 'no_available_channel', `no available channel for model "${echo(model)}" in group "${principal.group}"`);
    }
    const price = this.d.prices.get(model);
    if (!price && !this.d.core.config.relayAllowUnpricedModels) {
      throw new GatewayError(
        403,
        'model_price_not_set',
        `model "${echo(model)}" has no price set; an administrator must set one before it can be used`,
      );
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
      payer: this.d.budgets.payer(principal),
      estimate: { inputTokens: 0, outputTokens: 0 },
      reserved: 0,
      maxOut: null,
      attempts: [],
      upstreamWaitMs: 0,
      firstByteMs: null,
      started: false,
      admission: null,
    };
    ctx.estimate = this.estimateUsage(ctx, maxAsked);
    // The rate limits count the reserve's estimate, before any routing or billing (429 beyond them).
    const a = this.d.rateLimits.admit(principal, model, ctx.estimate.inputTokens + ctx.estimate.outputTokens, call.client.res);
    ctx.admission = a instanceof Promise ? await a : a;
    try {
      ctx.reserved = this.reserveOf(ctx, ctx.estimate);
      if (ctx.reserved > 0) {
        try {
          await this.d.ledger.reserve(ctx.payer, call.requestId, ctx.reserved, { open: true });
        } catch (e) {
          if ((e as GatewayError).code !== 'insufficient_quota' || ctx.maxOut === null) throw e;
          await this.reserveWhatFits(ctx, e as GatewayError);
        }
      }
      await runReserved(
        this.d.core,
        ctx,
        () => this.run(ctx, candidates),
        () => this.refund(ctx),
      );
    } finally {
      ctx.admission?.end(0);
    }
  }

  // ---------- billing ----------

  /**
   * Cost in quota units: a per-request price × `n` (images), else token prices on the usage; rounded once.
   */
  private cost(ctx: Ctx, u: TokenUsage): number {
    if (!ctx.price) return 0;
    const usd = usdCost(ctx.price, u) * (ctx.price.perRequest !== null ? ctx.mult : 1);
    return quotaUnits(usd, this.d.prices.groupRatio(ctx.call.principal.group), this.d.core.config.quotaPerUsd);
  }

  /** The reserve of a usage: its cost, at least 1 unit for a priced call. */
  private reserveOf(ctx: Ctx, u: TokenUsage): number {
    const c = this.cost(ctx, u);
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

  /** Responses: lowers max_output_tokens to what the balance covers (see Relay.reserveWhatFits). */
  private async reserveWhatFits(ctx: Ctx, refused: GatewayError): Promise<void> {
    const group = ctx.call.principal.group;
    const input = ctx.estimate.inputTokens;
    for (let i = 0; i < 3; i++) {
      const available = await this.d.ledger.available(ctx.payer);
      const out = fitOutput(this.d.prices, ctx.price, group, input, 1, ctx.maxOut!, MIN_OUTPUT_TOKENS, available);
      if (out === null) break;
      ctx.maxOut = out;
      ctx.estimate = { inputTokens: input, outputTokens: out };
      ctx.reserved = this.reserveOf(ctx, ctx.estimate);
      try {
        await this.d.ledger.reserve(ctx.payer, ctx.call.requestId, ctx.reserved, { open: true });
        return;
      } catch (e) {
        if ((e as GatewayError).code !== 'insufficient_quota') throw e;
      }
    }
    ctx.reserved = 0;
    throw refused;
  }

  /** The usage billed when the upstream reported none (see docs/relay.md, "Other OpenAI-format calls"). */
  private async fallbackUsage(ctx: Ctx, outputText: string, counter?: TokenCounter): Promise<TokenUsage> {
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

  private async refund(ctx: Ctx): Promise<void> {
    if (ctx.reserved <= 0) return;
    const grant = ledgerGrant(ctx.payer, ctx.call.requestId, ctx.reserved);
    ctx.reserved = 0;
    await refundGrant(this.d, this.track, grant);
  }

  // ---------- routing and retries ----------

  private run(ctx: Ctx, candidates: RuntimeChannel[]): Promise<void> {
    const { call } = ctx;
    const info: AttemptCallInfo = { model: ctx.model, group: call.principal.group, res: call.client.res };
    const aff = this.d.affinity;
    const k =
      aff && candidates.length > 1 && call.multipart === undefined
        ? affinityKey(call.principal.userId, ctx.model, call.body, call.vendorHeaders)
        : null;
    const start = k
      ? aff!.get(k).then((prefer) => {
          info.affinity = { prefer, served: (s) => aff!.set(k, s), failed: () => aff!.drop(k) };
        })
      : null;
    const go = () =>
      runAttempts(
        this.d,
        ctx,
        candidates,
        {
          attempt: (c, ch, key, keyIndex) => this.attempt(c, ch, key, keyIndex),
          logError: (c, ch, status, message, n) => logAttemptError(this.d.logs, c, ch, status, message, n),
          refund: (c) => this.refund(c),
          begin: (c, status, headers) => this.begin(c, status, headers),
        },
        info,
      );
    return start ? start.then(go) : go();
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
      const s = up.statusCode;
      if (s === 401 || s === 403 || s === 408 || s === 429 || s >= 500 || this.d.policy.qualifies(s, message)) {
        return { kind: 'retry', status: s, message, retryAfterMs: s === 429 ? retryAfter(up.headers['retry-after']) : undefined };
      }
      return {
        kind: 'client_error',
        status: s,
        body: text,
        contentType: String(up.headers['content-type'] ?? 'application/json'),
        message,
      };
    }
    const ctype = String(up.headers['content-type'] ?? '');
    ctx.upstreamWaitMs = msSince(t0);
    if (ctype.includes('text/event-stream')) {
      await this.streamSse(ctx, ch, keyIndex, upModel, up);
      return { kind: 'done' };
    }
    const jsonish = ctype.includes('json');
    if (!jsonish && !ctype.startsWith('text/')) {
      await this.pipeBytes(ctx, ch, upModel, up, ctype);
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
    this.begin(ctx, up.statusCode, { 'content-type': ctype || 'application/json', 'content-length': String(Buffer.byteLength(text)) });
    ctx.call.client.res.end(text);
    if (ctx.kind === 'responses' && isObj(json) && typeof json.id === 'string') this.remember(ctx, json.id, ch, keyIndex);
    const reported = passUsage(json);
    const outText =
      ctx.kind === 'responses' || ctx.kind === 'responses_compact'
        ? responseOutputText(json)
        : jsonish
          ? str((json as { text?: unknown } | null)?.text)
          : text;
    const usage = reported ?? (await this.fallbackUsage(ctx, outText));
    this.finish(ctx, ch, upModel, usage, up.statusCode, { upstreamUsage: !!reported });
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

  private begin(ctx: Ctx, status: number, headers: Record<string, string>): void {
    const { call } = ctx;
    if (ctx.started) return;
    ctx.started = true;
    call.client.hijack();
    const total = msSince(call.startedAt);
    ctx.firstByteMs = Math.round(total);
    call.client.res.writeHead(status, {
      ...headers,
      'x-request-id': call.requestId,
      'x-gatehouse-time-ms': Math.max(0, total - ctx.upstreamWaitMs).toFixed(2),
    });
  }

  /** Binary answers (speech audio): streamed through with the upstream's content type. */
  private pipeBytes(ctx: Ctx, ch: RuntimeChannel, upModel: string, up: UpstreamResponse, ctype: string): Promise<void> {
    const h: Record<string, string> = { 'content-type': ctype || 'application/octet-stream' };
    const len = up.headers['content-length'];
    if (typeof len === 'string') h['content-length'] = len;
    this.begin(ctx, up.statusCode, h);
    return this.pump(
      ctx,
      ch,
      upModel,
      up,
      () => {},
      async () => null,
    );
  }

  /**
   * SSE answers (Responses streams, image and speech events): forwarded byte for byte; events are read
   * on the side for usage (`response.completed` or any event with `usage`), the response id and output text.
   */
  private streamSse(ctx: Ctx, ch: RuntimeChannel, keyIndex: number, upModel: string, up: UpstreamResponse): Promise<void> {
    this.begin(ctx, 200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const framer = new SseFramer();
    const counter = new TokenCounter();
    let usage: TokenUsage | null = null;
    let idSeen = false;
    const onEvent = (ev: SseEvent) => {
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
        counter.add(j.delta);
      if (!idSeen && ctx.kind === 'responses' && isObj(j.response) && typeof j.response.id === 'string') {
        idSeen = true;
        this.remember(ctx, j.response.id, ch, keyIndex);
      }
      usage = passUsage(j) ?? usage;
    };
    if (ctx.kind === 'responses' && ctx.maxOut !== null && ctx.reserved > 0) {
      return this.meteredSse(ctx, ch, upModel, up, framer, counter, onEvent, () => usage);
    }
    return this.pump(
      ctx,
      ch,
      upModel,
      up,
      (chunk) => {
        for (const ev of framer.push(chunk)) onEvent(ev);
      },
      async () => {
        for (const ev of framer.end()) onEvent(ev);
        return usage ?? this.fallbackUsage(ctx, '', counter);
      },
      () => usage !== null,
    );
  }

  /**
   * A Responses stream whose output is priced, event by event: as for chat streams (relay.ts), the
   * output text is counted once 3 × its characters pass the `max_output_tokens` reserved, the reserve
   * is extended when an upstream goes past it, and when the balance cannot cover an event the stream
   * ends there with an `error` event (`insufficient_quota`), charged for the output written.
   */
  private meteredSse(
    ctx: Ctx,
    ch: RuntimeChannel,
    upModel: string,
    up: UpstreamResponse,
    framer: SseFramer,
    counter: TokenCounter,
    onEvent: (ev: SseEvent) => void,
    usage: () => TokenUsage | null,
  ): Promise<void> {
    const res = ctx.call.client.res;
    const body = up.body;
    const covered = ctx.maxOut ?? 0;
    const costAt = (out: number) => this.reserveOf(ctx, { inputTokens: ctx.estimate.inputTokens, outputTokens: out });
    const step = Math.max(1, costAt(covered) - costAt(0));
    void loadTokenizer();
    let gateOpen = false;
    let extensions = 0;
    const seen = new TokenCounter();
    return new Promise<void>((resolve) => {
      let done = false;
      let clientGone = false;
      let upstreamError: string | null = null;
      let cutAt: number | null = null;
      let holding = false;
      const items: Array<SseEvent | null> = [];
      const finish = () => {
        if (done) return;
        done = true;
        res.off('close', onClose);
        body.off('data', onData);
        if (cutAt !== null) body.destroy();
        if (!clientGone && !res.writableEnded) {
          res.end(
            cutAt !== null
              ? `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'insufficient_quota', message: 'quota exhausted: the balance cannot cover more output for this request', param: null })}\n\n`
              : '',
          );
        }
        const status = clientGone ? 499 : upstreamError ? 502 : up.statusCode;
        this.track(
          (async () => {
            let u: TokenUsage;
            if (cutAt !== null) {
              const reported = usage();
              u = {
                inputTokens: reported?.inputTokens || (await countTokens(promptOf(ctx.kind, ctx.call.body))),
                outputTokens: cutAt,
                cachedInputTokens: reported?.cachedInputTokens ?? 0,
              };
            } else {
              u = usage() ?? (await this.fallbackUsage(ctx, '', counter));
            }
            this.finish(ctx, ch, upModel, u, status, {
              upstreamUsage: cutAt === null && usage() !== null,
              clientGone,
              upstreamError,
              ...(cutAt !== null ? { cut: 'insufficient_quota' } : {}),
            });
          })(),
        ).then(resolve, resolve);
      };
      const write = (s: string) => {
        if (!s || clientGone) return;
        if (!res.write(s)) {
          body.pause();
          res.once('drain', () => {
            if (!holding) body.resume();
          });
        }
      };
      /** The output text an event adds (what the counter would be given). */
      const eventText = (ev: SseEvent): string => {
        const d = ev.data;
        if (!d || d[0] !== '{') return '';
        let j: Record<string, unknown>;
        try {
          j = JSON.parse(d) as Record<string, unknown>;
        } catch {
          return '';
        }
        const type = str(j.type) || ev.event || '';
        return type.endsWith('.delta') && typeof j.delta === 'string' && !type.includes('audio') && !type.includes('partial_image')
          ? j.delta
          : '';
      };
      const covers = (text: string): boolean => {
        if (!gateOpen && 3 * (seen.length + text.length) <= covered) return true;
        gateOpen = true;
        const before = seen.exact();
        const more = countTokensSync(text);
        return before !== null && more !== null && costAt(before + more) <= ctx.reserved;
      };
      const run = () => {
        let out = '';
        while (items.length && !holding && !done && !clientGone) {
          const ev = items.shift()!;
          if (!ev) {
            write(out);
            finish();
            return;
          }
          const text = eventText(ev);
          if (covers(text)) {
            seen.add(text);
            onEvent(ev);
            out += ev.raw;
            continue;
          }
          write(out);
          out = '';
          holding = true;
          body.pause();
          void (async () => {
            await loadTokenizer();
            const now = (seen.exact() ?? 0) + (await countTokens(text));
            const need = costAt(now) - ctx.reserved;
            if (need <= 0) return true;
            for (const amt of step > need ? [step, need] : [need]) {
              try {
                if (await this.d.ledger.extend(ctx.payer, ctx.call.requestId, ++extensions, amt)) {
                  ctx.reserved += amt;
                  return true;
                }
              } catch (e) {
                if ((e as GatewayError).code !== 'insufficient_quota') {
                  this.d.core.log.error(
                    { err: (e as Error).message, stack: (e as Error).stack, requestId: ctx.call.requestId },
                    'reserve extension failed',
                  );
                  return false;
                }
              }
            }
            return false;
          })().then((ok) => {
            if (done || clientGone) return;
            if (!ok) {
              cutAt = seen.exact() ?? 0;
              finish();
              return;
            }
            seen.add(text);
            onEvent(ev);
            write(ev.raw);
            holding = false;
            run();
            if (!holding && !done) body.resume();
          });
          return;
        }
        write(out);
      };
      const onData = (chunk: Buffer) => {
        if (clientGone || done) return;
        for (const ev of framer.push(chunk)) items.push(ev);
        if (!holding) run();
      };
      const onClose = () => {
        if (res.writableFinished) return;
        clientGone = true;
        body.destroy();
        finish();
      };
      res.on('close', onClose);
      body.on('data', onData);
      body.on('error', (e: Error) => {
        if (!clientGone && cutAt === null) upstreamError = networkMessage(e);
        finish();
      });
      body.on('end', () => {
        for (const ev of framer.end()) items.push(ev);
        items.push(null);
        if (!holding) run();
      });
    });
  }

  /** Copies the upstream body to the caller with backpressure, then bills (status 499 when the caller left). */
  private pump(
    ctx: Ctx,
    ch: RuntimeChannel,
    upModel: string,
    up: UpstreamResponse,
    onChunk: (b: Buffer) => void,
    usageAtEnd: () => Promise<TokenUsage | null>,
    reported: () => boolean = () => false,
  ): Promise<void> {
    const res = ctx.call.client.res;
    const body = up.body;
    return new Promise<void>((resolve) => {
      let done = false;
      let clientGone = false;
      let upstreamError: string | null = null;
      const finish = () => {
        if (done) return;
        done = true;
        res.off('close', onClose);
        if (!clientGone && !res.writableEnded) res.end();
        const status = clientGone ? 499 : upstreamError ? 502 : up.statusCode;
        this.track(
          (async () => {
            const u = (await usageAtEnd()) ?? (await this.fallbackUsage(ctx, ''));
            this.finish(ctx, ch, upModel, u, status, { upstreamUsage: reported(), clientGone, upstreamError });
          })(),
        ).then(resolve, resolve);
      };
      const onClose = () => {
        if (res.writableFinished) return;
        clientGone = true;
        body.destroy();
        finish();
      };
      res.on('close', onClose);
      body.on('data', (chunk: Buffer) => {
        if (clientGone) return;
        onChunk(chunk);
        if (!res.write(chunk)) {
          body.pause();
          res.once('drain', () => body.resume());
        }
      });
      body.on('error', (e: Error) => {
        if (!clientGone) upstreamError = networkMessage(e);
        finish();
      });
      body.on('end', finish);
    });
  }

  private finish(ctx: Ctx, ch: RuntimeChannel, upModel: string, usage: TokenUsage, status: number, other: Record<string, unknown>): void {
    const { call } = ctx;
    ctx.admission?.end(usage.inputTokens + usage.outputTokens);
    const actual = this.cost(ctx, usage);
    const grant = ledgerGrant(ctx.payer, call.requestId, ctx.reserved);
    ctx.reserved = 0;
    // An upstream that bills more output than the max_output_tokens it was sent is noted against its channel.
    const overMax =
      ctx.maxOut !== null && usage.outputTokens > ctx.maxOut
        ? { upstream_over_max_tokens: { sent: ctx.maxOut, n: 1, billed: usage.outputTokens } }
        : null;
    settleThenLog(this.d, this.track, grant, actual, 0, (charged, extra = {}) => {
      if (overMax || extra.shortfall) {
        this.d.core.log.warn(
          { requestId: call.requestId, channel: ch.id, ...overMax, shortfall: extra.shortfall },
          'upstream billed beyond the reserve',
        );
      }
      this.d.logs.write(
        callLogRow(ctx, ch, upModel, {
          type: 'consume',
          status_code: status,
          quota: charged,
          latency_ms: Math.round(msSince(call.startedAt)),
          prompt_tokens: usage.inputTokens,
          completion_tokens: usage.outputTokens,
          cached_tokens: usage.cachedInputTokens ?? 0,
          other: JSON.stringify({
            ...other,
            ...extra,
            ...overMax,
            ...(ctx.mult > 1 ? { n: ctx.mult } : {}),
            attempts: ctx.attempts,
            reasoning_tokens: usage.reasoningTokens ?? 0,
          }),
        }),
      );
    });
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
      throw new GatewayError(
        404,
        'not_found',
        `No response found with id '${o.id.slice(0, 80)}' (its channel no longer exists).`,
        'invalid_request_error',
      );
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
      estimate: { inputTokens: 0, outputTokens: 0 },
      maxOut: null,
      payer: { userId: o.principal.userId, keyId: o.principal.keyId, unlimitedKey: true },
      reserved: 0,
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
      throw new GatewayError(502, 'upstream_error', message);
    }
    ctx.upstreamWaitMs = msSince(t0);
    const ctype = String(up.headers['content-type'] ?? 'application/json');
    if (ctype.includes('text/event-stream')) {
      this.begin(ctx, up.statusCode, { 'content-type': ctype, 'cache-control': 'no-cache' });
      await this.pump(
        ctx,
        ch,
        rec.model,
        up,
        () => {},
        async () => ({ inputTokens: 0, outputTokens: 0 }),
      );
      return true;
    }
    let text = await readText(up.body, MAX_BODY);
    if (up.statusCode >= 400) text = redactSecrets(text, sentSecrets([key], headers, url));
    ctx.upstreamWaitMs = msSince(t0);
    this.begin(ctx, up.statusCode, { 'content-type': ctype, 'content-length': String(Buffer.byteLength(text)) });
    o.client.res.end(text);
    this.finish(ctx, ch, upstreamModel(ch, rec.model), { inputTokens: 0, outputTokens: 0 }, up.statusCode, { op: o.op });
    return true;
  }
}
