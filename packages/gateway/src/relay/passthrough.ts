/**
 * The pass-through family: the OpenAI-format calls that go to an OpenAI-compatible (or Azure) upstream as they are: images
 * (generations, edits — JSON or multipart), Responses (create, compact, and reads of relay-created
 * ids), audio (transcriptions, translations, speech), rerank, moderations and alpha search.
 *
 * Same routing, retries, health, billing and logs as the chat path: both run through the call
 * pipeline (relay/pipeline/index.ts), this file supplying its strategy. The body is sent as
 * received unless the channel maps the model or overrides parameters; multipart bodies are re-encoded
 * from the held parts; answers (JSON, text, SSE, audio bytes) are passed back as they come and only
 * read on the side for usage. The kinds, their checks, URLs and usage readers are in pass-kinds.ts, the
 * stream relays in pass-stream.ts.
 */
import type { KeyPrincipal } from '../accounts/types.ts';
import { checkModelAccess } from '../accounts/keys.ts';
import { quotaUnits, usdCost, type TokenUsage } from '../billing/prices.ts';
import { callFacts, readsCall } from '../billing/call-facts.ts';
import { echo, fail } from '../platform/errors.ts';
import { redactSecrets, sentSecrets } from '../platform/redact.ts';
import { isObj } from '../platform/validate.ts';
import { ChannelType } from '../channels/types.ts';
import type { AttemptRetry } from './attempts.ts';
import { msSince } from './accounting.ts';
import { Pipeline, type Answer, type FamilyOutcome } from './pipeline/index.ts';
import type { RuntimeChannel } from './channels.ts';
import { upstreamErrorMessage } from './providers/index.ts';
import { choiceCount, tokenCount } from './providers/canonical.ts';
import { isPriced } from './estimate.ts';
import { upstreamHeaders, upstreamModel } from './providers/endpoint.ts';
import { networkMessage, readText, type UpstreamResponse } from './upstream.ts';
import type { ClientConn, RelayDeps, RelayPrincipal } from './call.ts';
import { ResponseStore } from './response-store.ts';
import { checkInput } from './guardrails.ts';
import {
  checkBody,
  fallbackUsage,
  MAX_BODY,
  passBody,
  passEstimate,
  passUrl,
  passUsage,
  responseOutputText,
  responseUrl,
  servesKind,
  str,
  STREAMABLE,
  type PassCall,
  type PassCtx,
} from './pass-kinds.ts';
import { ByteStream, PassSse } from './pass-stream.ts';

export class PassThrough {
  readonly responses: ResponseStore;
  /** The call pipeline with this family's strategy (relay/pipeline/index.ts). */
  private readonly pipe: Pipeline<PassCtx>;

