/**
 * The model-call hot path: access check → channel (in memory) → reserve quota → upstream (pooled,
 * streamed; SSE read on the fly only for usage) → settle → log (queued).
 *
 * Retries: on a connection error, timeout, 429, 5xx or a failure that counts towards auto-disable
 * (AutoDisableStatusCodes / AutoDisableKeywords), the next attempt goes to a channel not yet tried in
 * this request (highest priority tier first, falling to the next tier), up to `RetryTimes` more
 * attempts; relay/policy.ts decides cooldowns and disabling. Nothing is retried once stream bytes
 * reached the caller. Other upstream 4xx are returned to the caller as they are.
 *
 * Billing is by the client's model name; a channel's model mapping only changes what is sent upstream.
 */
import type { ServerResponse } from 'node:http';
import type { Core } from '../core.ts';
import type { KeyPrincipal } from '../accounts/types.ts';
import { checkModelAccess } from '../accounts/keys.ts';
import { errorBody } from '../http/errors.ts';
import type { Ledger, Payer } from '../billing/ledger.ts';
import { ledgerGrant, type Grant, type QuotaAllowances } from '../billing/allowance.ts';
import type { ModelPrice, PriceBook, TokenUsage } from '../billing/prices.ts';
import { countTokens, estimateTokens, TokenCounter } from '../billing/tokens.ts';
import { echo, GatewayError } from '../platform/errors.ts';
import type { LogWriter } from '../logs/writer.ts';
import { Pending } from '../platform/pending.ts';
import type { ChannelIndex, RuntimeChannel } from './channels.ts';
import type { RelayPolicy } from './policy.ts';
import { runAttempts, type AttemptOutcome } from './attempts.ts';
import { callLogRow, logAttemptError, refundGrant, runReserved, settleThenLog } from './accounting.ts';
import {
  applyParamOverride, channelFormat, hasOverride, supportsKind, upstreamHeaders, upstreamModel, upstreamUrl, type RelayKind,
} from './providers.ts';
import { readText, type UpstreamPools, type UpstreamResponse } from './upstream.ts';
import { SseFramer, type SseEvent } from './sse.ts';
import {
  createStreamDecoder, createStreamEncoder, decodeRequest, decodeResponse, encodeRequest, encodeResponse, upstreamErrorMessage,
  usageFromResponse, type CanonicalRequest, type CanonicalResponse, type CanonicalStreamEvent, type Usage, type WireFormat,
} from './formats/index.ts';
import { embedTexts, geminiEmbedFromOpenAI, geminiEmbedPassBody, openaiEmbedFromGemini, type GeminiEmbedAction } from './embed.ts';
import { isPassCall, PASS_ENDPOINTS, PassThrough, type PassCall } from './passthrough.ts';

/**
 * Longest prompt text the count-tokens endpoints count (more than any model's context). Counting runs
 * off the event loop (billing/tokens.ts); the bound keeps one request from holding a counter for long.
 */
export const COUNT_MAX_CHARS = 8 * 1024 * 1024;

/** Output tokens reserved when the caller sets no max_tokens. */
export const DEFAULT_OUTPUT_ALLOWANCE = 1024;
/**
 * A settlement is written after the response; it may wait this long to share a commit with other
 * movements (on SQLite, usually the next request's reserve), so a model call costs about one commit.
 */
const SETTLE_DEFER_MS = 5;

/** The caller's connection. `hijack` hands the raw response to the relay (called once, before the first byte). */
export interface ClientConn {
  res: ServerResponse;
  hijack(): void;
}

/**
 * Who pays for a call: an API key, or a logged-in user without a key (the playground: keyId and keyName
 * null, no key cap, every model the group serves).
 */
export type RelayPrincipal = Omit<KeyPrincipal, 'keyId' | 'keyName'> & { keyId: number | null; keyName: string | null };

export interface RelayCall {
  kind: RelayKind;
  principal: RelayPrincipal;
  body: Record<string, unknown>;
  /** The request body as received (sent unchanged when nothing needs to change). */
  raw: Buffer;
  endpoint: string;
  requestId: string;
  /** process.hrtime.bigint() when the request arrived. */
  startedAt: bigint;
  client: ClientConn;
  /** Model named by the URL (legacy /v1/engines/{model}/embeddings, Gemini model actions). */
  modelFromPath?: string;
  /** The wire format the caller speaks (default `openai`). */
  inbound?: WireFormat;
  /** Streaming chosen by the URL (Gemini `:streamGenerateContent`); otherwise `body.stream === true`. */
  stream?: boolean;
  /** Gemini stream without `alt=sse`: the answer is one JSON array of response chunks. */
  jsonArrayStream?: boolean;
  /** Gemini embedding action (kind `embeddings`, inbound `gemini`). */
  geminiAction?: GeminiEmbedAction;
}

