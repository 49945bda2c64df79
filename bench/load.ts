/**
 * The load generator: undici Pool clients driving one target, closed-loop (c workers back to back) or
 * open-loop (a fixed arrival rate, latency measured from the scheduled start so a stalled target cannot
 * hide its queue). Streams record time to first byte and the gap between SSE events.
 *
 * It runs in its own process (pinned to one CPU by the bench, see proc.ts) and takes jobs over IPC:
 * parent -> {id, job}, child -> {id, result} or {id, error}. `runJob` is exported for direct use.
 */
import { Pool } from 'undici';
import { performance } from 'node:perf_hooks';
import { Recorder, type Summary } from './stats.ts';

export interface RequestSpec {
  /** Origin of the target, e.g. http://127.0.0.1:8080 */
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Expect an SSE stream and time its events. */
  stream: boolean;
  /** Per-request limit (headers and body), ms. */
  timeoutMs: number;
}

export interface ClosedJob extends RequestSpec {
  kind: 'closed';
  concurrency: number;
  /** Pool size; defaults to concurrency. */
  connections?: number;
  /** Either a duration (with a warm-up time excluded from the stats) or a request count (with a warm-up count). */
  durationMs?: number;
  warmupMs?: number;
  count?: number;
  warmupCount?: number;
  /** Return the raw latency samples too (for merging rounds). */
  raw?: boolean;
}

export interface OpenJob extends RequestSpec {
  kind: 'open';
  /** Offered requests per second. */
  rate: number;
  durationMs: number;
  /** Requests scheduled in the first warmupMs are sent but not recorded. */
  warmupMs: number;
  /** Pool size. Requests beyond it wait in the pool's queue (their wait counts in their latency), as with
   * a fixed set of client connections; a pool that opened a connection per waiting request would turn a
   * short stall into a storm of handshakes. */
  connections: number;
  /** Stop offering load once this many requests are outstanding (counted as errors). */
  maxInFlight: number;
  /** Give up early once the backlog implies a mean latency above this (ms). */
  abortLatencyMs: number;
}

export type LoadJob = ClosedJob | OpenJob;

export interface LoadResult {
  kind: LoadJob['kind'];
  /** Recorded requests (after warm-up), successes and failures. */
  total: number;
  errors: number;
  /** Up to five distinct error messages. */
  errorSamples: string[];
  elapsedMs: number;
  /** Completed successful requests per second over the measured window. */
  rps: number;
  /** Offered rate, and successes per second completed inside the measured window (open loop). */
  offered?: number;
  achieved?: number;
  aborted?: string;
  latency: Summary;
  /** Streams only: time to the first body byte, gaps between SSE events, per-stream mean gap. */
  ttfb?: Summary;
  gap?: Summary;
  streamMeanGap?: Summary;
  /** Streams that ended without `data: [DONE]`. */
  incomplete?: number;
  raw?: number[];
  rawTtfb?: number[];
  rawGaps?: number[];
}

interface Sample {
  ok: boolean;
  error?: string;
  ttfb: number;
  events: number;
  done: boolean;
}

class Collector {
  latency = new Recorder();
  ttfb = new Recorder();
  gap = new Recorder();
  meanGap = new Recorder();
  total = 0;
  errors = 0;
  incomplete = 0;
  samples = new Set<string>();
  /** Successes completed inside [windowStart, windowEnd] (open loop: the delivered rate). */
  windowStart = 0;
  windowEnd = Infinity;
  inWindow = 0;

  fail(msg: string): void {
    this.total++;
    this.errors++;
    if (this.samples.size < 5) this.samples.add(msg);
  }
}

const DATA = Buffer.from('data:');
const DONE = Buffer.from('[DONE]');

function countData(buf: Buffer): number {
  let n = 0;
  let i = buf.indexOf(DATA);
  while (i >= 0) {
    n++;
    i = buf.indexOf(DATA, i + 5);
  }
  return n;
}

/**
 * Sends one request. `started` is the time the latency is measured from (the scheduled time in open loop).
 * Records into `c` when `record` is true.
 */
