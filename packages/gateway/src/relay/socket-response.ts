/**
 * Where one turn of a Responses WebSocket (relay/responses-socket.ts) is answered: a writable that
 * stands in for the HTTP response the call pipeline writes to (relay/pipeline/index.ts). The status line is
 * kept, each server-sent event of the answer becomes one text message on the socket (its JSON data,
 * unchanged), and an error answer becomes the API's `error` event with its status. Backpressure is
 * the socket's: a write is done when the socket took the message. The socket closing mid-turn
 * destroys it, which the pipeline reads as a caller gone (the turn is settled once for what it
 * produced).
 */
import { Writable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import WebSocket from 'ws';
import { SseFramer } from './sse.ts';
import { isObj } from '../platform/validate.ts';

/** How an event's JSON starts when its type comes first. */
const TYPE_FIRST = '{"type":"';
/** The events whose content the turn keeps (the Response's id, its output items, how it ended). */
const KEPT = new Set(['response.created', 'response.output_item.done', 'response.completed', 'response.incomplete', 'response.failed']);

/** The largest error or JSON answer kept to be turned into a message. */
const MAX_BUFFERED = 1024 * 1024;

/** What a turn's answer said of its Response: its id, its output items and how it ended. */
export interface TurnOutcome {
  responseId: string | null;
  /** The items of `response.output_item.done` events, in order (else the final Response's `output`). */
  output: unknown[];
  /** `completed`, `incomplete`, `failed`, or null when the answer ended without a final event (or was an error). */
  status: string | null;
}

/** Sends `value` as one text message when the socket is open. */
export function sendEvent(ws: WebSocket, value: unknown, done?: (err?: Error) => void): void {
  if (ws.readyState !== WebSocket.OPEN) {
    done?.();
    return;
  }
  ws.send(typeof value === 'string' ? value : JSON.stringify(value), done);
}

/** The API's `error` event for an answer of status `status` (its body the family's error envelope, when it is one). */
export function errorEvent(status: number, body: unknown): Record<string, unknown> {
  const error =
    isObj(body) && isObj(body.error) ? body.error : { type: 'server_error', code: null, message: String(body ?? ''), param: null };
  return { type: 'error', status, error };
}

export class SocketResponse extends Writable {
  statusCode = 200;
  /** The answer's status line was written (from then on the pipeline ends it itself). */
  headed = false;
  private contentType = '';
  private readonly framer = new SseFramer();
  /** Answers that are not an event stream (an error, a whole Response), kept until they end. */
  private held: Buffer[] = [];
  private heldBytes = 0;
  private items: unknown[] = [];
  private finalOutput: unknown[] | null = null;
  readonly outcome: TurnOutcome = { responseId: null, output: [], status: null };

  constructor(private readonly ws: WebSocket) {
    super({ decodeStrings: true });
    // A write after the socket went away fails here, not in the process.
    this.on('error', () => {});
  }

  /** The pipeline's view of it: the HTTP response it writes to. */
  asResponse(): ServerResponse {
    return this as unknown as ServerResponse;
  }

  /** Resolves once every message of the answer was handed to the socket (or the socket went away). */
  done(): Promise<void> {
    if (this.writableFinished || this.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      this.once('finish', resolve);
      this.once('close', resolve);
    });
  }

  writeHead(status: number, headers?: Record<string, string>): this {
    this.statusCode = status;
    this.headed = true;
    const ct = headers?.['content-type'];
    if (typeof ct === 'string') this.contentType = ct;
    return this;
  }

  /** Rate-limit headers have nowhere to go on a socket once it is open. */
  setHeader(_name: string, _value: unknown): this {
    return this;
  }

  /**
   * A listener for `close` added after the socket went away still hears of it (the pipeline adds its
   * own when the upstream answers, which may be after the caller left).
   */
  override on(event: string | symbol, listener: (...args: any[]) => void): this {
    super.on(event, listener);
    if (event === 'close' && this.closed && !this.writableFinished) process.nextTick(listener);
    return this;
  }

  private get streamed(): boolean {
    return this.statusCode < 400 && this.contentType.includes('text/event-stream');
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (!this.streamed) {
      if (this.heldBytes < MAX_BUFFERED) {
        this.held.push(chunk);
        this.heldBytes += chunk.length;
      }
      cb();
      return;
    }
    this.sendEvents(this.framer.push(chunk), cb);
  }

  override _final(cb: (err?: Error | null) => void): void {
    if (this.streamed) {
      this.sendEvents(this.framer.end(), cb);
      return;
    }
    const text = Buffer.concat(this.held).toString('utf8');
    this.held = [];
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: its text is the message.
    }
    if (this.statusCode >= 400) {
      sendEvent(this.ws, errorEvent(this.statusCode, body), () => cb());
      return;
    }
    // A whole Response where a stream was asked for: told as its creation and completion.
    if (isObj(body) && typeof body.id === 'string') {
      this.observe(body.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: body });
      sendEvent(this.ws, { type: 'response.created', sequence_number: 0, response: { ...body, status: 'in_progress', output: [] } });
      sendEvent(
        this.ws,
        { type: this.outcome.status === 'incomplete' ? 'response.incomplete' : 'response.completed', sequence_number: 1, response: body },
        () => cb(),
      );
      return;
    }
    sendEvent(this.ws, errorEvent(502, 'the upstream answered something other than a Response'), () => cb());
  }

  private sendEvents(events: Array<{ event?: string; data: string }>, cb: (err?: Error | null) => void): void {
    let last: string | null = null;
    for (const ev of events) {
      const msg = this.message(ev.event, ev.data);
      if (msg === null) continue;
      if (last !== null) sendEvent(this.ws, last);
      last = msg;
    }
    if (last === null) {
      cb();
      return;
    }
    // Done when the socket took the last message: the socket's backpressure is the pipeline's.
    sendEvent(this.ws, last, () => cb());
  }

  /** The message of one event (null: nothing to send, such as a comment or `[DONE]`); reads what the turn needs to keep. */
  private message(name: string | undefined, data: string): string | null {
    if (!data || data === '[DONE]' || data[0] !== '{') return null;
    // Most events lead with their type (OpenAI's and the gateway's own): only those the turn keeps are parsed.
    if (data.startsWith(TYPE_FIRST)) {
      const type = data.slice(TYPE_FIRST.length, data.indexOf('"', TYPE_FIRST.length));
      if (!KEPT.has(type)) return data;
    }
    let j: unknown;
    try {
      j = JSON.parse(data);
    } catch {
      return data;
    }
    if (!isObj(j)) return data;
    if (typeof j.type !== 'string' && name) {
      // An event named only by its SSE `event:` line (an error event) carries its name as its type.
      const withType = { type: name, ...j };
      this.observe(name, withType);
      return JSON.stringify(withType);
    }
    if (typeof j.type === 'string') this.observe(j.type, j);
    return data;
  }

  private observe(type: string, j: Record<string, unknown>): void {
    if (type === 'response.output_item.done') {
      if (j.item !== undefined) this.items.push(j.item);
      return;
    }
    const r = isObj(j.response) ? j.response : null;
    if (r && typeof r.id === 'string') this.outcome.responseId = r.id;
    if (type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') {
      this.outcome.status = type.slice('response.'.length);
      if (r && Array.isArray(r.output)) this.finalOutput = r.output;
      this.outcome.output = this.items.length ? this.items : (this.finalOutput ?? []);
    }
  }
}
