/**
 * Pure helpers of the benchmark: percentiles over recorded samples, the sustained-rate search, and the
 * checks of the performance targets. Nothing here starts a process or opens a socket.
 */

/** Summary of a set of samples (milliseconds unless said otherwise). */
export interface Summary {
  n: number;
  mean: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

/**
 * The p-th percentile (0..100) of an ascending array, nearest-rank method: the smallest sample such that
 * at least p % of the samples are less than or equal to it. NaN for an empty array.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  if (p <= 0) return sorted[0];
  if (p >= 100) return sorted[n - 1];
  const rank = Math.ceil((p / 100) * n);
  return sorted[Math.min(n, Math.max(1, rank)) - 1];
}

/** The median of a few values (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const a = [...values].sort((x, y) => x - y);
  const n = a.length;
  if (n === 0) return NaN;
  return n % 2 ? a[(n - 1) / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
}

export function summarize(samples: ArrayLike<number>): Summary {
  const a = Float64Array.from(samples as ArrayLike<number>).sort();
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i];
  return {
    n: a.length,
    mean: a.length ? sum / a.length : NaN,
    min: a.length ? a[0] : NaN,
    p50: percentile(a, 50),
    p90: percentile(a, 90),
    p99: percentile(a, 99),
    p999: percentile(a, 99.9),
    max: a.length ? a[a.length - 1] : NaN,
  };
}

/** Records samples into a growable typed array (no boxing), summarised once at the end. */
export class Recorder {
  private buf = new Float64Array(1024);
  private len = 0;

  record(v: number): void {
    if (this.len === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.len++] = v;
  }

  get count(): number {
    return this.len;
  }

  values(): Float64Array {
    return this.buf.subarray(0, this.len);
  }

