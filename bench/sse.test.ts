/**
 * The stream harness (bench/sse): its response parser fed a byte at a time and in every other split, its
 * timer heap's schedule, its report's parser and the verdicts, and one small run of its load generator
 * against its upstream in each format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  buildSsebench,
  cpuPerEventUs,
  judgeSlowStreams,
  parseSseLoad,
  perStreamKb,
  runSseLoad,
  sseLoadArgs,
  startSseUpstream,
  type SseLoadResult,
} from './sse.ts';

const bin = buildSsebench();

interface Parsed {
  status: number;
  ended: boolean;
  malformed: boolean;
  events: number;
  contentEvents: number;
  done: boolean;
  outOfOrder: number;
  seqs: number[];
}

function parse(input: string, split: number, done = '[DONE]'): Parsed {
  const r = spawnSync(bin, ['parse', '--split', String(split), '--done', done], { input });
  assert.equal(r.status, 0, r.stderr.toString());
  return JSON.parse(r.stdout.toString()) as Parsed;
}

function chunked(parts: string[]): string {
  return parts.map((p) => `${Buffer.byteLength(p).toString(16)}\r\n${p}\r\n`).join('') + '0\r\n\r\n';
}

const head = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n';
const ev = (i: number, t: number) => `data: {"choices":[{"delta":{"content":"tok${i}@${t} "}}]}\n\n`;

test('parser: a chunked SSE stream gives the same events at every split size', () => {
  // Events straddle chunk boundaries: chunks are cut in the middle of events and of their blank lines.
  const body = ev(0, 100) + ': keep-alive comment\n\n' + ev(1, 200) + ev(2, 300) + 'data: [DONE]\n\n';
  const cuts = [7, 60, 61, body.length - 3];
  const parts: string[] = [];
  let at = 0;
  for (const c of cuts) {
    parts.push(body.slice(at, c));
    at = c;
  }
  parts.push(body.slice(at));
  const input = head + chunked(parts);
  for (let split = 1; split <= input.length; split += split < 40 ? 1 : 17) {
    const p = parse(input, split);
    assert.deepEqual(
      { status: p.status, ended: p.ended, events: p.events, content: p.contentEvents, done: p.done, ooo: p.outOfOrder, seqs: p.seqs },
      { status: 200, ended: true, events: 4, content: 3, done: true, ooo: 0, seqs: [0, 1, 2] },
      `split ${split}`,
    );
  }
});

test('parser: CRLF line ends, a content-length body and named events', () => {
  const body = `event: content_block_delta\r\ndata: {"delta":{"text":"tok0@5 "}}\r\n\r\nevent: content_block_delta\r\ndata: {"delta":{"text":"tok1@9 "}}\r\n\r\nevent: message_stop\r\ndata: {"type":"message_stop"}\r\n\r\n`;
  const input = `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  for (const split of [1, 3, 1000]) {
    const p = parse(input, split, 'message_stop');
    assert.equal(p.events, 3);
    assert.deepEqual(p.seqs, [0, 1]);
    assert.equal(p.done, true);
    assert.equal(p.ended, true);
  }
});

test('parser: events out of order are counted; a summary that repeats the text is not an event', () => {
  const ooo = parse(head + chunked([ev(0, 1), ev(2, 3), ev(1, 2), 'data: [DONE]\n\n']), 5);
  assert.equal(ooo.outOfOrder, 2);
  // Responses-style closing events carry the whole text: several markers, or the last one again.
  const summary = `event: response.output_text.done\ndata: {"text":"tok0@1 tok1@2 "}\n\nevent: response.completed\ndata: {"text":"tok1@2 "}\n\n`;
  const p = parse(head + chunked([ev(0, 1), ev(1, 2), summary]), 4, 'response.completed');
  assert.deepEqual(p.seqs, [0, 1]);
  assert.equal(p.outOfOrder, 0);
  assert.equal(p.done, true);
  // A stream cut before its end, and one without its done event.
  const cut = parse(head + `${ev(0, 1).length.toString(16)}\r\n${ev(0, 1)}\r\n`, 8);
  assert.equal(cut.ended, false);
  assert.equal(parse(head + chunked([ev(0, 1)]), 8).done, false);
});

test('parser: an error answer and a malformed chunk', () => {
  const err = parse('HTTP/1.1 429 Too Many Requests\r\ncontent-length: 2\r\n\r\n{}', 3);
  assert.equal(err.status, 429);
  assert.equal(err.events, 0);
  assert.equal(parse(`${head}zz\r\nnope\r\n`, 4).malformed, true);
});

test('schedule: the timer heap pops every event of every stream in time order, each stream in order', () => {
  const streams = 7;
  const events = 5;
  const r = spawnSync(bin, ['schedule', '--streams', String(streams), '--events', String(events), '--gap-ms', '1000', '--ramp-ms', '3500']);
  assert.equal(r.status, 0, r.stderr.toString());
  const popped = JSON.parse(r.stdout.toString()) as [number, number, number][];
  assert.equal(popped.length, streams * events);
  const next = new Array<number>(streams).fill(0);
  let last = -Infinity;
  for (const [s, i, due] of popped) {
    assert.ok(due >= last, `time order at stream ${s} event ${i}`);
    last = due;
    assert.equal(i, next[s]++, `stream ${s} in order`);
    // The i-th stream starts at i * ramp / streams; its events follow one gap apart.
    assert.equal(due, (s * 3500) / streams + i * 1000);
  }
  assert.deepEqual(next, new Array<number>(streams).fill(events));
});

const REPORT = {
  streams: 2,
  ok: 2,
  errors: 0,
  incomplete: 0,
  outOfOrder: 0,
  events: 12,
  contentEvents: 8,
  maxOpen: 2,
  elapsedMs: 120.5,
  cpuMs: 3.2,
  errorSamples: [],
  ttfb: { n: 2, mean: 1, min: 1, p50: 1, p90: 1, p99: 1, p999: 1, max: 1 },
  duration: { n: 2, mean: 100, min: 99, p50: 100, p90: 101, p99: 101, p999: 101, max: 101 },
  gap: { n: 6, mean: 20, min: 19, p50: 20, p90: 21, p99: 21, p999: 21, max: 21 },
  addedGap: { n: 6, mean: 0.1, min: -1, p50: 0, p90: 0.5, p99: 0.9, p999: 0.9, max: 0.9 },
  delay: { n: 0 },
};

test('parseSseLoad reads the report line and refuses a broken one', () => {
  const r = parseSseLoad(`some noise\n${JSON.stringify(REPORT)}\n`);
  assert.equal(r.ok, 2);
  assert.equal(r.addedGap.p99, 0.9);
  assert.ok(Number.isNaN(r.delay.p99), 'an empty summary reads as NaN');
  assert.throws(() => parseSseLoad('nothing'), /no report/);
  assert.throws(() => parseSseLoad(JSON.stringify({ ...REPORT, ok: 'two' })), /ok is not a number/);
  assert.throws(() => parseSseLoad(JSON.stringify({ ...REPORT, gap: { n: 3, p50: 'x' } })), /gap\.mean/);
  assert.throws(() => parseSseLoad(JSON.stringify({ ...REPORT, errorSamples: [1] })), /errorSamples/);
});

test('sseLoadArgs: the command line of a job', () => {
  const args = sseLoadArgs(
    {
      origin: 'http://localhost:8080',
      path: '/v1/messages',
      headers: { 'x-api-key': 'k' },
      body: '{}',
      streams: 3,
      rampMs: 50,
      timeoutMs: 9000,
      done: 'message_stop',
    },
    '/tmp/b.json',
  );
  assert.deepEqual(args, [
    'load',
    '--host',
    '127.0.0.1',
    '--port',
    '8080',
    '--path',
    '/v1/messages',
    '--body-file',
    '/tmp/b.json',
    '--streams',
    '3',
    '--ramp-ms',
    '50',
    '--timeout-ms',
    '9000',
    '--done',
    'message_stop',
    '-H',
    'x-api-key: k',
  ]);
  const job = { path: '/', headers: {}, body: '', streams: 1, timeoutMs: 1 };
  assert.throws(() => sseLoadArgs({ ...job, origin: 'https://127.0.0.1:1' }, 'f'), /plain HTTP/);
  assert.throws(() => sseLoadArgs({ ...job, origin: 'http://[::1]:1' }, 'f'), /IPv4/);
  assert.throws(() => sseLoadArgs({ ...job, origin: 'http://127.0.0.1:1', headers: { a: 'b\r\nc: d' } }, 'f'), /line break/);
});

test('verdicts: slow streams, memory per stream, CPU per event', () => {
  const base = parseSseLoad(JSON.stringify(REPORT));
  const expect = { streams: 2, events: 4, maxAddedGapP99Ms: 50 };
  assert.deepEqual(judgeSlowStreams(base, expect), { ok: true, reasons: [] });
  const bad: SseLoadResult = { ...base, ok: 1, outOfOrder: 1, contentEvents: 7, addedGap: { ...base.addedGap, p99: 51 } };
  const v = judgeSlowStreams(bad, expect);
  assert.equal(v.ok, false);
  assert.equal(v.reasons.length, 4);
  assert.equal(judgeSlowStreams({ ...base, addedGap: { ...base.addedGap, p99: NaN } }, expect).ok, false, 'no gaps measured is no pass');
  assert.equal(perStreamKb(100, 200, 1024), 100);
  assert.equal(perStreamKb(null, 200, 10), null);
  assert.equal(cpuPerEventUs({ cpuS: 1, events: 100 }, { cpuS: 1.5, events: 10_100 }), 50);
  assert.equal(cpuPerEventUs({ cpuS: 1, events: 100 }, { cpuS: 2, events: 100 }), null);
});

test('load generator against the upstream: every format, every event in order', { timeout: 30_000 }, async () => {
  const up = await startSseUpstream(undefined);
  try {
    const origin = `http://127.0.0.1:${up.port}`;
    const cfg = await fetch(`${origin}/__bench/config`, { method: 'POST', body: JSON.stringify({ chunks: 6, gapMs: 2 }) });
    assert.deepEqual(await cfg.json(), { delayMs: 0, chunks: 6, gapMs: 2 });
    for (const [path, done] of [
      ['/v1/chat/completions', '[DONE]'],
      ['/v1/messages', 'message_stop'],
      ['/v1/responses', 'response.completed'],
    ]) {
      const r = await runSseLoad(
        {
          origin,
          path,
          headers: { 'content-type': 'application/json' },
          body: '{"model":"m","stream":true}',
          streams: 20,
          timeoutMs: 10_000,
          done,
        },
        undefined,
      );
      assert.equal(r.ok, 20, `${path}: ${r.errorSamples.join('; ')}`);
      assert.equal(r.contentEvents, 20 * 5, path);
      assert.equal(r.outOfOrder, 0, path);
      assert.equal(r.gap.n, 20 * 4, path);
    }
    const json = await fetch(`${origin}/v1/chat/completions`, {
      method: 'POST',
      body: '{"model":"m"}',
      headers: { 'x-bench-delay-ms': '5' },
    });
    assert.equal(((await json.json()) as { usage: { completion_tokens: number } }).usage.completion_tokens, 48);
    assert.deepEqual(await (await fetch(`${origin}/__bench/stats`)).json(), { requests: 61 });
  } finally {
    await up.proc.stop();
  }
});
