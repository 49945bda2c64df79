/**
 * The one call pipeline every model call goes through, in one place: reserve (with the family's
 * estimate; lowered to what the balance covers when the output is bounded) → attempts over the
 * channels (relay/attempts.ts: retry rules, health marks, affinity) → first byte → stream pump or
 * whole body → settle (exact usage; reserve extensions while a stream outgrows its reserve) → log row.
 *
 * A call family supplies a small strategy (`CallFamily`): one attempt on a channel (build the upstream
 * request, read the answer), what its usage costs and what its log row adds. A streamed answer is
 * relayed by a `StreamRelay` the family makes per stream (the caller's bytes of each upstream chunk or
 * event, the output text to meter, the family's closing error events and the usage at the end); the
 * pump is the same for all. The chat relay (relay.ts) and the pass-through endpoints (passthrough.ts)
 * run whole calls here; settling a call and its log row are in settle.ts, which the realtime relay
 * (realtime.ts) reserves and settles through too.
 */
import type { Grant } from '../billing/allowance.ts';
import type { Payer } from '../billing/ledger.ts';
import type { CallFacts, ModelPrice, TokenUsage } from '../billing/prices.ts';
import { countTokens, countTokensSync, loadTokenizer, TokenCounter } from '../billing/tokens.ts';
import type { GatewayError } from '../platform/errors.ts';
import { affinityKey } from './affinity.ts';
import { extendReserve, logAttemptError, msSince, refundGrant, runReserved } from './accounting.ts';
import { routedCall, runAttempts } from './attempts.ts';
import type { AttemptCallInfo, AttemptHooks, AttemptOutcome, FamilyRouting } from './attempts.ts';
import { modelHeader } from './routing.ts';
import type { ClientConn, RelayDeps, RelayPrincipal } from './call.ts';
import type { RuntimeChannel } from './channels.ts';
import { fitOutput, MIN_OUTPUT_TOKENS } from './estimate.ts';
import { tightenInput } from './input-estimate.ts';
import type { EventFramer, SseEvent } from './sse.ts';
import { networkMessage, retryAfter, type UpstreamResponse } from './upstream.ts';
import { reserveFor, settleCall, type SettledCall } from './settle.ts';

/** One model call as the pipeline runs it (each family's context extends it). */
export interface PipelineCall extends SettledCall {
  call: {
    principal: RelayPrincipal;
    requestId: string;
    endpoint: string;
    startedAt: bigint;
    client: ClientConn;
    body: Record<string, unknown>;
    vendorHeaders?: Record<string, string>;
  };
  model: string;
  stream: boolean;
  price: ModelPrice | null;
  /** Upstream time (ms) spent before the first byte was written (excluded from the gateway's time). */
  upstreamWaitMs: number;
  firstByteMs: number | null;
  /** When the first byte was written (the channel's time to first byte, relay/routing.ts). */
  firstByteAt?: bigint | null;
  /** Set once bytes reached the client: from then on nothing is retried. */
  started: boolean;
  /** Input tokens the reserve covers: the byte bound (relay/estimate.ts), or the tokenizer's estimate once `tightenInput` ran (relay/input-estimate.ts). */
  inputBound: number;
  /** The part of `inputBound` its text makes (relay/estimate.ts `textBound`); unset or 0: nothing to estimate. */
  textBound?: number;
  /** The body marks prompt-cache breakpoints (relay/estimate.ts). */
  cacheWrites: boolean;
  /** What the price's rules read of the request: parameters, headers, hour, server tools' bounds. */
  priceCall?: CallFacts;
}

