/**
 * Reserving and settling one model call against the ledger: a reserve of the request's own, and the
 * settlement at the exact cost with its consume log row. The call pipeline (index.ts) settles every
 * call here, and its session meter (session.ts) the realtime relay's sessions.
 */
import type { Admission } from '../../accounts/rate-limits.ts';
import { ledgerGrant, type Grant } from '../../billing/allowance.ts';
import { cacheQuota } from '../../billing/cache-quota.ts';
import type { Payer } from '../../billing/ledger.ts';
import type { ModelPrice, TokenUsage } from '../../billing/prices.ts';
import { callLogRow, msSince, settleThenLog, type LoggedCall } from '../accounting.ts';
import type { AttemptCall } from '../attempts.ts';
import type { RelayDeps, RelayPrincipal } from '../call.ts';
import type { RuntimeChannel } from '../channels.ts';

export type AttemptRecord = AttemptCall['attempts'][number];

/** What settling a call needs of it (a realtime session's too). */
export interface SettledCall extends LoggedCall {
  call: { principal: RelayPrincipal; requestId: string; endpoint: string; startedAt: bigint };
  payer: Payer;
  /** Units reserved (with the extensions taken). */
  reserved: number;
  /** The reserve: from a node-local hold or the ledger (null until reserved, and once settled or refunded). */
  grant: Grant | null;
  /** Output tokens per choice the gateway sent and reserved for (null: not bounded by the gateway). */
  maxOut: number | null;
  /** Choices asked for. */
  n: number;
  /** Extensions of the reserve taken. */
  extensions: number;
  /** The call's place in its rate limits (accounts/rate-limits.ts); null when none applies. */
  admission: Admission | null;
  /** The model's price when the call began (what its log row's cache figures are priced at). */
  price: ModelPrice | null;
  attempts: AttemptRecord[];
}

/** A ledger reserve of the request's own (no hold), kept open for extensions. */
export function reserveFor(d: Pick<RelayDeps, 'ledger'>, payer: Payer, ref: string, amount: number): Promise<Grant> {
  return d.ledger.reserve(payer, ref, amount, { open: true }).then(() => ledgerGrant(payer, ref, amount));
}

/**
 * Settles a call's reserve at `actual` (once: the grant is taken from the call) and writes its consume
 * row: `other` (the outcome), the settlement's shortfall or error, an upstream's billing beyond the
 * max_tokens it was sent, then `details` (the family's).
 */
export function settleCall(
  d: Pick<RelayDeps, 'core' | 'allowances' | 'logs' | 'prices'>,
  track: <T>(p: Promise<T>) => Promise<T>,
  ctx: SettledCall,
  ch: RuntimeChannel | null,
  upModel: string | null,
  usage: TokenUsage,
  actual: number,
  status: number,
  deferMs: number,
  other: Record<string, unknown>,
  details: Record<string, unknown>,
  upstreamCost = 0,
): void {
  const { call } = ctx;
  ctx.admission?.end(usage.inputTokens + usage.outputTokens);
  const grant = ctx.grant ?? ledgerGrant(ctx.payer, call.requestId, 0);
  ctx.grant = null;
  ctx.reserved = 0;
  const latency = Math.round(msSince(call.startedAt));
  const cache = cacheQuota(ctx.price, usage, d.prices.groupRatio(call.principal.group), d.core.config.quotaPerUsd);
  // An upstream that bills more output than the max_tokens it was sent is noted against its channel.
  const overMax =
    ctx.maxOut !== null && usage.outputTokens > ctx.maxOut * ctx.n
      ? { upstream_over_max_tokens: { sent: ctx.maxOut, n: ctx.n, billed: usage.outputTokens } }
      : null;
  settleThenLog(d, track, grant, actual, deferMs, (charged, extra = {}) => {
    if (overMax || extra.shortfall) {
      d.core.log.warn(
        { requestId: call.requestId, channel: ch?.id, ...overMax, shortfall: extra.shortfall },
        'upstream billed beyond the reserve',
      );
    }
    d.logs.write(
      callLogRow(ctx, ch, upModel, {
        type: 'consume',
        status_code: status,
        quota: charged,
        latency_ms: latency,
        prompt_tokens: usage.inputTokens,
        completion_tokens: usage.outputTokens,
        cached_tokens: usage.cachedInputTokens ?? 0,
        upstream_cost: upstreamCost,
        cache_write_tokens: usage.cacheWriteTokens ?? 0,
        cache_write_quota: cache.write,
        cache_saving_quota: cache.saving,
        other: JSON.stringify({ ...other, ...extra, ...overMax, ...details }),
      }),
    );
  });
}
