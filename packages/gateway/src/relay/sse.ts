/**
 * A small SSE framer that keeps each event's raw text, so a pass-through can forward events unchanged
 * (or drop one) while reading their data. Only an incomplete trailing event is ever buffered.
 *
 * It runs once per event of every stream the gateway relays, so it does the least it can: the end of
 * an event is found with indexOf from where the last search stopped (never rescanning what is
 * buffered), a read that holds whole events only is framed without copying it into the buffer, and the
 * fields of the usual one-line events are read without splitting them into arrays. Line ends may be
 * LF, CRLF or CR (a slower path, taken only when the stream holds a CR).
 */
import { StringDecoder } from 'node:string_decoder';

export interface SseEvent {
  /** The event exactly as received, including its terminating blank line. */
  raw: string;
  event?: string;
  data: string;
}

/** Splits a streamed body into events as its bytes arrive (SSE here; AWS event streams in relay/providers/bedrock/endpoint.ts). */
export interface EventFramer {
  push(chunk: Buffer): SseEvent[];
  end(): SseEvent[];
  /** Text of a partial event not yet terminated ('' when none; absent when the framer cannot tell). */
  readonly pending?: string;
}

const BOUNDARY = /\r\n\r\n|\n\n|\r\r/g;

export class SseFramer implements EventFramer {
  private buf = '';
  /** Where the search for the next blank line resumes (what is before it holds none). */
  private scanned = 0;
  /** The stream has shown a CR: line ends are searched with the general rule from then on. */
  private cr = false;
  private readonly dec = new StringDecoder('utf8');

  push(chunk: Buffer): SseEvent[] {
    const text = this.dec.write(chunk);
    this.buf = this.buf ? this.buf + text : text;
    if (!this.cr && text.includes('\r')) this.cr = true;
    return this.drain(false);
  }

  end(): SseEvent[] {
    const text = this.dec.end();
    if (text) {
      this.buf += text;
      if (text.includes('\r')) this.cr = true;
    }
    return this.drain(true);
  }

  /** Text of a partial event not yet terminated. */
  get pending(): string {
    return this.buf;
  }

  /** The end of the first event of `buf` at or after `from` (after its blank line), or -1. */
  private boundary(buf: string, from: number): number {
    if (!this.cr) {
      const i = buf.indexOf('\n\n', from);
      return i < 0 ? -1 : i + 2;
    }
    BOUNDARY.lastIndex = from;
    const m = BOUNDARY.exec(buf);
    return m ? m.index + m[0].length : -1;
  }

  private drain(final: boolean): SseEvent[] {
    const out: SseEvent[] = [];
    const buf = this.buf;
    let start = 0;
    // A blank line can straddle two reads: resume one character before what was already searched.
    let from = Math.max(0, this.scanned - 3);
    for (;;) {
      const end = this.boundary(buf, from);
      if (end < 0) break;
      out.push(parseEvent(buf.slice(start, end), this.cr));
      start = from = end;
    }
    const rest = start === 0 ? buf : buf.slice(start);
    if (final && rest.trim()) {
      out.push(parseEvent(rest, this.cr));
      this.buf = '';
    } else {
      this.buf = rest;
    }
    this.scanned = this.buf.length;
    return out;
  }
}

/** The fields of one event (its lines up to the blank line). `cr`: its lines may end with CR. */
function parseEvent(raw: string, cr: boolean): SseEvent {
  let event: string | undefined;
  let data: string | null = null;
  const n = raw.length;
  let at = 0;
  while (at < n) {
    let eol: number;
    let next: number;
    if (cr) {
      const lf = raw.indexOf('\n', at);
      const r = raw.indexOf('\r', at);
      if (r >= 0 && (lf < 0 || r < lf)) {
        eol = r;
        next = raw.charCodeAt(r + 1) === 10 ? r + 2 : r + 1;
      } else {
        eol = lf < 0 ? n : lf;
        next = eol + 1;
      }
    } else {
      const lf = raw.indexOf('\n', at);
      eol = lf < 0 ? n : lf;
      next = eol + 1;
    }
    if (eol > at && raw.charCodeAt(at) !== 58 /* ':' comment */) {
      const colon = raw.indexOf(':', at);
      let field: string;
      let value: string;
      if (colon < 0 || colon > eol) {
        field = raw.slice(at, eol);
        value = '';
      } else {
        field = raw.slice(at, colon);
        const v = raw.charCodeAt(colon + 1) === 32 /* ' ' */ ? colon + 2 : colon + 1;
        value = v < eol ? raw.slice(v, eol) : '';
      }
      if (field === 'data') data = data === null ? value : `${data}\n${value}`;
      else if (field === 'event') event = value;
    }
    at = next;
  }
  return { raw, event, data: data ?? '' };
}
