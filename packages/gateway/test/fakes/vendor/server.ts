/**
 * A loopback video vendor for task tests. A submit's `scenario` decides what the task does:
 *
 *   success (default)   queued → running (progress) → succeeded after `steps` polls
 *   fail                queued → failed
 *   gone                polls answer 404
 *   e401 | e403 | e429 | e500 | e503   polls answer that status
 *   weird               polls answer an unrecognised status
 *   hang-poll           polls never answer
 *   reset               polls get the connection closed
 *   immediate-success | immediate-fail   the submit answer is final
 *   reject              the submit answers 400
 *   busy                the submit answers 503
 *   hang-submit         the submit never answers
 *
 * Also: POST /v1/batch/query (all tasks at once), POST /v1/sse/submit (an SSE submit stream, snapshot
 * or delta style), GET|HEAD /media/<id>.mp4 with Range, and counters for assertions.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface VendorTask {
  id: string;
  scenario: string;
  model: string;
  polls: number;
  steps: number;
  seconds: number;
  prompt: string;
}

export interface Vendor {
  url: string;
  port: number;
  tasks: Map<string, VendorTask>;
  submits: number;
  polls: number;
  batchPolls: number;
  /** How many task ids each batch query carried, in order. */
  batchSizes: number[];
  /** Authorization headers seen. */
  auth: string[];
  mediaRequests: Array<{ method: string; range?: string; auth?: string }>;
  /** Tasks advance only while true (tests can freeze them). */
  advancing: boolean;
  /** Each poll answers after this delay (to observe overlapping polls). */
  pollDelayMs: number;
  /** Most polls of one task seen in flight at the same time. */
  maxOverlap: number;
  close(): Promise<void>;
}

export const MEDIA = Buffer.from(Array.from({ length: 10_000 }, (_, i) => i % 251));

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const s = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(s) });
  res.end(s);
}

