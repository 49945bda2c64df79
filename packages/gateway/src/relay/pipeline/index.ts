/**
 * The one call pipeline every model call goes through, in one place: reserve (with the family's
 * estimate; lowered to what the balance covers when the output is bounded) → attempts over the
 * channels (relay/attempts.ts: retry rules, health marks, affinity) → first byte → stream pump
 * (pump.ts) or whole body → settle (exact usage; reserve extensions while a stream outgrows its
 * reserve; settle.ts) → log row.
 *
 * A call family supplies a small strategy (`CallFamily`, types.ts): one attempt on a channel (build
 * the upstream request, read the answer), what its usage costs and what its log row adds. An attempt
 * never writes to the caller: it returns an `Answer` (a whole body with its usage, or a stream with the
 * `StreamRelay` that converts it), a retry on another channel, or the upstream's refusal of the
 * request; the pipeline alone begins the response, writes or pumps the answer and settles it, once, on
 * every branch. The chat relay (relay.ts) and the pass-through endpoints (passthrough.ts) run whole
 * calls here, the pass-through's reads of stored responses on one known channel (`direct`). Realtime
 * sessions are metered by a `SessionMeter` (session.ts): reserve, extensions while their usage grows,
 * one settlement when they close.
 */
import type { Grant } from '../../billing/allowance.ts';
import type { Payer } from '../../billing/ledger.ts';
import type { TokenUsage } from '../../billing/prices.ts';
import { fail, type GatewayError } from '../../platform/errors.ts';
import { affinityKey } from '../affinity.ts';
import { logAttemptError, msSince, refundGrant, runReserved } from '../accounting.ts';
import { routedCall, runAttempts } from '../attempts.ts';
import type { AttemptCallInfo, AttemptHooks, AttemptOutcome, AttemptRetry } from '../attempts.ts';
import { modelHeader } from '../routing.ts';
import type { RelayDeps } from '../call.ts';
import type { RuntimeChannel } from '../channels.ts';
import { fitOutput, MIN_OUTPUT_TOKENS } from '../estimate.ts';
import { tightenInput } from '../input-estimate.ts';
import { retryAfter, type UpstreamResponse } from '../upstream.ts';
import { pump, type PumpDeps } from './pump.ts';
import { reserveFor, settleCall } from './settle.ts';
import type { Answer, CallFamily, PipelineCall } from './types.ts';

export type { Answer, CallFamily, FamilyOutcome, PipelineCall, StreamAnswer, StreamRelay, WholeAnswer } from './types.ts';
export { SessionMeter, type MeteredSession } from './session.ts';

/** What the loop is told of an attempt that answered. */
const DONE: AttemptOutcome = { kind: 'done' };

/** Status codes of an upstream answer that make the next channel be tried. */
function retryableStatus(s: number): boolean {
  return s === 401 || s === 403 || s === 408 || s === 429 || s >= 500;
}

export class Pipeline<C extends PipelineCall> {
  private readonly hooks: AttemptHooks<C>;
  private readonly pumpDeps: PumpDeps<C>;

  constructor(
    private readonly d: RelayDeps,
    private readonly track: <T>(p: Promise<T>) => Promise<T>,
    private readonly f: CallFamily<C>,
  ) {
    this.pumpDeps = {
      d,
      track,
      reserveOf: (c, u) => f.reserveOf(c, u),
      settle: (c, ch, upModel, u, status, other) => this.settle(c, ch, upModel, u, status, other),
    };
    this.hooks = {
      // The family reads the answer; the pipeline writes it and settles it.
      attempt: async (c, ch, key, keyIndex) => {
        const r = await f.attempt(c, ch, key, keyIndex);
        if (r.kind !== 'answer') return r;
        await this.answer(c, ch, r);
        return DONE;
      },
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
  private async refund(ctx: C): Promise<void> {
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
  refusal(up: UpstreamResponse, message: string): AttemptRetry | null {
    const s = up.statusCode;
    if (!retryableStatus(s) && !this.d.policy.qualifies(s, message)) return null;
    return { kind: 'retry', status: s, message, retryAfterMs: s === 429 ? retryAfter(up.headers['retry-after']) : undefined };
  }

  /**
   * A call on one known channel, with no reserve and no retry (the reads of a stored response): the
   * family's `attempt` answers it, which is written and settled like any other; a retry (the upstream
   * could not be reached) is logged as the call's one failed attempt and thrown as `upstream_error`.
   */
  async direct(ctx: C, ch: RuntimeChannel, attempt: () => Promise<Answer<C> | AttemptRetry>): Promise<void> {
    const r = await attempt();
    if (r.kind === 'retry') {
      logAttemptError(this.d.logs, ctx, ch, r.status, r.message, 1);
      throw fail('upstream_error', r.message);
    }
    await this.answer(ctx, ch, r);
  }

  /**
   * Writes an answer to the caller and settles it: a stream through the pump (settled when it ends), a
   * whole body at once (the rate limits corrected to the upstream's report first), then settled at its usage.
   */
  private async answer(ctx: C, ch: RuntimeChannel, a: Answer<C>): Promise<void> {
    if ('stream' in a) {
      this.begin(ctx, a.status, a.headers);
      const { up, relay, metered, logged } = a.stream;
      return pump(this.pumpDeps, ctx, ch, a.model, up, relay, logged ?? a.status, metered);
    }
    this.begin(ctx, a.status, { ...a.headers, 'content-length': String(Buffer.byteLength(a.body)) });
    // The rate limits' token windows are corrected to the reported usage before the caller has the answer.
    if (a.reported) ctx.admission?.end(a.reported.inputTokens + a.reported.outputTokens);
    ctx.call.client.res.end(a.body);
    const usage = await a.usage();
    this.settle(ctx, ch, a.model, usage, a.status, a.other);
  }

  /** The first byte: writes the status line and headers (request id, gateway time) and hands the socket to the relay. */
  private begin(ctx: C, status: number, headers: Record<string, string>): void {
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

  /** Settles the call at `usage` and writes its consume row (`other`: the outcome's fields). */
  private settle(ctx: C, ch: RuntimeChannel, upModel: string, usage: TokenUsage, status: number, other: Record<string, unknown>): void {
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
