/**
 * The streaming harness (bench/sse/ssebench.c) from TypeScript: builds it with the system C compiler,
 * starts its upstream, runs its load generator, and reads what it reports. The pure parts (arguments,
 * the report's parser, the verdicts of the stream phases) are tested in sse.test.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH, lastLines, spawnProc, waitForLine, type Proc } from './proc.ts';
import type { Summary } from './stats.ts';

export const SSE_SRC = join(BENCH, 'sse/ssebench.c');
export const SSE_BIN = join(BENCH, 'sse/.build/ssebench');

/** Compiles ssebench when it is missing or older than its source; returns the binary's path. */
export function buildSsebench(): string {
  if (existsSync(SSE_BIN) && statSync(SSE_BIN).mtimeMs >= statSync(SSE_SRC).mtimeMs) return SSE_BIN;
  const cc = process.env.CC || 'cc';
  if (spawnSync(cc, ['--version'], { stdio: 'ignore' }).status !== 0) {
    throw new Error(`the stream harness needs a C compiler (${cc}): apt-get install gcc libc6-dev`);
  }
  mkdirSync(join(BENCH, 'sse/.build'), { recursive: true });
  const tmp = `${SSE_BIN}.${process.pid}`;
  try {
    execFileSync(cc, ['-O2', '-Wall', '-o', tmp, SSE_SRC], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    throw new Error(`compiling ${SSE_SRC} failed: ${(e as { stderr?: Buffer }).stderr?.toString().slice(0, 800) ?? e}`);
  }
  execFileSync('mv', ['-f', tmp, SSE_BIN]);
  return SSE_BIN;
}

/** Starts the C upstream (pinned to `cpu` when possible) and waits for `READY {port}`. */
export async function startSseUpstream(cpu: number | undefined): Promise<{ proc: Proc; port: number }> {
  const bin = buildSsebench();
  const proc = spawnProc('upstream', bin, ['upstream'], { cpu });
  try {
    const m = await waitForLine(proc, /^READY (\{.*\})$/, 10_000);
    return { proc, port: (JSON.parse(m[1]) as { port: number }).port };
  } catch (e) {
    await proc.stop();
    throw e;
  }
}

export interface SseLoadJob {
  /** Origin of the target, e.g. http://127.0.0.1:8080 */
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  streams: number;
  /** The i-th stream starts at i * rampMs / streams (0: all at once). */
  rampMs?: number;
  /** Per stream, from its scheduled start to its end. */
  timeoutMs: number;
  /** Text of the event that ends a complete stream. */
  done?: string;
}

export interface SseLoadResult {
  streams: number;
  /** Streams that ended with the done event, every text event in order. */
  ok: number;
  errors: number;
  /** Streams that had events but no done event. */
  incomplete: number;
  /** Text events whose index was not the one after the previous event's. */
  outOfOrder: number;
  events: number;
  contentEvents: number;
  /** The most streams open at once. */
  maxOpen: number;
  elapsedMs: number;
  /** CPU time the load generator used. */
  cpuMs: number;
  errorSamples: string[];
  /** From the stream's scheduled start to its first event (ms; successful streams). */
  ttfb: Summary;
  /** From the stream's scheduled start to its last event (ms; successful streams). */
  duration: Summary;
  /** Between consecutive text events of a stream, as received. */
  gap: Summary;
  /** Received gap minus the gap at which the upstream wrote the two events: what the path added. */
  addedGap: Summary;
  /** From the upstream's write of an event to its arrival. */
  delay: Summary;
}

/** The command line of `ssebench load` for a job (the body is passed as a file). */
export function sseLoadArgs(job: SseLoadJob, bodyFile: string): string[] {
  const u = new URL(job.origin);
  if (u.protocol !== 'http:') throw new Error(`the stream harness speaks plain HTTP only: ${job.origin}`);
  const host = u.hostname === 'localhost' ? '127.0.0.1' : u.hostname;
  if (!/^\d+\.\d+\.\d+\.\d+$/.test(host)) throw new Error(`the stream harness needs an IPv4 address: ${job.origin}`);
  const args = ['load', '--host', host, '--port', u.port || '80', '--path', job.path, '--body-file', bodyFile];
  args.push('--streams', String(job.streams), '--ramp-ms', String(job.rampMs ?? 0), '--timeout-ms', String(job.timeoutMs));
  if (job.done) args.push('--done', job.done);
  for (const [k, v] of Object.entries(job.headers)) {
    if (/[\r\n]/.test(k) || /[\r\n]/.test(v)) throw new Error(`header ${k} has a line break`);
    args.push('-H', `${k}: ${v}`);
  }
  return args;
}

const SUMMARY_KEYS = ['n', 'mean', 'min', 'p50', 'p90', 'p99', 'p999', 'max'] as const;

function summaryOf(v: unknown, name: string): Summary {
  if (!v || typeof v !== 'object') throw new Error(`ssebench report: ${name} is missing`);
  const o = v as Record<string, unknown>;
  if (typeof o.n !== 'number') throw new Error(`ssebench report: ${name}.n is not a number`);
  const s = {} as Record<string, number>;
  for (const k of SUMMARY_KEYS) s[k] = o.n === 0 && k !== 'n' ? NaN : Number(o[k]);
  for (const k of SUMMARY_KEYS) if (o.n > 0 && !Number.isFinite(s[k])) throw new Error(`ssebench report: ${name}.${k} is not a number`);
  return s as unknown as Summary;
}

/** Reads the JSON line `ssebench load` prints (throws on anything else). */
export function parseSseLoad(text: string): SseLoadResult {
  const line = text
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .pop();
  if (!line) throw new Error(`ssebench printed no report: ${text.slice(0, 200)}`);
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw new Error(`ssebench report is not JSON: ${line.slice(0, 200)}`);
  }
  const num = (k: string): number => {
    const v = o[k];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`ssebench report: ${k} is not a number`);
    return v;
  };
  const samples = o.errorSamples;
  if (!Array.isArray(samples) || samples.some((s) => typeof s !== 'string'))
    throw new Error('ssebench report: errorSamples is not a list of texts');
  return {
    streams: num('streams'),
    ok: num('ok'),
    errors: num('errors'),
    incomplete: num('incomplete'),
    outOfOrder: num('outOfOrder'),
    events: num('events'),
    contentEvents: num('contentEvents'),
    maxOpen: num('maxOpen'),
    elapsedMs: num('elapsedMs'),
    cpuMs: num('cpuMs'),
    errorSamples: samples as string[],
    ttfb: summaryOf(o.ttfb, 'ttfb'),
    duration: summaryOf(o.duration, 'duration'),
    gap: summaryOf(o.gap, 'gap'),
    addedGap: summaryOf(o.addedGap, 'addedGap'),
    delay: summaryOf(o.delay, 'delay'),
  };
}

