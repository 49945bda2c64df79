/**
 * Loopback fake upstreams for relay tests: a node:http server with a recorded request list and a
 * per-test override hook.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  raw: string;
  /** The body bytes (multipart uploads). */
  bytes: Buffer;
  body: any;
}

/** Return true when the override answered the request. */
export type Override = (r: Recorded, res: ServerResponse) => boolean | Promise<boolean>;

export interface FakeUpstream {
  url: string;
  port: number;
  requests: Recorded[];
  /** Consulted first for every request. */
  override: Override | null;
  /** Stream pacing in ms between events. */
  delayMs: number;
  close(): Promise<void>;
}

export type Handler = (r: Recorded, res: ServerResponse, up: FakeUpstream) => void | Promise<void>;

export async function startFake(handler: Handler): Promise<FakeUpstream> {
  const up: FakeUpstream = {
    url: '',
    port: 0,
    requests: [],
    override: null,
    delayMs: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', async () => {
      const bytes = Buffer.concat(parts);
      const raw = bytes.toString('utf8');
      let body: any = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = null;
      }
      const r: Recorded = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, bytes, body };
      up.requests.push(r);
      try {
        if (up.override && (await up.override(r, res))) return;
        await handler(r, res, up);
      } catch (e) {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String((e as Error).message) } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  up.port = (server.address() as AddressInfo).port;
  up.url = `http://127.0.0.1:${up.port}`;
  return up;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const s = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(s)), ...headers });
  res.end(s);
}

export async function sse(res: ServerResponse, events: Array<{ event?: string; data: unknown }>, delayMs: number): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events) {
    if (res.destroyed) return;
    const data = typeof e.data === 'string' ? e.data : JSON.stringify(e.data);
    res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${data}\n\n`);
    if (delayMs) await sleep(delayMs);
  }
  res.end();
}

/** The last user message's text. */
export function lastUserText(messages: any[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === 'user') return typeof m.content === 'string' ? m.content : (m.content ?? []).map((p: any) => p.text ?? '').join('');
  }
  return '';
}