  summary(): Summary {
    return summarize(this.values());
  }
}

// ---------------------------------------------------------------------------------------------------------
// Sustained-rate search
// ---------------------------------------------------------------------------------------------------------

export interface RateProbe {
  /** Requests per second offered. */
  rate: number;
  ok: boolean;
  /** Why it failed, for the report. */
  reason?: string;
  /** Anything the caller wants to keep (achieved rate, p99, errors...). */
  detail?: Record<string, unknown>;
}

export interface RateSearchOptions {
  /** First rate to try (req/s). */
  start: number;
  /** Growth factor while probes pass, and shrink factor when the first one fails. Default 2. */
  factor?: number;
  /** Stop bisecting once hi / lo <= 1 + precision. Default 0.1. */
  precision?: number;
  /** Hard limit on the number of probes. Default 12. */
  maxProbes?: number;
  /** Never try below this (req/s). Default 1. */
  min?: number;
  /** Never try above this (req/s). Default 1e6. */
  max?: number;
  /** Probe a failing rate again this many times before taking the failure (noisy machines). Default 0. */
  retries?: number;
}

export interface RateSearchResult {
  /** Highest rate that passed; 0 when none did. */
  best: number;
  /** Lowest rate that failed; null when none did (the search hit `max` or ran out of probes growing). */
  failedAt: number | null;
  probes: RateProbe[];
}

/**
 * Finds the highest offered rate that passes `probe`: grows geometrically from `start` while probes pass (or
 * shrinks while they fail), then bisects (geometric mean) between the last pass and the first failure.
 */
export async function searchRate(opts: RateSearchOptions, probe: (rate: number) => Promise<RateProbe>): Promise<RateSearchResult> {
  const factor = opts.factor ?? 2;
  const precision = opts.precision ?? 0.1;
  const maxProbes = opts.maxProbes ?? 12;
  const min = opts.min ?? 1;
  const max = opts.max ?? 1e6;
  const retries = opts.retries ?? 0;
  if (!(factor > 1)) throw new Error('factor must be > 1');
  const probes: RateProbe[] = [];
  // Highest pass and lowest failure so far.
  const st: { lo: number; hi: number | null } = { lo: 0, hi: null };
  const run = async (rate: number): Promise<boolean> => {
    let r = await probe(Math.round(rate));
    probes.push(r);
    for (let k = 0; k < retries && !r.ok && probes.length < maxProbes; k++) {
      r = await probe(Math.round(rate));
      probes.push(r);
    }
    if (r.ok) st.lo = Math.max(st.lo, r.rate);
    else st.hi = st.hi === null ? r.rate : Math.min(st.hi, r.rate);
    return r.ok;
  };

  let rate = Math.min(max, Math.max(min, opts.start));
  // Bracket.
  if (await run(rate)) {
    while (probes.length < maxProbes && rate < max) {
      rate = Math.min(max, rate * factor);
      if (!(await run(rate))) break;
    }
  } else {
    while (probes.length < maxProbes && rate > min) {
      rate = Math.max(min, rate / factor);
      if (await run(rate)) break;
    }
  }
  // Bisect.
  while (probes.length < maxProbes && st.lo > 0 && st.hi !== null && st.hi / st.lo > 1 + precision) {
    const mid = Math.round(Math.sqrt(st.lo * st.hi));
    if (mid <= st.lo || mid >= st.hi) break;
    await run(mid);
  }
  return { best: st.lo, failedAt: st.hi, probes };
}

/** Pass rule of a sustained-rate probe: p99 under the bound, errors under the fraction, and the offered
 * rate actually delivered (within 5 %). */
export function judgeRateProbe(
  m: { offered: number; achieved: number; p99: number; errors: number; total: number },
  bound: { p99Ms: number; maxErrorRatio: number },
): { ok: boolean; reason?: string } {
  if (m.total === 0) return { ok: false, reason: 'no requests completed' };
  if (typeof m.p99 !== 'number' || Number.isNaN(m.p99)) return { ok: false, reason: 'no request succeeded' };
  const errRatio = m.errors / m.total;
  if (errRatio >= bound.maxErrorRatio) return { ok: false, reason: `errors ${(errRatio * 100).toFixed(2)} %` };
  if (!(m.p99 < bound.p99Ms)) return { ok: false, reason: `p99 ${m.p99.toFixed(1)} ms` };
  if (m.achieved < m.offered * 0.95) return { ok: false, reason: `achieved ${Math.round(m.achieved)} of ${m.offered} req/s` };
  return { ok: true };
}

// ---------------------------------------------------------------------------------------------------------
// Stream capacity ladder
// ---------------------------------------------------------------------------------------------------------

export interface StreamStep {
  streams: number;
  ok: boolean;
  reason?: string;
}

/**
 * Whether a step of concurrent streams held: no errors, every stream complete, and the effective gap did
 * not grow by more than `tolerance` (0.2 = 20 %) over the nominal gap. The effective gap of a stream is its
 * duration from the request to the last event divided by the number of gaps, so a late first byte counts
 * as much as late chunks; `gapP99` is its 99th percentile over the streams of the step.
 */
export function judgeStreamStep(
  m: { streams: number; errors: number; incomplete: number; gapP99: number },
  nominalGapMs: number,
  tolerance: number,
): StreamStep {
  if (m.errors > 0) return { streams: m.streams, ok: false, reason: `${m.errors} errors` };
  if (m.incomplete > 0) return { streams: m.streams, ok: false, reason: `${m.incomplete} incomplete streams` };
  const limit = nominalGapMs * (1 + tolerance);
  if (!(m.gapP99 <= limit))
    return { streams: m.streams, ok: false, reason: `effective gap p99 ${m.gapP99.toFixed(1)} ms > ${limit.toFixed(1)} ms` };
  return { streams: m.streams, ok: true };
}

/**
 * Steps up the stream count through `ladder` until a step fails (after `retries` more tries at the same
 * count); returns the highest count that held. With `resolution` (a fraction such as 1/32), the counts
 * between the last step that held and the first that failed are then searched by halves until the two
 * are within that fraction of the held count, so that two proxies are compared to a few percent rather
 * than to the ladder's steps (an eighth apart from 512 up).
 */
export async function climbLadder(
  ladder: number[],
  step: (streams: number) => Promise<StreamStep>,
  retries = 0,
  resolution = 0,
): Promise<{ held: number; steps: StreamStep[] }> {
  const steps: StreamStep[] = [];
  const tryAt = async (n: number): Promise<boolean> => {
    let s = await step(n);
    steps.push(s);
    for (let k = 0; k < retries && !s.ok; k++) {
      s = await step(n);
      steps.push(s);
    }
    return s.ok;
  };
  let held = 0;
  let failed: number | null = null;
  for (const n of ladder) {
    if (!(await tryAt(n))) {
      failed = n;
      break;
    }
    held = n;
  }
  if (resolution > 0 && failed !== null && held > 0) {
    for (;;) {
      const mid = Math.round((held + failed) / 2);
      if (failed - held <= Math.max(1, held * resolution) || mid <= held || mid >= failed) break;
      if (await tryAt(mid)) held = mid;
      else failed = mid;
    }
  }
  return { held, steps };
}

/** Whether a climb ended without a count above `held` failing (the proxy may hold more than was tried). */
export function ladderOpenEnded(held: number, steps: StreamStep[]): boolean {
  return steps.length > 0 && !steps.some((s) => !s.ok && s.streams > held);
}

// ---------------------------------------------------------------------------------------------------------
// Performance targets
// ---------------------------------------------------------------------------------------------------------

/** The numbers of one target the checks need (ms and req/s); null when not measured. */
export interface TargetNumbers {
  addedP50: number | null;
  addedP99: number | null;
  sustainedRps: number | null;
  addedTtfb: number | null;
  /** Concurrent streams held (the ladder); absent when not measured. */
  streamsHeld?: number | null;
}

export interface Check {
  name: string;
  /** The subject's value and the bound it is held to. */
  value: number | null;
  bound: number | null;
  status: 'PASS' | 'MISS' | 'n/a';
  note?: string;
}

const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toFixed(3));