/** Runs one load job to its end (pinned to `cpu` when possible). `onStart` gets the generator's pid. */
export async function runSseLoad(job: SseLoadJob, cpu: number | undefined): Promise<SseLoadResult> {
  const bin = buildSsebench();
  const dir = mkdtempSync(join(tmpdir(), 'ssebench-'));
  const bodyFile = join(dir, 'body.json');
  writeFileSync(bodyFile, job.body);
  try {
    const proc = spawnProc('stream load', bin, sseLoadArgs(job, bodyFile), { cpu, keepStdout: true });
    const code = await proc.exited;
    const out = proc.stdout();
    if (code !== 0) throw new Error(`ssebench load exited with ${code}: ${lastLines(proc.output())}`);
    return parseSseLoad(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------
// Verdicts

export interface SlowVerdict {
  ok: boolean;
  reasons: string[];
}

/**
 * A slow-stream run holds when every stream completed, every text event arrived in order (`events`
 * per stream), and the p99 of the gap the path added stays within `maxAddedGapP99Ms`.
 */
export function judgeSlowStreams(r: SseLoadResult, expect: { streams: number; events: number; maxAddedGapP99Ms: number }): SlowVerdict {
  const reasons: string[] = [];
  if (r.ok < expect.streams)
    reasons.push(`${expect.streams - r.ok} of ${expect.streams} streams failed (${r.errorSamples.slice(0, 2).join('; ')})`);
  if (r.outOfOrder > 0) reasons.push(`${r.outOfOrder} events out of order`);
  const want = expect.streams * expect.events;
  if (r.contentEvents < want) reasons.push(`${want - r.contentEvents} of ${want} events missing`);
  if (!(r.addedGap.p99 <= expect.maxAddedGapP99Ms))
    reasons.push(`added gap p99 ${r.addedGap.p99.toFixed(1)} ms > ${expect.maxAddedGapP99Ms} ms`);
  return { ok: reasons.length === 0, reasons };
}

/** Memory one open stream costs a proxy: RSS with `streams` open over the idle RSS, in KB per stream. */
export function perStreamKb(idleMb: number | null, openMb: number | null, streams: number): number | null {
  if (idleMb === null || openMb === null || streams <= 0) return null;
  return ((openMb - idleMb) * 1024) / streams;
}

/**
 * CPU per event from two runs of the same streams that differ only in their number of events: the
 * difference of CPU over the difference of events, so the per-call work (request, routing, settle, log)
 * cancels out. Microseconds per event; null when the runs do not differ in events.
 */
export function cpuPerEventUs(small: { cpuS: number; events: number }, big: { cpuS: number; events: number }): number | null {
  const de = big.events - small.events;
  if (de <= 0) return null;
  return ((big.cpuS - small.cpuS) * 1e6) / de;
}