interface AttemptRecord {
  channel: number;
  status: number;
  error?: string;
}


interface Ctx {
  call: RelayCall;
  /** The caller's wire format. */
  cf: WireFormat;
  model: string;
  stream: boolean;
  price: ModelPrice | null;
  payer: Payer;
  reserved: number;
  /** The reserve: from a node-local hold or the ledger (null until reserved). */
  grant: Grant | null;
  attempts: AttemptRecord[];
  /** Upstream time (ms) spent before the first byte was written (excluded from the gateway's time). */
  upstreamWaitMs: number;
  firstByteMs: number | null;
  canonical: CanonicalRequest | null;
  promptText: string | null;
  started: boolean;
}

export interface RelayDeps {
  core: Core;
  channels: ChannelIndex;
  prices: PriceBook;
  ledger: Ledger;
  allowances: QuotaAllowances;
  logs: LogWriter;
  pools: UpstreamPools;
  policy: RelayPolicy;
}

const msSince = (t: bigint): number => Number(process.hrtime.bigint() - t) / 1e6;

export class Relay {
  /** Chat, completions and embeddings calls in progress on this node. */
  private active = 0;
  private readonly pending = new Pending();
  private readonly track = this.pending.track;
  /** Images, Responses, audio, rerank, moderations, alpha search (relay/passthrough.ts). */
  readonly pass: PassThrough;

  constructor(private readonly d: RelayDeps) {
    this.pass = new PassThrough(d, this.track);
  }

  /** Whether the relay serves an endpoint that the task protocols hand over for models no plugin claims. */
  handles(endpoint: string): boolean {
    return endpoint in PASS_ENDPOINTS;
  }

  /** Resolves when every in-flight settlement has been written (shutdown). */
  drain(): Promise<void> {
    return this.pending.drain();
  }

  /** Models the key may use and some enabled channel serves for its group. */
  listModels(p: Pick<RelayPrincipal, 'group' | 'models'>): string[] {
    const all = this.d.channels.modelsFor(p.group);
    return (p.models ? all.filter((m) => p.models!.has(m)) : all).sort();
  }

  /**
   * Counts the prompt tokens of a request in `format` with the local tokenizer (o200k_base), for
   * `/v1/messages/count_tokens` and Gemini `:countTokens`. No upstream call and no charge; the model
   * must be one the caller may use. Images count 1000 tokens each (as in the estimate). Long prompts are
   * counted by the tokenizer's worker threads; over COUNT_MAX_CHARS characters the answer is 413.
   */
  async countPromptTokens(p: RelayPrincipal, format: WireFormat, model: string, body: Record<string, unknown>): Promise<number> {
    if (p.models) checkModelAccess(p as KeyPrincipal, model);
    if (!this.listModels(p).includes(model)) throw new GatewayError(404, 'model_not_found', `model "${echo(model)}" is not available in group "${p.group}"`);
    await this.assertSomeBalance(p);
    const req = decodeRequest(format, body);
    const text = canonicalPromptText(req);
    if (text.length > COUNT_MAX_CHARS) {
      throw new GatewayError(413, 'request_too_large', `the prompt is too long to count: ${text.length} characters, the limit is ${COUNT_MAX_CHARS}`);
    }
    return (await countTokens(text)) + canonicalImageCount(req) * 1000;
  }

  /**
   * Free work (token counting) is for callers who could pay for a call: 429 `insufficient_quota` when
   * the user's balance, or a capped key's remaining quota, is used up.
   */
  private async assertSomeBalance(p: RelayPrincipal): Promise<void> {
    const db = this.d.core.h.db;
    const u = await db.selectFrom('users').select('quota').where('id', '=', p.userId).executeTakeFirst();
    if (!u || Number(u.quota) <= 0) throw new GatewayError(429, 'insufficient_quota', 'quota exhausted: the account balance is too low for this request');
    if (p.keyId !== null && !p.unlimitedQuota) {
      const k = await db.selectFrom('api_keys').select('remain_quota').where('id', '=', p.keyId).executeTakeFirst();
      if (!k || Number(k.remain_quota) <= 0) throw new GatewayError(429, 'insufficient_quota', 'quota exhausted: this API key has used up its quota');
    }
  }

