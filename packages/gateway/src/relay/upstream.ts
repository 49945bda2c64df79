/**
 * Model calls over the outbound client's per-origin pools (platform/outbound.ts): the request and
 * response shapes the relay uses, and whole-body reads.
 */
import type { UpstreamResponse } from '../platform/outbound.ts';

export type { UpstreamPools, UpstreamRequest, UpstreamResponse } from '../platform/outbound.ts';

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

export function retryAfter(v: string | string[] | undefined): number | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  if (!s) return undefined;
  const n = Number(s);
  if (Number.isFinite(n)) return Math.min(Math.max(n, 0) * 1000, 3600_000);
  const d = Date.parse(s);
  return Number.isFinite(d) ? Math.min(Math.max(d - Date.now(), 0), 3600_000) : undefined;
}

export function networkMessage(e: unknown): string {
  const err = e as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err?.code ?? err?.cause?.code;
  if (code === 'ECONNREFUSED') return 'upstream refused the connection';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return 'upstream timed out';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'upstream closed the connection';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'upstream host not found';
  return `upstream connection failed${code ? ` (${code})` : ''}`;
}
