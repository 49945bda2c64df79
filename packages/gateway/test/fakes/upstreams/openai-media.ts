/**
 * A fake OpenAI upstream for the pass-through endpoints: images (JSON and multipart edits), audio
 * (transcriptions, translations, speech), Responses (create, stream, retrieve, delete, cancel,
 * compact), rerank, moderations, alpha search; plus a realtime WebSocket upstream.
 */
import type { ServerResponse } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AddressInfo } from 'node:net';
import { json, sse, startFake, type FakeUpstream, type Recorded } from './common.ts';

export const AUDIO_BYTES = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 251));
export const IMAGE_USAGE = {
  input_tokens: 50,
  output_tokens: 4160,
  total_tokens: 4210,
  input_tokens_details: { text_tokens: 50, image_tokens: 0 },
};
export const RESPONSE_USAGE = {
  input_tokens: 30,
  output_tokens: 12,
  total_tokens: 42,
  input_tokens_details: { cached_tokens: 10 },
  output_tokens_details: { reasoning_tokens: 0 },
};
export const RERANK_USAGE = { total_tokens: 40 };

export interface MultipartPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

/** Splits a multipart/form-data body. */
export function parseMultipart(r: Recorded): MultipartPart[] {
  const m = /boundary=([^;]+)/.exec(String(r.headers['content-type'] ?? ''));
  if (!m) return [];
  const sep = Buffer.from(`--${m[1]}`);
  const out: MultipartPart[] = [];
  let i = r.bytes.indexOf(sep);
  while (i >= 0) {
    const start = i + sep.length;
    if (r.bytes.subarray(start, start + 2).toString() === '--') break;
    const next = r.bytes.indexOf(sep, start);
    if (next < 0) break;
    const part = r.bytes.subarray(start + 2, next - 2);
    const he = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, he).toString('utf8');
    const name = /name="([^"]*)"/.exec(head)?.[1] ?? '';
    const filename = /filename="([^"]*)"/.exec(head)?.[1];
    const contentType = /content-type:\s*(.+)/i.exec(head)?.[1]?.trim();
    out.push({ name, filename, contentType, data: part.subarray(he + 4) });
    i = next;
  }
  return out;
}

export interface FakeMedia extends FakeUpstream {
  /** Responses created here (id → object), for retrieve. */
  responses: Map<string, Record<string, unknown>>;
}

