/**
 * The model calls' dispatcher of the outbound client (outbound.ts): one undici Pool per upstream
 * origin, keep-alive, no cap on connections (streams never queue behind each other), connect, header
 * and body timeouts (RELAY_TIMEOUT), with the active trace context sent upstream.
 */
import type { Readable } from 'node:stream';
import { Pool, type Dispatcher } from 'undici';
import { injectContext, tracer } from './tracing.ts';

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
