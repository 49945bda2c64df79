/**
 * Responses over a WebSocket (`GET /v1/responses` upgraded, the transport Codex tries first). Each
 * `response.create` message is one turn: one call through the same pipeline as `POST /v1/responses`
 * (request limit, rate limits, reserve, attempts, stream, settle, log row), its events sent back as
 * text messages in order (relay/socket-response.ts). One turn at a time per connection; the connection
 * itself reserves and settles nothing (the pipeline does, for each turn).
 *
 * The connection keeps its conversation: after each turn it holds the turn's whole input and the
 * output items of its Response, so a later turn that names that Response in `previous_response_id`
 * and sends only what is new (with `store: false`, as Codex does) is sent upstream whole, on any
 * channel: the id is resolved here, never upstream. A turn with `generate: false` (Codex's warm-up)
 * calls no model and costs nothing: it is answered `response.created` and `response.completed` with
 * an empty output, and its input becomes the conversation's start. An id the connection does not hold
 * is left to the pipeline (stored conversations, or the upstream's own).
 *
 * Errors are the API's `error` events (`{type:'error', status, error:{type, code, message, param}}`);
 * the connection stays open after one, unless the key stopped being valid (close 1008) or a binary
 * frame came (close 1003). A connection with no turn in progress is closed (1000) after
 * RESPONSES_WEBSOCKET_IDLE_SECONDS without a message; a graceful stop closes each connection (1001)
 * once its turn in progress has ended. A caller that leaves mid-turn is treated as a client that went
 * away over HTTP: the turn is settled once, for what it produced.
 */
import WebSocket, { type RawData } from 'ws';
import type { KeyPrincipal } from '../accounts/types.ts';
import type { RateLimiter } from '../accounts/rate-limits.ts';
import type { Core } from '../core.ts';
import { GatewayError, fail } from '../platform/errors.ts';
import { requestId as newRequestId } from '../platform/ids.ts';
import { isObj } from '../platform/validate.ts';
import { scanBody } from './body-scan.ts';
import type { PassCall } from './pass-kinds.ts';
import { openaiErrorBody } from './providers/openai/errors.ts';
import { errorEvent, sendEvent, SocketResponse } from './socket-response.ts';

/** What the connection knows when it opens. */
export interface SocketOpen {
  /** The key's principal, checked again at every turn (a key disabled meanwhile ends the connection). */
  principal: () => KeyPrincipal;
  /** The caller's OpenAI headers from the upgrade request (relay/providers/endpoint.ts OPENAI_CALLER_HEADERS). */
  vendorHeaders: Record<string, string>;
  /** The upgrade request's id (logged with the connection's own failures). */
  requestId: string;
  /** Runs a turn's call, when something comes before the relay (the task protocols' Responses); else the relay's. */
  serve?: ServeCall;
}

/** Runs one call of the pipeline (the relay's `handle`). */
export type ServeCall = (call: PassCall) => Promise<void>;

/** The conversation a connection holds: its last Response and everything up to it. */
interface Held {
  id: string;
  items: unknown[];
}

/** Close codes. */
const NORMAL = 1000;
const GOING_AWAY = 1001;
const UNSUPPORTED_DATA = 1003;
const POLICY = 1008;

/** A Responses `input` as a list of items (a string is one user message). */
function inputItems(input: unknown): unknown[] {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  if (Array.isArray(input)) return input;
  throw fail('invalid_request', '"input" must be a string or a list of items');
}

class Connection {
  private held: Held | null = null;
  private busy = false;
  private closing = false;
  private idle: NodeJS.Timeout | null = null;
  private sink: SocketResponse | null = null;

  constructor(
    private readonly owner: ResponsesSockets,
    private readonly ws: WebSocket,
    private readonly o: SocketOpen,
  ) {
    ws.on('message', (data, binary) => this.onMessage(data, binary));
    ws.on('close', () => {
      this.stopIdle();
      // A turn in progress hears that its caller left (settled once, for what it produced).
      this.sink?.destroy();
      owner.forget(this);
    });
    ws.on('error', () => {});
    this.armIdle();
  }

  /** Closes now when no turn is in progress, else once it has ended. */
  shutdown(): void {
    this.closing = true;
    if (!this.busy) this.close(GOING_AWAY, 'server shutting down');
  }

  /** Ends the connection without its closing handshake. */
  cut(): void {
    this.stopIdle();
    this.ws.terminate();
  }

  private close(code: number, reason: string): void {
    this.stopIdle();
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(code, reason);
  }

  private stopIdle(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
  }

  private armIdle(): void {
    this.stopIdle();
    const ms = this.owner.idleMs;
    if (ms <= 0 || this.busy) return;
    this.idle = setTimeout(() => this.close(NORMAL, 'idle timeout'), ms);
    this.idle.unref();
  }

  private error(e: unknown, requestId: string): void {
    if (e instanceof GatewayError) {
      sendEvent(this.ws, errorEvent(e.status, openaiErrorBody(e)));
      return;
    }
    this.owner.core.log.error({ err: (e as Error)?.message, stack: (e as Error)?.stack, requestId }, 'a Responses WebSocket turn failed');
    sendEvent(
      this.ws,
      errorEvent(500, { error: { type: 'server_error', code: 'internal_error', message: 'internal error', param: null } }),
    );
  }

