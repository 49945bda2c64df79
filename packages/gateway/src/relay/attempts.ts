/**
 * The attempt loop every relay path shares: pick a channel not yet tried (and a key not yet refused
 * on it) by the call's balancing strategy, skipping channels whose caps leave the call out
 * (relay/routing.ts), attempt, and on a retryable failure record it with the health policy and try the
 * next one; an upstream client error is answered as it is; after the last attempt the reserve is
 * refunded and the caller gets 503 (no channel) or 502 (every attempt failed) with the last upstream
 * message. A call with fallbacks goes on with the next model instead when the failure's class (a
 * context-length or content-policy refusal, or the channels spent with rate limits or failures) is one
 * its model falls back on; nothing falls back once bytes reached the caller.
 */
import type { TokenUsage } from '../billing/prices.ts';
import { echo, GatewayError, fail } from '../platform/errors.ts';
import type { ChannelIndex, RuntimeChannel } from './channels.ts';
import type { AffinityRecord } from './affinity.ts';
import type { RelayPolicy } from './policy.ts';
import { networkMessage } from './upstream.ts';
import { inSpan, SpanKind, spanError, tracer, type Span } from '../platform/tracing.ts';
import { classifyClientError, classifyExhausted, type FallbackClass, type Routing } from './routing.ts';

/** Another channel is to be tried (the upstream failed, refused the key, or is rate limited). */
export interface AttemptRetry {
  kind: 'retry';
  status: number;
  message: string;
  retryAfterMs?: number;
}

/** The upstream refused the request itself: its answer goes back to the caller (unless the model falls back). */
export interface AttemptClientError {
  kind: 'client_error';
  status: number;
  body: string;
  contentType: string;
  message: string;
}

/** How one attempt ended for the loop: answered (`done`), or why it did not. */
export type AttemptOutcome = { kind: 'done' } | AttemptRetry | AttemptClientError;

/** The call the loop serves: model and group, where a refusal is written, and its conversation's channel. */
export interface AttemptCallInfo {
  model: string;
  group: string;
  res: { end(body: string): void };
  /** Session affinity (relay/affinity.ts): the channel and key to try first, and what to tell when it served or failed. */
  affinity?: { prefer: AffinityRecord | null; served(r: AffinityRecord): void; failed(): void } | null;
  /** The estimated prompt tokens (channels' `max_input_tokens`). */
  inputTokens?: number;
  /** The next model when `from` failed with `cls` (its fallbacks, relay/routing.ts): it serves the call from then on. */
  fallback?: (cls: FallbackClass, from: string) => FallbackStep | null;
}

/** The model a call falls back to and the channels that serve it. */
export interface FallbackStep {
  model: string;
  candidates: RuntimeChannel[];
}

/** What a call family adds to the loop (relay/pipeline/index.ts): fallbacks across models, the prompt for the caps, the reserve they need. */
export interface FamilyRouting<C> {
  /** The reserve taken before the attempts: it covers the dearest model the call may fall back to. */
  reserveBound(ctx: C, usage: TokenUsage): number;
  /** The prompt tokens the channels' `max_input_tokens` are compared with. */
  inputTokens(ctx: C): number;
  /** The model the call goes on with when `from` failed with `cls` (relay/fallback.ts); null: none. */
  fallback(ctx: C, cls: FallbackClass, from: string): FallbackStep | null;
}

/** The parts of a call's AttemptCallInfo its family's routing gives. */
export function routedCall<C>(r: FamilyRouting<C> | undefined, ctx: C): Pick<AttemptCallInfo, 'inputTokens' | 'fallback'> {
  return r ? { inputTokens: r.inputTokens(ctx), fallback: (cls, from) => r.fallback(ctx, cls, from) } : {};
}

/** What the loop needs of the relay. */
export interface AttemptDeps {
  channels: ChannelIndex;
  policy: RelayPolicy;
  routing?: Routing;
}