  /**
   * Serves one model call. Throws GatewayError (rendered by the route) when it fails before the
   * response started; once started it never throws.
   */
  async handle(call: RelayCall | PassCall): Promise<void> {
    if (isPassCall(call)) return this.pass.handle(call);
    const { body, principal } = call;
    const cf = call.inbound ?? 'openai';
    const model = call.modelFromPath ?? body.model;
    if (typeof model !== 'string' || !model) throw new GatewayError(400, 'invalid_request', '"model" is required and must be a string');
    let canonical: CanonicalRequest | null = null;
    if (cf === 'openai') {
      if (call.kind === 'chat' && !Array.isArray(body.messages)) throw new GatewayError(400, 'invalid_request', '"messages" is required and must be an array');
      if (call.kind === 'completions' && body.prompt === undefined) throw new GatewayError(400, 'invalid_request', '"prompt" is required');
      if (call.kind === 'embeddings' && body.input === undefined) throw new GatewayError(400, 'invalid_request', '"input" is required');
    } else if (call.kind === 'chat') {
      // Other formats are decoded up front: it validates the request and gives the prompt for the estimate.
      canonical = decodeRequest(cf, body);
      canonical.model = model;
      if (call.stream !== undefined) canonical.stream = call.stream;
    } else if (call.kind === 'embeddings' && cf === 'gemini') {
      if (embedTexts(body, call.geminiAction ?? 'embedContent') === null) {
        throw new GatewayError(400, 'invalid_request', call.geminiAction === 'batchEmbedContents' ? '"requests" must be a list of {content:{parts:[{text}]}}' : '"content" must be {parts:[{text}]}');
      }
    }
    if (principal.models) checkModelAccess(principal as KeyPrincipal, model);
    const candidates = this.d.channels.candidates(principal.group, model).filter((c) => supportsKind(c, call.kind, cf));
    if (candidates.length === 0) {
      // Callers of the other formats get "not found" for a model nothing serves (their SDKs retry 503s).
      if (cf !== 'openai' && !this.d.channels.modelsFor(principal.group).includes(model)) {
        throw new GatewayError(404, 'model_not_found', `model "${echo(model)}" is not available in group "${principal.group}"`);
      }
      throw new GatewayError(503, 'no_available_channel', `no available channel for model "${echo(model)}" in group "${principal.group}"`);
    }
    const price = this.d.prices.get(model);
    if (!price && !this.d.core.config.relayAllowUnpricedModels) {
      throw new GatewayError(403, 'model_price_not_set', `model "${echo(model)}" has no price set; an administrator must set one before it can be used`);
    }
    const stream = call.stream ?? (call.kind !== 'embeddings' && body.stream === true);
    const ctx: Ctx = {
      call, cf, model, stream, price,
      payer: { userId: principal.userId, keyId: principal.keyId, unlimitedKey: principal.keyId === null || principal.unlimitedQuota },
      reserved: 0, grant: null, attempts: [], upstreamWaitMs: 0, firstByteMs: null, canonical, promptText: null, started: false,
    };
    this.active++;
    try {
      await this.reserveAndRun(ctx, candidates);
    } finally {
      this.active--;
    }
  }

  private async reserveAndRun(ctx: Ctx, candidates: RuntimeChannel[]): Promise<void> {
    const { call } = ctx;
    const { principal } = call;
    const price = ctx.price;
    // Reserve the estimate before any upstream work.
    const estimate = this.estimateUsage(ctx);
    ctx.reserved = this.d.prices.cost(price, estimate, principal.group);
    if (ctx.reserved > 0) {
      // From a hold of this node the reserve is synchronous: no await, no turn of the event loop.
      const g = this.d.allowances.reserve(ctx.payer, call.requestId, ctx.reserved);
      ctx.grant = g instanceof Promise ? await g : g;
    }
    await runReserved(this.d.core, ctx, () => this.run(ctx, candidates), () => this.refund(ctx));
  }

  private run(ctx: Ctx, candidates: RuntimeChannel[]): Promise<void> {
    const { call } = ctx;
    return runAttempts(this.d, ctx, candidates, {
      attempt: (c, ch, key) => this.attempt(c, ch, key),
      logError: (c, ch, status, message, n) => logAttemptError(this.d.logs, c, ch, status, message, n),
      refund: (c) => this.refund(c),
      begin: (c, status, headers) => this.begin(c, status, headers),
    }, { model: ctx.model, group: call.principal.group, res: call.client.res });
  }

