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
