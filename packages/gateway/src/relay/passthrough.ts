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
import type { Payer } from '../billing/ledger.ts';
import { quotaUnits, usdCost, type ModelPrice, type TokenUsage } from '../billing/prices.ts';
import { countTokens, estimateTokens, TokenCounter } from '../billing/tokens.ts';
import { echo, GatewayError } from '../platform/errors.ts';
import { ChannelType } from './channel-types.ts';
import { runAttempts, type AttemptOutcome } from './attempts.ts';
import { callLogRow, logAttemptError, refundGrant, runReserved, settleThenLog } from './accounting.ts';
import { ledgerGrant } from '../billing/allowance.ts';
import type { RuntimeChannel } from './channels.ts';
import { upstreamErrorMessage } from './formats/index.ts';
import { encodeMultipart, type MultipartBody, type MultipartFile } from './multipart.ts';
import { applyParamOverride, DEFAULT_AZURE_API_VERSION, hasOverride, upstreamHeaders, upstreamModel } from './providers.ts';
import { networkMessage, retryAfter, type ClientConn, type RelayDeps, type RelayPrincipal } from './relay.ts';
import { ResponseStore } from './response-store.ts';
import { SseFramer, type SseEvent } from './sse.ts';
import { readText, type UpstreamResponse } from './upstream.ts';

export type PassKind =
  | 'images' | 'image_edits' | 'responses' | 'responses_compact' | 'audio_transcriptions' | 'audio_translations'
  | 'audio_speech' | 'rerank' | 'moderations' | 'alpha_search';

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
  images: 'images/generations', image_edits: 'images/edits', responses: 'responses', responses_compact: 'responses/compact',
  audio_transcriptions: 'audio/transcriptions', audio_translations: 'audio/translations', audio_speech: 'audio/speech',
  rerank: 'rerank', moderations: 'moderations', alpha_search: 'alpha/search',
};

/** Kinds Azure OpenAI serves (deployment URLs; Responses at `/openai/responses`). */
const AZURE_KINDS = new Set<PassKind>(['images', 'image_edits', 'audio_transcriptions', 'audio_translations', 'audio_speech', 'responses', 'moderations']);
const STREAMABLE = new Set<PassKind>(['images', 'image_edits', 'responses', 'audio_transcriptions', 'audio_speech']);

/** Output tokens reserved per image for models with token prices (a 1024² high-quality image). */
export const IMAGE_OUTPUT_ALLOWANCE = 4160;
const OUTPUT_ALLOWANCE = 1024;
const DEFAULT_AZURE_RESPONSES_API_VERSION = '2025-04-01-preview';
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
  endpoint: string;
  requestId: string;
  startedAt: bigint;
  client: ClientConn;
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
  attempts: Array<{ channel: number; status: number; error?: string }>;
  upstreamWaitMs: number;
  firstByteMs: number | null;
  started: boolean;
}


const msSince = (t: bigint): number => Number(process.hrtime.bigint() - t) / 1e6;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Whether a channel can serve a kind: OpenAI-compatible channels all of them (alpha search only when declared), Azure most. */
export function servesKind(ch: RuntimeChannel, kind: PassKind): boolean {
  if (ch.type === ChannelType.azure) return AZURE_KINDS.has(kind);
  if (ch.type !== ChannelType.openai) return false;
  return kind !== 'alpha_search' || supportsAlphaSearch(ch);
}

export function supportsAlphaSearch(ch: RuntimeChannel): boolean {
  const s = ch.settings.supports;
  return Array.isArray(s) && s.includes('alpha_search');
}

function openaiUrl(ch: RuntimeChannel, path: string): URL {
  const base = ch.baseUrl;
  return new URL(/\/v\d+$/.test(base) ? `${base}/${path}` : `${base}/v1/${path}`);
}

function azureVersion(ch: RuntimeChannel, responses: boolean): string {
  const k = responses ? 'responses_api_version' : 'api_version';
  const v = ch.settings[k];
  return typeof v === 'string' && v ? v : responses ? DEFAULT_AZURE_RESPONSES_API_VERSION : DEFAULT_AZURE_API_VERSION;
}

export function passUrl(ch: RuntimeChannel, kind: PassKind, model: string): URL {
  if (ch.type !== ChannelType.azure) return openaiUrl(ch, UPSTREAM_PATH[kind]);
  if (kind === 'responses') return new URL(`${ch.baseUrl}/openai/responses?api-version=${encodeURIComponent(azureVersion(ch, true))}`);
  const deployments = (ch.settings.deployments ?? {}) as Record<string, string>;
  const dep = deployments[model] ?? model;
  return new URL(`${ch.baseUrl}/openai/deployments/${encodeURIComponent(dep)}/${UPSTREAM_PATH[kind]}?api-version=${encodeURIComponent(azureVersion(ch, false))}`);
}

