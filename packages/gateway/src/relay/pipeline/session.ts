/**
 * The money of a long-lived session (the realtime relay's, relay/realtime.ts): one call of many
 * responses over one connection. The meter admits the session in the rate limits and reserves its
 * estimate before the connection is upgraded; the session reports each response's usage, and when
 * their sum passes what is reserved the reserve is extended (by the first reserve, or what is missing
 * when that is more), one extension at a time. When the balance cannot cover an extension the session
 * is told to end (`onExhausted`), so it overruns the balance by at most its last response. It is
 * settled once, when it closes, against the reserve and its extensions together (an extension under
 * way is waited for); a session that never started gives its reserve back.
 */
import type { HeaderSink } from '../../accounts/rate-limits.ts';
import type { TokenUsage } from '../../billing/prices.ts';
import { extendReserve, refundGrant } from '../accounting.ts';
import type { RelayDeps } from '../call.ts';
import type { RuntimeChannel } from '../channels.ts';
import { upstreamModel } from '../providers/endpoint.ts';
import { reserveFor, settleCall, type SettledCall } from './settle.ts';

/** A session as the meter settles it. */
export interface MeteredSession extends SettledCall {
  /** What its responses used so far. */
  usage: Required<Pick<TokenUsage, 'inputTokens' | 'outputTokens' | 'cachedInputTokens'>>;
  /** Responses that ended, with or without a usage. */
  responses: number;
  /** The channel that serves it (null until one does). */
  channel: RuntimeChannel | null;
}

export class SessionMeter {
  private settled = false;
  /** The first reserve (the size of an extension). */
  private base = 0;
  /** An extension being taken (the settlement waits for it). */
  private extending: Promise<void> | null = null;
  /** The balance could not cover an extension: the session is being closed. */
  private exhausted = false;

  private constructor(
    private readonly d: RelayDeps,
    private readonly track: <T>(p: Promise<T>) => Promise<T>,
    private readonly s: MeteredSession,
  ) {}

  /**
   * Admits session `s` in the rate limits at `estimate` (their headers go to `sink`) and reserves the
   * estimate at its price's bound. Throws a GatewayError when the session cannot start (nothing is
   * held then).
   */
  static async open(
    d: RelayDeps,
    track: <T>(p: Promise<T>) => Promise<T>,
    s: MeteredSession,
    estimate: TokenUsage,
    sink: HeaderSink | null,
  ): Promise<SessionMeter> {
    const m = new SessionMeter(d, track, s);
    const { principal, requestId } = s.call;
    const a = d.rateLimits.admit(principal, s.model, estimate.inputTokens + estimate.outputTokens, sink);
    s.admission = a instanceof Promise ? await a : a;
    try {
      s.reserved = d.prices.bound(s.price, estimate, principal.group);
      m.base = s.reserved;
      if (s.reserved > 0) s.grant = await reserveFor(d, s.payer, requestId, s.reserved);
    } catch (e) {
      s.admission?.end(0);
      throw e;
    }
    return m;
  }

  /**
   * A response of the session ended with `usage` (null: it reported none). Keeps the usage covered by
   * the reserve; `onExhausted` is called (once) when the balance cannot cover it any further.
   */
  response(usage: TokenUsage | null, onExhausted: () => void): void {
    const s = this.s;
    s.responses++;
    if (!usage) return;
    s.usage.inputTokens += usage.inputTokens;
    s.usage.outputTokens += usage.outputTokens;
    s.usage.cachedInputTokens += usage.cachedInputTokens ?? 0;
    this.cover(onExhausted);
  }

  /** Extends the reserve when the usage passed it (one extension at a time). */
  private cover(onExhausted: () => void): void {
    const s = this.s;
    const grant = s.grant;
    if (this.settled || this.extending || this.exhausted || this.base <= 0 || !grant) return;
    const need = this.d.prices.cost(s.price, s.usage, s.call.principal.group) - s.reserved;
    if (need <= 0) return;
    this.extending = (async () => {
      // By the first reserve, or what is missing when that is more (relay/accounting.ts).
      if (await extendReserve(this.d, grant, () => ++s.extensions, need, this.base)) {
        s.reserved = grant.amount;
        return;
      }
      this.exhausted = true;
      onExhausted();
    })().finally(() => {
      this.extending = null;
      // More usage may have come while the extension was taken.
      if (!this.settled) this.cover(onExhausted);
    });
  }

  /** Releases a session that never started (its reserve given back, no log row). */
  abandon(): void {
    if (this.settled) return;
    this.settled = true;
    const s = this.s;
    s.admission?.end(0);
    const g = s.grant;
    s.grant = null;
    if (s.reserved > 0 && g) void refundGrant(this.d, this.track, g);
  }

  /** Settles the session (once) at its usage, with its consume row of status `status`. */
  close(status: number): void {
    if (this.settled) return;
    this.settled = true;
    // An extension under way is part of what is settled.
    if (this.extending) {
      void this.track(this.extending.then(() => this.settleNow(status)));
      return;
    }
    this.settleNow(status);
  }

  private settleNow(status: number): void {
    const s = this.s;
    const ch = s.channel;
    const actual = this.d.prices.cost(s.price, s.usage, s.call.principal.group);
    settleCall(
      this.d,
      this.track,
      s,
      ch,
      ch ? upstreamModel(ch, s.model) : null,
      s.usage,
      actual,
      status,
      0,
      {},
      {
        responses: s.responses,
        attempts: s.attempts,
        upstreamUsage: s.responses > 0,
      },
    );
  }
}