/** What a call family supplies to the pipeline. */
export interface CallFamily<C extends PipelineCall> {
  /** Reserves through the node's quota holds (billing/allowance.ts); otherwise a ledger reserve of its own. */
  readonly holds: boolean;
  /**
   * One attempt on a channel: builds the upstream request, sends it and answers the caller through
   * `Pipeline.begin`, `Pipeline.stream` and `Pipeline.settle` (or returns why another channel is to be tried).
   */
  attempt(ctx: C, ch: RuntimeChannel, key: string, keyIndex: number): Promise<AttemptOutcome>;
  /** Whether the call's conversation may stick to the channel that served it (relay/affinity.ts). */
  sticky(ctx: C): boolean;
  /** What names the call's conversation when the caller names none (relay/affinity.ts); absent or null: nothing. */
  conversationHead?(ctx: C): string | null;
  /** The reserve of a usage (at least 1 unit for a priced call). */
  reserveOf(ctx: C, usage: TokenUsage): number;
  /** Fallbacks across models, channel caps and the reserve they need (relay/attempts.ts). */
  routing?: FamilyRouting<C>;
  /** What a usage costs. */
  cost(ctx: C, usage: TokenUsage): number;
  /** What the family adds to the `other` of its consume rows (after the outcome's fields). */
  logDetails(ctx: C, usage: TokenUsage): Record<string, unknown>;
  /** How long a settlement may wait to share a commit with other movements. */
  settleDeferMs(): number;
}

/**
 * How one streamed answer reaches the caller. Output text it reads goes to `text`, which the pump takes
 * after each chunk or event (counted, and metered against the reserve before it is written).
 */
export interface StreamRelay<C extends PipelineCall> {
  text: string;
  /** Splits the upstream body into events (metered streams). */
  readonly framer: EventFramer | null;
  /** Unmetered streams: what an upstream chunk becomes for the caller. */
  chunk(chunk: Buffer): string | Buffer;
  /** Unmetered streams: what is left to write when the upstream ended. */
  end(): string;
  /** Metered streams: what one upstream event becomes for the caller. */
  event(ev: SseEvent): string;
  /** Metered streams: what is left to write after the last event. */
  tail(): string;
  /** What is written to the caller, as the pump writes it (a re-framing of the family's, or the bytes as they are). */
  frame(out: string | Buffer): string | Buffer;
  /** The last bytes: the family's error event when the stream was cut (`cut`) or failed upstream. */
  close(cut: boolean, upstreamError: string | null): string;
  /** The usage billed, and whether it is the upstream's report (`cutAt`: output tokens written when cut). */
  usage(ctx: C, cutAt: number | null, clientGone: boolean, counter: TokenCounter): Promise<{ usage: TokenUsage; reported: boolean }>;
}

/** Status codes of an upstream answer that make the next channel be tried. */
function retryableStatus(s: number): boolean {
  return s === 401 || s === 403 || s === 408 || s === 429 || s >= 500;
}

export class Pipeline<C extends PipelineCall> {
  private readonly hooks: AttemptHooks<C>;

  constructor(
    private readonly d: RelayDeps,
    private readonly track: <T>(p: Promise<T>) => Promise<T>,
    private readonly f: CallFamily<C>,
  ) {
    this.hooks = {
      attempt: (c, ch, key, keyIndex) => f.attempt(c, ch, key, keyIndex),
      logError: (c, ch, status, message, n) => logAttemptError(d.logs, c, ch, status, message, n),
      refund: (c) => this.refund(c),
      begin: (c, status, headers) => this.begin(c, status, headers),
    };
  }

  /**
   * Runs a call whose checks passed: rate limits (on the estimate), reserve, attempts. Throws
   * GatewayError when it fails before the response started; once started it never throws.
   */
  async run(ctx: C, candidates: RuntimeChannel[], estimate: TokenUsage): Promise<void> {
    const { call } = ctx;
    let est = estimate;
    // A tokens-per-minute limit counts the tokenizer's estimate, not the byte bound.
    if (ctx.textBound && this.d.rateLimits.countsTokens(call.principal, ctx.model)) est = await tightenInput(ctx, candidates, est);
    // The rate limits count the estimate, before any routing or billing (429 beyond them).
    const a = this.d.rateLimits.admit(call.principal, ctx.model, est.inputTokens + est.outputTokens, call.client.res);
    ctx.admission = a instanceof Promise ? await a : a;
    try {
      // Reserve what the upstream can bill before any upstream work (relay/estimate.ts; at its dearest fallback).
      ctx.reserved = this.bound(ctx, est);
      if (ctx.reserved > 0) {
        try {
          const g = this.reserve(ctx.payer, call.requestId, ctx.reserved);
          // From a hold of this node the reserve is synchronous: no await, no turn of the event loop.
          ctx.grant = g instanceof Promise ? await g : g;
        } catch (e) {
          if ((e as GatewayError).code !== 'insufficient_quota') throw e;
          // The byte bound does not fit: the tokenizer's estimate may (a balance is usable down to one call).
          if (!(await this.reserveEstimate(ctx, candidates, est))) {
            if (ctx.maxOut === null) throw e;
            await this.reserveWhatFits(ctx, e as GatewayError);
          }
        }
      }
      await runReserved(
        this.d.core,
        ctx,
        () => this.attempts(ctx, candidates),
        () => this.refund(ctx),
      );
    } finally {
      // A call that ended without an answer (refused, failed) used no tokens; `settle` ended the others.
      ctx.admission?.end(0);
    }
  }

