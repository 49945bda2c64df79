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
import type { KeyPrincipal } from '../accounts/types.ts';
import { checkModelAccess } from '../accounts/keys.ts';
import type { Admission } from '../accounts/rate-limits.ts';
import type { Payer } from '../billing/ledger.ts';
import { ledgerGrant, type Grant } from '../billing/allowance.ts';
import type { ModelPrice, TokenUsage } from '../billing/prices.ts';
import { countTokens, countTokensSync, loadTokenizer, TokenCounter } from '../billing/tokens.ts';
import { echo, GatewayError } from '../platform/errors.ts';
import { Pending } from '../platform/pending.ts';
import { redactSecrets, sentSecrets } from '../platform/redact.ts';
import type { RuntimeChannel } from './channels.ts';
import { runAttempts, type AttemptOutcome } from './attempts.ts';
import { callLogRow, extendReserve, logAttemptError, refundGrant, runReserved, settleThenLog } from './accounting.ts';
import { scanBody, type BodyScan } from './body-scan.ts';
import { fitOutput, inputBound, MIN_OUTPUT_TOKENS, pricesOutput, reserveCost } from './estimate.ts';
import { choiceCount, tokenCount } from './providers/canonical.ts';
import {
  applyParamOverride,
  channelFormat,
  hasOverride,
  supportsKind,
  upstreamHeaders,
  upstreamModel,
  upstreamUrl,
  type RelayKind,
} from './providers/endpoint.ts';
import { networkMessage, readText, retryAfter, type UpstreamResponse } from './upstream.ts';
import type { ClientConn, RelayDeps, RelayPrincipal } from './call.ts';
import { SseFramer, type EventFramer, type SseEvent } from './sse.ts';
import {
  createStreamDecoder,
  createStreamEncoder,
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  errorBodyFor,
  quotaStreamEvent,
  streamErrorEvent,
  upstreamErrorMessage,
  usageFromResponse,
  type CanonicalRequest,
  type CanonicalResponse,
  type CanonicalStreamEvent,
  type Usage,
  type WireFormat,
} from './providers/index.ts';
import {
  embedTexts,
  geminiEmbedFromOpenAI,
  geminiEmbedPassBody,
  openaiEmbedFromGemini,
  type GeminiEmbedAction,
} from './providers/gemini/embed.ts';
import { isPassCall, PASS_ENDPOINTS, PassThrough, type PassCall } from './passthrough.ts';
import { Conversations } from './conversations.ts';
import { ChannelType } from './channel-types.ts';
import { vertexAnthropicBody } from './providers/vertex/endpoint.ts';
import { includeUsageAsked, openaiMaxField, responseText, sendsMax, setOpenAIMax, textOfContent } from './providers/openai/body.ts';
import { geminiMax, JsonArrayStream, setGeminiMax } from './providers/gemini/body.ts';
import { setBedrockMax } from './providers/bedrock/body.ts';
import {
  bedrockCredential,
  bedrockHeaders,
  bedrockUrl,
  EVENT_STREAM_TYPE,
  EventStreamFramer,
  type BedrockCredential,
} from './providers/bedrock/endpoint.ts';
import { betaList, errorType as bedrockErrorType } from './providers/bedrock/codec.ts';
import { affinityKey } from './affinity.ts';
import type { AttemptCallInfo } from './attempts.ts';
import * as responses from './providers/responses/codec.ts';
import { decodeRequest as anthropicDecode } from './providers/anthropic/codec.ts';
import type { Message, StreamEncoder } from './providers/index.ts';

/**
 * Longest prompt text the count-tokens endpoints count (more than any model's context). Counting runs
 * off the event loop (billing/tokens.ts); the bound keeps one request from holding a counter for long.
 */
export const COUNT_MAX_CHARS = 8 * 1024 * 1024;
/**
 * A settlement is written after the response; it may wait this long to share a commit with other
 * movements (on SQLite, usually the next request's reserve), so a model call costs about one commit.
 */
const SETTLE_DEFER_MS = 5;

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
  /** The body's media and depth, when the route's parser already walked it (relay/body-scan.ts). */
  scan?: BodyScan;
  /** The caller's vendor headers (`anthropic-version`, `anthropic-beta`; OpenAI's session ids and betas), sent to upstreams of the caller's vendor. */
  vendorHeaders?: Record<string, string>;
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
  /** Upper bound of the input tokens (relay/estimate.ts). */
  inputBound: number;
  /** The body marks prompt-cache breakpoints: the vendor may bill its input as cache writes (relay/estimate.ts). */
  cacheWrites: boolean;
  /** Choices asked for. */
  n: number;
  /** max_tokens per choice the gateway sends and reserved for; null: the request is sent as the caller wrote it (output is not priced). */
  maxOut: number | null;
  /** Extensions of the reserve taken while streaming. */
  extensions: number;
  /** The call's place in its rate limits (accounts/rate-limits.ts); null when none applies. */
  admission: Admission | null;
}

const msSince = (t: bigint): number => Number(process.hrtime.bigint() - t) / 1e6;

export class Relay {
  /** Chat, completions and embeddings calls in progress on this node. */
  private active = 0;
  private readonly pending = new Pending();
  private readonly track = this.pending.track;
  /** Images, Responses, audio, rerank, moderations, alpha search (relay/passthrough.ts). */
  readonly pass: PassThrough;
  /** Conversations of Responses calls served by conversion (`previous_response_id`). */
  readonly conversations: Conversations;

