/**
 * The shapes the call pipeline (relay/pipeline/index.ts) and its call families share: the call as the
 * pipeline runs it, the strategy a family supplies (`CallFamily`), the answer an attempt returns
 * (`Answer`: a whole body or a stream) and how a streamed answer reaches the caller (`StreamRelay`).
 */
import type { CallFacts, ModelPrice, TokenUsage } from '../../billing/prices.ts';
import type { TokenCounter } from '../../billing/tokens.ts';
import type { AttemptClientError, AttemptRetry, FamilyRouting } from '../attempts.ts';
import type { ClientConn, RelayPrincipal } from '../call.ts';
import type { RuntimeChannel } from '../channels.ts';
import type { EventFramer, SseEvent } from '../sse.ts';
import type { UpstreamResponse } from '../upstream.ts';
import type { SettledCall } from './settle.ts';

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
   * One attempt on a channel: builds the upstream request, sends it and reads the answer. Returns the
   * answer (the pipeline writes it to the caller and settles it), or why another channel is to be tried,
   * or the upstream's refusal of the request itself.
   */
  attempt(ctx: C, ch: RuntimeChannel, key: string, keyIndex: number): Promise<FamilyOutcome<C>>;
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

/** What every answer tells the pipeline: the caller's status line and headers, and the upstream model that answered. */
interface AnswerHead {
  kind: 'answer';
  /** The caller's status. */
  status: number;
  /** The caller's headers (the pipeline adds the request id, the gateway's time, the model and a whole body's length). */
  headers: Record<string, string>;
  /** The upstream model that answered (its log row's `upstream_model`, and what its upstream cost is priced at). */
  model: string;
}

/** A whole answer: written at once, then settled at its usage. */
export interface WholeAnswer extends AnswerHead {
  body: string | Buffer;
  /** The upstream's report of the usage (null: none): the rate limits' token windows are corrected to it before the caller has the answer. */
  reported: TokenUsage | null;
  /** The usage billed, read once the caller has the answer (the report, or counted locally). */
  usage(): TokenUsage | Promise<TokenUsage>;
  /** The outcome's fields of its consume row. */
  other: Record<string, unknown>;
}

/** A streamed answer: relayed by the pipeline's pump, settled when it ends. */
export interface StreamAnswer<C extends PipelineCall> extends AnswerHead {
  stream: {
    up: UpstreamResponse;
    relay: StreamRelay<C>;
    /** The output is priced and bounded: metered against the reserve as it is written (relay/pipeline/pump.ts). */
    metered: boolean;
    /** The status its log row records when the stream ends well (default: `status`). */
    logged?: number;
  };
}

/** What an attempt produced for the caller. */
export type Answer<C extends PipelineCall> = WholeAnswer | StreamAnswer<C>;

/** How a family's attempt ends: an answer, a retry on another channel, or the upstream's refusal of the request. */
export type FamilyOutcome<C extends PipelineCall> = Answer<C> | AttemptRetry | AttemptClientError;

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