  /** After the bound was refused: reserves at the tokenizer's estimate; false when it is no smaller or refused too. */
  private async reserveEstimate(ctx: C, candidates: readonly RuntimeChannel[], est: TokenUsage): Promise<boolean> {
    if (!ctx.textBound) return false;
    // A balance that cannot pay the call's media and least output whatever its text is refused untokenized.
    const least = Math.min(MIN_OUTPUT_TOKENS, ctx.maxOut ?? 0) * ctx.n;
    const floor = this.f.reserveOf(ctx, { inputTokens: ctx.inputBound - ctx.textBound, outputTokens: least });
    if (floor > (await this.d.ledger.available(ctx.payer))) return false;
    const tight = await tightenInput(ctx, candidates, est);
    if (tight === est) return false;
    const amount = this.bound(ctx, tight);
    try {
      const g = this.reserve(ctx.payer, ctx.call.requestId, amount);
      ctx.grant = g instanceof Promise ? await g : g;
      ctx.reserved = amount;
      return true;
    } catch (e) {
      if ((e as GatewayError).code !== 'insufficient_quota') throw e;
      return false;
    }
  }

  /** The reserve of a usage before the attempts: it covers the dearest model the call may fall back to. */
  private readonly bound = (ctx: C, u: TokenUsage): number => (this.f.routing?.reserveBound ?? this.f.reserveOf)(ctx, u);

  /** A reserve of `amount` for request `ref` (through the holds when the family uses them). */
  private reserve(payer: Payer, ref: string, amount: number): Grant | Promise<Grant> {
    if (this.f.holds) return this.d.allowances.reserve(payer, ref, amount);
    return reserveFor(this.d, payer, ref, amount);
  }

