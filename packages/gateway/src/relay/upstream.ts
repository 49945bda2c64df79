/**
 * The outbound client for model calls: one undici Pool per upstream origin (keep-alive, no cap on
 * connections so streams never queue behind each other), with connect, header and body timeouts.
 */
import type { Readable } from 'node:stream';
import { Pool, type Dispatcher } from 'undici';

export interface UpstreamRequest {
  url: URL;
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

/**
 * Reads a whole body as text, up to `max` bytes (the rest is discarded). Listens for 'data' directly:
 * an async iterator over the stream costs noticeably more per response on the hot path.
 */
export function readText(body: UpstreamResponse['body'], max = 16 * 1024 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    let first: Buffer | null = null;
    let parts: Buffer[] | null = null;
    let n = 0;
    body.on('data', (c: Buffer) => {
      if (n < max) {
        const b = n + c.length > max ? c.subarray(0, max - n) : c;
        if (first === null) first = b;
        else (parts ??= [first]).push(b);
      }
      n += c.length;
    });
    body.once('end', () => resolve(parts ? Buffer.concat(parts).toString('utf8') : first ? first.toString('utf8') : ''));
    body.once('error', reject);
  });
}