  private async refund(ctx: Ctx): Promise<void> {
    const g = ctx.grant;
    ctx.grant = null;
    if (ctx.reserved > 0 && g) {
      ctx.reserved = 0;
      await refundGrant(this.d, this.track, g);
    }
  }

  // ---------- one attempt ----------

  private buildBody(ctx: Ctx, ch: RuntimeChannel, fmt: WireFormat, upModel: string): string | Buffer {
    const { call, cf } = ctx;
    if (call.kind === 'embeddings' && cf === 'gemini') {
      const action = call.geminiAction ?? 'embedContent';
      const b = fmt === 'gemini' ? geminiEmbedPassBody(call.body, action, upModel, ctx.model) : openaiEmbedFromGemini(call.body, action, upModel);
      if (b === null) return call.raw;
      applyParamOverride(b, ch.paramOverride);
      return JSON.stringify(b);
    }
    if (fmt === cf) {
      if (fmt === 'openai') {
        const addUsage = ctx.stream && !includeUsageAsked(call.body);
        const modelChanges = call.modelFromPath !== undefined || upModel !== call.body.model;
        if (!addUsage && !modelChanges && !hasOverride(ch)) return call.raw;
        const b: Record<string, unknown> = { ...call.body, model: upModel };
        if (addUsage) b.stream_options = { ...(isObj(b.stream_options) ? b.stream_options : {}), include_usage: true };
        applyParamOverride(b, ch.paramOverride);
        return JSON.stringify(b);
      }
      // Anthropic → Anthropic and Gemini → Gemini: as received unless the model (Anthropic bodies name it) or an override changes it.
      const modelChanges = fmt === 'anthropic' && upModel !== call.body.model;
      if (!modelChanges && !hasOverride(ch)) return call.raw;
      const b: Record<string, unknown> = { ...call.body };
      if (fmt === 'anthropic') b.model = upModel;
      applyParamOverride(b, ch.paramOverride);
      return JSON.stringify(b);
    }
    ctx.canonical ??= decodeRequest(cf, call.body);
    const b = encodeRequest(fmt, { ...ctx.canonical, dropped: [...ctx.canonical.dropped] }, upModel);
    applyParamOverride(b, ch.paramOverride);
    return JSON.stringify(b);
  }

  /** The body of an upstream 4xx the caller is to see: as it came when the upstream speaks the caller's format. */
  private clientErrorBody(ctx: Ctx, fmt: WireFormat, status: number, text: string, contentType: string, message: string): AttemptOutcome {
    if (fmt === ctx.cf) return { kind: 'client_error', status, body: text, contentType, message };
    const body = ctx.cf === 'openai'
      ? { error: { message, type: 'invalid_request_error', param: null, code: 'upstream_error' } }
      : errorBody(ctx.cf, new GatewayError(status, 'upstream_error', message, 'invalid_request_error'));
    return { kind: 'client_error', status, contentType: 'application/json', message, body: JSON.stringify(body) };
  }

