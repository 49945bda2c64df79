/**
 * The attempt loop every relay path shares: pick a channel not yet tried (and a key not yet refused
 * on it), attempt, and on a retryable failure record it with the health policy and try the next one;
 * an upstream client error is answered as it is; after the last attempt the reserve is refunded and
 * the caller gets 503 (no channel) or 502 (every attempt failed) with the last upstream message.
 */
import { echo, GatewayError } from '../platform/errors.ts';
import type { ChannelIndex, RuntimeChannel } from './channels.ts';
import type { RelayPolicy } from './policy.ts';
import { networkMessage } from './relay.ts';

export type AttemptOutcome =
  | { kind: 'done' }
  | { kind: 'retry'; status: number; message: string; retryAfterMs?: number }
  | { kind: 'client_error'; status: number; body: string; contentType: string; message: string };

/** What the loop needs of one call. */
export interface AttemptCall {
  /** Set once bytes reached the client: from then on nothing is retried. */
  started: boolean;
  attempts: Array<{ channel: number; status: number; error?: string }>;
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

export async function runAttempts<C extends AttemptCall>(
  d: { channels: ChannelIndex; policy: RelayPolicy },
  ctx: C,
  candidates: RuntimeChannel[],
  hooks: AttemptHooks<C>,
  call: { model: string; group: string; res: { end(body: string): void } },
): Promise<void> {
  const tried = new Set<number>();
  const failedKeys = new Map<number, Set<number>>();
  const maxAttempts = d.policy.maxAttempts();
  let last: { status: number; message: string } | null = null;
  for (let i = 0; i < maxAttempts; i++) {
    const pick = d.channels.pick(candidates, tried, failedKeys);
    if (!pick) break;
    const { channel: ch, keyIndex } = pick;
    tried.add(ch.id);
    let r: AttemptOutcome;
    try {
      r = await hooks.attempt(ctx, ch, pick.key, keyIndex);
    } catch (e) {
      // Only a failure of the upstream connection counts against the channel; the gateway's own
      // errors (a bug, a body it cannot encode) end the call as a 500 and leave the channel alone.
      if (ctx.started || e instanceof GatewayError || !isUpstreamFailure(e)) throw e;
      r = { kind: 'retry', status: 0, message: networkMessage(e) };
    }
    if (r.kind === 'done') {
      d.policy.succeeded(ch.id, keyIndex);
      return;
    }
    ctx.attempts.push({ channel: ch.id, status: r.status, error: r.message });
    hooks.logError(ctx, ch, r.status, r.message, i + 1);
    if (r.kind === 'client_error') {
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
  if (!last) throw new GatewayError(503, 'no_available_channel', `no available channel for model "${echo(call.model)}" in group "${call.group}"`);
  throw new GatewayError(502, 'upstream_error', `upstream failed after ${ctx.attempts.length} attempt(s): ${last.message}`);
}