/** What the loop needs of one call. */
export interface AttemptCall {
  /** Set once bytes reached the client: from then on nothing is retried. */
  started: boolean;
  /** When the first byte was written (process.hrtime.bigint()): the channel's time to first byte. */
  firstByteAt?: bigint | null;
  attempts: Array<{ channel: number; status: number; error?: string; model?: string }>;
}

export interface AttemptHooks<C extends AttemptCall> {
  attempt(ctx: C, ch: RuntimeChannel, key: string, keyIndex: number): Promise<AttemptOutcome>;
  logError(ctx: C, ch: RuntimeChannel, status: number, message: string, attempt: number): void;
  refund(ctx: C): Promise<void>;
  begin(ctx: C, status: number, headers: Record<string, string>): void;
}

/**
 * Whether an error thrown by an attempt is the upstream's: undici's errors (`UND_ERR_*`), system errors
 * of the connection (`ECONNREFUSED`, `ENOTFOUND`, …, also as a `cause`) and aborts.
 */
export function isUpstreamFailure(e: unknown): boolean {
  const err = e as { code?: unknown; name?: unknown; cause?: { code?: unknown } } | null;
  if (!err || typeof err !== 'object') return false;
  if (err.name === 'AbortError' || err.name === 'TimeoutError') return true;
  const code = typeof err.code === 'string' ? err.code : typeof err.cause?.code === 'string' ? err.cause.code : '';
  return code.startsWith('UND_ERR') || /^E[A-Z_]{3,}$/.test(code);
}

export function runAttempts<C extends AttemptCall>(
  d: AttemptDeps,
  ctx: C,
  candidates: RuntimeChannel[],
  hooks: AttemptHooks<C>,
  call: AttemptCallInfo,
): Promise<void> {
  // With tracing on (platform/tracing.ts): a routing span over the attempts, a client span per attempt.
  if (!tracer) return attemptLoop(d, ctx, candidates, hooks, call, null);
  const attrs = { 'gen_ai.request.model': call.model, 'gatehouse.group': call.group, 'gatehouse.candidates': candidates.length };
  return inSpan(tracer, 'gatehouse.routing', attrs, (span) => attemptLoop(d, ctx, candidates, hooks, call, span));
}

/** One attempt in its own span: channel, outcome, status and the reason of a retry. */
function tracedAttempt<C extends AttemptCall>(
  hooks: AttemptHooks<C>,
  ctx: C,
  ch: RuntimeChannel,
  key: string,
  keyIndex: number,
  n: number,
): Promise<AttemptOutcome> {
  const attrs = {
    'gatehouse.channel.id': ch.id,
    'gatehouse.channel.name': ch.name,
    'gatehouse.channel.type': ch.type,
    'gatehouse.attempt': n,
  };
  return inSpan(
    tracer!,
    'gatehouse.upstream_attempt',
    attrs,
    async (span) => {
      const r = await hooks.attempt(ctx, ch, key, keyIndex);
      span.setAttribute('gatehouse.attempt.outcome', r.kind);
      if (r.kind !== 'done') {
        span.setAttribute('http.response.status_code', r.status);
        if (r.kind === 'retry') {
          span.setAttribute('gatehouse.retry_reason', r.message.slice(0, 200));
          spanError(span, r.message);
        }
      }
      return r;
    },
    SpanKind.CLIENT,
  );
}