  private async attempt(ctx: Ctx, ch: RuntimeChannel, key: string): Promise<AttemptOutcome> {
    const fmt = channelFormat(ch.type);
    const upModel = upstreamModel(ch, ctx.model);
    const body = this.buildBody(ctx, ch, fmt, upModel);
    const embedGemini = ctx.call.kind === 'embeddings' && ctx.cf === 'gemini';
    const t0 = process.hrtime.bigint();
    const up = await this.d.pools.send({
      url: upstreamUrl(ch, ctx.call.kind, upModel, ctx.stream, embedGemini ? (ctx.call.geminiAction ?? 'embedContent') : undefined),
      method: 'POST',
      headers: upstreamHeaders(ch, key, ctx.stream),
      body,
    });
    if (up.statusCode >= 400) {
      const text = await readText(up.body, 256 * 1024);
      const message = upstreamErrorMessage(fmt, up.statusCode, text);
      const s = up.statusCode;
      if (s === 401 || s === 403 || s === 408 || s === 429 || s >= 500 || this.d.policy.qualifies(s, message)) {
        return { kind: 'retry', status: s, message, retryAfterMs: s === 429 ? retryAfter(up.headers['retry-after']) : undefined };
      }
      // Other 4xx: the request itself is at fault; the caller sees the upstream's answer.
      return this.clientErrorBody(ctx, fmt, s, text, String(up.headers['content-type'] ?? 'application/json'), message);
    }
    const ctype = String(up.headers['content-type'] ?? '');
    if (ctx.stream && ctype.includes('text/event-stream')) {
      ctx.upstreamWaitMs = msSince(t0);
      await this.streamResponse(ctx, ch, fmt, upModel, up);
      return { kind: 'done' };
    }
    const text = await readText(up.body);
    ctx.upstreamWaitMs = msSince(t0);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { kind: 'retry', status: 502, message: `upstream returned a body that is not JSON (status ${up.statusCode})` };
    }
    let out: string;
    let usage: Usage | null;
    let decoded: CanonicalResponse | null = null;
    if (embedGemini) {
      if (fmt === 'gemini') {
        out = text;
        usage = null; // Gemini reports no usage for embeddings: the input is counted
      } else {
        const conv = geminiEmbedFromOpenAI(json, ctx.call.geminiAction ?? 'embedContent');
        if (!conv) return { kind: 'retry', status: 502, message: 'upstream embeddings response could not be read' };
        out = JSON.stringify(conv);
        usage = usageFromResponse('openai', json);
      }
    } else if (fmt === ctx.cf) {
      out = text;
      usage = usageFromResponse(fmt, json);
    } else {
      try {
        decoded = decodeResponse(fmt, json);
      } catch (e) {
        return { kind: 'retry', status: 502, message: `upstream response could not be read: ${(e as Error).message}` };
      }
      usage = decoded.usage;
      out = JSON.stringify(encodeResponse(ctx.cf, decoded, ctx.model, ctx.call.requestId));
    }
    this.begin(ctx, 200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(out)) });
    ctx.call.client.res.end(out);
    let final: Usage;
    if (usage && (usage.inputTokens > 0 || usage.outputTokens > 0)) final = usage;
    else {
      let outText = '';
      if (ctx.call.kind !== 'embeddings') {
        if (fmt === 'openai') outText = responseText(json);
        else {
          try { decoded ??= decodeResponse(fmt, json); } catch { decoded = null; }
          outText = decoded ? canonicalResponseText(decoded) : '';
        }
      }
      final = await this.countUsage(ctx, null, outText);
    }
    this.finish(ctx, ch, upModel, final, 200, { upstreamUsage: !!usage });
    return { kind: 'done' };
  }

  /** Writes the status line and headers (request id, gateway time) and hands the socket to the relay. */
  private begin(ctx: Ctx, status: number, headers: Record<string, string>): void {
    const { call } = ctx;
    if (ctx.started) return;
    ctx.started = true;
    call.client.hijack();
    const total = msSince(call.startedAt);
    ctx.firstByteMs = Math.round(total);
    const own = Math.max(0, total - ctx.upstreamWaitMs);
    call.client.res.writeHead(status, {
      ...headers,
      'x-request-id': call.requestId,
      'x-gatehouse-time-ms': own.toFixed(2),
    });
  }

  /**
   * Streams an SSE response to the caller as it arrives. OpenAI upstreams are passed through byte for
   * byte (only the usage chunk the gateway asked for is removed when the caller did not); Anthropic and
   * Gemini events are converted. Usage comes from the upstream; when it is missing (or the caller left
   * early) the produced text is counted.
   */
  private streamResponse(ctx: Ctx, ch: RuntimeChannel, fmt: WireFormat, upModel: string, up: UpstreamResponse): Promise<void> {
    const res = ctx.call.client.res;
    const cf = ctx.cf;
    const oaPass = fmt === 'openai' && cf === 'openai';
    const strip = oaPass && !includeUsageAsked(ctx.call.body);
    const framer = new SseFramer();
    const counter = new TokenCounter();
    let usage: Partial<Usage> | null = null;
    // Same-format streams other than OpenAI are forwarded as they come and only decoded for usage.
    const decoder = oaPass ? null : createStreamDecoder(fmt);
    const encoder = fmt === cf ? null : createStreamEncoder(cf, {
      model: ctx.model, requestId: ctx.call.requestId, includeUsage: cf === 'openai' ? (ctx.canonical?.includeUsage ?? false) : true,
    });
    const array = ctx.call.jsonArrayStream ? new JsonArrayStream() : null;
    this.begin(ctx, 200, array
      ? { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' }
      : { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });

    const onCanonical = (evs: CanonicalStreamEvent[]): string => {
      let out = '';
      for (const e of evs) {
        if (e.type === 'usage') usage = e.usage;
        else if (e.type === 'start' && e.usage) usage = { ...(usage ?? {}), ...e.usage };
        else if (e.type === 'text') counter.add(e.text);
        else if (e.type === 'thinking' && e.text) counter.add(e.text);
        else if (e.type === 'tool_call_args') counter.add(e.delta);
        else if (e.type === 'tool_call_start') counter.add(e.name);
        if (encoder) out += encoder.push(e);
      }
      return out;
    };
    const onOpenAI = (ev: SseEvent): boolean => {
      const data = ev.data;
      if (!data || data === '[DONE]' || data[0] !== '{') return true;
      let j: any;
      try { j = JSON.parse(data); } catch { return true; }
      if (j.usage && typeof j.usage === 'object') {
        usage = usageFromResponse('openai', j) ?? usage;
        if (strip && Array.isArray(j.choices) && j.choices.length === 0) return false;
      }
      if (Array.isArray(j.choices)) {
        for (const c of j.choices) {
          const dl = c?.delta;
          if (dl) {
            if (typeof dl.content === 'string') counter.add(dl.content);
            if (typeof dl.reasoning_content === 'string') counter.add(dl.reasoning_content);
            if (Array.isArray(dl.tool_calls)) for (const t of dl.tool_calls) counter.add(String(t?.function?.name ?? '') + String(t?.function?.arguments ?? ''));
          } else if (typeof c?.text === 'string') counter.add(c.text);
        }
      }
      return true;
    };

    return new Promise<void>((resolve) => {
      let done = false;
      let clientGone = false;
      let upstreamError: string | null = null;
      const body = up.body;
      const finish = () => {
        if (done) return;
        done = true;
        res.off('close', onClose);
        body.off('data', onData);
        if (!clientGone && !res.writableEnded) {
          let tail = upstreamError ? streamErrorEvent(cf, `upstream stream failed: ${upstreamError}`) : '';
          if (array) tail = array.push(tail) + array.end();
          res.end(tail);
        }
        const status = clientGone ? 499 : upstreamError ? 502 : 200;
        const u = usage as Partial<Usage> | null;
        const complete = !clientGone && u && ((u.inputTokens ?? 0) > 0 || (u.outputTokens ?? 0) > 0);
        this.track((async () => {
          const final = complete ? fullUsage(u) : await this.countUsage(ctx, counter, '', u);
          this.finish(ctx, ch, upModel, final, status, { upstreamUsage: !!complete, clientGone, upstreamError });
        })()).then(resolve, resolve);
      };
      const write = (chunk: string | Buffer) => {
        const s = array ? array.push(chunk) : chunk;
        if (s.length === 0 || clientGone) return;
        if (!res.write(s)) {
          body.pause();
          res.once('drain', () => body.resume());
        }
      };
      const onData = (chunk: Buffer) => {
        if (clientGone) return;
        if (decoder && !encoder) {
          write(chunk);
          for (const ev of framer.push(chunk)) onCanonical(decoder.push({ event: ev.event, data: ev.data }));
        } else if (decoder) {
          let out = '';
          for (const ev of framer.push(chunk)) out += onCanonical(decoder.push({ event: ev.event, data: ev.data }));
          write(out);
        } else if (strip) {
          let out = '';
          for (const ev of framer.push(chunk)) if (onOpenAI(ev)) out += ev.raw;
          write(out);
        } else {
          write(chunk);
          for (const ev of framer.push(chunk)) onOpenAI(ev);
        }
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
        if (!clientGone) upstreamError = networkMessage(e);
        finish();
      });
      body.on('end', () => {
        if (decoder) {
          let out = '';
          for (const ev of framer.end()) out += onCanonical(decoder.push({ event: ev.event, data: ev.data }));
          out += onCanonical(decoder.end());
          if (encoder) {
            out += encoder.end();
            write(out);
          }
        } else {
          let out = '';
          for (const ev of framer.end()) if (onOpenAI(ev) && strip) out += ev.raw;
          if (strip) write(out);
        }
        finish();
      });
    });
  }

  // ---------- usage, billing, logs ----------

  private promptText(ctx: Ctx): string {
    if (ctx.promptText !== null) return ctx.promptText;
    const b = ctx.call.body;
    let t = '';
    if (ctx.canonical && ctx.cf !== 'openai') t = canonicalPromptText(ctx.canonical);
    else if (ctx.call.kind === 'embeddings' && ctx.cf === 'gemini') t = (embedTexts(b, ctx.call.geminiAction ?? 'embedContent') ?? []).join('\n');
    else if (ctx.call.kind === 'chat') {
      for (const m of b.messages as unknown[]) t += textOfContent((m as { content?: unknown })?.content) + '\n';
      if (Array.isArray(b.tools)) t += JSON.stringify(b.tools);
    } else if (ctx.call.kind === 'completions') t = textOfContent(b.prompt);
    else t = textOfContent(b.input);
    ctx.promptText = t;
    return t;
  }

  private estimateUsage(ctx: Ctx): TokenUsage {
    if (ctx.price?.perRequest !== null && ctx.price?.perRequest !== undefined) return { inputTokens: 0, outputTokens: 0 };
    const b = ctx.call.body;
    const text = this.promptText(ctx);
    const c = ctx.cf !== 'openai' ? ctx.canonical : null;
    const images = c ? canonicalImageCount(c) : ctx.call.kind === 'chat' ? countImages(b.messages) : 0;
    const input = estimateTokens(text) + images * 1000 + 8;
    if (ctx.call.kind === 'embeddings') return { inputTokens: input, outputTokens: 0 };
    const max = c ? (c.maxTokens ?? DEFAULT_OUTPUT_ALLOWANCE) : (num(b.max_completion_tokens) ?? num(b.max_tokens) ?? DEFAULT_OUTPUT_ALLOWANCE);
    const n = Math.max(1, (c ? c.n : num(b.n)) ?? 1);
    return { inputTokens: input, outputTokens: max * n };
  }

  /** Usage counted locally when the upstream gave none (or the caller left before it came). */
  private async countUsage(ctx: Ctx, counter: TokenCounter | null, outputText: string, partial?: Partial<Usage> | null): Promise<Usage> {
    const input = partial?.inputTokens || (await countTokens(this.promptText(ctx)));
    let output = partial?.outputTokens ?? 0;
    if (counter) output = Math.max(output, await counter.total());
    else if (outputText) output = await countTokens(outputText);
    return { inputTokens: input, outputTokens: output, cachedInputTokens: partial?.cachedInputTokens ?? 0, cacheWriteTokens: 0, reasoningTokens: 0 };
  }

  private finish(ctx: Ctx, ch: RuntimeChannel, upModel: string, usage: Usage, status: number, other: Record<string, unknown>): void {
    const { call } = ctx;
    const actual = this.d.prices.cost(ctx.price, usage, call.principal.group);
    const grant = ctx.grant ?? ledgerGrant(ctx.payer, call.requestId, 0);
    ctx.grant = null;
    ctx.reserved = 0;
    const latency = Math.round(msSince(call.startedAt));
    // With other calls in flight the settle waits a little to share their commit; alone, it commits
    // now, while the caller reads the answer, instead of on the next call's path.
    const defer = this.active > 1 ? SETTLE_DEFER_MS : 0;
    settleThenLog(this.d, this.track, grant, actual, defer, (charged, extra = {}) => this.d.logs.write(callLogRow(ctx, ch, upModel, {
      type: 'consume', status_code: status, quota: charged, latency_ms: latency,
      prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, cached_tokens: usage.cachedInputTokens,
      other: JSON.stringify({ ...other, ...extra, ...(ctx.cf !== 'openai' ? { inbound: ctx.cf } : {}), attempts: ctx.attempts, reasoning_tokens: usage.reasoningTokens, cache_write_tokens: usage.cacheWriteTokens }),
    })));
  }
}

