/**
 * Token counting with gpt-tokenizer, each encoding loaded on first use: o200k_base (the default, for
 * usage an upstream did not report and the count-tokens endpoints) and cl100k_base (the input estimate
 * of models that use it, relay/input-estimate.ts). Nothing is loaded on the common path.
 *
 * The event loop never tokenizes a long text: `countTokens` and `measureText` count texts up to
 * INLINE_MAX characters in place (about a millisecond at most) and send longer ones to a small pool of
 * worker threads (`TokenizerPool`), so a large prompt delays nobody else's requests.
 *
 * `TokenCounter` counts a stream of text pieces incrementally: pieces are gathered up to FLUSH_AT
 * characters and counted, so a long output never sits in memory as a whole, and an output shorter than
 * that (most of them) is never tokenized when the upstream reports its usage.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

type CountFn = (text: string) => number;

/** The encodings the gateway counts with. */
export type EncodingName = 'o200k_base' | 'cl100k_base';

/** Longest text counted on the event loop; longer ones go to the worker pool. */
export const INLINE_MAX = 32 * 1024;

const counters: Partial<Record<EncodingName, CountFn>> = {};
const loading: Partial<Record<EncodingName, Promise<CountFn>>> = {};
/** The default encoding's counter once loaded (read on every streamed event: one property). */
let counter: CountFn | null = null;

const ENCODING_MODULES: Record<EncodingName, () => Promise<{ countTokens(t: string): number }>> = {
  o200k_base: () => import('gpt-tokenizer/encoding/o200k_base'),
  cl100k_base: () => import('gpt-tokenizer/encoding/cl100k_base'),
};

export function loadTokenizer(encoding: EncodingName = 'o200k_base'): Promise<CountFn> {
  const ready = counters[encoding];
  if (ready) return Promise.resolve(ready);
  return (loading[encoding] ??= ENCODING_MODULES[encoding]().then((m) => {
    // Every count takes long runs without white space in pieces (countInRuns): whole, a run costs time
    // quadratic in its length, and a caller's prompt or a stream's output could hold the event loop for seconds.
    const whole = (t: string) => m.countTokens(t);
    const fn: CountFn = (t: string) => countInRuns(whole, t);
    counters[encoding] = fn;
    if (encoding === 'o200k_base') counter = fn;
    return fn;
  }));
}

/** Counts tokens of `text` (loads the encoding if needed); long texts are counted off the event loop. */
export async function countTokens(text: string, encoding: EncodingName = 'o200k_base'): Promise<number> {
  if (!text) return 0;
  if (text.length > INLINE_MAX) return tokenizerPool().count(text, encoding);
  return (await loadTokenizer(encoding))(text);
}

/** What `measureText` finds in a text. */
export interface TextMeasure {
  tokens: number;
  /** Characters of East Asian scripts (CJK ideographs, kana, Hangul, their punctuation and full-width forms). */
  cjk: number;
}

/**
 * Longest run of characters without white space that is tokenized in one piece (by every count). BPE
 * over one pre-token is quadratic in its length (200,000 × "x" takes o200k_base tens of seconds, a
 * 16,000-character run of CJK without punctuation two); cut into pieces of this length, a run costs
 * microseconds and counts at most one token more per piece.
 */
export const MAX_RUN = 200;

/** Counts `text` with `count`, its runs of more than MAX_RUN characters without white space cut in pieces. */
export function countInRuns(count: CountFn, text: string): number {
  let n = 0;
  let from = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 9 || c === 13) run = 0;
    else if (++run > MAX_RUN && (c < 0xdc00 || c > 0xdfff)) {
      n += count(text.slice(from, i));
      from = i;
      run = 1;
    }
  }
  return n + (from < text.length ? count(from ? text.slice(from) : text) : 0);
}

/**
 * Counts the tokens of `text` in `encoding` (long runs without white space in pieces, as every count:
 * `countInRuns`) and its East Asian characters, for estimates; long texts off the event loop.
 */
