/**
 * The stream pump of the call pipeline (relay/pipeline/index.ts): relays a streamed answer to the
 * caller with backpressure, through the family's `StreamRelay`, metering a priced and bounded output
 * against the call's reserve as it goes (extending it, or cutting the stream when the balance cannot
 * cover it), and settles the call once when the stream ended, the caller left or the upstream failed.
 * Only the pipeline runs it.
 */
import type { TokenUsage } from '../../billing/prices.ts';
import { countTokens, countTokensSync, loadTokenizer, TokenCounter } from '../../billing/tokens.ts';
import { extendReserve } from '../accounting.ts';
import type { RelayDeps } from '../call.ts';
import type { RuntimeChannel } from '../channels.ts';
import type { SseEvent } from '../sse.ts';
import { networkMessage, type UpstreamResponse } from '../upstream.ts';
import type { PipelineCall, StreamRelay } from './types.ts';

/** What the pump needs of the pipeline. */
export interface PumpDeps<C extends PipelineCall> {
  d: Pick<RelayDeps, 'core' | 'allowances'>;
  track: <T>(p: Promise<T>) => Promise<T>;
  /** The reserve of a usage (the family's). */
  reserveOf(ctx: C, usage: TokenUsage): number;
  /** Settles the call at `usage` and writes its consume row. */
  settle(ctx: C, ch: RuntimeChannel, upModel: string, usage: TokenUsage, status: number, other: Record<string, unknown>): void;
}

/**
 * Relays a streamed answer (after the pipeline's `begin`) with backpressure, then settles it (status 499 when the
 * caller left, 502 when the upstream failed, else `status`).
 *
 * Metered streams (`metered`: the output is priced and bounded): the reserve covers `covered` output
 * tokens (the max_tokens sent × choices). Output text holds no more tokens than 3 × its UTF-16
 * length, so nothing is counted until that passes `covered`; from then on every event's text is
 * counted before it is written, and the reserve is extended when the output needs more (an upstream
 * that ignores max_tokens). When the balance cannot cover an event, the stream ends there with the
 * family's error event and the call is charged for what was written.
 */
export function pump<C extends PipelineCall>(
  p: PumpDeps<C>,
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
  const covered = (ctx.maxOut ?? 0) * ctx.n;
  const costAt = (out: number) => p.reserveOf(ctx, { inputTokens: ctx.inputBound, outputTokens: out });
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
    if (!text) return true;
    const bytes = Buffer.byteLength(text, 'utf8');
    const bound = counter.utf8Bytes + bytes;
    if (!warming && 2 * bound > covered) {
      warming = true;
      void loadTokenizer();
    }
    if (!gateOpen && bound <= covered) {
      counter.add(text, bytes);
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
      p.track(
        s.usage(ctx, cutAt, clientGone, counter).then(({ usage, reported }) =>
          p.settle(ctx, ch, upModel, usage, st, {
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
    /**
     * Metered streams: handles the queued events in order; holds the rest while the reserve is extended.
     * `read`: the upstream read the queued events are, whole (nothing of it held back, nothing before
     * it queued): written as received when every event of it passes unchanged, so the bytes are not
     * joined and encoded again.
     */
    const run = guarded((read: Buffer | null = null) => {
      let out = '';
      let asRead = read !== null;
      while (items.length && !holding && !done && !clientGone) {
        const ev = items.shift()!;
        const o = ev ? s.event(ev) : s.tail();
        const text = s.text;
        s.text = '';
        if (covers(text)) {
          if (asRead && (!ev || o !== ev.raw)) asRead = false;
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
        void meter(p.d, ctx, counter, text, costAt, step).then((ok) => {
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
      write(asRead && !done ? read! : out);
    });
    const onData = guarded((chunk: Buffer) => {
      if (clientGone || done) return;
      if (metered) {
        const framer = s.framer!;
        // A read of whole events (ending with a blank line, nothing of it left buffered) with nothing
        // before it buffered or queued.
        const whole = !holding && items.length === 0 && framer.pending === '' && chunk[chunk.length - 1] === 10;
        for (const ev of framer.push(chunk)) items.push(ev);
        if (!holding) run(whole && framer.pending === '' ? chunk : null);
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
async function meter(
  d: PumpDeps<PipelineCall>['d'],
  ctx: PipelineCall,
  counter: TokenCounter,
  text: string,
  costAt: (out: number) => number,
  step: number,
): Promise<boolean> {
  await loadTokenizer();
  const now = (counter.exact() ?? 0) + (text ? await countTokens(text) : 0);
  const need = costAt(now) - ctx.reserved;
  if (need <= 0 || !ctx.grant) return true;
  const ok = await extendReserve(d, ctx.grant, () => ++ctx.extensions, need, step);
  if (ok) ctx.reserved = ctx.grant.amount;
  return ok;
}
