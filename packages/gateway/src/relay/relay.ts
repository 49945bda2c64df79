/**
 * The model-call hot path: access check → channel (in memory) → reserve quota → upstream (pooled,
 * streamed; SSE read on the fly only for usage) → settle → log (queued). The sequence is the call
 * pipeline's (relay/pipeline/index.ts); this file is the strategy of chat, completions and embeddings calls
 * in every caller format: the choice of channels and fallbacks, one attempt, the whole answer's
 * conversion and usage. The request's check, estimate and body for a channel are in chat-request.ts,
 * the stream relay in chat-stream.ts, Gemini embeddings in embeddings.ts, Responses answers served by
 * conversion in responses-convert.ts (relay/responses-route.ts decides which Responses calls are).
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
import { callFacts, readsCall } from '../billing/call-facts.ts';
import { ruleUsageDetails } from '../billing/price-rules.ts';
import type { TokenUsage } from '../billing/prices.ts';
import { echo, GatewayError, fail } from '../platform/errors.ts';
import { Pending } from '../platform/pending.ts';
import { redactSecrets, sentSecrets } from '../platform/redact.ts';
import type { RuntimeChannel } from './channels.ts';
import type { FallbackStep } from './attempts.ts';
import { chainPrices, nextModel } from './fallback.ts';
import type { FallbackClass } from './routing.ts';
import { Pipeline, type FamilyOutcome, type StreamAnswer } from './pipeline/index.ts';
import { msSince } from './accounting.ts';
import { reserveCost } from './estimate.ts';
import { channelFormat, supportsKind, prepareUpstream, upstreamAuthFailed, upstreamModel } from './providers/endpoint.ts';
import { readText, type UpstreamResponse } from './upstream.ts';
import type { RelayDeps, RelayPrincipal } from './call.ts';
import {
  decodeResponse,
  encodeResponse,
  errorBodyFor,
  isStreamType,
  UnusableKeyError,
  upstreamErrorMessage,
  upstreamErrorType,
  usageFromResponse,
  type CanonicalResponse,
  type Usage,
  type WireFormat,
} from './providers/index.ts';
import { responseText } from './providers/openai/body.ts';
import type { UpstreamRequest } from './providers/provider.ts';
import { channelPlacesBreakpoints, DEFAULT_MIN_CACHEABLE } from './providers/cache-breakpoints.ts';
import { unwrapOutputTool } from './providers/structured-output.ts';
import { geminiEmbedAnswer, isGeminiEmbed } from './embeddings.ts';
import { PASS_ENDPOINTS } from './pass-kinds.ts';
import { PassThrough } from './passthrough.ts';
import { ResponsesConversion } from './responses-convert.ts';
import type { Conversations } from './conversations.ts';
import { checkInput, checkOutput, guardrailContext } from './guardrails.ts';
import type { Ctx, RelayCall } from './chat-call.ts';
import { chatBody, chatConversationHead, clientErrorBody, countPromptTokens, estimateChatUsage, readChatRequest } from './chat-request.ts';
import { canonicalResponseText, chatStreamRelay, countUsage } from './chat-stream.ts';

/**
 * A settlement is written after the response; it may wait this long to share a commit with other
 * movements (on SQLite, usually the next request's reserve), so a model call costs about one commit.
 */
const SETTLE_DEFER_MS = 5;

/**
 * The details of a chat call's log row, keys in this order: the caller's format (when not OpenAI's), what
 * the request that served the call left out (the caller's body as converted for its channel), the models
 * the call went through before the one that answered (relay/fallback.ts), its attempts, guardrail
 * verdicts, reasoning and cache-write tokens, and the usage a price's rules read. Built by assignment
 * (it runs for every call).
 */
export function chatLogDetails(ctx: Ctx, u: TokenUsage): Record<string, unknown> {
  const d: Record<string, unknown> = {};
  if (ctx.cf !== 'openai') d.inbound = ctx.cf;
  if (ctx.sent?.dropped.length) d.dropped = ctx.sent.dropped.slice(0, 20);
  if (ctx.chain.length) {
    d.requested_model = ctx.chain[0].from;
    d.fallbacks = ctx.chain;
  }
  d.attempts = ctx.attempts;
  if (ctx.guardrails.length) d.guardrails = ctx.guardrails;
  d.reasoning_tokens = u.reasoningTokens;
  d.cache_write_tokens = u.cacheWriteTokens;
  if (u.cacheWrite1hTokens) d.cache_write_1h_tokens = u.cacheWrite1hTokens;
  return Object.assign(d, ruleUsageDetails(u));
}