/** Where a read of a stored response goes (`suffix` '' | '/cancel' | '/input_items'). */
function responseUrl(ch: RuntimeChannel, id: string, suffix: string, query: string): URL {
  const q = query ? query.replace(/^\?/, '') : '';
  if (ch.type === ChannelType.azure) {
    return new URL(`${ch.baseUrl}/openai/responses/${encodeURIComponent(id)}${suffix}?api-version=${encodeURIComponent(azureVersion(ch, true))}${q ? `&${q}` : ''}`);
  }
  const u = openaiUrl(ch, `responses/${encodeURIComponent(id)}${suffix}`);
  if (q) u.search = q;
  return u;
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
      if (b.input === undefined || b.input === null || b.input === '' || (Array.isArray(b.input) && b.input.length === 0)) throw bad('"input" is required');
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
    case 'images': case 'image_edits': return str(b.prompt);
    case 'responses': case 'responses_compact': return str(b.instructions) + '\n' + textOf(b.input);
    case 'rerank': return textOf(b.query) + '\n' + textOf(b.documents);
    case 'moderations': return textOf(b.input);
    case 'audio_speech': return str(b.input);
    default: return '';
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
  const outDet = isObj(u.output_tokens_details) ? u.output_tokens_details : isObj(u.completion_tokens_details) ? u.completion_tokens_details : {};
  const input = n(u.input_tokens) || n(u.prompt_tokens) || (u.output_tokens === undefined && u.completion_tokens === undefined ? n(u.total_tokens) : 0);
  const output = n(u.output_tokens) || n(u.completion_tokens);
  if (!input && !output) return null;
  return { inputTokens: input, outputTokens: output, cachedInputTokens: n(inDet.cached_tokens), cacheWriteTokens: 0, reasoningTokens: n(outDet.reasoning_tokens) };
}

export class PassThrough {
  readonly responses: ResponseStore;