// ---------- helpers ----------

/** A mid-stream failure as the caller's format writes it. */
function streamErrorEvent(cf: WireFormat, message: string): string {
  if (cf === 'anthropic') return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message } })}\n\n`;
  if (cf === 'gemini') return `data: ${JSON.stringify({ error: { code: 502, message, status: 'UNAVAILABLE' } })}\n\n`;
  return `data: ${JSON.stringify({ error: { message, type: 'upstream_error', param: null, code: 'upstream_stream_error' } })}\n\n`;
}

/**
 * Re-frames SSE text as the JSON array Gemini's `:streamGenerateContent` answers without `alt=sse`:
 * `[` + each event's data joined by `,` + `]`, written as events complete.
 */
class JsonArrayStream {
  private readonly framer = new SseFramer();
  private first = true;

  push(chunk: string | Buffer): string {
    if (chunk.length === 0) return '';
    let out = '';
    for (const ev of this.framer.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) out += this.item(ev.data);
    return out;
  }

  end(): string {
    let out = '';
    for (const ev of this.framer.end()) out += this.item(ev.data);
    return out + (this.first ? '[]' : '\n]');
  }

  private item(data: string): string {
    const d = data.trim();
    if (!d || d === '[DONE]') return '';
    const s = (this.first ? '[' : ',\r\n') + d;
    this.first = false;
    return s;
  }
}

/** Output text of a decoded response (counted when the upstream reported no usage). */
function canonicalResponseText(r: CanonicalResponse): string {
  let t = '';
  for (const c of r.choices) {
    for (const p of c.parts) if (p.type === 'text' || p.type === 'thinking') t += p.text;
    for (const tc of c.toolCalls) t += tc.name + tc.arguments;
  }
  return t;
}

/** Prompt text of a decoded request (for the estimate and for counting). */
export function canonicalPromptText(r: CanonicalRequest): string {
  let t = '';
  for (const m of r.messages) {
    for (const p of m.parts) if (p.type === 'text' || p.type === 'thinking') t += p.text;
    if (m.role === 'assistant') for (const tc of m.toolCalls) t += tc.name + tc.arguments;
    t += '\n';
  }
  if (r.tools?.length) t += JSON.stringify(r.tools.map((x) => ({ name: x.name, description: x.description, parameters: x.parameters })));
  return t;
}

/** Images in a decoded request. */
export function canonicalImageCount(r: CanonicalRequest): number {
  let n = 0;
  for (const m of r.messages) for (const p of m.parts) if (p.type === 'image') n++;
  return n;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function includeUsageAsked(body: Record<string, unknown>): boolean {
  return isObj(body.stream_options) && body.stream_options.include_usage === true;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

function fullUsage(u: Partial<Usage>): Usage {
  return {
    inputTokens: u.inputTokens ?? 0, outputTokens: u.outputTokens ?? 0, cachedInputTokens: u.cachedInputTokens ?? 0,
    cacheWriteTokens: u.cacheWriteTokens ?? 0, reasoningTokens: u.reasoningTokens ?? 0,
  };
}

/** Text of an OpenAI content value: a string, an array of strings/parts, or token arrays (counted by length). */
function textOfContent(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    let t = '';
    for (const p of c) {
      if (typeof p === 'string') t += p;
      else if (typeof p === 'number') t += 'xxx';
      else if (Array.isArray(p)) t += 'xxx'.repeat(p.length);
      else if (isObj(p) && typeof p.text === 'string') t += p.text;
    }
    return t;
  }
  return '';
}

function countImages(messages: unknown): number {
  let n = 0;
  if (!Array.isArray(messages)) return 0;
  for (const m of messages) {
    const c = (m as { content?: unknown })?.content;
    if (Array.isArray(c)) for (const p of c) if (isObj(p) && (p.type === 'image_url' || p.type === 'input_image')) n++;
  }
  return n;
}

function responseText(json: unknown): string {
  if (!isObj(json) || !Array.isArray(json.choices)) return '';
  let t = '';
  for (const c of json.choices as any[]) {
    if (typeof c?.text === 'string') t += c.text;
    const m = c?.message;
    if (m) {
      if (typeof m.content === 'string') t += m.content;
      if (Array.isArray(m.tool_calls)) for (const tc of m.tool_calls) t += String(tc?.function?.name ?? '') + String(tc?.function?.arguments ?? '');
    }
  }
  return t;
}

export function retryAfter(v: string | string[] | undefined): number | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  if (!s) return undefined;
  const n = Number(s);
  if (Number.isFinite(n)) return Math.min(Math.max(n, 0) * 1000, 3600_000);
  const d = Date.parse(s);
  return Number.isFinite(d) ? Math.min(Math.max(d - Date.now(), 0), 3600_000) : undefined;
}

export function networkMessage(e: unknown): string {
  const err = e as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err?.code ?? err?.cause?.code;
  if (code === 'ECONNREFUSED') return 'upstream refused the connection';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'upstream timed out';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'upstream closed the connection';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'upstream host not found';
  return `upstream connection failed${code ? ` (${code})` : ''}`;
}
