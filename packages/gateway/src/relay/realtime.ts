/**
 * The realtime WebSocket relay (`GET /v1/realtime?model=`): the caller's socket is joined to an
 * upstream realtime socket of a channel serving the model; frames pass both ways unchanged.
 *
 * Billing: a per-session estimate is reserved before the upgrade (a per-request price, else
 * REALTIME_RESERVE_TOKENS in and out at the token prices); the usage of every upstream
 * `response.done` event is added up and the session is settled once, when either side closes.
 * Another channel is tried only while the upstream connection fails before it opens.
 */
import WebSocket, { type RawData } from 'ws';
import type { KeyPrincipal } from '../accounts/types.ts';
import { checkModelAccess } from '../accounts/keys.ts';
import type { Payer } from '../billing/ledger.ts';
import type { ModelPrice, TokenUsage } from '../billing/prices.ts';
import { GatewayError } from '../platform/errors.ts';
import type { NewLog } from '../logs/writer.ts';
import { ChannelType } from './channel-types.ts';
import type { RuntimeChannel } from './channels.ts';
import { CONNECT_FAIL_COOLDOWN_MS } from './policy.ts';
import { passUsage } from './passthrough.ts';
import { DEFAULT_AZURE_API_VERSION, upstreamModel } from './providers.ts';
import type { RelayDeps, RelayPrincipal } from './relay.ts';

export const REALTIME_RESERVE_TOKENS = 4096;
const OPEN_TIMEOUT_MS = 15_000;

const msSince = (t: bigint): number => Number(process.hrtime.bigint() - t) / 1e6;

export interface RealtimeSession {
  requestId: string;
  model: string;
  principal: RelayPrincipal;
  /** Headers from the caller passed to the upstream (e.g. `openai-beta`). */
  passHeaders: Record<string, string>;
}

interface Session extends RealtimeSession {
  startedAt: bigint;
  candidates: RuntimeChannel[];
  price: ModelPrice | null;
  payer: Payer;
  reserved: number;
  usage: Required<Pick<TokenUsage, 'inputTokens' | 'outputTokens' | 'cachedInputTokens'>>;
  responses: number;
  attempts: Array<{ channel: number; status: number; error?: string }>;
  channel: RuntimeChannel | null;
  settled: boolean;
}

/** The upstream realtime URL: `ws(s)://{base}/v1/realtime?model=` (Azure: `/openai/realtime?deployment=`). */
export function realtimeUrl(ch: RuntimeChannel, model: string): string {
  const base = ch.baseUrl.replace(/^http/, 'ws');
  if (ch.type === ChannelType.azure) {
    const deployments = (ch.settings.deployments ?? {}) as Record<string, string>;
    const ver = typeof ch.settings.realtime_api_version === 'string' ? ch.settings.realtime_api_version : typeof ch.settings.api_version === 'string' ? ch.settings.api_version : DEFAULT_AZURE_API_VERSION;
    return `${base}/openai/realtime?api-version=${encodeURIComponent(ver)}&deployment=${encodeURIComponent(deployments[model] ?? model)}`;
  }
  return /\/v\d+$/.test(base) ? `${base}/realtime?model=${encodeURIComponent(model)}` : `${base}/v1/realtime?model=${encodeURIComponent(model)}`;
}

