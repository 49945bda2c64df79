/**
 * Loopback OpenAI-compatible upstream for the benchmarks (node:http, no framework). Runs as its own
 * process so it can be pinned to a CPU:
 *
 *   node --import tsx bench/upstream.ts [--port 0] [--delay 0] [--chunks 64] [--gap 20]
 *
 * Prints `READY {"port":N}` on stdout once listening.
 *
 *   POST /v1/chat/completions   JSON, or SSE when `stream: true`: `chunks` chunks `gap` ms apart, the
 *                               first after `delay` ms; a usage chunk last when
 *                               `stream_options.include_usage`.
 *   GET  /v1/models             one model.
 *   POST /__bench/config        {delayMs?, chunks?, gapMs?}: change the defaults (the bench sets them
 *                               between phases, so proxies need not forward anything special).
 *   GET  /__bench/stats         {requests}: chat completions served so far.
 *
 * Per request, the headers x-bench-delay-ms, x-bench-chunks and x-bench-gap-ms override the defaults.
 */
import http from 'node:http';

export interface UpstreamSettings {
  delayMs: number;
  chunks: number;
  gapMs: number;
}

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = Number(process.argv[i + 1]);
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name} needs a number >= 0`);
  return v;
}

const settings: UpstreamSettings = { delayMs: arg('delay', 0), chunks: arg('chunks', 64), gapMs: arg('gap', 20) };
let served = 0;

const CONTENT = 'Gatehouse benchmark reply. '.repeat(8).trim();

function completionJson(model: string, promptChars: number): string {
  const promptTokens = Math.max(1, Math.round(promptChars / 4));
  return JSON.stringify({
    id: `chatcmpl-bench${served}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: CONTENT }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: promptTokens, completion_tokens: 48, total_tokens: promptTokens + 48 },
  });
}

function chunkLine(id: string, model: string, created: number, delta: object, finish: string | null): string {
  return `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
}

function headerNum(req: http.IncomingMessage, name: string, dflt: number): number {
  const raw = req.headers[name];
  if (typeof raw !== 'string') return dflt;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : dflt;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function chat(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const raw = await readBody(req);
  let body: { model?: string; stream?: boolean; stream_options?: { include_usage?: boolean } };
  try {
    body = JSON.parse(raw);
  } catch {
    return send(res, 400, JSON.stringify({ error: { message: 'invalid JSON', type: 'invalid_request_error' } }));
  }
  served++;
  const model = body.model || 'bench-model';
  const delay = headerNum(req, 'x-bench-delay-ms', settings.delayMs);
  if (!body.stream) {
    const out = completionJson(model, raw.length);
    if (delay > 0) setTimeout(() => send(res, 200, out), delay);
    else send(res, 200, out);
    return;
  }
  const chunks = Math.max(1, Math.floor(headerNum(req, 'x-bench-chunks', settings.chunks)));
  const gap = headerNum(req, 'x-bench-gap-ms', settings.gapMs);
  const usage = body.stream_options?.include_usage === true;
  const id = `chatcmpl-bench${served}`;
  const created = Math.floor(Date.now() / 1000);
  let i = 0;
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  const start = () => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    tick();
  };
  const tick = () => {
    if (closed) return;
    if (i === 0) {
      res.write(chunkLine(id, model, created, { role: 'assistant', content: 'tok0 ' }, null));
    } else if (i < chunks - 1) {
      res.write(chunkLine(id, model, created, { content: `tok${i} ` }, null));
    } else {
      let tail = chunkLine(id, model, created, {}, 'stop');
      if (usage) {
        const promptTokens = Math.max(1, Math.round(raw.length / 4));
        tail += `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: chunks, total_tokens: promptTokens + chunks } })}\n\n`;
      }
      res.end(`${tail}data: [DONE]\n\n`);
      return;
    }
    i++;
    setTimeout(tick, gap);
  };
  if (delay > 0) setTimeout(start, delay);
  else start();
}

const server = http.createServer((req, res) => {
  const path = (req.url || '/').split('?')[0];
  if (req.method === 'POST' && path === '/v1/chat/completions') {
    chat(req, res).catch((e: Error) => {
      if (!res.headersSent) send(res, 500, JSON.stringify({ error: { message: e.message } }));
      else res.destroy();
    });
    return;
  }
  if (req.method === 'GET' && path === '/v1/models') {
    return send(
      res,
      200,
      JSON.stringify({ object: 'list', data: [{ id: 'bench-model', object: 'model', created: 0, owned_by: 'bench' }] }),
    );
  }
  if (req.method === 'POST' && path === '/__bench/config') {
    readBody(req)
      .then((raw) => {
        const next = JSON.parse(raw || '{}') as Partial<UpstreamSettings>;
        for (const k of ['delayMs', 'chunks', 'gapMs'] as const) {
          if (typeof next[k] === 'number' && next[k] >= 0) settings[k] = next[k];
        }
        send(res, 200, JSON.stringify(settings));
      })
      .catch(() => send(res, 400, '{"error":"bad config"}'));
    return;
  }
  if (req.method === 'GET' && path === '/__bench/stats') return send(res, 200, JSON.stringify({ requests: served }));
  req.resume();
  send(res, 404, JSON.stringify({ error: { message: `no route for ${req.method} ${path}`, type: 'invalid_request_error' } }));
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
server.maxRequestsPerSocket = 0;
server.listen({ port: arg('port', 0), host: '127.0.0.1', backlog: 4096 }, () => {
  const addr = server.address();
  process.stdout.write(`READY ${JSON.stringify({ port: typeof addr === 'object' && addr ? addr.port : 0 })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
// Do not outlive the bench if it is killed.
const parent = process.ppid;
setInterval(() => process.ppid !== parent && process.exit(0), 1000).unref();