export class Relay {
  /** Chat, completions and embeddings calls in progress on this node. */
  private active = 0;
  private readonly pending = new Pending();
  private readonly track = this.pending.track;
  /** Images, Responses, audio, rerank, moderations, alpha search (relay/passthrough.ts). */
  readonly pass: PassThrough;
  /** Responses calls served by conversion: their answers and conversations (relay/responses-convert.ts). */
  private readonly conv: ResponsesConversion;
  /** Conversations of Responses calls served by conversion (`previous_response_id`). */
  readonly conversations: Conversations;
  /** The call pipeline with this family's strategy (relay/pipeline/index.ts). */
  private readonly pipe: Pipeline<Ctx>;

  constructor(private readonly d: RelayDeps) {
    this.pass = new PassThrough(d, this.track);
    this.conv = new ResponsesConversion(d.core, this.track);
    this.conversations = this.conv.conversations;
    this.pipe = new Pipeline<Ctx>(d, this.track, {
      holds: true,
      attempt: (ctx, ch, key) => this.attempt(ctx, ch, key),
      sticky: () => true,
      conversationHead: (ctx) => chatConversationHead(ctx),
      reserveOf: (ctx, u) => reserveCost(d.prices, ctx.price, u, ctx.call.principal.group, ctx.cacheWrites, ctx.priceCall),
      routing: {
        // The costliest model the call may fall back to; without fallbacks its own (no array per call).
        reserveBound: (ctx, u) => {
          const g = ctx.call.principal.group;
          if (!ctx.chainPrices) return reserveCost(d.prices, ctx.price, u, g, ctx.cacheWrites, ctx.priceCall);
          return Math.max(...ctx.chainPrices.map((p) => reserveCost(d.prices, p, u, g, ctx.cacheWrites, ctx.priceCall)));
        },
        // About four bytes of a body per token: what the channels' max_input_tokens are compared with.
        inputTokens: (ctx) => Math.ceil(ctx.call.raw.length / 4),
        fallback: (ctx, cls, from) => this.fallback(ctx, cls, from),
      },
      cost: (ctx, u) => d.prices.cost(ctx.price, u, ctx.call.principal.group, ctx.priceCall),
      logDetails: chatLogDetails,
      // With other calls in flight the settle waits a little to share their commit; alone, it commits
      // now, while the caller reads the answer, instead of on the next call's path.
      settleDeferMs: () => (this.active > 1 ? SETTLE_DEFER_MS : 0),
    });
  }

  /** Whether the relay serves an endpoint that the task protocols hand over for models no plugin claims. */
  handles(endpoint: string): boolean {
    return endpoint in PASS_ENDPOINTS;
  }

  /** Resolves when every in-flight settlement has been written (shutdown). */
  drain(): Promise<void> {
    return this.pending.drain();
  }

  /** The prompt tokens of a request in `format`, counted locally and free (relay/chat-request.ts). */
  countPromptTokens(p: RelayPrincipal, format: WireFormat, model: string, body: Record<string, unknown>): Promise<number> {
    return countPromptTokens(this.d, (q) => this.listModels(q), p, format, model, body);
  }

  /** Models the key may use and some enabled channel serves for its group. */
  listModels(p: Pick<RelayPrincipal, 'group' | 'models'>): string[] {
    const all = this.d.channels.modelsFor(p.group);
    return (p.models ? all.filter((m) => p.models!.has(m)) : all).sort();
  }

  /**
   * Serves one chat, completions or embeddings call (pass-through calls are `pass.handle`'s, a Responses
   * call's family is chosen by relay/responses-route.ts). Throws GatewayError (rendered by the route) when
   * it fails before the response started; once started it never throws.
   */
  handle(call: RelayCall): Promise<void> {
    // Every call is tracked until it has ended, so that closing the node (drain) waits for the calls a
    // graceful stop cut to settle what they produced.
    return this.track(this.serve(call));
  }

