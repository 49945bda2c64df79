/**
 * The realtime WebSocket relay (`GET /v1/realtime?model=`): the caller's socket is joined to an
 * upstream realtime socket of a channel serving the model; frames pass both ways unchanged.
 *
 * Billing is the call pipeline's session meter (relay/pipeline/session.ts): it reserves a per-session
 * estimate before the upgrade (a per-request price, else REALTIME_RESERVE_TOKENS in and out at the
 * token prices); this relay reports the usage of every upstream `response.done` event, which the meter
 * adds up and keeps covered by extending the reserve. When the balance cannot cover an extension the
 * caller gets an `insufficient_quota` error event and the session is closed, so a session overruns
 * the balance by at most its last response. The relay tells the meter when either side closes, and
 * the meter settles the session once.
 * Another channel is tried only while the upstream connection fails before it opens.
 */
import WebSocket, { type RawData } from 'ws';
import type { KeyPrincipal } from '../accounts/types.ts';
import { checkModelAccess } from '../accounts/keys.ts';
import type { HeaderSink } from '../accounts/rate-limits.ts';
import type { ModelPrice } from '../billing/prices.ts';
import { echo, fail } from '../platform/errors.ts';
import { Pending } from '../platform/pending.ts';
import { redactSecrets, sentSecrets } from '../platform/redact.ts';
import { logAttemptError } from './accounting.ts';
import { SessionMeter, type MeteredSession } from './pipeline/index.ts';
import type { RuntimeChannel } from './channels.ts';
import { CONNECT_FAIL_COOLDOWN_MS } from './policy.ts';
import { passUsage } from './pass-kinds.ts';
import { upstreamModel } from './providers/endpoint.ts';
import { endpointOf, passEndpoint, providerOfType } from './providers/registry.ts';
import type { RelayDeps, RelayPrincipal } from './call.ts';

export const REALTIME_RESERVE_TOKENS = 4096;
const OPEN_TIMEOUT_MS = 15_000;

export interface RealtimeSession {
  requestId: string;
  model: string;
  principal: RelayPrincipal;
  /** Headers from the caller passed to the upstream (e.g. `openai-beta`). */
  passHeaders: Record<string, string>;
}

/** A session as the pipeline's meter settles it (relay/pipeline/session.ts), with what the relay keeps of it. */
interface Session extends RealtimeSession, MeteredSession {
  startedAt: bigint;
  candidates: RuntimeChannel[];
  price: ModelPrice | null;
  /** Its reserve, extensions and settlement (set once prepared). */
  meter: SessionMeter | null;
}

/** The upstream realtime URL: `ws(s)://{base}/v1/realtime?model=` (Azure: `/openai/realtime?deployment=`). */
export function realtimeUrl(ch: RuntimeChannel, model: string): string {
  return passEndpoint(ch.type).realtimeUrl!(ch, model);
}

export class RealtimeRelay {
  private readonly pending = new Pending();
  private readonly track = this.pending.track;

  constructor(private readonly d: RelayDeps) {}

  drain(): Promise<void> {
    return this.pending.drain();
  }

  /**
   * Checks access, channels, price and rate limits (their headers go to `sink`) and reserves the
   * session estimate; throws a GatewayError (answered over HTTP, before the upgrade) when the session
   * cannot start.
   */
  async prepare(s: RealtimeSession, startedAt: bigint, sink: HeaderSink | null = null): Promise<Session> {
    const { principal, model } = s;
    if (!model) throw fail('invalid_request', 'the "model" query parameter is required');
    if (principal.models) checkModelAccess(principal as KeyPrincipal, model);
    const candidates = this.d.channels
      .candidates(principal.group, model)
      .filter((c) => providerOfType(c.type)?.endpoint?.realtimeUrl !== undefined);
    if (!candidates.length) throw fail('no_available_channel', { model: echo(model), group: principal.group });
    const price = this.d.prices.get(model);
    if (!price && !this.d.core.config.relayAllowUnpricedModels) {
      throw fail('model_price_not_set', { model: echo(model) });
    }
    const session: Session = {
      ...s,
      call: { principal, requestId: s.requestId, endpoint: '/v1/realtime', startedAt },
      stream: true,
      firstByteMs: null,
      grant: null,
      maxOut: null,
      n: 1,
      startedAt,
      candidates,
      price,
      payer: this.d.budgets.payer(principal),
      reserved: 0,
      usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
      responses: 0,
      attempts: [],
      channel: null,
      extensions: 0,
      admission: null,
      meter: null,
    };
    const estimate = { inputTokens: REALTIME_RESERVE_TOKENS, outputTokens: REALTIME_RESERVE_TOKENS };
    session.meter = await SessionMeter.open(this.d, this.track, session, estimate, sink);
    return session;
  }

  /** Releases a prepared session whose upgrade never happened. */
  abandon(s: Session): void {
    s.meter?.abandon();
  }

  /** Joins the caller's socket to an upstream socket and relays until one side closes. */
  run(s: Session, client: WebSocket): void {
    const queued: Array<{ data: RawData; binary: boolean }> = [];
    let upstream: WebSocket | null = null;
    let clientClosed = false;
    client.on('message', (data, binary) => {
      if (upstream && upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary });
      else queued.push({ data, binary });
    });
    client.on('close', () => {
      clientClosed = true;
      if (upstream && (upstream.readyState === WebSocket.OPEN || upstream.readyState === WebSocket.CONNECTING)) upstream.close(1000);
      this.settle(s, upstream ? 200 : 499);
    });
    client.on('error', () => {});