async function once(pool: Pool, spec: RequestSpec, started: number, c: Collector, record: boolean): Promise<void> {
  let sample: Sample;
  const gaps: number[] = [];
  try {
    const res = await pool.request({
      path: spec.path,
      method: 'POST',
      headers: spec.headers,
      body: spec.body,
      headersTimeout: spec.timeoutMs,
      bodyTimeout: spec.timeoutMs,
    });
    if (res.statusCode !== 200) {
      const text = await res.body.text().catch(() => '');
      sample = { ok: false, error: `HTTP ${res.statusCode} ${text.slice(0, 160)}`, ttfb: 0, events: 0, done: false };
    } else if (!spec.stream) {
      await res.body.text();
      sample = { ok: true, ttfb: 0, events: 0, done: true };
    } else {
      let first = 0;
      let last = 0;
      let events = 0;
      let done = false;
      let tail: Buffer = Buffer.alloc(0);
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        const now = performance.now();
        // An event marker may straddle two reads: look at the last few bytes of the previous read too.
        const view = tail.length ? Buffer.concat([tail, chunk]) : chunk;
        const n = countData(view) - (tail.length ? countData(tail) : 0);
        if (!done && view.includes(DONE)) done = true;
        tail = chunk.subarray(Math.max(0, chunk.length - 8));
        if (n <= 0) continue;
        if (events === 0) first = now;
        else gaps.push(now - last);
        for (let k = 1; k < n; k++) gaps.push(0);
        last = now;
        events += n;
      }
      sample = { ok: done, error: done ? undefined : 'stream ended without [DONE]', ttfb: first - started, events, done };
      if (record && events > 1) c.meanGap.record((last - first) / (events - 1));
    }
  } catch (e) {
    sample = { ok: false, error: (e as Error).message || String(e), ttfb: 0, events: 0, done: false };
  }
  const end = performance.now();
  if (sample.ok && end >= c.windowStart && end <= c.windowEnd) c.inWindow++;
  if (!record) return;
  if (!sample.ok) {
    if (spec.stream && !sample.done && sample.events > 0) c.incomplete++;
    return c.fail(sample.error ?? 'error');
  }
  c.total++;
  c.latency.record(end - started);
  if (spec.stream) {
    c.ttfb.record(sample.ttfb);
    for (const g of gaps) c.gap.record(g);
  }
}

function finish(job: LoadJob, c: Collector, elapsedMs: number, extra: Partial<LoadResult> = {}): LoadResult {
  const ok = c.total - c.errors;
  const r: LoadResult = {
    kind: job.kind,
    total: c.total,
    errors: c.errors,
    errorSamples: [...c.samples],
    elapsedMs,
    rps: elapsedMs > 0 ? (ok * 1000) / elapsedMs : 0,
    latency: c.latency.summary(),
    ...extra,
  };
  if (job.stream) {
    r.ttfb = c.ttfb.summary();
    r.gap = c.gap.summary();
    r.streamMeanGap = c.meanGap.summary();
    r.incomplete = c.incomplete;
  }
  if (job.kind === 'closed' && job.raw) {
    r.raw = Array.from(c.latency.values());
    if (job.stream) {
      r.rawTtfb = Array.from(c.ttfb.values());
      r.rawGaps = Array.from(c.gap.values());
    }
  }
  return r;
}