/**
 * The performance targets for `subject` against the forwarder and Portkey:
 * sustained req/s >= 60 % of the forwarder's and >= 10x Portkey's; added latency at c=1 <= 1.5x the
 * forwarder's (p50 and p99) and <= 1/4 of Portkey's; streaming added TTFB <= forwarder's + 1 ms; concurrent
 * streams held >= 0.9x the forwarder's (when the ladder ran).
 * Added latencies below `floorMs` are raised to it before the ratio is taken, so measurement noise near
 * zero cannot fail or pass a check by itself.
 */
export function checkTargets(
  subject: TargetNumbers | null,
  forwarder: TargetNumbers | null,
  portkey: TargetNumbers | null,
  floorMs = 0.01,
): Check[] {
  const checks: Check[] = [];
  const add = (name: string, value: number | null | undefined, bound: number | null, higherIsBetter: boolean, missing: string | null) => {
    if (missing) return checks.push({ name, value: value ?? null, bound, status: 'n/a', note: missing });
    if (value === null || value === undefined || bound === null || !Number.isFinite(value) || !Number.isFinite(bound)) {
      return checks.push({ name, value: value ?? null, bound, status: 'n/a', note: 'not measured' });
    }
    const ok = higherIsBetter ? value >= bound : value <= bound;
    const op = ok ? (higherIsBetter ? '>=' : '<=') : higherIsBetter ? '<' : '>';
    checks.push({ name, value, bound, status: ok ? 'PASS' : 'MISS', note: `${fmt(value)} ${op} ${fmt(bound)}` });
  };
  const noSubject = subject ? null : 'subject unavailable';
  const noFwd = noSubject ?? (forwarder ? null : 'forwarder not measured');
  const noPk = noSubject ?? (portkey ? null : 'portkey not measured');
  const floor = (v: number | null) => (v === null ? null : Math.max(floorMs, v));
  const mul = (v: number | null | undefined, k: number) => (v === null || v === undefined ? null : v * k);

  add('sustained rps >= 60% of forwarder', subject?.sustainedRps, mul(forwarder?.sustainedRps, 0.6), true, noFwd);
  add('sustained rps >= 10x portkey', subject?.sustainedRps, mul(portkey?.sustainedRps, 10), true, noPk);
  add('added p50 (c=1) <= 1.5x forwarder', floor(subject?.addedP50 ?? null), mul(floor(forwarder?.addedP50 ?? null), 1.5), false, noFwd);
  add('added p99 (c=1) <= 1.5x forwarder', floor(subject?.addedP99 ?? null), mul(floor(forwarder?.addedP99 ?? null), 1.5), false, noFwd);
  add('added p50 (c=1) <= 1/4 portkey', floor(subject?.addedP50 ?? null), mul(floor(portkey?.addedP50 ?? null), 0.25), false, noPk);
  add('added p99 (c=1) <= 1/4 portkey', floor(subject?.addedP99 ?? null), mul(floor(portkey?.addedP99 ?? null), 0.25), false, noPk);
  add(
    'stream added TTFB <= forwarder + 1 ms',
    subject?.addedTtfb,
    forwarder?.addedTtfb == null ? null : forwarder.addedTtfb + 1,
    false,
    noFwd,
  );
  if (subject?.streamsHeld != null || forwarder?.streamsHeld != null)
    add('concurrent streams held >= 0.9x forwarder', subject?.streamsHeld, mul(forwarder?.streamsHeld, 0.9), true, noFwd);
  return checks;
}

/** a / b, or null when either is missing or b is 0. */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a === null || a === undefined || b === null || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null;
  return a / b;
}
