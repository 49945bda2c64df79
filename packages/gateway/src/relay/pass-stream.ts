/**
 * The pass-through family's stream relays (relay/pipeline/types.ts `StreamRelay`): SSE answers forwarded byte
 * for byte and read on the side for usage, the response id and output text; other answers streamed
 * through as they are.
 */
import type { TokenUsage } from '../billing/prices.ts';
import { countTokens, type TokenCounter } from '../billing/tokens.ts';
import { isObj } from '../platform/validate.ts';
import type { StreamRelay } from './pipeline/index.ts';
import { SseFramer, type SseEvent } from './sse.ts';
import { fallbackUsage, passUsage, promptOf, str, type PassCtx } from './pass-kinds.ts';

/**
 * SSE answers (Responses streams, image and speech events): forwarded byte for byte; events are read
 * on the side for usage (`response.completed` or any event with `usage`), the response id and output text.
 * A Responses stream whose output is priced is metered event by event (relay/pipeline/pump.ts); when the
 * balance cannot cover an event it ends with an `error` event (`insufficient_quota`).
 */
export class PassSse implements StreamRelay<PassCtx> {
  text = '';
  readonly framer = new SseFramer();
  private seen: TokenUsage | null = null;
  private idSeen = false;

  /** `onId`: told the id of a Responses stream's response. */
  constructor(private readonly onId: ((id: string) => void) | null) {}

  private onEvent(ev: SseEvent): void {
    const data = ev.data;
    if (!data || data[0] !== '{') return;
    let j: Record<string, unknown>;
    try {
      j = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return;
    }
    const type = str(j.type) || ev.event || '';
    if (type.endsWith('.delta') && typeof j.delta === 'string' && !type.includes('audio') && !type.includes('partial_image'))
      this.text += j.delta;
    if (!this.idSeen && this.onId && isObj(j.response) && typeof j.response.id === 'string') {
      this.idSeen = true;
      this.onId(j.response.id);
    }
    this.seen = passUsage(j) ?? this.seen;
  }

  chunk(chunk: Buffer): Buffer {
    for (const ev of this.framer.push(chunk)) this.onEvent(ev);
    return chunk;
  }

  end(): string {
    for (const ev of this.framer.end()) this.onEvent(ev);
    return '';
  }

  event(ev: SseEvent): string {
    this.onEvent(ev);
    return ev.raw;
  }

  tail(): string {
    return '';
  }

  frame(out: string | Buffer): string | Buffer {
    return out;
  }

  close(cut: boolean): string {
    if (!cut) return '';
    const message = 'quota exhausted: the balance cannot cover more output for this request';
    return `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'insufficient_quota', message, param: null })}\n\n`;
  }

  async usage(
    ctx: PassCtx,
    cutAt: number | null,
    _clientGone: boolean,
    counter: TokenCounter,
  ): Promise<{ usage: TokenUsage; reported: boolean }> {
    const reported = this.seen;
    if (cutAt !== null) {
      return {
        usage: {
          inputTokens: reported?.inputTokens || (await countTokens(promptOf(ctx.kind, ctx.call.body))),
          outputTokens: cutAt,
          cachedInputTokens: reported?.cachedInputTokens ?? 0,
        },
        reported: false,
      };
    }
    return { usage: reported ?? (await fallbackUsage(ctx, '', counter)), reported: reported !== null };
  }
}

/** Other answers streamed through as they are (speech audio, reads of stored responses' event streams). */
export class ByteStream implements StreamRelay<PassCtx> {
  text = '';
  readonly framer = null;

  /** `free`: nothing is billed (reads of stored responses); else the usage is counted from the request. */
  constructor(private readonly free: boolean) {}

  chunk(chunk: Buffer): Buffer {
    return chunk;
  }

  end(): string {
    return '';
  }

  event(): string {
    return '';
  }

  tail(): string {
    return '';
  }

  frame(out: string | Buffer): string | Buffer {
    return out;
  }

  close(): string {
    return '';
  }

  async usage(ctx: PassCtx): Promise<{ usage: TokenUsage; reported: boolean }> {
    return { usage: this.free ? { inputTokens: 0, outputTokens: 0 } : await fallbackUsage(ctx, ''), reported: false };
  }
}
