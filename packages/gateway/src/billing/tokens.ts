/**
 * Token counting with gpt-tokenizer (o200k_base), loaded on first use. Counting is only needed when an
 * upstream reports no usage (and for the count-tokens endpoints), so the encoding is never loaded on
 * the common path.
 *
 * The event loop never tokenizes a long text: `countTokens` counts texts up to INLINE_MAX characters
 * in place (well under a millisecond) and sends longer ones to a small pool of worker threads
 * (`TokenizerPool`), so a large prompt delays nobody else's requests.
 *
 * `TokenCounter` counts a stream of text pieces incrementally: pieces are gathered up to a small
 * buffer and counted, so a long output never sits in memory as a whole.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

type CountFn = (text: string) => number;

/** Longest text counted on the event loop; longer ones go to the worker pool. */
export const INLINE_MAX = 32 * 1024;

let counter: CountFn | null = null;
let loading: Promise<CountFn> | null = null;

export function loadTokenizer(): Promise<CountFn> {
  if (counter) return Promise.resolve(counter);
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then((m) => {
    counter = (t: string) => m.countTokens(t);
    return counter;
  });
  return loading;
}

/** Counts tokens of `text` (loads the encoding if needed); long texts are counted off the event loop. */
export async function countTokens(text: string): Promise<number> {
  if (!text) return 0;
  if (text.length > INLINE_MAX) return tokenizerPool().count(text);
  return (await loadTokenizer())(text);
}

/** Counts tokens of `text` when the encoding is loaded; null otherwise. */
export function countTokensSync(text: string): number | null {
  if (!text) return 0;
  return counter ? counter(text) : null;
}

// The worker's code: loads the encoding once and answers {id, text} with {id, n} (or {id, error}).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const ready = import(workerData.encoding);
parentPort.on('message', async ({ id, text }) => {
  try {
    const m = await ready;
    parentPort.postMessage({ id, n: m.countTokens(text) });
  } catch (e) {
    parentPort.postMessage({ id, error: String(e && e.message || e) });
  }
});
`;

interface Job {
  id: number;
  text: string;
  resolve(n: number): void;
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

  count(text: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, text, resolve, reject });
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
      w.postMessage({ id: job.id, text: job.text });
    }
  }

  private spawn(): Worker {
    this.workers++;
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      execArgv: [],
      workerData: { encoding: import.meta.resolve('gpt-tokenizer/encoding/o200k_base') },
    });
    w.on('message', (m: { id: number; n?: number; error?: string }) => {
      const job = this.busy.get(w);
      this.busy.delete(w);
      this.idle.push(w);
      w.unref();
      if (job && job.id === m.id) {
        if (m.error !== undefined) job.reject(new Error(`token counting failed: ${m.error}`));
        else job.resolve(m.n ?? 0);
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

const FLUSH_AT = 4096;

export class TokenCounter {
  private pending = '';
  private counted = 0;
  private chars = 0;

  add(text: string): void {
    if (!text) return;
    this.pending += text;
    this.chars += text.length;
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
  }

  /** Characters seen so far. */
  get length(): number {
    return this.chars;
  }

  async total(): Promise<number> {
    if (this.pending) {
      this.counted += await countTokens(this.pending);
      this.pending = '';
    }
    return this.counted;
  }
}