  constructor(private readonly d: RelayDeps, private readonly track: <T>(p: Promise<T>) => Promise<T>) {
    this.responses = new ResponseStore(d.core);
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
        throw new GatewayError(503, 'no_available_channel', `no channel that supports alpha search serves model "${echo(model)}" in group "${principal.group}"`);
      }
      throw new GatewayError(503, 'no_available_channel', `no available channel for model "${echo(model)}" in group "${principal.group}"`);
    }
    const price = this.d.prices.get(model);
    if (!price && !this.d.core.config.relayAllowUnpricedModels) {
      throw new GatewayError(403, 'model_price_not_set', `model "${echo(model)}" has no price set; an administrator must set one before it can be used`);
    }
    const nRaw = Number(body.n ?? 1);
    const mult = (kind === 'images' || kind === 'image_edits') && Number.isFinite(nRaw) ? Math.min(Math.max(1, Math.floor(nRaw)), 128) : 1;
    const stream = STREAMABLE.has(kind) && (body.stream === true || body.stream === 'true');
    const ctx: Ctx = {
      call, kind, model, stream, price, mult,
      payer: { userId: principal.userId, keyId: principal.keyId, unlimitedKey: principal.keyId === null || principal.unlimitedQuota },
      estimate: { inputTokens: 0, outputTokens: 0 }, reserved: 0, attempts: [], upstreamWaitMs: 0, firstByteMs: null, started: false,
    };
    ctx.estimate = this.estimateUsage(ctx);
    ctx.reserved = this.cost(ctx, ctx.estimate);
    if (ctx.reserved > 0) await this.d.ledger.reserve(ctx.payer, call.requestId, ctx.reserved);
    await runReserved(this.d.core, ctx, () => this.run(ctx, candidates), () => this.refund(ctx));
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

  private estimateUsage(ctx: Ctx): TokenUsage {
    const b = ctx.call.body;
    const prompt = promptOf(ctx.kind, b);
    switch (ctx.kind) {
      case 'images': case 'image_edits':
        return { inputTokens: estimateTokens(prompt) + 8, outputTokens: IMAGE_OUTPUT_ALLOWANCE * ctx.mult };
      case 'audio_speech':
        return { inputTokens: prompt.length, outputTokens: 0 };
      case 'audio_transcriptions': case 'audio_translations':
        return { inputTokens: 0, outputTokens: OUTPUT_ALLOWANCE };
      case 'rerank': case 'moderations':
        return { inputTokens: estimateTokens(prompt) + 8, outputTokens: 0 };
      case 'responses': case 'responses_compact': {
        const max = Number(b.max_output_tokens);
        return { inputTokens: estimateTokens(prompt) + 8, outputTokens: Number.isFinite(max) && max > 0 ? max : OUTPUT_ALLOWANCE };
      }
      default:
        return { inputTokens: 0, outputTokens: 0 };
    }
  }

  /** The usage billed when the upstream reported none (see docs/relay.md, "Other OpenAI-format calls"). */
  private async fallbackUsage(ctx: Ctx, outputText: string, counter?: TokenCounter): Promise<TokenUsage> {
    const prompt = promptOf(ctx.kind, ctx.call.body);
    const out = async () => (counter ? counter.total() : outputText ? countTokens(outputText) : 0);
    switch (ctx.kind) {
      case 'images': case 'image_edits': case 'audio_speech':
        return ctx.estimate;
      case 'audio_transcriptions': case 'audio_translations':
        return { inputTokens: 0, outputTokens: await out() };
      case 'rerank': case 'moderations':
        return { inputTokens: await countTokens(prompt), outputTokens: 0 };
      case 'responses': case 'responses_compact':
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
    return runAttempts(this.d, ctx, candidates, {
      attempt: (c, ch, key, keyIndex) => this.attempt(c, ch, key, keyIndex),
      logError: (c, ch, status, message, n) => logAttemptError(this.d.logs, c, ch, status, message, n),
      refund: (c) => this.refund(c),
      begin: (c, status, headers) => this.begin(c, status, headers),
    }, { model: ctx.model, group: call.principal.group, res: call.client.res });
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
    if (upModel === call.body.model && !hasOverride(ch)) return { body: call.raw };
    const b: Record<string, unknown> = { ...call.body, model: upModel };
    applyParamOverride(b, ch.paramOverride);
    return { body: JSON.stringify(b) };
  }

  private async attempt(ctx: Ctx, ch: RuntimeChannel, key: string, keyIndex: number): Promise<AttemptOutcome> {
    const upModel = upstreamModel(ch, ctx.model);
    const { body, multipart } = this.buildBody(ctx, ch, upModel);
    const headers = upstreamHeaders(ch, key, ctx.stream);
    if (multipart) {
      headers['content-type'] = multipart.contentType;
      headers['content-length'] = String(multipart.length);
    }
    if (ctx.kind === 'audio_speech' && !ctx.stream) headers.accept = '*/*';
    else if (ctx.kind === 'audio_transcriptions' || ctx.kind === 'audio_translations') headers.accept = '*/*';
    const t0 = process.hrtime.bigint();
    const up = await this.d.pools.send({ url: passUrl(ch, ctx.kind, upModel), method: 'POST', headers, body });
    if (up.statusCode >= 400) {
      const text = await readText(up.body, 256 * 1024);
      const message = upstreamErrorMessage('openai', up.statusCode, text);
      const s = up.statusCode;
      if (s === 401 || s === 403 || s === 408 || s === 429 || s >= 500 || this.d.policy.qualifies(s, message)) {
        return { kind: 'retry', status: s, message, retryAfterMs: s === 429 ? retryAfter(up.headers['retry-after']) : undefined };
      }
      return { kind: 'client_error', status: s, body: text, contentType: String(up.headers['content-type'] ?? 'application/json'), message };
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
    const outText = ctx.kind === 'responses' || ctx.kind === 'responses_compact'
      ? responseOutputText(json)
      : jsonish ? str((json as { text?: unknown } | null)?.text) : text;
    const usage = reported ?? (await this.fallbackUsage(ctx, outText));
    this.finish(ctx, ch, upModel, usage, up.statusCode, { upstreamUsage: !!reported });
    return { kind: 'done' };
  }

  private remember(ctx: Ctx, id: string, ch: RuntimeChannel, keyIndex: number): void {
    if (ctx.call.body.store === false) return;
    void this.track(this.responses.remember(id, { userId: ctx.call.principal.userId, channelId: ch.id, keyIndex, model: ctx.model }).catch((e) => {
      this.d.core.log.warn({ err: (e as Error).message, requestId: ctx.call.requestId }, 'could not record the response id');
    }));
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
    return this.pump(ctx, ch, upModel, up, () => {}, async () => null);
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
      try { j = JSON.parse(data) as Record<string, unknown>; } catch { return; }
      const type = str(j.type) || ev.event || '';
      if (type.endsWith('.delta') && typeof j.delta === 'string' && !type.includes('audio') && !type.includes('partial_image')) counter.add(j.delta);
      if (!idSeen && ctx.kind === 'responses' && isObj(j.response) && typeof j.response.id === 'string') {
        idSeen = true;
        this.remember(ctx, j.response.id, ch, keyIndex);
      }
      usage = passUsage(j) ?? usage;
    };
    return this.pump(ctx, ch, upModel, up, (chunk) => { for (const ev of framer.push(chunk)) onEvent(ev); }, async () => {
      for (const ev of framer.end()) onEvent(ev);
      return usage ?? this.fallbackUsage(ctx, '', counter);
    }, () => usage !== null);
  }

  /** Copies the upstream body to the caller with backpressure, then bills (status 499 when the caller left). */
  private pump(
    ctx: Ctx, ch: RuntimeChannel, upModel: string, up: UpstreamResponse, onChunk: (b: Buffer) => void,
    usageAtEnd: () => Promise<TokenUsage | null>, reported: () => boolean = () => false,
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
        this.track((async () => {
          const u = (await usageAtEnd()) ?? (await this.fallbackUsage(ctx, ''));
          this.finish(ctx, ch, upModel, u, status, { upstreamUsage: reported(), clientGone, upstreamError });
        })()).then(resolve, resolve);
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
    const actual = this.cost(ctx, usage);
    const grant = ledgerGrant(ctx.payer, call.requestId, ctx.reserved);
    ctx.reserved = 0;
    settleThenLog(this.d, this.track, grant, actual, 0, (charged, extra = {}) => this.d.logs.write(callLogRow(ctx, ch, upModel, {
      type: 'consume', status_code: status, quota: charged, latency_ms: Math.round(msSince(call.startedAt)),
      prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, cached_tokens: usage.cachedInputTokens ?? 0,
      other: JSON.stringify({ ...other, ...extra, ...(ctx.mult > 1 ? { n: ctx.mult } : {}), attempts: ctx.attempts, reasoning_tokens: usage.reasoningTokens ?? 0 }),
    })));
  }

  // ---------- reads of relay-created responses ----------

  /**
   * GET / DELETE / cancel / input_items of a Responses id this relay created for the caller: sent to
   * the channel and key that created it, the answer passed back as it is. Free; one log row. Returns
   * false when the id is not one of the caller's relay-created responses.
   */
  async responseOp(o: {
    principal: RelayPrincipal; id: string; op: 'get' | 'delete' | 'cancel' | 'input_items'; query: string;
    endpoint: string; requestId: string; startedAt: bigint; client: ClientConn;
  }): Promise<boolean> {
    const rec = await this.responses.lookup(o.id, o.principal.userId);
    if (!rec) return false;
    const ch = this.d.channels.get(rec.channelId);
    if (!ch) throw new GatewayError(404, 'not_found', `No response found with id '${o.id.slice(0, 80)}' (its channel no longer exists).`, 'invalid_request_error');
    const key = ch.keys[rec.keyIndex] ?? ch.keys[0] ?? '';
    const suffix = o.op === 'cancel' ? '/cancel' : o.op === 'input_items' ? '/input_items' : '';
    const method = o.op === 'delete' ? 'DELETE' : o.op === 'cancel' ? 'POST' : 'GET';
    const headers = upstreamHeaders(ch, key, /[?&]stream=true/.test(o.query));
    delete headers['content-type'];
    const call: PassCall = { kind: 'responses', principal: o.principal, body: {}, raw: Buffer.alloc(0), endpoint: o.endpoint, requestId: o.requestId, startedAt: o.startedAt, client: o.client };
    const ctx: Ctx = {
      call, kind: 'responses', model: rec.model, stream: false, price: null, mult: 1, estimate: { inputTokens: 0, outputTokens: 0 },
      payer: { userId: o.principal.userId, keyId: o.principal.keyId, unlimitedKey: true }, reserved: 0, attempts: [], upstreamWaitMs: 0, firstByteMs: null, started: false,
    };
    const t0 = process.hrtime.bigint();
    let up: UpstreamResponse;
    try {
      up = await this.d.pools.send({ url: responseUrl(ch, o.id, suffix, o.query), method, headers });
    } catch (e) {
      const message = networkMessage(e);
      logAttemptError(this.d.logs, ctx, ch, 0, message, 1);
      throw new GatewayError(502, 'upstream_error', message);
    }
    ctx.upstreamWaitMs = msSince(t0);
    const ctype = String(up.headers['content-type'] ?? 'application/json');
    if (ctype.includes('text/event-stream')) {
      this.begin(ctx, up.statusCode, { 'content-type': ctype, 'cache-control': 'no-cache' });
      await this.pump(ctx, ch, rec.model, up, () => {}, async () => ({ inputTokens: 0, outputTokens: 0 }));
      return true;
    }
    const text = await readText(up.body, MAX_BODY);
    ctx.upstreamWaitMs = msSince(t0);
    this.begin(ctx, up.statusCode, { 'content-type': ctype, 'content-length': String(Buffer.byteLength(text)) });
    o.client.res.end(text);
    this.finish(ctx, ch, upstreamModel(ch, rec.model), { inputTokens: 0, outputTokens: 0 }, up.statusCode, { op: o.op });
    return true;
  }
}