  constructor(private readonly d: RelayDeps) {
    this.pass = new PassThrough(d, this.track);
    this.conversations = new Conversations(d.core);
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
    if (!this.listModels(p).includes(model))
      throw new GatewayError(404, 'model_not_found', `model "${echo(model)}" is not available in group "${p.group}"`);
    await this.assertSomeBalance(p);
    const req = decodeRequest(format, body);
    const text = canonicalPromptText(req);
    if (text.length > COUNT_MAX_CHARS) {
      throw new GatewayError(
        413,
        'request_too_large',
        `the prompt is too long to count: ${text.length} characters, the limit is ${COUNT_MAX_CHARS}`,
      );
    }
    return (await countTokens(text)) + canonicalImageCount(req) * 1000;
  }

  /**
   * Free work (token counting) is for callers who could pay for a call: 429 `insufficient_quota` when
   * the user's balance, or a capped key's remaining quota, is used up.
   */
  private async assertSomeBalance(p: RelayPrincipal): Promise<void> {
    if ((await this.d.ledger.available(this.d.budgets.payer(p))) <= 0)
      throw new GatewayError(429, 'insufficient_quota', 'quota exhausted: the balance is too low for this request');
  }

  /**
   * Serves one model call. Throws GatewayError (rendered by the route) when it fails before the
   * response started; once started it never throws.
   */
  handle(call: RelayCall | PassCall): Promise<void> {
    // Every call is tracked until it has ended, so that closing the node (drain) waits for the calls a
    // graceful stop cut to settle what they produced.
    return this.track(this.serve(call));
  }