export async function startFakeMedia(): Promise<FakeMedia> {
  let seq = 0;
  const fake = (await startFake(handle)) as FakeMedia;
  fake.responses = new Map();
  async function handle(r: Recorded, res: ServerResponse, up: FakeUpstream): Promise<void> {
    const p = r.path.split('?')[0];
    if (p.endsWith('/images/generations')) {
      const n = r.body.n ?? 1;
      const data = Array.from({ length: n }, (_, i) => ({ url: `https://img.example/${i}.png`, revised_prompt: `up: ${r.body.prompt}` }));
      return json(res, 200, { created: 1, data, ...(String(r.body.model).includes('gpt-image') ? { usage: IMAGE_USAGE } : {}) });
    }
    if (p.endsWith('/images/edits')) {
      const parts = parseMultipart(r);
      const files = parts.filter((x) => x.filename !== undefined).map((x) => `${x.name}:${x.filename}:${x.data.toString('utf8')}`);
      const model = parts.find((x) => x.name === 'model')?.data.toString() ?? r.body?.model;
      return json(res, 200, {
        created: 1,
        data: [{ b64_json: Buffer.from(files.join('|')).toString('base64'), revised_prompt: `model=${model}` }],
      });
    }
    if (p.endsWith('/audio/transcriptions') || p.endsWith('/audio/translations')) {
      const parts = parseMultipart(r);
      const file = parts.find((x) => x.name === 'file');
      const fmt = parts.find((x) => x.name === 'response_format')?.data.toString() ?? 'json';
      const text = `heard ${file?.data.length ?? 0} bytes`;
      if (fmt === 'text' || fmt === 'srt' || fmt === 'vtt') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        return void res.end(text);
      }
      return json(res, 200, { text, usage: { type: 'tokens', input_tokens: 20, output_tokens: 5, total_tokens: 25 } });
    }
    if (p.endsWith('/audio/speech')) {
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      res.write(AUDIO_BYTES.subarray(0, 1000));
      await new Promise((x) => setTimeout(x, 5));
      return void res.end(AUDIO_BYTES.subarray(1000));
    }
    if (p.endsWith('/responses/compact')) {
      return json(res, 200, {
        id: 'cmp_1',
        object: 'response.compaction',
        output: [{ type: 'compaction', encrypted_content: 'x' }],
        usage: RESPONSE_USAGE,
      });
    }
    const rm = /\/responses\/([^/]+)(\/cancel|\/input_items)?$/.exec(p);
    if (rm) {
      const stored = fake.responses.get(rm[1]);
      if (!stored) return json(res, 404, { error: { message: `No response found with id '${rm[1]}'.`, type: 'invalid_request_error' } });
      if (r.method === 'DELETE') {
        fake.responses.delete(rm[1]);
        return json(res, 200, { id: rm[1], object: 'response', deleted: true });
      }
      if (rm[2] === '/cancel') return json(res, 200, { ...stored, status: 'cancelled' });
      if (rm[2] === '/input_items') return json(res, 200, { object: 'list', data: [], has_more: false });
      return json(res, 200, stored);
    }
    if (p.endsWith('/responses')) {
      const id = `resp_up${++seq}${Date.now()}`;
      const obj = {
        id,
        object: 'response',
        created_at: 1,
        status: 'completed',
        model: r.body.model,
        output: [
          {
            type: 'message',
            id: 'msg_1',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'Hello there', annotations: [] }],
          },
        ],
        usage: RESPONSE_USAGE,
        key: String(r.headers.authorization ?? ''),
      };
      fake.responses.set(id, obj);
      if (!r.body.stream) return json(res, 200, obj);
      const base = { ...obj, status: 'in_progress', output: [], usage: null };
      return sse(
        res,
        [
          { event: 'response.created', data: { type: 'response.created', sequence_number: 0, response: base } },
          {
            event: 'response.output_text.delta',
            data: {
              type: 'response.output_text.delta',
              sequence_number: 1,
              item_id: 'msg_1',
              output_index: 0,
              content_index: 0,
              delta: 'Hello ',
            },
          },
          {
            event: 'response.output_text.delta',
            data: {
              type: 'response.output_text.delta',
              sequence_number: 2,
              item_id: 'msg_1',
              output_index: 0,
              content_index: 0,
              delta: 'there',
            },
          },
          { event: 'response.completed', data: { type: 'response.completed', sequence_number: 3, response: obj } },
        ],
        up.delayMs,
      );
    }
    if (p.endsWith('/rerank')) {
      return json(res, 200, {
        model: r.body.model,
        results: r.body.documents.map((_: unknown, i: number) => ({ index: i, relevance_score: 1 / (i + 1) })),
        usage: RERANK_USAGE,
      });
    }
    if (p.endsWith('/moderations')) {
      return json(res, 200, { id: 'modr-1', model: r.body.model, results: [{ flagged: false, categories: {}, category_scores: {} }] });
    }
    if (p.endsWith('/alpha/search')) {
      return json(res, 200, { results: [{ url: 'https://example.com', title: 'Example' }], query: r.body.query });
    }
    return json(res, 404, { error: { message: `not found: ${p}` } });
  }
  return fake;
}

export const REALTIME_USAGE = {
  total_tokens: 150,
  input_tokens: 100,
  output_tokens: 50,
  input_token_details: { cached_tokens: 0, text_tokens: 100, audio_tokens: 0 },
  output_token_details: { text_tokens: 50, audio_tokens: 0 },
};

export interface FakeRealtime {
  url: string;
  /** Handshakes seen: path, authorization. */
  handshakes: Array<{ path: string; authorization: string }>;
  /** Frames received from the gateway. */
  frames: string[];
  /** The usage of every `response.done` (REALTIME_USAGE unless changed). */
  usage: Record<string, unknown>;
  close(): Promise<void>;
}

/** A realtime upstream: sends `session.created`; answers each `response.create` with text and `response.done` (with usage). */
export async function startFakeRealtime(): Promise<FakeRealtime> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const fr: FakeRealtime = {
    url: `http://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    handshakes: [],
    frames: [],
    usage: REALTIME_USAGE,
    close: () =>
      new Promise<void>((r) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => r());
      }),
  };
  wss.on('connection', (ws: WebSocket, req) => {
    fr.handshakes.push({ path: req.url ?? '', authorization: String(req.headers.authorization ?? '') });
    ws.send(JSON.stringify({ type: 'session.created', event_id: 'ev_0', session: { id: 'sess_1' } }));
    ws.on('message', (data) => {
      const text = data.toString();
      fr.frames.push(text);
      const j = JSON.parse(text);
      if (j.type === 'response.create') {
        ws.send(JSON.stringify({ type: 'response.output_text.delta', delta: 'hi' }));
        ws.send(JSON.stringify({ type: 'response.done', response: { id: 'r1', status: 'completed', usage: fr.usage } }));
      }
    });
  });
  return fr;
}