export class RealtimeRelay {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly d: RelayDeps) {}

  async drain(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p)).catch(() => {});
    return p;
  }

  /**
   * Checks access, channels and price and reserves the session estimate; throws GatewayError (answered
   * over HTTP, before the upgrade) when the session cannot start.
   */
  async prepare(s: RealtimeSession, startedAt: bigint): Promise<Session> {
    const { principal, model } = s;
    if (!model) throw new GatewayError(400, 'invalid_request', 'the "model" query parameter is required');
    if (principal.models) checkModelAccess(principal as KeyPrincipal, model);
    const candidates = this.d.channels.candidates(principal.group, model).filter((c) => c.type === ChannelType.openai || c.type === ChannelType.azure);
    if (!candidates.length) throw new GatewayError(503, 'no_available_channel', `no available channel for model "${model}" in group "${principal.group}"`);
    const price = this.d.prices.get(model);
    if (!price && !this.d.core.config.relayAllowUnpricedModels) {
      throw new GatewayError(403, 'model_price_not_set', `model "${model}" has no price set; an administrator must set one before it can be used`);
    }
    const session: Session = {
      ...s, startedAt, candidates, price,
      payer: { userId: principal.userId, keyId: principal.keyId, unlimitedKey: principal.keyId === null || principal.unlimitedQuota },
      reserved: 0, usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 }, responses: 0, attempts: [], channel: null, settled: false,
    };
    session.reserved = this.d.prices.cost(price, { inputTokens: REALTIME_RESERVE_TOKENS, outputTokens: REALTIME_RESERVE_TOKENS }, principal.group);
    if (session.reserved > 0) await this.d.ledger.reserve(session.payer, s.requestId, session.reserved);
    return session;
  }

  /** Releases a prepared session whose upgrade never happened. */
  abandon(s: Session): void {
    if (s.settled) return;
    s.settled = true;
    if (s.reserved > 0) void this.track(this.d.ledger.refund(s.payer, s.requestId, s.reserved).catch(() => false));
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
          client.send(JSON.stringify({ type: 'error', event_id: `event_${s.requestId}`, error: { type: 'server_error', code: 'upstream_error', message, param: null } }));
          client.close(1011, 'upstream unavailable');
        }
        this.abandon(s);
        return;
      }
      const ch = pick.channel;
      tried.add(ch.id);
      const upModel = upstreamModel(ch, s.model);
      const headers: Record<string, string> = { ...s.passHeaders };
      if (ch.type === ChannelType.azure) headers['api-key'] = pick.key;
      else headers.authorization = `Bearer ${pick.key}`;
      for (const [k, v] of Object.entries(ch.headerOverride)) if (typeof v === 'string') headers[k.toLowerCase()] = v.replaceAll('{api_key}', pick.key);
      const ws = new WebSocket(realtimeUrl(ch, upModel), { headers, handshakeTimeout: OPEN_TIMEOUT_MS, perMessageDeflate: false });
      const failed = (status: number, message: string) => {
        ws.removeAllListeners();
        ws.on('error', () => {});
        ws.terminate();
        s.attempts.push({ channel: ch.id, status, error: message });
        this.d.logs.write(this.logRow(s, ch, upModel, { type: 'error', status_code: status || null, content: message.slice(0, 2000), attempts: s.attempts.length }));
        void this.d.policy.failed(ch, pick.keyIndex, status, message).then(({ keyFault, outcome }) => {
          if (keyFault) {
            let set = failedKeys.get(ch.id);
            if (!set) failedKeys.set(ch.id, (set = new Set()));
            set.add(pick.keyIndex);
          } else if (outcome === 'none') {
            this.d.channels.cooldown(ch.id, pick.keyIndex, CONNECT_FAIL_COOLDOWN_MS);
          }
          return next(i + 1, message);
        }, () => next(i + 1, message));
      };
      ws.once('unexpected-response', (_req, res) => {
        res.resume();
        failed(res.statusCode ?? 502, `upstream refused the realtime connection (HTTP ${res.statusCode})`);
      });
      ws.once('error', (e) => failed(0, `upstream realtime connection failed: ${(e as Error).message}`));
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
          if (!binary) this.observe(s, data);
          if (client.readyState === WebSocket.OPEN) client.send(data, { binary });
        });
        ws.on('close', (code, reason) => {
          if (client.readyState === WebSocket.OPEN) client.close(code >= 1000 && code < 5000 && code !== 1005 && code !== 1006 && code !== 1015 ? code : 1011, reason.subarray(0, 120));
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

  /** Adds the usage of `response.done` events. */
  private observe(s: Session, data: RawData): void {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
    if (buf.length < 20 || !buf.subarray(0, 200).toString('utf8').includes('response.done')) return;
    let j: unknown;
    try { j = JSON.parse(buf.toString('utf8')); } catch { return; }
    if (!j || typeof j !== 'object' || (j as { type?: unknown }).type !== 'response.done') return;
    const r = (j as { response?: { usage?: Record<string, unknown> } }).response;
    const u = r?.usage;
    s.responses++;
    if (!u) return;
    // Realtime names the details `input_token_details`; the Responses form is accepted too.
    const normal = passUsage({ usage: { ...u, input_tokens_details: u.input_token_details ?? u.input_tokens_details } });
    if (!normal) return;
    s.usage.inputTokens += normal.inputTokens;
    s.usage.outputTokens += normal.outputTokens;
    s.usage.cachedInputTokens += normal.cachedInputTokens ?? 0;
  }

  private settle(s: Session, status: number): void {
    if (s.settled) return;
    s.settled = true;
    const ch = s.channel;
    const actual = this.d.prices.cost(s.price, s.usage, s.principal.group);
    const reserved = s.reserved;
    s.reserved = 0;
    const upModel = ch ? upstreamModel(ch, s.model) : null;
    const log = (charged: number, extra: Record<string, unknown> = {}) => this.d.logs.write(this.logRow(s, ch, upModel, {
      type: 'consume', status_code: status, quota: charged, prompt_tokens: s.usage.inputTokens, completion_tokens: s.usage.outputTokens,
      cached_tokens: s.usage.cachedInputTokens, attempts: s.attempts.length + 1,
      other: JSON.stringify({ ...extra, responses: s.responses, attempts: s.attempts, upstreamUsage: s.responses > 0 }),
    }));
    if (reserved === 0 && actual === 0) {
      log(0);
      return;
    }
    void this.track(this.d.ledger.settle(s.payer, s.requestId, reserved, actual).then(
      (r) => log(r ? r.charged : actual, r && r.shortfall ? { shortfall: r.shortfall } : {}),
      (e) => {
        this.d.core.log.error({ err: (e as Error).message, requestId: s.requestId }, 'realtime settlement failed');
        log(0, { settle_error: (e as Error).message });
      },
    ));
  }

  private logRow(s: Session, ch: RuntimeChannel | null, upModel: string | null, fields: Partial<NewLog>): NewLog {
    const p = s.principal;
    return {
      created_at: Date.now(), type: 'consume', request_id: s.requestId, user_id: p.userId, username: p.username, key_id: p.keyId,
      key_name: p.keyName, group_name: p.group, model: s.model, upstream_model: upModel, channel_id: ch?.id ?? null,
      endpoint: '/v1/realtime', status_code: null, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, quota: 0,
      latency_ms: Math.round(msSince(s.startedAt)), first_byte_ms: null, is_stream: 1, attempts: 1, content: null, other: null,
      ...fields,
    };
  }
}