async function closedLoop(job: ClosedJob): Promise<LoadResult> {
  const pool = new Pool(job.origin, { connections: job.connections ?? job.concurrency, pipelining: 1, keepAliveTimeout: 60_000 });
  const c = new Collector();
  try {
    if (job.count !== undefined) {
      const warm = job.warmupCount ?? 0;
      const total = warm + job.count;
      let next = 0;
      let measuredFrom = 0;
      const worker = async () => {
        for (;;) {
          const i = next++;
          if (i >= total) return;
          if (i === warm) measuredFrom = performance.now();
          await once(pool, job, performance.now(), c, i >= warm);
        }
      };
      const t0 = performance.now();
      measuredFrom = warm === 0 ? t0 : 0;
      await Promise.all(Array.from({ length: Math.min(job.concurrency, total) }, worker));
      return finish(job, c, performance.now() - (measuredFrom || t0));
    }
    const duration = job.durationMs ?? 5000;
    const t0 = performance.now();
    const measureFrom = t0 + (job.warmupMs ?? 0);
    const end = measureFrom + duration;
    const worker = async () => {
      for (;;) {
        const s = performance.now();
        if (s >= end) return;
        await once(pool, job, s, c, s >= measureFrom);
      }
    };
    await Promise.all(Array.from({ length: job.concurrency }, worker));
    // Requests started before `end` may complete after it; rate over the window they ran in.
    return finish(job, c, Math.max(duration, performance.now() - measureFrom));
  } finally {
    await pool.destroy().catch(() => {});
  }
}

async function openLoop(job: OpenJob): Promise<LoadResult> {
  const pool = new Pool(job.origin, { connections: job.connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const c = new Collector();
  const interval = 1000 / job.rate;
  const total = Math.round(((job.warmupMs + job.durationMs) / 1000) * job.rate);
  const warm = Math.round((job.warmupMs / 1000) * job.rate);
  let sent = 0;
  let inFlight = 0;
  let aborted: string | undefined;
  const pending = new Set<Promise<void>>();
  const t0 = performance.now();
  c.windowStart = t0 + job.warmupMs;
  c.windowEnd = c.windowStart + job.durationMs;
  try {
    await new Promise<void>((resolve) => {
      const tick = () => {
        const now = performance.now();
        const due = Math.min(total, Math.floor((now - t0) / interval) + 1);
        while (sent < due) {
          const i = sent++;
          const scheduled = t0 + i * interval;
          const record = i >= warm;
          if (inFlight >= job.maxInFlight) {
            if (record) c.fail(`more than ${job.maxInFlight} requests outstanding`);
            continue;
          }
          inFlight++;
          const p = once(pool, job, scheduled, c, record).finally(() => {
            inFlight--;
            pending.delete(p);
          });
          pending.add(p);
        }
        // Little's law: this backlog means the mean latency is already above the bound.
        if (!aborted && now - t0 > 250 && inFlight > (job.rate * job.abortLatencyMs) / 1000) {
          aborted = `backlog of ${inFlight} requests at ${job.rate} req/s`;
        }
        if (sent >= total || aborted) {
          clearInterval(timer);
          resolve();
        }
      };
      const timer = setInterval(tick, 1);
      tick();
    });
    const sendEnd = performance.now();
    // Drain: wait for what is outstanding, at most the request timeout (a second once the probe is lost).
    const drainMs = aborted ? Math.min(1000, job.timeoutMs) : job.timeoutMs;
    await Promise.race([Promise.allSettled([...pending]), new Promise((r) => setTimeout(r, drainMs).unref())]);
    if (pending.size > 0) {
      for (let k = 0; k < pending.size; k++) c.fail('did not complete before the end of the probe');
    }
    const measured = Math.max(1, sendEnd - (t0 + job.warmupMs));
    // Delivered rate: successes that completed inside the measured window. A target that queues work it
    // cannot keep up with falls short here even when the probe is too short for its p99 to show it.
    return finish(job, c, measured, { offered: job.rate, achieved: (c.inWindow * 1000) / job.durationMs, aborted });
  } finally {
    await pool.destroy().catch(() => {});
  }
}

export function runJob(job: LoadJob): Promise<LoadResult> {
  return job.kind === 'closed' ? closedLoop(job) : openLoop(job);
}

if (process.env.GATEHOUSE_BENCH_ROLE === 'load' && process.send) {
  process.on('message', (msg: { id: number; job: LoadJob }) => {
    runJob(msg.job).then(
      (result) => process.send!({ id: msg.id, result }),
      (e: Error) => process.send!({ id: msg.id, error: e.stack || e.message }),
    );
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ ready: true });
}