    const tried = new Set<number>();
    const failedKeys = new Map<number, Set<number>>();
    const maxAttempts = this.d.policy.maxAttempts();
    const next = async (i: number, lastError: string | null): Promise<void> => {
      if (clientClosed) return;
      const pick = i < maxAttempts ? this.d.channels.pick(s.candidates, tried, failedKeys) : null;
      if (!pick) {
        const message = `upstream failed after ${s.attempts.length} attempt(s): ${lastError ?? 'no channel left'}`;
        if (client.readyState === WebSocket.OPEN) {
          client.send(
            JSON.stringify({
              type: 'error',
              event_id: `event_${s.requestId}`,
              error: { type: 'server_error', code: 'upstream_error', message, param: null },
            }),
          );
          client.close(1011, 'upstream unavailable');
        }
        this.abandon(s);
        return;
      }
      const ch = pick.channel;
      tried.add(ch.id);
      const upModel = upstreamModel(ch, s.model);
      const headers: Record<string, string> = { ...s.passHeaders };
      Object.assign(headers, endpointOf(ch.type).authHeaders(pick.key));
      for (const [k, v] of Object.entries(ch.headerOverride))
        if (typeof v === 'string') headers[k.toLowerCase()] = v.replaceAll('{api_key}', pick.key);
      const ws = new WebSocket(realtimeUrl(ch, upModel), { headers, handshakeTimeout: OPEN_TIMEOUT_MS, perMessageDeflate: false });
      const failed = (status: number, message: string) => {
        ws.removeAllListeners();
        ws.on('error', () => {});
        ws.terminate();
        s.attempts.push({ channel: ch.id, status, error: message });
        logAttemptError(this.d.logs, s, ch, status, message, s.attempts.length);
        void this.d.policy.failed(ch, pick.keyIndex, status, message).then(
          ({ keyFault, outcome }) => {
            if (keyFault) {
              let set = failedKeys.get(ch.id);
              if (!set) failedKeys.set(ch.id, (set = new Set()));
              set.add(pick.keyIndex);
            } else if (outcome === 'none') {
              this.d.channels.cooldown(ch.id, pick.keyIndex, CONNECT_FAIL_COOLDOWN_MS);
            }
            return next(i + 1, message);
          },
          () => next(i + 1, message),
        );
      };
      ws.once('unexpected-response', (_req, res) => {
        res.resume();
        failed(res.statusCode ?? 502, `upstream refused the realtime connection (HTTP ${res.statusCode})`);
      });
      ws.once('error', (e) =>
        failed(
          0,
          redactSecrets(
            `upstream realtime connection failed: ${(e as Error).message}`,
            sentSecrets([pick.key], headers, realtimeUrl(ch, upModel)),
          ),
        ),
      );
      ws.once('open', () => {
        ws.removeAllListeners('error');
        ws.removeAllListeners('unexpected-response');
        if (clientClosed) {
          ws.close(1000);
          return;
        }
        upstream = ws;
        s.channel = ch;
        this.d.policy.succeeded(ch.id, pick.keyIndex);
        for (const q of queued.splice(0)) ws.send(q.data, { binary: q.binary });
        ws.on('message', (data, binary) => {
          if (client.readyState === WebSocket.OPEN) client.send(data, { binary });
          if (!binary) this.observe(s, data, client, ws);
        });
        ws.on('close', (code, reason) => {
          const why = reason.length
            ? Buffer.from(redactSecrets(reason.toString('utf8'), sentSecrets([pick.key], headers))).subarray(0, 120)
            : reason;
          if (client.readyState === WebSocket.OPEN)
            client.close(code >= 1000 && code < 5000 && code !== 1005 && code !== 1006 && code !== 1015 ? code : 1011, why);
          this.settle(s, 200);
        });
        ws.on('error', (e) => {
          this.d.core.log.warn({ err: e.message, requestId: s.requestId }, 'realtime upstream error');
          if (client.readyState === WebSocket.OPEN) client.close(1011, 'upstream error');
        });
      });
    };
    void next(0, null);
  }

  /** Reports each `response.done` event and its usage to the session's meter. */
  private observe(s: Session, data: RawData, client: WebSocket, upstream: WebSocket): void {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
    if (buf.length < 20 || !buf.subarray(0, 200).toString('utf8').includes('response.done')) return;
    let j: unknown;
    try {
      j = JSON.parse(buf.toString('utf8'));
    } catch {
      return;
    }
    if (!j || typeof j !== 'object' || (j as { type?: unknown }).type !== 'response.done') return;
    const u = (j as { response?: { usage?: Record<string, unknown> } }).response?.usage;
    // Realtime names the details `input_token_details`; the Responses form is accepted too.
    const usage = u ? passUsage({ usage: { ...u, input_tokens_details: u.input_token_details ?? u.input_tokens_details } }) : null;
    s.meter?.response(usage, () => this.exhausted(s, client, upstream));
  }

  /** The balance cannot cover the session any further: tells the caller and closes both sockets. */
  private exhausted(s: Session, client: WebSocket, upstream: WebSocket): void {
    const message = 'quota exhausted: the balance cannot cover this realtime session any further';
    if (client.readyState === WebSocket.OPEN) {
      client.send(
        JSON.stringify({
          type: 'error',
          event_id: `event_${s.requestId}_quota`,
          error: { type: 'insufficient_quota', code: 'insufficient_quota', message, param: null },
        }),
      );
      client.close(1008, 'insufficient quota');
    }
    if (upstream.readyState === WebSocket.OPEN || upstream.readyState === WebSocket.CONNECTING) upstream.close(1000);
  }

  /** Either side closed: the meter settles the session (once). */
  private settle(s: Session, status: number): void {
    s.meter?.close(status);
  }
}