  constructor(
    private readonly d: RelayDeps,
    private readonly track: <T>(p: Promise<T>) => Promise<T>,
  ) {
    this.responses = new ResponseStore(d.core);
    this.pipe = new Pipeline<PassCtx>(d, track, {
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

  /**
   * Serves one pass-through call. Throws GatewayError (rendered by the route) when it fails before the
   * response started; once started it never throws.
   */
  handle(call: PassCall): Promise<void> {
    // Tracked until it has ended, so that closing the node (drain) waits for what it settles.
    return this.track(this.serve(call));
  }

  private async serve(call: PassCall): Promise<void> {
    // Guardrails see a Responses call's input before anything is routed or reserved (relay/guardrails.ts).
    if (call.kind === 'responses' && !call.multipart && this.d.guardrails.any())
      await checkInput(this.d.guardrails, this.d.logs, call, 'responses');
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
    const ctx: PassCtx = {
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
    await this.pipe.run(ctx, candidates, passEstimate(ctx, this.d.policy, maxAsked));
  }

  // ---------- billing ----------

  /**
   * Cost in quota units: a per-request price × `n` (images), else token prices on the usage; rounded once.
   */
  private cost(ctx: PassCtx, u: TokenUsage): number {
    if (!ctx.price) return 0;
    const usd = usdCost(ctx.price, u, ctx.priceCall) * (ctx.price.perRequest !== null ? ctx.mult : 1);
    return quotaUnits(usd, this.d.prices.groupRatio(ctx.call.principal.group), this.d.core.config.quotaPerUsd);
  }

  /** The reserve of a usage: its bound at the price's rules (a price per request × `n`), at least 1 unit for a priced call. */
  private reserveOf(ctx: PassCtx, u: TokenUsage): number {
    const c =
      ctx.price && ctx.price.perRequest === null
        ? this.d.prices.bound(ctx.price, u, ctx.call.principal.group, ctx.priceCall)
        : this.cost(ctx, u);
    return c < 1 && isPriced(ctx.price) ? 1 : c;
  }

  /** One attempt on a channel: the upstream's answer as it is, with its usage (the pipeline writes and settles it). */
  private async attempt(ctx: PassCtx, ch: RuntimeChannel, key: string, keyIndex: number): Promise<FamilyOutcome<PassCtx>> {
    const upModel = upstreamModel(ch, ctx.model);
    const { body, multipart } = passBody(ctx, ch, upModel);
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
      const relay = new PassSse(ctx.kind === 'responses' ? (id) => this.remember(ctx, id, ch, keyIndex) : null);
      const metered = ctx.kind === 'responses' && ctx.maxOut !== null && ctx.reserved > 0;
      return {
        kind: 'answer',
        status: 200,
        headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' },
        model: upModel,
        stream: { up, relay, metered, logged: up.statusCode },
      };
    }
    const jsonish = ctype.includes('json');
    if (!jsonish && !ctype.startsWith('text/')) {
      // Binary answers (speech audio): streamed through with the upstream's content type.
      const h: Record<string, string> = { 'content-type': ctype || 'application/octet-stream' };
      const len = up.headers['content-length'];
      if (typeof len === 'string') h['content-length'] = len;
      return {
        kind: 'answer',
        status: up.statusCode,
        headers: h,
        model: upModel,
        stream: { up, relay: new ByteStream(false), metered: false },
      };
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
    if (ctx.kind === 'responses' && isObj(json) && typeof json.id === 'string') this.remember(ctx, json.id, ch, keyIndex);
    const reported = passUsage(json);
    return {
      kind: 'answer',
      status: up.statusCode,
      headers: { 'content-type': ctype || 'application/json' },
      model: upModel,
      body: text,
      reported,
      other: { upstreamUsage: !!reported },
      usage: () => {
        if (reported) return reported;
        const outText =
          ctx.kind === 'responses' || ctx.kind === 'responses_compact'
            ? responseOutputText(json)
            : jsonish
              ? str((json as { text?: unknown } | null)?.text)
              : text;
        return fallbackUsage(ctx, outText);
      },
    };
  }

  private remember(ctx: PassCtx, id: string, ch: RuntimeChannel, keyIndex: number): void {
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
    const ctx: PassCtx = {
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
    const url = responseUrl(ch, o.id, suffix, o.query);
    await this.pipe.direct(ctx, ch, async (): Promise<Answer<PassCtx> | AttemptRetry> => {
      const t0 = process.hrtime.bigint();
      let up: UpstreamResponse;
      try {
        up = await this.d.pools.send({ url, method, headers });
      } catch (e) {
        return { kind: 'retry', status: 0, message: networkMessage(e) };
      }
      ctx.upstreamWaitMs = msSince(t0);
      const ctype = String(up.headers['content-type'] ?? 'application/json');
      if (ctype.includes('text/event-stream')) {
        const h = { 'content-type': ctype, 'cache-control': 'no-cache' };
        return {
          kind: 'answer',
          status: up.statusCode,
          headers: h,
          model: rec.model,
          stream: { up, relay: new ByteStream(true), metered: false },
        };
      }
      let text = await readText(up.body, MAX_BODY);
      if (up.statusCode >= 400) text = redactSecrets(text, sentSecrets([key], headers, url));
      ctx.upstreamWaitMs = msSince(t0);
      return {
        kind: 'answer',
        status: up.statusCode,
        headers: { 'content-type': ctype },
        model: upstreamModel(ch, rec.model),
        body: text,
        reported: null,
        usage: () => ({ inputTokens: 0, outputTokens: 0 }),
        other: { op: o.op },
      };
    });
    return true;
  }
}