export async function startVendor(): Promise<Vendor> {
  let seq = 0;
  const hung: ServerResponse[] = [];
  const inflight = new Map<string, number>();
  const v: Vendor = {
    url: '',
    port: 0,
    tasks: new Map(),
    submits: 0,
    polls: 0,
    batchPolls: 0,
    batchSizes: [],
    auth: [],
    mediaRequests: [],
    advancing: true,
    pollDelayMs: 0,
    maxOverlap: 0,
    close: async () => {
      for (const r of hung) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };

  const view = (t: VendorTask) => {
    const base = { id: t.id, model: t.model };
    if (t.scenario === 'fail')
      return t.polls >= 1 ? { ...base, status: 'failed', error: 'content policy violation' } : { ...base, status: 'queued' };
    if (t.scenario === 'weird') return { ...base, status: 'mystery' };
    if (t.polls === 0) return { ...base, status: 'queued' };
    if (t.polls < t.steps) return { ...base, status: 'running', progress: Math.round((t.polls / t.steps) * 100) };
    return { ...base, status: 'succeeded', duration: t.seconds, video_url: `${v.url}/media/${t.id}.mp4` };
  };

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const p = url.pathname;
    if (req.headers.authorization) v.auth.push(req.headers.authorization);
    try {
      if (req.method === 'POST' && p === '/v1/video/submit') {
        v.submits++;
        const b = JSON.parse((await readBody(req)) || '{}');
        const scenario = String(b.scenario ?? 'success');
        if (scenario === 'reject') return json(res, 400, { error: { message: 'prompt rejected' } });
        if (scenario === 'busy') return json(res, 503, { error: { message: 'overloaded' } });
        if (scenario === 'hang-submit') {
          hung.push(res);
          return;
        }
        const t: VendorTask = {
          id: `vt_${++seq}`,
          scenario,
          model: String(b.model),
          polls: 0,
          steps: Number(b.steps ?? 2),
          seconds: Number(b.seconds ?? 5),
          prompt: String(b.prompt ?? ''),
        };
        v.tasks.set(t.id, t);
        if (scenario === 'immediate-success')
          return json(res, 200, { id: t.id, status: 'succeeded', duration: t.seconds, video_url: `${v.url}/media/${t.id}.mp4` });
        if (scenario === 'immediate-fail') return json(res, 200, { id: t.id, status: 'failed', error: 'refused at once' });
        return json(res, 200, { id: t.id, status: 'queued' });
      }
      const m = /^\/v1\/video\/tasks\/([^/]+)$/.exec(p);
      if (req.method === 'GET' && m) {
        v.polls++;
        if (v.pollDelayMs) {
          const n = (inflight.get(m[1]) ?? 0) + 1;
          inflight.set(m[1], n);
          v.maxOverlap = Math.max(v.maxOverlap, n);
          await new Promise((r) => setTimeout(r, v.pollDelayMs));
          inflight.set(m[1], (inflight.get(m[1]) ?? 1) - 1);
        }
        const t = v.tasks.get(m[1]);
        if (!t || t.scenario === 'gone') return json(res, 404, { error: 'no such task' });
        const code = /^e(\d{3})$/.exec(t.scenario);
        if (code) return json(res, Number(code[1]), { error: 'nope' });
        if (t.scenario === 'hang-poll') {
          hung.push(res);
          return;
        }
        if (t.scenario === 'reset') {
          req.socket.destroy();
          return;
        }
        const out = view(t);
        if (v.advancing) t.polls++;
        return json(res, 200, out);
      }
      if (req.method === 'POST' && p === '/v1/batch/query') {
        v.batchPolls++;
        const b = JSON.parse((await readBody(req)) || '{}');
        v.batchSizes.push((b.ids as string[]).length);
        const items = (b.ids as string[]).map((id) => {
          const t = v.tasks.get(id);
          if (!t) return { id, status: 'missing' };
          const out = view(t);
          if (v.advancing) t.polls++;
          return out;
        });
        return json(res, 200, { items });
      }
      if (req.method === 'POST' && p === '/v1/sse/submit') {
        v.submits++;
        const b = JSON.parse((await readBody(req)) || '{}');
        const t: VendorTask = {
          id: `vt_${++seq}`,
          scenario: 'success',
          model: String(b.model),
          polls: 0,
          steps: 1,
          seconds: 4,
          prompt: String(b.prompt ?? ''),
        };
        v.tasks.set(t.id, t);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const send = (ev: string, data: unknown) => res.write(`event: ${ev}\ndata: ${JSON.stringify(data)}\n\n`);
        res.write(': keep-alive\n\n');
        send('created', { id: t.id });
        send('delta', { text: 'Hello ' });
        send('delta', { text: 'world' });
        if (b.mode === 'eof') {
          res.end();
          return;
        }
        if (b.mode === 'stall') {
          hung.push(res);
          return;
        }
        send('done', { id: t.id, status: b.final === 'queued' ? 'queued' : 'succeeded' });
        res.end();
        return;
      }
      const mm = /^\/media\/([^/]+)\.mp4$/.exec(p);
      if ((req.method === 'GET' || req.method === 'HEAD') && mm) {
        v.mediaRequests.push({ method: req.method, range: req.headers.range, auth: req.headers.authorization });
        if (url.searchParams.get('redirect')) {
          res.writeHead(302, { location: url.searchParams.get('redirect')! });
          res.end();
          return;
        }
        const etag = '"media-1"';
        if (req.headers['if-none-match'] === etag) {
          res.writeHead(304, { etag });
          res.end();
          return;
        }
        const range = /^bytes=(\d+)-(\d*)$/.exec(String(req.headers.range ?? ''));
        if (range) {
          const start = Number(range[1]);
          const end = range[2] ? Math.min(Number(range[2]), MEDIA.length - 1) : MEDIA.length - 1;
          if (start >= MEDIA.length) {
            res.writeHead(416, { 'content-range': `bytes */${MEDIA.length}` });
            res.end();
            return;
          }
          res.writeHead(206, {
            'content-type': 'video/mp4',
            'content-length': end - start + 1,
            'content-range': `bytes ${start}-${end}/${MEDIA.length}`,
            'accept-ranges': 'bytes',
            etag,
          });
          res.end(req.method === 'HEAD' ? undefined : MEDIA.subarray(start, end + 1));
          return;
        }
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': MEDIA.length, 'accept-ranges': 'bytes', etag });
        res.end(req.method === 'HEAD' ? undefined : MEDIA);
        return;
      }
      json(res, 404, { error: 'not found' });
    } catch (e) {
      json(res, 500, { error: (e as Error).message });
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  v.port = (server.address() as AddressInfo).port;
  v.url = `http://127.0.0.1:${v.port}`;
  return v;
}
