/**
 * The one outbound HTTP client: every upstream byte leaves through one of these undici dispatchers,
 * owned by the core and closed with it.
 *  - `pools`: model calls (relay) — one Pool per upstream origin, keep-alive, no cap on connections
 *    (streams never queue behind each other), connect, header and body timeouts (RELAY_TIMEOUT).
 *  - `agent`: plugin vendor calls (host-checked descriptors) — keep-alive;
 *    callers set per-request time-outs and size caps.
 *  - `publicOnly`: content fetched from places no channel vouches for (credentialless artifact
 *    reads and their redirects, image downloads for `b64_json`, marketplace downloads) — connections
 *    to non-public addresses, literal or resolved, are refused (platform/ssrf.ts), unless
 *    CONTENT_ALLOW_PRIVATE_ADDRESSES=true.
 */
import type { Readable } from 'node:stream';
import { Agent, Pool, type Dispatcher } from 'undici';
import { publicOnlyAgent } from './ssrf.ts';
import { injectContext, tracer } from './tracing.ts';
import { GoogleTokens } from './google-token.ts';

export interface UpstreamRequest {
  url: Readonly<URL>;
  method: 'POST' | 'GET' | 'DELETE';
  headers: Record<string, string>;
  body?: string | Buffer | Readable;
}

export interface UpstreamResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

export class UpstreamPools {
  private pools = new Map<string, Pool>();

  constructor(private readonly timeoutMs: number) {}

  /** The pool of an origin (`http(s)://host:port`), made on first use. */
  private pool(origin: string): Pool {
    let p = this.pools.get(origin);
    if (!p) {
      p = new Pool(origin, {
        connections: null,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        connect: { timeout: 10_000 },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      this.pools.set(origin, p);
    }
    return p;
  }

  async send(req: UpstreamRequest, signal?: AbortSignal): Promise<UpstreamResponse> {
    // The active span's W3C trace context goes to the upstream (only when tracing is on).
    if (tracer) injectContext(req.headers);
    const res = await this.pool(req.url.origin).request({
      path: req.url.pathname + req.url.search,
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal,
    });
    return { statusCode: res.statusCode, headers: res.headers, body: res.body };
  }

  async close(): Promise<void> {
    const all = [...this.pools.values()];
    this.pools.clear();
    await Promise.allSettled(all.map((p) => p.destroy()));
  }
}

export class Outbound {
  readonly pools: UpstreamPools;
  /** Access tokens of Google service accounts (Vertex AI channels, `oauth2_jwt` task plugins). */
  readonly google: GoogleTokens;
  /** undici's keep-alive defaults: an idle connection is kept 4 s (or as the server's hint says). */
  readonly agent: Dispatcher = new Agent({ connect: { timeout: 10_000 } });
  /** `publicOnly`, or `agent` when private addresses are allowed. */
  readonly content: Dispatcher;
  private readonly publicOnly: Agent | null;

  constructor(opts: { relayTimeoutMs: number; allowPrivateContent: boolean }) {
    this.pools = new UpstreamPools(opts.relayTimeoutMs);
    this.google = new GoogleTokens(this.pools);
    this.publicOnly = opts.allowPrivateContent ? null : publicOnlyAgent();
    this.content = this.publicOnly ?? this.agent;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.pools.close(), this.agent.close(), this.publicOnly?.close()]);
  }
}
