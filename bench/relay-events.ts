/**
 * The relay's per-event JavaScript alone, as the pipeline's pump runs it for a metered stream: the
 * framer, `ChatStream.event` (the same-format read, or decoder and encoder of a converted stream), the
 * output text's byte count and the token counter's `add`, and the read's output string as bytes, over
 * the bench's upstream events (those bench/sse/ssebench.c writes, one event per read, streams of 400).
 * For instruction counts and CPU time, which a loaded machine changes less than the stream bench's rounds
 * (docs/benchmarks.md, "Upstream events read from templates"):
 *
 *   node --import tsx bench/relay-events.ts FLAVOUR EVENTS [--no-relay] [--check]
 *
 * FLAVOUR: openai, anthropic (same format), openai-from-anthropic, anthropic-from-openai,
 * responses-from-openai. Prints the events, the bytes written and µs of CPU per event; --no-relay makes
 * the events and relays none (the instructions to subtract); --check adds a hash of everything written
 * and every text counted, to compare builds. For callgrind, bundle it (`npx esbuild bench/relay-events.ts
 * --bundle --platform=node --format=esm --packages=external --outfile=bench/results/relay-events.mjs`)
 * and run `valgrind --tool=callgrind node --single-threaded` on the bundle with N events and with N and
 * --no-relay; `node --trace-gc` shows the collections.
 */
import { createHash } from 'node:crypto';
import { ChatStream } from '../packages/gateway/src/relay/chat-stream.ts';
import { createStreamEncoder } from '../packages/gateway/src/relay/providers/index.ts';
import { createStreamEncoder as responsesEncoder } from '../packages/gateway/src/relay/providers/responses/stream.ts';
import { TokenCounter } from '../packages/gateway/src/billing/tokens.ts';
import type { WireFormat } from '../packages/gateway/src/relay/providers/index.ts';

const [flavour = 'openai', nArg = '20000'] = process.argv.slice(2);
const noRelay = process.argv.includes('--no-relay');
const check = process.argv.includes('--check') ? createHash('sha256') : null;
const total = Number(nArg);
const [cf, up] = (flavour.includes('-from-') ? flavour.split('-from-') : [flavour, flavour]) as [WireFormat, WireFormat];
const PER_STREAM = 400;
const MODEL = 'bench-model';

/** The upstream reads of one stream of `n` events, as ssebench writes them (its clock a counter here). */
function upstreamReads(fmt: WireFormat, n: number, t0: number): Buffer[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const last = i === n - 1;
    const t = t0 + i * 1000;
    let ev = '';
    if (fmt === 'openai') {
      const head = `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1795651200,"model":"${MODEL}","choices":[{`;
      if (!last)
        ev = `${head}"index":0,"delta":{${i === 0 ? '"role":"assistant",' : ''}"content":"tok${i}@${t} "},"logprobs":null,"finish_reason":null}]}\n\n`;
      else
        ev =
          `${head}"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}\n\n` +
          `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1795651200,"model":"${MODEL}","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":${n},"total_tokens":${12 + n}}}\n\n` +
          'data: [DONE]\n\n';
    } else if (fmt === 'anthropic') {
      if (i === 0)
        ev = `event: message_start\ndata: {"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","model":"${MODEL}","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1}}}\n\nevent: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n`;
      if (!last)
        ev += `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tok${i}@${t} "}}\n\n`;
      else
        ev += `event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\nevent: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":${n}}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`;
    } else throw new Error(`no upstream events of the ${fmt} format here`);
    out.push(ev);
  }
  return out.map((s) => Buffer.from(s));
}

function newStream(): ChatStream {
  const ctx = {
    cf,
    model: MODEL,
    call: { requestId: 'req-bench', body: { stream: true, stream_options: { include_usage: true } }, jsonArrayStream: false },
    canonical: { includeUsage: true, messages: [] },
    sent: null,
  } as any;
  const opts = { model: MODEL, requestId: 'req-bench', includeUsage: true, created: 1795651200 };
  const encoder = cf === up ? null : cf === 'responses' ? responsesEncoder(opts, {}, () => {}) : createStreamEncoder(cf, opts);
  return new ChatStream(ctx, up, encoder, () => []);
}

/** One stream through the relay as the pump's metered path runs it; returns the bytes written. */
function relay(reads: Buffer[]): number {
  const s = newStream();
  const counter = new TokenCounter();
  let written = 0;
  for (const read of reads) {
    let out = '';
    for (const ev of s.framer.push(read)) {
      out += s.event(ev);
      const text = s.text;
      s.text = '';
      if (text) counter.add(text, Buffer.byteLength(text, 'utf8'));
      check?.update(`text:${text}\n`);
    }
    check?.update(out);
    written += Buffer.from(out).length;
  }
  let out = s.tail();
  for (const ev of s.framer.end()) out += s.event(ev);
  check?.update(`end:${out}|${s.text}`);
  return written + Buffer.from(out).length;
}

const streams: Buffer[][] = [];
for (let done = 0; done < total; done += PER_STREAM) streams.push(upstreamReads(up, Math.min(PER_STREAM, total - done), done));
const c0 = process.cpuUsage();
let bytes = 0;
if (!noRelay) for (const reads of streams) bytes += relay(reads);
const c = process.cpuUsage(c0);
const us = c.user + c.system;
setImmediate(() => {
  const g = check ? ` sha256=${check.digest('hex').slice(0, 16)}` : '';
  console.log(`${flavour} events=${total} bytes=${bytes} cpuUsPerEvent=${total ? (us / total).toFixed(3) : 0}${g}`);
});