  private async serve(call: RelayCall): Promise<void> {
    // Guardrails see the input before anything is routed or reserved (relay/guardrails.ts).
    const checked =
      this.d.guardrails.any() && call.kind !== 'embeddings'
        ? await checkInput(this.d.guardrails, this.d.logs, call, call.inbound ?? 'openai')
        : null;
    const { body, principal } = call;
    const cf = call.inbound ?? 'openai';
    const model = call.modelFromPath ?? body.model;
    if (typeof model !== 'string' || !model) throw fail('invalid_request', '"model" is required and must be a string');
    const { canonical, onlySameFormat } = readChatRequest(call, cf, model);
    if (canonical && cf === 'responses' && typeof body.previous_response_id === 'string' && body.previous_response_id) {
      await this.conv.addHistory(canonical, body.previous_response_id, principal.userId);
    }
    if (principal.models) checkModelAccess(principal as KeyPrincipal, model);
    let candidates = this.serving(call, cf, model, false);
    if (onlySameFormat) {
      candidates = this.serving(call, cf, model, true);
      if (!candidates.length && this.d.channels.modelsFor(principal.group).includes(model)) throw onlySameFormat;
    }
    if (candidates.length === 0) {
      // Callers of the other formats get "not found" for a model nothing serves (their SDKs retry 503s).
      if (cf !== 'openai' && !this.d.channels.modelsFor(principal.group).includes(model)) {
        throw fail('model_not_found', `model "${echo(model)}" is not available in group "${principal.group}"`);
      }
      throw fail('no_available_channel', { model: echo(model), group: principal.group });
    }
    const price = this.d.prices.get(model);
    if (!price && !this.d.core.config.relayAllowUnpricedModels) {
      throw fail('model_price_not_set', { model: echo(model) });
    }
    const stream = call.stream ?? (call.kind !== 'embeddings' && body.stream === true);
    const ctx: Ctx = {
      call,
      cf,
      model,
      stream,
      price,
      payer: this.d.budgets.payer(principal, model),
      reserved: 0,
      grant: null,
      attempts: [],
      upstreamWaitMs: 0,
      firstByteMs: null,
      canonical,
      sent: null,
      promptText: null,
      chain: [],
      chainPrices: this.d.routing.fallbacks(model).length ? chainPrices(this.d, model, price) : null,
      sameFormatOnly: !!onlySameFormat,
      started: false,
      inputBound: 0,
      cacheWrites: false,
      n: 1,
      maxOut: null,
      extensions: 0,
      admission: null,
      guardrails: checked ?? [],
      outGuards: call.kind === 'embeddings' ? [] : this.d.guardrails.select(principal, model, 'output'),
      ...(readsCall(price?.rules) ? { priceCall: callFacts(body, call.headers, Date.now()) } : {}),
    };
    const estimate = estimateChatUsage(ctx, this.d.policy);
    // The reserve covers cache writes when a channel may place breakpoints (relay/providers/cache-breakpoints.ts).
    ctx.cacheWrites ||=
      call.kind === 'chat' && ctx.inputBound >= DEFAULT_MIN_CACHEABLE && candidates.some((c) => channelPlacesBreakpoints(cf, c, model));
    this.active++;
    try {
      await this.pipe.run(ctx, candidates, estimate);
    } finally {
      this.active--;
    }
  }

  /** The enabled channels that serve `model` for the call (`sameFormat`: only those of the caller's format). */
  private serving(call: RelayCall, cf: WireFormat, model: string, sameFormat: boolean): RuntimeChannel[] {
    const all = this.d.channels.candidates(call.principal.group, model).filter((c) => supportsKind(c, call.kind, cf));
    return sameFormat ? all.filter((c) => channelFormat(c.type, upstreamModel(c, model)) === cf) : all;
  }

  /** Moves the call to the model `from` falls back to on `cls` (relay/fallback.ts): it is served and billed as that model. */
  private fallback(ctx: Ctx, cls: FallbackClass, from: string): FallbackStep | null {
    const first = ctx.chain[0]?.from ?? from;
    const next = nextModel(this.d, ctx.call.principal, from, cls, ctx.chain, first, (m) =>
      this.serving(ctx.call, ctx.cf, m, ctx.sameFormatOnly),
    );
    if (!next) return null;
    ctx.chain.push({ from, model: next.model, on: cls });
    ctx.model = next.model;
    ctx.price = next.price;
    if (ctx.canonical) ctx.canonical.model = next.model;
    return { model: next.model, candidates: next.candidates };
  }