export async function measureText(text: string, encoding: EncodingName = 'o200k_base'): Promise<TextMeasure> {
  if (!text) return { tokens: 0, cjk: 0 };
  if (text.length > INLINE_MAX) return tokenizerPool().measure(text, encoding);
  return { tokens: (await loadTokenizer(encoding))(text), cjk: cjkChars(text) };
}

/** Characters of East Asian scripts in `text` (U+2E80–U+9FFF, U+AC00–U+D7AF, U+F900–U+FAFF, U+FE30–U+FE4F, U+FF00–U+FFEF). */
export function cjkChars(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x2e80) continue;
    if (
      c <= 0x9fff ||
      (c >= 0xac00 && c <= 0xd7af) ||
      (c >= 0xf900 && c <= 0xfaff) ||
      (c >= 0xfe30 && c <= 0xfe4f) ||
      (c >= 0xff00 && c <= 0xffef)
    )
      n++;
  }
  return n;
}

/** Counts tokens of `text` when the encoding is loaded; null otherwise. */
export function countTokensSync(text: string): number | null {
  if (!text) return 0;
  return counter ? counter(text) : null;
}

// The worker's code: loads each encoding once, when first asked for, and answers {id, text, encoding}
// with {id, n, cjk} (or {id, error}). The CJK count is the same as `cjkChars`, the count the same as
// `countInRuns` above (long runs in pieces, as on the event loop).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const ready = {};
function cjk(t) {
  let n = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c < 0x2e80) continue;
    if (c <= 0x9fff || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xffef)) n++;
  }
  return n;
}
function countInRuns(count, text) {
  let n = 0, from = 0, run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 9 || c === 13) run = 0;
    else if (++run > ${MAX_RUN} && (c < 0xdc00 || c > 0xdfff)) {
      n += count(text.slice(from, i));
      from = i;
      run = 1;
    }
  }
  return n + (from < text.length ? count(from ? text.slice(from) : text) : 0);
}
parentPort.on('message', async ({ id, text, encoding }) => {
  try {
    const m = await (ready[encoding] ??= import(workerData.encodings[encoding]));
    const count = (t) => m.countTokens(t);
    parentPort.postMessage({ id, n: countInRuns(count, text), cjk: cjk(text) });
  } catch (e) {
    parentPort.postMessage({ id, error: String(e && e.message || e) });
  }
});
`;

interface Job {
  id: number;
  text: string;
  encoding: EncodingName;
  resolve(m: TextMeasure): void;
  reject(e: Error): void;
}

/**
 * Worker threads that tokenize long texts, one text at a time each, in the order asked. The workers
 * start on first use; an idle one does not keep the process alive.
 */
export class TokenizerPool {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Job>();
  private readonly queue: Job[] = [];
  private workers = 0;
  private nextId = 1;

  constructor(private readonly size: number) {}

  count(text: string, encoding: EncodingName = 'o200k_base'): Promise<number> {
    return this.job(text, encoding).then((m) => m.tokens);
  }

  /** What `measureText` says of `text`, counted by a worker. */
  measure(text: string, encoding: EncodingName = 'o200k_base'): Promise<TextMeasure> {
    return this.job(text, encoding);
  }

  private job(text: string, encoding: EncodingName): Promise<TextMeasure> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, text, encoding, resolve, reject });
      this.dispatch();
    });
  }

  /** Texts waiting for a worker. */
  get waiting(): number {
    return this.queue.length;
  }

  private dispatch(): void {
    while (this.queue.length) {
      const w = this.idle.pop() ?? (this.workers < this.size ? this.spawn() : null);
      if (!w) return;
      const job = this.queue.shift()!;
      this.busy.set(w, job);
      w.ref();
      w.postMessage({ id: job.id, text: job.text, encoding: job.encoding });
    }
  }

  private spawn(): Worker {
    this.workers++;
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      execArgv: [],
      workerData: {
        encodings: {
          o200k_base: import.meta.resolve('gpt-tokenizer/encoding/o200k_base'),
          cl100k_base: import.meta.resolve('gpt-tokenizer/encoding/cl100k_base'),
        },
      },
    });
    w.on('message', (m: { id: number; n?: number; cjk?: number; error?: string }) => {
      const job = this.busy.get(w);
      this.busy.delete(w);
      this.idle.push(w);
      w.unref();
      if (job && job.id === m.id) {
        if (m.error !== undefined) job.reject(new Error(`token counting failed: ${m.error}`));
        else job.resolve({ tokens: m.n ?? 0, cjk: m.cjk ?? 0 });
      }
      this.dispatch();
    });
    const gone = (err: Error) => {
      const job = this.busy.get(w);
      this.busy.delete(w);
      const i = this.idle.indexOf(w);
      if (i >= 0) this.idle.splice(i, 1);
      this.workers--;
      job?.reject(err);
      this.dispatch();
    };
    w.on('error', gone);
    w.on('exit', (code) => {
      if (this.busy.has(w) || this.idle.includes(w)) gone(new Error(`token counter exited (${code})`));
    });
    w.unref();
    return w;
  }
}

let pool: TokenizerPool | null = null;

/** The process's tokenizer pool: one worker per core beyond the first (at least one, at most four). */
export function tokenizerPool(): TokenizerPool {
  pool ??= new TokenizerPool(Math.max(1, Math.min(4, availableParallelism() - 1)));
  return pool;
}

/** A cheap upper-bound estimate without the tokenizer: about one token per 3 characters. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3);
}

/**
 * Text a counter holds before it tokenizes it. Most streams' outputs are shorter, and their upstream
 * reports the usage at the end: their text is then never tokenized (a stream's events are tokenized
 * only when its output nears its reserve, relay/pipeline/pump.ts). 16 K characters are 16–32 KB per stream.
 */
const FLUSH_AT = 16 * 1024;

export class TokenCounter {
  private pending = '';
  private counted = 0;
  private chars = 0;
  private bytes = 0;

  /** Adds output text (`bytes`: its UTF-8 length, when the caller already has it). */
  add(text: string, bytes?: number): void {
    if (!text) return;
    this.pending += text;
    this.chars += text.length;
    this.bytes += bytes ?? Buffer.byteLength(text, 'utf8');
    if (this.pending.length >= FLUSH_AT && counter) {
      this.counted += counter(this.pending);
      this.pending = '';
    } else if (this.pending.length >= FLUSH_AT * 4) {
      // The tokenizer is not loaded yet: count what is pending with the estimate and keep memory small.
      this.counted += estimateTokens(this.pending);
      this.pending = '';
      void loadTokenizer();
    }
  }

  /**
   * Tokens counted so far, all pending text included; null while the tokenizer is not loaded (then
   * nothing is counted: call again after `loadTokenizer()`).
   */
  exact(): number | null {
    if (!counter) return null;
    if (this.pending) {
      this.counted += counter(this.pending);
      this.pending = '';
    }
    return this.counted;
  }

  /** Adds text whose tokens were already counted (`tokens`). */
  addCounted(text: string, tokens: number): void {
    this.counted += tokens;
    this.chars += text.length;
    this.bytes += Buffer.byteLength(text, 'utf8');
  }

  /** Characters seen so far. */
  get length(): number {
    return this.chars;
  }

  /**
   * UTF-8 bytes seen so far: a bound on their tokens that needs no tokenizer (a byte-level BPE token
   * is at least one byte), a third of the three tokens per character that bounds any text.
   */
  get utf8Bytes(): number {
    return this.bytes;
  }

  async total(): Promise<number> {
    if (this.pending) {
      this.counted += await countTokens(this.pending);
      this.pending = '';
    }
    return this.counted;
  }
}
