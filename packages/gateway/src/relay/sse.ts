/**
 * A small SSE framer that keeps each event's raw text, so a pass-through can forward events unchanged
 * (or drop one) while reading their data. Only an incomplete trailing event is ever buffered.
 */
import { StringDecoder } from 'node:string_decoder';

export interface SseEvent {
  /** The event exactly as received, including its terminating blank line. */
  raw: string;
  event?: string;
  data: string;
}

const BOUNDARY = /\r\n\r\n|\n\n|\r\r/;

/** Splits a streamed body into events as its bytes arrive (SSE here; AWS event streams in relay/providers/bedrock/endpoint.ts). */
export interface EventFramer {
  push(chunk: Buffer): SseEvent[];
  end(): SseEvent[];
}

export class SseFramer implements EventFramer {
  private buf = '';
  private readonly dec = new StringDecoder('utf8');

  push(chunk: Buffer): SseEvent[] {
    this.buf += this.dec.write(chunk);
    return this.drain(false);
  }

  end(): SseEvent[] {
    this.buf += this.dec.end();
    return this.drain(true);
  }

  /** Text of a partial event not yet terminated. */
  get pending(): string {
    return this.buf;
  }

  private drain(final: boolean): SseEvent[] {
    const out: SseEvent[] = [];
    for (;;) {
      const m = BOUNDARY.exec(this.buf);
      if (!m) break;
      const end = m.index + m[0].length;
      out.push(parseEvent(this.buf.slice(0, end)));
      this.buf = this.buf.slice(end);
    }
    if (final && this.buf.trim()) {
      out.push(parseEvent(this.buf));
      this.buf = '';
    }
    return out;
  }
}

function parseEvent(raw: string): SseEvent {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of raw.split(/\r\n|\n|\r/)) {
    if (!line || line.startsWith(':')) continue;
    const i = line.indexOf(':');
    const field = i < 0 ? line : line.slice(0, i);
    let value = i < 0 ? '' : line.slice(i + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  }
  return { raw, event, data: data.join('\n') };
}