  /** One attempt on a channel: the upstream's answer converted for the caller, with its usage (the pipeline writes and settles it). */
  private async attempt(ctx: Ctx, ch: RuntimeChannel, key: string): Promise<FamilyOutcome<Ctx>> {
    const upModel = upstreamModel(ch, ctx.model);
    const fmt = channelFormat(ch.type, upModel);
    const built = chatBody(ctx, ch, fmt, upModel);
    const embedGemini = isGeminiEmbed(ctx.call.kind, ctx.cf);
    const t0 = process.hrtime.bigint();
    const google = this.d.core.outbound.google;
    let prepared: UpstreamRequest;
    try {
      // The endpoint's URL, headers and body with this key (Bedrock signs the request, Vertex sends an access token).
      prepared = await prepareUpstream({
        channel: ch,
        key,
        kind: ctx.call.kind,
        model: upModel,
        stream: ctx.stream,
        body: built,
        ...(embedGemini ? { geminiAction: ctx.call.geminiAction ?? 'embedContent' } : {}),
        // The caller's vendor headers go to an upstream of their vendor (OpenAI's also from a converted Responses call).
        ...(fmt === ctx.cf || (fmt === 'openai' && ctx.cf === 'responses') ? { callerHeaders: ctx.call.vendorHeaders } : {}),
        google,
      });
    } catch (e) {
      if (!(e instanceof UnusableKeyError)) throw e;
      return { kind: 'retry', status: 401, message: `the channel's key cannot be used: ${e.message}` };
    }
    const { url, headers, body } = prepared;
    /** The secrets this request carries: an upstream error never repeats them to anyone. */
    const keys = prepared.secrets;
    const up = await this.d.pools.send({ url, method: 'POST', headers, body });
    if (up.statusCode >= 400) {
      // A refused credential (a Vertex access token) is exchanged again on the next attempt with this key.
      if (up.statusCode === 401) upstreamAuthFailed(ch, key, google);
      // An upstream error may echo the credentials it got: they never go further than here.
      const text = redactSecrets(await readText(up.body, 256 * 1024), sentSecrets(keys, headers, url));
      const message = upstreamErrorMessage(fmt, up.statusCode, text, upstreamErrorType(fmt, up.headers));
      // Other 4xx: the request itself is at fault; the caller sees the upstream's answer.
      return (
        this.pipe.refusal(up, message) ??
        clientErrorBody(ctx, fmt, up.statusCode, text, String(up.headers['content-type'] ?? 'application/json'), message)
      );
    }
    const ctype = String(up.headers['content-type'] ?? '');
    if (ctx.stream && isStreamType(fmt, ctype)) {
      ctx.upstreamWaitMs = msSince(t0);
      return this.streamAnswer(ctx, fmt, upModel, up, () => sentSecrets(keys, headers, url));
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
      const a = geminiEmbedAnswer(ctx, fmt, text, json);
      if (!a) return { kind: 'retry', status: 502, message: 'upstream embeddings response could not be read' };
      ({ out, usage } = a);
    } else if (fmt === ctx.cf) {
      out = text;
      usage = usageFromResponse(fmt, json);
    } else {
      try {
        decoded = decodeResponse(fmt, json);
        // JSON asked for through a forced tool: the tool's call is the answer's text.
        if (ctx.sent?.outputTool) unwrapOutputTool(decoded, ctx.sent.outputTool);
      } catch (e) {
        return {
          kind: 'retry',
          status: 502,
          message: redactSecrets(`upstream response could not be read: ${(e as Error).message}`, sentSecrets(keys, headers, url)),
        };
      }
      usage = decoded.usage;
      out =
        ctx.cf === 'responses'
          ? this.conv.answer(ctx, decoded)
          : JSON.stringify(encodeResponse(ctx.cf, decoded, ctx.model, ctx.call.requestId));
    }
    let blocked: GatewayError | null = null;
    if (ctx.outGuards.length) {
      const p = ctx.call.principal;
      const g = await checkOutput(
        this.d.guardrails,
        ctx.outGuards,
        guardrailContext(p, ctx.model, ctx.call.requestId, ctx.call.endpoint),
        ctx.cf,
        out,
        ctx.guardrails,
      );
      if (g.block) {
        // The answer is not served: the caller pays for the input only (its usage below).
        blocked = fail('guardrail_blocked', { plugin: g.block.plugin, reason: g.block.reason });
        out = JSON.stringify(errorBodyFor(ctx.cf, blocked, ctx.call.requestId));
      } else out = g.out;
    }
    const status = blocked ? blocked.status : 200;
    // Reported usage counts only when it names some tokens; otherwise the answer is counted locally.
    const reported = usage && (usage.inputTokens > 0 || usage.outputTokens > 0) ? usage : null;
    return {
      kind: 'answer',
      status,
      headers: { 'content-type': 'application/json' },
      model: upModel,
      body: out,
      reported,
      other: { upstreamUsage: !!usage },
      usage: async () => {
        let final: Usage;
        if (reported) final = reported;
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
          final = await countUsage(ctx, null, outText);
        }
        // A blocked answer was not served: the caller pays for the input only.
        return blocked ? { ...final, outputTokens: 0, reasoningTokens: 0 } : final;
      },
    };
  }

  /** A streamed answer as it arrives (the pipeline's pump, relay/pipeline/pump.ts; converted by chat-stream.ts). */
  private streamAnswer(ctx: Ctx, fmt: WireFormat, upModel: string, up: UpstreamResponse, secrets: () => string[]): StreamAnswer<Ctx> {
    const r = chatStreamRelay(ctx, fmt, up, secrets, this.d.guardrails, this.conv);
    // Metered when the output is priced and bounded by the max_tokens sent (relay/pipeline/pump.ts).
    const metered = ctx.maxOut !== null && ctx.grant !== null && ctx.reserved > 0;
    return { kind: 'answer', status: 200, headers: r.headers, model: upModel, stream: { up: r.up, relay: r.s, metered } };
  }
}