  /**
   * The balance could not cover the output asked for: lowers max_tokens to what it covers (down to
   * MIN_OUTPUT_TOKENS, else `refused` is thrown). A few tries, as other calls spend the same balance.
   */
  private async reserveWhatFits(ctx: C, refused: GatewayError): Promise<void> {
    const group = ctx.call.principal.group;
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
        ctx.priceCall,
      );
      if (out === null) break;
      ctx.maxOut = out;
      ctx.reserved = this.bound(ctx, { inputTokens: ctx.inputBound, outputTokens: out * ctx.n });
      try {
        const g = this.reserve(ctx.payer, ctx.call.requestId, ctx.reserved);
        ctx.grant = g instanceof Promise ? await g : g;
        return;
      } catch (e) {
        if ((e as GatewayError).code !== 'insufficient_quota') throw e;
      }
    }
    ctx.reserved = 0;
    throw refused;
  }

  /**
   * The attempt loop, first on the channel and key the caller's conversation sticks to (only when there
   * is a choice: several channels, or one with several keys).
   */
  private attempts(ctx: C, candidates: RuntimeChannel[]): Promise<void> {
    const { call } = ctx;
    const r = routedCall(this.f.routing, ctx);
    const info: AttemptCallInfo = { model: ctx.model, group: call.principal.group, res: call.client.res, ...r };
    const aff = this.d.affinity;
    const k =
      aff && (candidates.length > 1 || (candidates.length === 1 && candidates[0].keys.length > 1)) && this.f.sticky(ctx)
        ? affinityKey(call.principal.userId, ctx.model, call.body, call.vendorHeaders, () => this.f.conversationHead?.(ctx) ?? null)
        : null;
    if (!k) return runAttempts(this.d, ctx, candidates, this.hooks, info);
    return aff!.get(k).then((prefer) => {
      info.affinity = { prefer, served: (s) => aff!.set(k, s), failed: () => aff!.drop(k) };
      return runAttempts(this.d, ctx, candidates, this.hooks, info);
    });
  }

  /** Gives the call's reserve back (no answer was produced). */
  async refund(ctx: C): Promise<void> {
    const g = ctx.grant;
    ctx.grant = null;
    if (ctx.reserved > 0 && g) {
      ctx.reserved = 0;
      await refundGrant(this.d, this.track, g);
    }
  }

  /**
   * An upstream error answer the next channel is to be tried for (401, 403, 408, 429, 5xx, and what the
   * health policy counts towards auto-disable); null when the request itself is at fault.
   */
  refusal(up: UpstreamResponse, message: string): AttemptOutcome | null {
    const s = up.statusCode;
    if (!retryableStatus(s) && !this.d.policy.qualifies(s, message)) return null;
    return { kind: 'retry', status: s, message, retryAfterMs: s === 429 ? retryAfter(up.headers['retry-after']) : undefined };
  }

  /** Writes the error row of a failed attempt on `ch` (the `n`th of the call). */
  logError(ctx: C, ch: RuntimeChannel, status: number, message: string, n: number): void {
    logAttemptError(this.d.logs, ctx, ch, status, message, n);
  }

  /** The first byte: writes the status line and headers (request id, gateway time) and hands the socket to the relay. */
  begin(ctx: C, status: number, headers: Record<string, string>): void {
    const { call } = ctx;
    if (ctx.started) return;
    ctx.started = true;
    call.client.hijack();
    const total = msSince(call.startedAt);
    ctx.firstByteMs = Math.round(total);
    ctx.firstByteAt = process.hrtime.bigint();
    call.client.res.writeHead(status, {
      ...headers,
      ...modelHeader(ctx.model),
      'x-request-id': call.requestId,
      'x-gatehouse-time-ms': Math.max(0, total - ctx.upstreamWaitMs).toFixed(2),
    });
  }

  /**
   * Relays a streamed answer (after `begin`) with backpressure, then settles it (status 499 when the
   * caller left, 502 when the upstream failed, else `status`).
   *
   * Metered streams (`metered`: the output is priced and bounded): the reserve covers `covered` output
   * tokens (the max_tokens sent × choices). Output text holds no more tokens than 3 × its UTF-16
   * length, so nothing is counted until that passes `covered`; from then on every event's text is
   * counted before it is written, and the reserve is extended when the output needs more (an upstream
   * that ignores max_tokens). When the balance cannot cover an event, the stream ends there with the
   * family's error event and the call is charged for what was written.
   */
  stream(
    ctx: C,
    ch: RuntimeChannel,
    upModel: string,
    up: UpstreamResponse,
    s: StreamRelay<C>,
    status: number,
    metered: boolean,
  ): Promise<void> {
    const res = ctx.call.client.res;
    const body = up.body;
    const counter = new TokenCounter();
    const f = this.f;
    const covered = (ctx.maxOut ?? 0) * ctx.n;
    const costAt = (out: number) => f.reserveOf(ctx, { inputTokens: ctx.inputBound, outputTokens: out });
    const step = metered ? Math.max(1, costAt(covered) - costAt(0)) : 0;
    // Loaded (once per process) when a stream's text passes half of what surely fits its reserve, so that
    // counting seldom waits for it later; a node whose streams stay within their bound never loads it.
    let warming = !metered;
    let gateOpen = false;
    /**
     * Whether the reserve surely covers the output so far plus `text`, which it then adds to the count
     * (false: nothing added; count and extend, asynchronously).
     */
    const covers = (text: string): boolean => {
      // Tokens never outnumber UTF-8 bytes (a byte-level BPE token is at least one byte).
      const bound = counter.utf8Bytes + Buffer.byteLength(text, 'utf8');
      if (!warming && 2 * bound > covered) {
        warming = true;
        void loadTokenizer();
      }
      if (!gateOpen && bound <= covered) {
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
      const finish = () => {
        if (done) return;
        done = true;
        res.off('close', onClose);
        body.off('data', onData);
        if (cutAt !== null) body.destroy();
        if (!clientGone && !res.writableEnded) res.end(s.close(cutAt !== null, upstreamError));
        const st = clientGone ? 499 : upstreamError ? 502 : status;
        if (s.text) {
          counter.add(s.text);
          s.text = '';
        }
        this.track(
          s.usage(ctx, cutAt, clientGone, counter).then(({ usage, reported }) =>
            this.settle(ctx, ch, upModel, usage, st, {
              upstreamUsage: reported,
              clientGone,
              upstreamError,
              ...(cutAt !== null ? { cut: 'insufficient_quota' } : {}),
            }),
          ),
        ).then(resolve, resolve);
      };
      /**
       * The family's converter runs only inside this: one that throws ends the stream as an upstream
       * failure (502), settled and logged once like any other end.
       */
      const guarded =
        <A extends unknown[]>(fn: (...a: A) => void) =>
        (...a: A): void => {
          try {
            fn(...a);
          } catch {
            if (done) return;
            if (!clientGone && cutAt === null) upstreamError = 'the upstream stream could not be converted';
            body.destroy();
            finish();
          }
        };
      const onDrain = () => {
        if (!holding) body.resume();
      };
      const write = (chunk: string | Buffer) => {
        const b = s.frame(chunk);
        if (b.length === 0 || clientGone) return;
        if (!res.write(b)) {
          body.pause();
          res.once('drain', onDrain);
        }
      };
      /** Metered streams: handles the queued events in order; holds the rest while the reserve is extended. */
      const run = guarded(() => {
        let out = '';
        while (items.length && !holding && !done && !clientGone) {
          const ev = items.shift()!;
          const o = ev ? s.event(ev) : s.tail();
          const text = s.text;
          s.text = '';
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
      });
      const onData = guarded((chunk: Buffer) => {
        if (clientGone || done) return;
        if (metered) {
          for (const ev of s.framer!.push(chunk)) items.push(ev);
          if (!holding) run();
          return;
        }
        const out = s.chunk(chunk);
        if (s.text) {
          counter.add(s.text);
          s.text = '';
        }
        write(out);
      });
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
      body.on(
        'end',
        guarded(() => {
          if (metered) {
            for (const ev of s.framer!.end()) items.push(ev);
            items.push(null);
            if (!holding) run();
            return;
          }
          const out = s.end();
          if (s.text) {
            counter.add(s.text);
            s.text = '';
          }
          write(out);
          finish();
        }),
      );
    });
  }

  /**
   * Whether the reserve covers the output written so far (`counter`) plus `text`: counts them (loading
   * the tokenizer when needed) and extends the reserve by what is missing. False when the balance
   * cannot cover it.
   */
  private async meter(ctx: C, counter: TokenCounter, text: string, costAt: (out: number) => number, step: number): Promise<boolean> {
    await loadTokenizer();
    const now = (counter.exact() ?? 0) + (text ? await countTokens(text) : 0);
    const need = costAt(now) - ctx.reserved;
    if (need <= 0 || !ctx.grant) return true;
    const ok = await extendReserve(this.d, ctx.grant, () => ++ctx.extensions, need, step);
    if (ok) ctx.reserved = ctx.grant.amount;
    return ok;
  }

  /** Settles the call at `usage` and writes its consume row (`other`: the outcome's fields). */
  settle(ctx: C, ch: RuntimeChannel, upModel: string, usage: TokenUsage, status: number, other: Record<string, unknown>): void {
    settleCall(
      this.d,
      this.track,
      ctx,
      ch,
      upModel,
      usage,
      this.f.cost(ctx, usage),
      status,
      this.f.settleDeferMs(),
      other,
      this.f.logDetails(ctx, usage),
      this.d.prices.upstreamCost(ctx.price, usage, ch.costRatio ?? 1, ctx.priceCall, upModel),
    );
  }
}