  private async serve(call: RelayCall | PassCall): Promise<void> {
    if (isPassCall(call)) {
      // A Responses call for a model no channel with the Responses API serves is converted: any chat,
      // Anthropic or Gemini channel answers it (relay/providers/responses/codec.ts).
      if (call.kind === 'responses' && !call.multipart && !this.pass.servesResponses(call.principal.group, call.body.model)) {
        return this.serve({
          kind: 'chat',
          inbound: 'responses',
          principal: call.principal,
          body: call.body,
          raw: call.raw,
          scan: call.scan,
          endpoint: call.endpoint,
          requestId: call.requestId,
          startedAt: call.startedAt,
          client: call.client,
          vendorHeaders: call.vendorHeaders,
        });
      }
      return this.pass.handle(call);
    }
    const { body, principal } = call;
    const cf = call.inbound ?? 'openai';
    const model = call.modelFromPath ?? body.model;
    if (typeof model !== 'string' || !model) throw new GatewayError(400, 'invalid_request', '"model" is required and must be a string');
    let canonical: CanonicalRequest | null = null;
    /** Set when the body holds what only its own vendor understands: only channels of the caller's format may serve it. */
    let onlySameFormat: GatewayError | null = null;
    if (cf === 'openai') {
      if (call.kind === 'chat' && !Array.isArray(body.messages))
        throw new GatewayError(400, 'invalid_request', '"messages" is required and must be an array');
      if (call.kind === 'completions' && body.prompt === undefined) throw new GatewayError(400, 'invalid_request', '"prompt" is required');
      if (call.kind === 'embeddings' && body.input === undefined) throw new GatewayError(400, 'invalid_request', '"input" is required');
    } else if (call.kind === 'chat') {
      // Other formats are decoded up front: it validates the request and gives the prompt for the estimate.
      try {
        canonical = decodeRequest(cf, body);
      } catch (e) {
        // A role the gateway does not know (a new vendor beta): an Anthropic upstream gets the body as
        // sent; a conversion would lose it, so other channels refuse it with this error.
        if (cf !== 'anthropic' || !(e instanceof GatewayError) || !/\.role/.test(e.message)) throw e;
        canonical = anthropicDecode(body, { lenient: true });
        onlySameFormat = e;
      }
      canonical.model = model;
      if (call.stream !== undefined) canonical.stream = call.stream;
      if (cf === 'responses' && typeof body.previous_response_id === 'string' && body.previous_response_id) {
        // The earlier turns go after the new instructions and before the new input.
        const history = await this.conversations.load(body.previous_response_id, principal.userId);
        const lead = canonical.messages.findIndex((m) => m.role !== 'system');
        canonical.messages.splice(lead < 0 ? canonical.messages.length : lead, 0, ...history);
      }
    } else if (call.kind === 'embeddings' && cf === 'gemini') {
      if (embedTexts(body, call.geminiAction ?? 'embedContent') === null) {
        throw new GatewayError(
          400,
          'invalid_request',
          call.geminiAction === 'batchEmbedContents'
            ? '"requests" must be a list of {content:{parts:[{text}]}}'
            : '"content" must be {parts:[{text}]}',
        );
      }
    }
    if (principal.models) checkModelAccess(principal as KeyPrincipal, model);
    let candidates = this.d.channels.candidates(principal.group, model).filter((c) => supportsKind(c, call.kind, cf));
    if (onlySameFormat) {
      candidates = candidates.filter((c) => channelFormat(c.type, upstreamModel(c, model)) === cf);
      if (!candidates.length && this.d.channels.modelsFor(principal.group).includes(model)) throw onlySameFormat;
    }
    if (candidates.length === 0) {
      // Callers of the other formats get "not found" for a model nothing serves (their SDKs retry 503s).
      if (cf !== 'openai' && !this.d.channels.modelsFor(principal.group).includes(model)) {
        throw new GatewayError(404, 'model_not_found', `model "${echo(model)}" is not available in group "${principal.group}"`);
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
    const stream = call.stream ?? (call.kind !== 'embeddings' && body.stream === true);
    const ctx: Ctx = {
      call,
      cf,
      model,
      stream,
      price,
      payer: this.d.budgets.payer(principal),
      reserved: 0,
      grant: null,
      attempts: [],
      upstreamWaitMs: 0,
      firstByteMs: null,
      canonical,
      promptText: null,
      started: false,
      inputBound: 0,
      cacheWrites: false,
      n: 1,
      maxOut: null,
      extensions: 0,
      admission: null,
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
    // Reserve an upper bound of the cost before any upstream work (relay/estimate.ts).
    const estimate = this.estimateUsage(ctx);
    // The rate limits count the same estimate, before any routing or billing (429 beyond them).
    const a = this.d.rateLimits.admit(principal, ctx.model, estimate.inputTokens + estimate.outputTokens, call.client.res);
    ctx.admission = a instanceof Promise ? await a : a;
    try {
      ctx.reserved = reserveCost(this.d.prices, price, estimate, principal.group, ctx.cacheWrites);
      if (ctx.reserved > 0) {
        try {
          // From a hold of this node the reserve is synchronous: no await, no turn of the event loop.
          const g = this.d.allowances.reserve(ctx.payer, call.requestId, ctx.reserved);
          ctx.grant = g instanceof Promise ? await g : g;
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
      // A call that ended without an answer (refused, failed) used no tokens; `finish` ended the others.
      ctx.admission?.end(0);
    }
  }

  /**
   * The balance could not cover the output asked for: lowers max_tokens to what it covers (down to
   * MIN_OUTPUT_TOKENS, else `refused` is thrown). A few tries, as other calls spend the same balance.
   */
  private async reserveWhatFits(ctx: Ctx, refused: GatewayError): Promise<void> {
    const { call } = ctx;
    const group = call.principal.group;
    for (let i = 0; i < 3; i++) {
      const available = await this.d.ledger.available(ctx.payer);
      const out = fitOutput(
        this.d.prices,
        ctx.price,
        group,
        ctx.inputBound,
        ctx.n,
        ctx.maxOut!,
        MIN_OUTPUT_TOKENS,
        available,
        ctx.cacheWrites,
      );
      if (out === null) break;
      ctx.maxOut = out;
      ctx.reserved = reserveCost(
        this.d.prices,
        ctx.price,
        { inputTokens: ctx.inputBound, outputTokens: out * ctx.n },
        group,
        ctx.cacheWrites,
      );
      try {
        const g = this.d.allowances.reserve(ctx.payer, call.requestId, ctx.reserved);
        ctx.grant = g instanceof Promise ? await g : g;
        return;
      } catch (e) {
        if ((e as GatewayError).code !== 'insufficient_quota') throw e;
      }
    }
    ctx.reserved = 0;
    throw refused;
  }

  private run(ctx: Ctx, candidates: RuntimeChannel[]): Promise<void> {
    const { call } = ctx;
    const info: AttemptCallInfo = { model: ctx.model, group: call.principal.group, res: call.client.res };
    // A conversation the caller names sticks to the channel that served it (only when there is a choice).
    const aff = this.d.affinity;
    const k = aff && candidates.length > 1 ? affinityKey(call.principal.userId, ctx.model, call.body, call.vendorHeaders) : null;
    if (!k) return this.attempts(ctx, candidates, info);
    return aff!.get(k).then((prefer) => {
      info.affinity = { prefer, served: (s) => aff!.set(k, s), failed: () => aff!.drop(k) };
      return this.attempts(ctx, candidates, info);
    });
  }

  private attempts(ctx: Ctx, candidates: RuntimeChannel[], info: AttemptCallInfo): Promise<void> {
    return runAttempts(
      this.d,
      ctx,
      candidates,
      {
        attempt: (c, ch, key) => this.attempt(c, ch, key),
        logError: (c, ch, status, message, n) => logAttemptError(this.d.logs, c, ch, status, message, n),
        refund: (c) => this.refund(c),
        begin: (c, status, headers) => this.begin(c, status, headers),
      },
      info,
    );
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
      const b =
        fmt === 'gemini' ? geminiEmbedPassBody(call.body, action, upModel, ctx.model) : openaiEmbedFromGemini(call.body, action, upModel);
      if (b === null) return call.raw;
      applyParamOverride(b, ch.paramOverride);
      return JSON.stringify(b);
    }
    const max = ctx.maxOut;
    if (fmt === cf) {
      if (fmt === 'openai') {
        const addUsage = ctx.stream && !includeUsageAsked(call.body);
        const modelChanges = call.modelFromPath !== undefined || upModel !== call.body.model;
        const maxChanges = max !== null && !sendsMax(call.body, max);
        if (!addUsage && !modelChanges && !hasOverride(ch)) {
          if (!maxChanges) return call.raw;
          // Only max_tokens is missing: written into the bytes as received (no parse, no stringify).
          if (call.body.max_tokens === undefined && call.body.max_completion_tokens === undefined) {
            return injectField(call.raw, openaiMaxField(ch, call.kind), max);
          }
        }
        const b: Record<string, unknown> = { ...call.body, model: upModel };
        if (addUsage) b.stream_options = { ...(isObj(b.stream_options) ? b.stream_options : {}), include_usage: true };
        applyParamOverride(b, ch.paramOverride);
        if (max !== null) setOpenAIMax(b, max, openaiMaxField(ch, call.kind));
        return JSON.stringify(b);
      }
      // Anthropic → Anthropic and Gemini → Gemini: as received unless the model (Anthropic bodies name it), max_tokens or an override changes it.
      const modelChanges = fmt === 'anthropic' && upModel !== call.body.model;
      const maxChanges = max !== null && (fmt === 'anthropic' ? call.body.max_tokens !== max : geminiMax(call.body) !== max);
      if (!modelChanges && !maxChanges && !hasOverride(ch)) return call.raw;
      const b: Record<string, unknown> = { ...call.body };
      if (fmt === 'anthropic') b.model = upModel;
      applyParamOverride(b, ch.paramOverride);
      if (max !== null) {
        if (fmt === 'anthropic') b.max_tokens = Math.min(max, typeof b.max_tokens === 'number' ? b.max_tokens : max);
        else setGeminiMax(b, max);
      }
      return JSON.stringify(b);
    }
    ctx.canonical ??= decodeRequest(cf, call.body);
    const req: CanonicalRequest = { ...ctx.canonical, dropped: [...ctx.canonical.dropped] };
    if (max !== null) {
      req.maxTokens = max;
      if (fmt === 'openai' && !req.openaiMaxTokensField) req.openaiMaxTokensField = openaiMaxField(ch, call.kind);
    }
    // Anthropic models on Bedrock get the caller's Anthropic betas in the body.
    const b = encodeRequest(
      fmt,
      req,
      upModel,
      fmt === 'bedrock' ? { anthropicBeta: betaList(call.vendorHeaders?.['anthropic-beta']) } : {},
    );
    applyParamOverride(b, ch.paramOverride);
    if (max !== null) {
      if (fmt === 'openai') setOpenAIMax(b, max, req.openaiMaxTokensField ?? 'max_tokens');
      else if (fmt === 'anthropic') b.max_tokens = Math.min(max, typeof b.max_tokens === 'number' ? b.max_tokens : max);
      else if (fmt === 'bedrock') setBedrockMax(b, max);
      else setGeminiMax(b, max);
    }
    return JSON.stringify(b);
  }

  /** The body of an upstream 4xx the caller is to see: as it came when the upstream speaks the caller's format. */
  private clientErrorBody(ctx: Ctx, fmt: WireFormat, status: number, text: string, contentType: string, message: string): AttemptOutcome {
    if (fmt === ctx.cf) return { kind: 'client_error', status, body: text, contentType, message };
    const body =
      ctx.cf === 'openai' || ctx.cf === 'responses' || ctx.cf === 'bedrock'
        ? { error: { message, type: 'invalid_request_error', param: null, code: 'upstream_error' } }
        : errorBodyFor(ctx.cf, new GatewayError(status, 'upstream_error', message, 'invalid_request_error'));
    return { kind: 'client_error', status, contentType: 'application/json', message, body: JSON.stringify(body) };
  }

  private async attempt(ctx: Ctx, ch: RuntimeChannel, key: string): Promise<AttemptOutcome> {
    const upModel = upstreamModel(ch, ctx.model);
    const fmt = channelFormat(ch.type, upModel);
    const vertex = ch.type === ChannelType.vertex;
    let body = this.buildBody(ctx, ch, fmt, upModel);
    if (vertex && fmt === 'anthropic') body = vertexAnthropicBody(body);
    const embedGemini = ctx.call.kind === 'embeddings' && ctx.cf === 'gemini';
    const t0 = process.hrtime.bigint();
    let url: Readonly<URL>;
    let headers: Record<string, string>;
    /** The secrets this request carries: an upstream error never repeats them to anyone. */
    let keys: readonly string[] = [key];
    if (ch.type === ChannelType.bedrock) {
      // A Bedrock key is an access key (each request signed with SigV4) or an API key; its region picks the endpoint.
      let cred: BedrockCredential;
      try {
        cred = bedrockCredential(key, ch);
      } catch (e) {
        return { kind: 'retry', status: 401, message: `the channel's key cannot be used: ${(e as Error).message}` };
      }
      url = bedrockUrl(ch, cred, upModel, ctx.stream);
      headers = await bedrockHeaders(ch, cred, url, body, ctx.stream);
      keys = cred.secrets;
    } else {
      url = upstreamUrl(ch, ctx.call.kind, upModel, ctx.stream, embedGemini ? (ctx.call.geminiAction ?? 'embedContent') : undefined);
      // The caller's vendor headers go to an upstream of their vendor (OpenAI's also from a converted Responses call).
      const vendor = fmt === ctx.cf || (fmt === 'openai' && ctx.cf === 'responses') ? ctx.call.vendorHeaders : undefined;
      // A Vertex key is a service account: the upstream gets its access token.
      const sa = vertex ? this.d.core.outbound.google.account(key) : null;
      headers = upstreamHeaders(ch, sa ? await this.d.core.outbound.google.token(sa) : key, ctx.stream, vendor);
    }
    const up = await this.d.pools.send({ url, method: 'POST', headers, body });
    if (up.statusCode >= 400) {
      // A refused token is exchanged again on the next attempt with this key.
      if (vertex && up.statusCode === 401) this.d.core.outbound.google.invalidate(this.d.core.outbound.google.account(key));
      // An upstream error may echo the credentials it got: they never go further than here.
      const text = redactSecrets(await readText(up.body, 256 * 1024), sentSecrets(keys, headers, url));
      const message = upstreamErrorMessage(
        fmt,
        up.statusCode,
        text,
        fmt === 'bedrock' ? bedrockErrorType(up.headers['x-amzn-errortype']) : undefined,
      );
      const s = up.statusCode;
      if (s === 401 || s === 403 || s === 408 || s === 429 || s >= 500 || this.d.policy.qualifies(s, message)) {
        return { kind: 'retry', status: s, message, retryAfterMs: s === 429 ? retryAfter(up.headers['retry-after']) : undefined };
      }
      // Other 4xx: the request itself is at fault; the caller sees the upstream's answer.
      return this.clientErrorBody(ctx, fmt, s, text, String(up.headers['content-type'] ?? 'application/json'), message);
    }
    const ctype = String(up.headers['content-type'] ?? '');
    if (ctx.stream && (fmt === 'bedrock' ? ctype.includes(EVENT_STREAM_TYPE) : ctype.includes('text/event-stream'))) {
      ctx.upstreamWaitMs = msSince(t0);
      await this.streamResponse(ctx, ch, fmt, upModel, up, () => sentSecrets(keys, headers, url));
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
        return {
          kind: 'retry',
          status: 502,
          message: redactSecrets(`upstream response could not be read: ${(e as Error).message}`, sentSecrets(keys, headers, url)),
        };
      }
      usage = decoded.usage;
      if (ctx.cf === 'responses') {
        const r = responses.encodeResponse(decoded, ctx.model, ctx.call.requestId, this.responsesEcho(ctx));
        this.keepConversation(ctx, r.output as unknown[]);
        out = JSON.stringify(r);
      } else out = JSON.stringify(encodeResponse(ctx.cf, decoded, ctx.model, ctx.call.requestId));
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
          try {
            decoded ??= decodeResponse(fmt, json);
          } catch {
            decoded = null;
          }
          outText = decoded ? canonicalResponseText(decoded) : '';
        }
      }
      final = await this.countUsage(ctx, null, outText);
    }
    this.finish(ctx, ch, upModel, final, 200, { upstreamUsage: !!usage });
    return { kind: 'done' };
  }

  /** What a converted Response repeats of its request. */
  private responsesEcho(ctx: Ctx): responses.ResponseEcho {
    const b = ctx.call.body;
    return {
      customTools: responses.customToolNames(ctx.canonical),
      previousResponseId: typeof b.previous_response_id === 'string' ? b.previous_response_id : null,
      store: b.store !== false,
    };
  }

  /** Keeps a converted Response's conversation for `previous_response_id` (unless `store: false`). */
  private keepConversation(ctx: Ctx, output: unknown[]): void {
    if (ctx.call.body.store === false || !ctx.canonical) return;
    const messages: Message[] = [...ctx.canonical.messages, ...responses.outputMessages(output)];
    this.track(this.conversations.keep(responses.responseId(ctx.call.requestId), ctx.call.principal.userId, ctx.model, messages)).catch(
      (e: unknown) => {
        this.d.core.log.warn({ err: (e as Error).message, requestId: ctx.call.requestId }, 'a Responses conversation could not be kept');
      },
    );
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
  private streamResponse(
    ctx: Ctx,
    ch: RuntimeChannel,
    fmt: WireFormat,
    upModel: string,
    up: UpstreamResponse,
    secrets: () => string[],
  ): Promise<void> {
    const res = ctx.call.client.res;
    const cf = ctx.cf;
    const oaPass = fmt === 'openai' && cf === 'openai';
    const strip = oaPass && !includeUsageAsked(ctx.call.body);
    // Bedrock streams AWS event-stream messages: read into the same events as SSE (relay/providers/bedrock/endpoint.ts).
    const framer: EventFramer = fmt === 'bedrock' ? new EventStreamFramer() : new SseFramer();
    const counter = new TokenCounter();
    let usage: Partial<Usage> | null = null;
    // Same-format streams other than OpenAI are forwarded as they come and only decoded for usage.
    const decoder = oaPass ? null : createStreamDecoder(fmt);
    const encOpts = {
      model: ctx.model,
      requestId: ctx.call.requestId,
      includeUsage: cf === 'openai' ? (ctx.canonical?.includeUsage ?? false) : true,
    };
    const encoder: StreamEncoder | null =
      fmt === cf
        ? null
        : cf === 'responses'
          ? responses.createStreamEncoder(encOpts, this.responsesEcho(ctx), (output) => this.keepConversation(ctx, output))
          : createStreamEncoder(cf, encOpts);
    const array = ctx.call.jsonArrayStream ? new JsonArrayStream() : null;
    this.begin(
      ctx,
      200,
      array
        ? { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' }
        : { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' },
    );

    // Text of the chunk being handled: counted (and, past the reserve, metered) before it is written.
    let chunkText = '';
    const onCanonical = (evs: CanonicalStreamEvent[]): string => {
      let out = '';
      for (const e of evs) {
        if (e.type === 'usage') usage = e.usage;
        else if (e.type === 'start' && e.usage) usage = { ...(usage ?? {}), ...e.usage };
        else if (e.type === 'text') chunkText += e.text;
        else if (e.type === 'thinking' && e.text) chunkText += e.text;
        else if (e.type === 'tool_call_args') chunkText += e.delta;
        else if (e.type === 'tool_call_start') chunkText += e.name;
        // An upstream error event being converted loses the credentials it may echo (other events are not scanned).
        else if (e.type === 'error' && encoder) e.message = redactSecrets(e.message, secrets());
        if (encoder) out += encoder.push(e);
      }
      return out;
    };
    const onOpenAI = (ev: SseEvent): boolean => {
      const data = ev.data;
      if (!data || data === '[DONE]' || data[0] !== '{') return true;
      let j: any;
      try {
        j = JSON.parse(data);
      } catch {
        return true;
      }
      if (j.usage && typeof j.usage === 'object') {
        usage = usageFromResponse('openai', j) ?? usage;
        if (strip && Array.isArray(j.choices) && j.choices.length === 0) return false;
      }
      if (Array.isArray(j.choices)) {
        for (const c of j.choices) {
          const dl = c?.delta;
          if (dl) {
            if (typeof dl.content === 'string') chunkText += dl.content;
            if (typeof dl.reasoning_content === 'string') chunkText += dl.reasoning_content;
            if (Array.isArray(dl.tool_calls))
              for (const t of dl.tool_calls) chunkText += String(t?.function?.name ?? '') + String(t?.function?.arguments ?? '');
          } else if (typeof c?.text === 'string') chunkText += c.text;
        }
      }
      return true;
    };
    /** What an upstream chunk becomes for the caller (unmetered streams: whole chunks). */
    const transform = (chunk: Buffer): string | Buffer => {
      if (decoder && !encoder) {
        for (const ev of framer.push(chunk)) onCanonical(decoder.push({ event: ev.event, data: ev.data }));
        return chunk;
      }
      if (decoder) {
        let out = '';
        for (const ev of framer.push(chunk)) out += onCanonical(decoder.push({ event: ev.event, data: ev.data }));
        return out;
      }
      if (strip) {
        let out = '';
        for (const ev of framer.push(chunk)) if (onOpenAI(ev)) out += ev.raw;
        return out;
      }
      for (const ev of framer.push(chunk)) onOpenAI(ev);
      return chunk;
    };
    /** What one upstream event becomes for the caller (metered streams: event by event). */
    const transformEvent = (ev: SseEvent): string => {
      if (decoder) {
        const out = onCanonical(decoder.push({ event: ev.event, data: ev.data }));
        return encoder ? out : ev.raw;
      }
      return onOpenAI(ev) ? ev.raw : '';
    };
    /** What is left to write when the upstream ends (after its last events). */
    const transformTail = (): string => {
      if (!decoder) return '';
      const out = onCanonical(decoder.end());
      return encoder ? out + encoder.end() : '';
    };

    // The reserve covers `covered` output tokens (the max_tokens sent × choices). Output text holds no
    // more tokens than 3 × its UTF-16 length, so nothing is counted until that passes `covered`; from
    // then on every event's text is counted before it is written, and the reserve is extended when the
    // output needs more (an upstream that ignores max_tokens). When the balance cannot cover an event,
    // the stream ends there with the family's error event and the call is charged for what was written.
    const metered = ctx.maxOut !== null && ctx.grant !== null && ctx.reserved > 0;
    const covered = (ctx.maxOut ?? 0) * ctx.n;
    const group = ctx.call.principal.group;
    const costAt = (out: number) =>
      reserveCost(this.d.prices, ctx.price, { inputTokens: ctx.inputBound, outputTokens: out }, group, ctx.cacheWrites);
    const step = metered ? Math.max(1, costAt(covered) - costAt(0)) : 0;
    // Loaded (once per process) while the stream is young, so that counting never waits for it later.
    if (metered) void loadTokenizer();
    let gateOpen = false;
    /**
     * Whether the reserve surely covers the output so far plus `text`, which it then adds to the count
     * (false: nothing added; count and extend, asynchronously).
     */
    const covers = (text: string): boolean => {
      if (!gateOpen && 3 * (counter.length + text.length) <= covered) {
        counter.add(text);
        return true;
      }
      gateOpen = true;
      const before = counter.exact();
      const more = countTokensSync(text);
      if (before === null || more === null || costAt(before + more) > ctx.reserved) return false;
      counter.addCounted(text, more);
      return true;
    };

    return new Promise<void>((resolve) => {
      let done = false;
      let clientGone = false;
      let upstreamError: string | null = null;
      /** Output tokens written when the stream was cut for want of quota (null: not cut). */
      let cutAt: number | null = null;
      let holding = false;
      /** Metered streams: events not yet handled (null: the upstream ended). */
      const items: Array<SseEvent | null> = [];
      const body = up.body;
      const finish = () => {
        if (done) return;
        done = true;
        res.off('close', onClose);
        body.off('data', onData);
        if (cutAt !== null) body.destroy();
        if (!clientGone && !res.writableEnded) {
          let tail =
            cutAt !== null ? quotaStreamEvent(cf) : upstreamError ? streamErrorEvent(cf, `upstream stream failed: ${upstreamError}`) : '';
          if (array) tail = array.push(tail) + array.end();
          res.end(tail);
        }
        const status = clientGone ? 499 : upstreamError ? 502 : 200;
        const u = usage as Partial<Usage> | null;
        const complete = cutAt === null && !clientGone && u && ((u.inputTokens ?? 0) > 0 || (u.outputTokens ?? 0) > 0);
        this.track(
          (async () => {
            let final: Usage;
            if (cutAt !== null) {
              final = await this.countUsage(ctx, null, '', u ? { ...u, outputTokens: 0 } : null);
              final.outputTokens = cutAt;
            } else {
              if (chunkText) counter.add(chunkText);
              final = complete ? fullUsage(u) : await this.countUsage(ctx, counter, '', u);
            }
            this.finish(ctx, ch, upModel, final, status, {
              upstreamUsage: !!complete,
              clientGone,
              upstreamError,
              ...(cutAt !== null ? { cut: 'insufficient_quota' } : {}),
            });
          })(),
        ).then(resolve, resolve);
      };
      const write = (chunk: string | Buffer) => {
        const s = array ? array.push(chunk) : chunk;
        if (s.length === 0 || clientGone) return;
        if (!res.write(s)) {
          body.pause();
          res.once('drain', () => {
            if (!holding) body.resume();
          });
        }
      };
      /** Metered streams: handles the queued events in order; holds the rest while the reserve is extended. */
      const run = () => {
        let out = '';
        while (items.length && !holding && !done && !clientGone) {
          const ev = items.shift()!;
          const o = ev ? transformEvent(ev) : transformTail();
          const text = chunkText;
          chunkText = '';
          if (covers(text)) {
            out += o;
            if (!ev) {
              write(out);
              finish();
              return;
            }
            continue;
          }
          write(out);
          out = '';
          holding = true;
          body.pause();
          void this.meter(ctx, counter, text, costAt, step).then((ok) => {
            if (done || clientGone) return;
            if (!ok) {
              cutAt = counter.exact() ?? 0;
              finish();
              return;
            }
            counter.add(text);
            write(o);
            holding = false;
            if (!ev) {
              finish();
              return;
            }
            run();
            if (!holding && !done) body.resume();
          });
          return;
        }
        write(out);
      };
      const onData = (chunk: Buffer) => {
        if (clientGone || done) return;
        if (metered) {
          for (const ev of framer.push(chunk)) items.push(ev);
          if (!holding) run();
          return;
        }
        const out = transform(chunk);
        counter.add(chunkText);
        chunkText = '';
        write(out);
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
        if (metered) {
          for (const ev of framer.end()) items.push(ev);
          items.push(null);
          if (!holding) run();
          return;
        }
        let out = '';
        if (decoder) {
          for (const ev of framer.end()) out += onCanonical(decoder.push({ event: ev.event, data: ev.data }));
          out += transformTail();
        } else {
          for (const ev of framer.end()) if (onOpenAI(ev) && strip) out += ev.raw;
        }
        counter.add(chunkText);
        chunkText = '';
        if (encoder || strip) write(out);
        finish();
      });
    });
  }

  /**
   * Whether the reserve covers the output written so far (`counter`) plus `text`: counts them (loading
   * the tokenizer when needed) and extends the reserve by what is missing. False when the balance
   * cannot cover it.
   */
  private async meter(ctx: Ctx, counter: TokenCounter, text: string, costAt: (out: number) => number, step: number): Promise<boolean> {
    await loadTokenizer();
    const now = (counter.exact() ?? 0) + (text ? await countTokens(text) : 0);
    const need = costAt(now) - ctx.reserved;
    if (need <= 0 || !ctx.grant) return true;
    const ok = await extendReserve(this.d, ctx.grant, () => ++ctx.extensions, need, step);
    if (ok) ctx.reserved = ctx.grant.amount;
    return ok;
  }

  // ---------- usage, billing, logs ----------

  private promptText(ctx: Ctx): string {
    if (ctx.promptText !== null) return ctx.promptText;
    const b = ctx.call.body;
    let t = '';
    if (ctx.canonical && ctx.cf !== 'openai') t = canonicalPromptText(ctx.canonical);
    else if (ctx.call.kind === 'embeddings' && ctx.cf === 'gemini')
      t = (embedTexts(b, ctx.call.geminiAction ?? 'embedContent') ?? []).join('\n');
    else if (ctx.call.kind === 'chat') {
      for (const m of b.messages as unknown[]) t += textOfContent((m as { content?: unknown })?.content) + '\n';
      if (Array.isArray(b.tools)) t += JSON.stringify(b.tools);
    } else if (ctx.call.kind === 'completions') t = textOfContent(b.prompt);
    else t = textOfContent(b.input);
    ctx.promptText = t;
    return t;
  }

  /**
   * The usage the reserve covers: an upper bound of the input from the body's bytes and media, and
   * the output the gateway will ask for (the caller's max_tokens, at most the model's limit, or the
   * default) times the choices. Sets ctx.inputBound, ctx.n and ctx.maxOut.
   */
  private estimateUsage(ctx: Ctx): TokenUsage {
    const { call } = ctx;
    const b = call.body;
    const c = ctx.cf !== 'openai' ? ctx.canonical : null;
    let asked: number | undefined;
    if (c) {
      asked = c.maxTokens;
      ctx.n = c.n ?? 1;
    } else if (call.kind !== 'embeddings') {
      // Checked here for OpenAI bodies (sent as received); other formats were checked by their decoder.
      const mc = tokenCount(b.max_completion_tokens, 'max_completion_tokens');
      const mt = tokenCount(b.max_tokens, 'max_tokens');
      asked = mc ?? mt;
      ctx.n = choiceCount(b.n, 'n') ?? 1;
    }
    if (ctx.price?.perRequest !== null && ctx.price?.perRequest !== undefined) return { inputTokens: 0, outputTokens: 0 };
    const scan = call.scan ?? scanBody(b);
    ctx.inputBound = inputBound(call.raw.length, scan, b.tools !== undefined || b.functions !== undefined);
    ctx.cacheWrites = call.raw.includes('"cache_control"');
    if (call.kind === 'embeddings' || !pricesOutput(ctx.price)) return { inputTokens: ctx.inputBound, outputTokens: 0 };
    const limit = this.d.policy.modelMaxOutput(ctx.model);
    let out = asked ?? this.d.policy.defaultMaxOutput(ctx.model);
    if (limit !== undefined && out > limit) out = limit;
    ctx.maxOut = out;
    return { inputTokens: ctx.inputBound, outputTokens: out * ctx.n };
  }

  /** Usage counted locally when the upstream gave none (or the caller left before it came). */
  private async countUsage(ctx: Ctx, counter: TokenCounter | null, outputText: string, partial?: Partial<Usage> | null): Promise<Usage> {
    const input = partial?.inputTokens || (await countTokens(this.promptText(ctx)));
    let output = partial?.outputTokens ?? 0;
    if (counter) output = Math.max(output, await counter.total());
    else if (outputText) output = await countTokens(outputText);
    return {
      inputTokens: input,
      outputTokens: output,
      cachedInputTokens: partial?.cachedInputTokens ?? 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    };
  }

  private finish(ctx: Ctx, ch: RuntimeChannel, upModel: string, usage: Usage, status: number, other: Record<string, unknown>): void {
    const { call } = ctx;
    ctx.admission?.end(usage.inputTokens + usage.outputTokens);
    const actual = this.d.prices.cost(ctx.price, usage, call.principal.group);
    const grant = ctx.grant ?? ledgerGrant(ctx.payer, call.requestId, 0);
    ctx.grant = null;
    ctx.reserved = 0;
    const latency = Math.round(msSince(call.startedAt));
    // With other calls in flight the settle waits a little to share their commit; alone, it commits
    // now, while the caller reads the answer, instead of on the next call's path.
    const defer = this.active > 1 ? SETTLE_DEFER_MS : 0;
    // An upstream that bills more output than the max_tokens it was sent is noted against its channel.
    const overMax =
      ctx.maxOut !== null && usage.outputTokens > ctx.maxOut * ctx.n
        ? { upstream_over_max_tokens: { sent: ctx.maxOut, n: ctx.n, billed: usage.outputTokens } }
        : null;
    settleThenLog(this.d, this.track, grant, actual, defer, (charged, extra = {}) => {
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
          latency_ms: latency,
          prompt_tokens: usage.inputTokens,
          completion_tokens: usage.outputTokens,
          cached_tokens: usage.cachedInputTokens,
          other: JSON.stringify({
            ...other,
            ...extra,
            ...overMax,
            ...(ctx.cf !== 'openai' ? { inbound: ctx.cf } : {}),
            ...(ctx.canonical?.dropped.length ? { dropped: ctx.canonical.dropped.slice(0, 20) } : {}),
            attempts: ctx.attempts,
            reasoning_tokens: usage.reasoningTokens,
            cache_write_tokens: usage.cacheWriteTokens,
            ...(usage.cacheWrite1hTokens ? { cache_write_1h_tokens: usage.cacheWrite1hTokens } : {}),
          }),
        }),
      );
    });
  }
}

// ---------- helpers ----------

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

/** `raw` (a JSON object's bytes) with `"key":value,` written after its opening brace. */
function injectField(raw: Buffer, key: string, value: number): Buffer {
  const i = raw.indexOf(0x7b);
  return Buffer.concat([raw.subarray(0, i + 1), Buffer.from(`${JSON.stringify(key)}:${value},`), raw.subarray(i + 1)]);
}

function fullUsage(u: Partial<Usage>): Usage {
  return {
    inputTokens: u.inputTokens ?? 0,
    outputTokens: u.outputTokens ?? 0,
    cachedInputTokens: u.cachedInputTokens ?? 0,
    cacheWriteTokens: u.cacheWriteTokens ?? 0,
    reasoningTokens: u.reasoningTokens ?? 0,
    ...(u.cacheWrite1hTokens ? { cacheWrite1hTokens: u.cacheWrite1hTokens } : {}),
  };
}