async function attemptLoop<C extends AttemptCall>(
  d: AttemptDeps,
  ctx: C,
  candidates: RuntimeChannel[],
  hooks: AttemptHooks<C>,
  call: AttemptCallInfo,
  span: Span | null,
): Promise<void> {
  let tried = new Set<number>();
  let failedKeys = new Map<number, Set<number>>();
  const maxAttempts = d.policy.maxAttempts();
  const routing = d.routing;
  const tokens = call.inputTokens ?? 0;
  let model = call.model;
  let cands = candidates;
  let strategy = routing?.strategy(call.group, model) ?? 'priority';
  const route = routing && {
    choose: <T>(items: readonly T[], of: (t: T) => RuntimeChannel): T => routing.choose(strategy, items, of),
    admits: (ch: RuntimeChannel) => routing.admits(ch, tokens) === 'ok',
  };
  let last: { status: number; message: string } | null = null;
  let n = 0;
  let perModel = 0;
  /** Goes on with the model `cls` falls back to (true), or not (false). */
  const fallBack = (cls: FallbackClass): boolean => {
    const next = call.fallback?.(cls, model);
    if (!next) return false;
    model = next.model;
    cands = next.candidates;
    strategy = routing?.strategy(call.group, model) ?? 'priority';
    tried = new Set();
    failedKeys = new Map();
    last = null;
    perModel = 0;
    return true;
  };
  for (;;) {
    const prefer = n === 0 ? call.affinity?.prefer : null;
    // The conversation's channel too is skipped when its caps leave the call out.
    const preferred = prefer && d.channels.pickPreferred(cands, prefer.channelId, prefer.keyIndex);
    const pick =
      perModel < maxAttempts
        ? (preferred && (!route || route.admits(preferred.channel)) ? preferred : null) || d.channels.pick(cands, tried, failedKeys, route)
        : null;
    if (!pick) {
      const tooLong = !!routing && cands.some((c) => !tried.has(c.id) && routing.admits(c, tokens) === 'too_long');
      if (fallBack(classifyExhausted(last?.status ?? null, tooLong))) continue;
      break;
    }
    n++;
    perModel++;
    const { channel: ch, keyIndex } = pick;
    tried.add(ch.id);
    let r: AttemptOutcome;
    const t0 = process.hrtime.bigint();
    routing?.begin(ch.id);
    try {
      r = await (span ? tracedAttempt(hooks, ctx, ch, pick.key, keyIndex, n) : hooks.attempt(ctx, ch, pick.key, keyIndex));
    } catch (e) {
      // Only a failure of the upstream connection counts against the channel; the gateway's own
      // errors (a bug, a body it cannot encode) end the call as a 500 and leave the channel alone.
      if (ctx.started || e instanceof GatewayError || !isUpstreamFailure(e)) throw e;
      r = { kind: 'retry', status: 0, message: networkMessage(e) };
    } finally {
      routing?.end(ch.id);
    }
    if (r.kind === 'done') {
      if (routing && ctx.firstByteAt) routing.sample(ch.id, Number(ctx.firstByteAt - t0) / 1e6);
      span?.setAttributes({
        'gatehouse.channel.id': ch.id,
        'gatehouse.attempts': n,
        'gatehouse.routing.strategy': strategy,
        ...(model !== call.model ? { 'gatehouse.served_model': model } : {}),
      });
      d.policy.succeeded(ch.id, keyIndex);
      call.affinity?.served({ channelId: ch.id, keyIndex });
      return;
    }
    ctx.attempts.push({ channel: ch.id, status: r.status, error: r.message, ...(model !== call.model ? { model } : {}) });
    if (r.kind === 'retry' && prefer && prefer.channelId === ch.id) call.affinity?.failed();
    hooks.logError(ctx, ch, r.status, r.message, n);
    if (r.kind === 'client_error') {
      const cls = call.fallback ? classifyClientError(r.status, `${r.message} ${r.body.slice(0, 4096)}`) : null;
      if (cls && fallBack(cls)) continue;
      await hooks.refund(ctx);
      hooks.begin(ctx, r.status, { 'content-type': r.contentType });
      call.res.end(r.body);
      return;
    }
    last = r;
    const { keyFault } = await d.policy.failed(ch, keyIndex, r.status, r.message, r.retryAfterMs);
    if (keyFault && ch.keys.length > 1) {
      let s = failedKeys.get(ch.id);
      if (!s) failedKeys.set(ch.id, (s = new Set()));
      s.add(keyIndex);
    }
  }
  await hooks.refund(ctx);
  const lastFailure = last as { status: number; message: string } | null;
  if (!lastFailure) throw fail('no_available_channel', { model: echo(model), group: call.group });
  throw fail('upstream_error', `upstream failed after ${ctx.attempts.length} attempt(s): ${lastFailure.message}`);
}
