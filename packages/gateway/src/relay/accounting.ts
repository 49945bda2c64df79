/**
 * The pieces under the call pipeline (relay/pipeline/): the log rows of a call and its failed attempts,
 * and the movements of its reserve through the quota allowances (extension, refund, and the
 * settlement from a hold in memory, otherwise a ledger settle).
 */
import type { Core } from '../core.ts';
import type { Grant, QuotaAllowances } from '../billing/allowance.ts';
import type { LogWriter, NewLog } from '../logs/writer.ts';
import type { RuntimeChannel } from './channels.ts';
import { upstreamModel } from './providers/endpoint.ts';
import type { ClientConn, RelayPrincipal } from './call.ts';

/** What a log row needs of a call. */
export interface LoggedCall {
  call: { principal: RelayPrincipal; requestId: string; endpoint: string; startedAt: bigint };
  model: string;
  stream: boolean;
  firstByteMs: number | null;
  attempts: unknown[];
}

/** Milliseconds since `t` (`process.hrtime.bigint()`). */
export const msSince = (t: bigint): number => Number(process.hrtime.bigint() - t) / 1e6;

/** A log row of the call with `fields` over the defaults (a `consume` row counts the last attempt too). */
export function callLogRow(ctx: LoggedCall, ch: RuntimeChannel | null, upModel: string | null, fields: Partial<NewLog>): NewLog {
  const { call } = ctx;
  const p = call.principal;
  return {
    created_at: Date.now(),
    type: 'consume',
    request_id: call.requestId,
    user_id: p.userId,
    username: p.username,
    key_id: p.keyId,
    key_name: p.keyName,
    group_name: p.group,
    model: ctx.model,
    upstream_model: upModel,
    channel_id: ch?.id ?? null,
    endpoint: call.endpoint,
    status_code: null,
    prompt_tokens: 0,
    completion_tokens: 0,
    cached_tokens: 0,
    quota: 0,
    latency_ms: Math.round(msSince(call.startedAt)),
    first_byte_ms: ctx.firstByteMs,
    is_stream: ctx.stream ? 1 : 0,
    attempts: ctx.attempts.length + (fields.type === 'consume' ? 1 : 0),
    content: null,
    other: null,
    ...fields,
  };
}

/** The `error` row of a failed attempt. */
export function logAttemptError(
  logs: LogWriter,
  ctx: LoggedCall,
  ch: RuntimeChannel,
  status: number,
  message: string,
  attempt: number,
): void {
  logs.write(
    callLogRow(ctx, ch, upstreamModel(ch, ctx.model), {
      type: 'error',
      status_code: status || null,
      content: message.slice(0, 2000),
      attempts: attempt,
    }),
  );
}

/**
 * Runs a reserved call's attempts. When they fail, the reserve goes back (`refund`); the error then
 * reaches the caller as an answer, or, once the response has started, is logged and the response ended.
 */
export async function runReserved(
  core: Core,
  ctx: { started: boolean; call: { requestId: string; client: ClientConn } },
  run: () => Promise<void>,
  refund: () => Promise<void>,
): Promise<void> {
  try {
    await run();
  } catch (e) {
    await refund();
    if (!ctx.started) throw e;
    core.log.error(
      { err: (e as Error).message, stack: (e as Error).stack, requestId: ctx.call.requestId },
      'relay failed after the response started',
    );
    if (!ctx.call.client.res.writableEnded) ctx.call.client.res.end();
  }
}

/**
 * Extends a call's reserve by what its output now needs (`need` units): a step of `step` first (so a
 * long output is not extended chunk by chunk), then exactly `need` when the balance cannot give the
 * step. `seq` numbers the grant's extensions. False when not even `need` is covered.
 */
export async function extendReserve(
  d: { core: Core; allowances: QuotaAllowances },
  grant: Grant,
  seq: () => number,
  need: number,
  step: number,
): Promise<boolean> {
  const sizes = step > need ? [step, need] : [need];
  for (const amt of sizes) {
    try {
      if (await d.allowances.extend(grant, seq(), amt)) return true;
    } catch (e) {
      d.core.log.error({ err: (e as Error).message, stack: (e as Error).stack, requestId: grant.ref }, 'reserve extension failed');
      return false;
    }
  }
  return false;
}

/** Gives a reserve back (from a hold or through the ledger); a failure is logged, not thrown. */
export async function refundGrant(
  d: { core: Core; allowances: QuotaAllowances },
  track: <T>(p: Promise<T>) => Promise<T>,
  grant: Grant,
): Promise<void> {
  const r = d.allowances.refund(grant);
  if (!(r instanceof Promise)) return;
  await track(
    r.catch((e) => {
      d.core.log.error({ err: (e as Error).message, requestId: grant.ref }, 'refund failed');
      return false;
    }),
  );
}

/**
 * Settles `grant` at `actual`, then calls `log` with what was charged (and a shortfall or settle
 * error for the row's `other`). From a hold the outcome is known at once; a ledger settle is tracked
 * so shutdown waits for it, and may wait `deferMs` to share a commit.
 */
export function settleThenLog(
  d: { core: Core; allowances: QuotaAllowances },
  track: <T>(p: Promise<T>) => Promise<T>,
  grant: Grant,
  actual: number,
  deferMs: number,
  log: (charged: number, extra?: Record<string, unknown>) => void,
): void {
  const r = d.allowances.settle(grant, actual, deferMs);
  if (!(r instanceof Promise)) {
    log(r ? r.charged : actual, r?.shortfall ? { shortfall: r.shortfall } : {});
    return;
  }
  void track(
    r.then(
      (s) => log(s ? s.charged : actual, s && s.shortfall ? { shortfall: s.shortfall } : {}),
      (e) => {
        d.core.log.error({ err: (e as Error).message, requestId: grant.ref }, 'settlement failed');
        log(0, { settle_error: (e as Error).message });
      },
    ),
  );
}