  private onMessage(data: RawData, binary: boolean): void {
    this.armIdle();
    if (binary) {
      sendEvent(this.ws, errorEvent(400, openaiErrorBody(fail('invalid_request', 'messages must be JSON text, not binary'))));
      this.close(UNSUPPORTED_DATA, 'binary messages are not accepted');
      return;
    }
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as Buffer).toString('utf8');
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch (e) {
      this.error(fail('invalid_json', { reason: (e as Error).message }), this.o.requestId);
      return;
    }
    if (!isObj(msg) || typeof msg.type !== 'string') {
      this.error(fail('invalid_request', 'a message must be a JSON object with a "type"'), this.o.requestId);
      return;
    }
    // Codex acknowledges each Response it has handled; nothing to do.
    if (msg.type === 'response.processed') return;
    if (msg.type !== 'response.create') {
      this.error(fail('invalid_request', `unknown message type "${msg.type.slice(0, 60)}": send "response.create"`), this.o.requestId);
      return;
    }
    if (this.busy) {
      this.error(
        fail('invalid_request', 'a response is in progress on this connection: send the next one after its final event'),
        this.o.requestId,
      );
      return;
    }
    this.busy = true;
    this.stopIdle();
    void this.turn(msg).finally(() => {
      this.busy = false;
      this.sink = null;
      if (this.closing) this.close(GOING_AWAY, 'server shutting down');
      else this.armIdle();
    });
  }

  /** One `response.create`: its parameters are the message's fields (or its `response` object). */
  private async turn(msg: Record<string, unknown>): Promise<void> {
    const requestId = newRequestId();
    const startedAt = process.hrtime.bigint();
    let principal: KeyPrincipal;
    try {
      principal = this.o.principal();
    } catch (e) {
      this.error(e, requestId);
      this.close(POLICY, 'the key is no longer valid');
      return;
    }
    try {
      const { type: _type, generate, ...fields } = msg;
      const params = isObj(fields.response) && fields.model === undefined ? { ...fields.response } : fields;
      if (typeof params.model !== 'string' || !params.model) throw fail('invalid_request', '"model" is required and must be a string');
      // Refuses parameters nested too deep for the codecs (400) and measures the media for the reserve.
      const scan = scanBody(params);
      let items = inputItems(params.input);
      const prev = params.previous_response_id;
      if (typeof prev === 'string' && this.held && prev === this.held.id) {
        items = [...this.held.items, ...items];
        delete params.previous_response_id;
        params.input = items;
      }
      if (generate === false) {
        this.warmUp(params, requestId, items);
        return;
      }
      delete params.generate;
      params.stream = true;
      await this.owner.admit(principal);
      const sink = new SocketResponse(this.ws);
      this.sink = sink;
      await (this.o.serve ?? this.owner.serve)({
        kind: 'responses',
        endpoint: '/v1/responses',
        principal,
        body: params,
        raw: Buffer.from(JSON.stringify(params)),
        scan,
        requestId,
        startedAt,
        client: { res: sink.asResponse(), hijack: () => {} },
        vendorHeaders: this.o.vendorHeaders,
      });
      if (!sink.writableEnded && !sink.destroyed) sink.end();
      // The last events reach the socket (and are read) after the call has returned.
      await sink.done();
      const out = sink.outcome;
      this.held =
        out.responseId && (out.status === 'completed' || out.status === 'incomplete')
          ? { id: out.responseId, items: [...items, ...out.output] }
          : null;
    } catch (e) {
      this.held = null;
      // An answer under way ends on its own (the pipeline never throws once it started).
      if (!this.sink?.headed) this.error(e, requestId);
    }
  }

  /** `generate: false`: a Response with no output, no model call and no charge; its input starts the conversation. */
  private warmUp(params: Record<string, unknown>, requestId: string, items: unknown[]): void {
    const id = `resp_${requestId}`;
    const response = {
      id,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      status: 'completed',
      model: params.model,
      output: [],
      previous_response_id: null,
      store: false,
      usage: {
        input_tokens: 0,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 0,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 0,
      },
    };
    sendEvent(this.ws, { type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress', usage: null } });
    sendEvent(this.ws, { type: 'response.completed', sequence_number: 1, response });
    this.held = { id, items };
  }
}

/** Every Responses WebSocket of this node. */
export class ResponsesSockets {
  private readonly open = new Set<Connection>();
  private draining = false;
  /** Closes a connection with no turn in progress after this long without a message (0: never). */
  readonly idleMs: number;

  constructor(
    readonly core: Core,
    private readonly serveCall: ServeCall,
    private readonly rateLimits: RateLimiter,
  ) {
    this.idleMs = core.config.responsesSocketIdleMs;
  }

  /** Connections open now. */
  get size(): number {
    return this.open.size;
  }

  /** Whether a graceful stop has begun (new connections are refused). */
  get stopping(): boolean {
    return this.draining;
  }

  /** Serves a connection whose upgrade was authenticated. */
  accept(ws: WebSocket, o: SocketOpen): void {
    const c = new Connection(this, ws, o);
    if (ws.readyState === WebSocket.OPEN) this.open.add(c);
    if (this.draining) c.shutdown();
  }

  /** A graceful stop: each connection is closed once its turn in progress has ended. */
  drain(): void {
    this.draining = true;
    for (const c of this.open) c.shutdown();
  }

  /** Cuts every connection still open (the node is closing): a turn in progress is settled for what it produced. */
  cut(): void {
    this.draining = true;
    for (const c of this.open) c.cut();
  }

  /** @internal */
  forget(c: Connection): void {
    this.open.delete(c);
  }

  /** @internal Counts a turn towards the user's request limit, as a POST is counted. */
  admit(p: KeyPrincipal): void | Promise<void> {
    return this.rateLimits.admitRequest(p.userId, p.group);
  }

  /** @internal The relay's call. */
  readonly serve: ServeCall = (call) => this.serveCall(call);
}
