/**
 * Result shapes of a run and their markdown rendering (pure).
 */
import { ladderOpenEnded, type Check, type TargetNumbers } from './stats.ts';
import type { TaskBenchResult } from './tasks.ts';

export interface ProbeRecord {
  rate: number;
  ok: boolean;
  reason?: string;
  achieved?: number;
  p99?: number;
  errors?: number;
  errorSamples?: string[];
}

export interface TargetResult {
  name: string;
  status: 'ok' | 'unavailable';
  reason?: string;
  /** Phases that failed for this target, with why. */
  errors: string[];
  latency?: { n: number; p50: number; p99: number; mean: number; addedP50: number | null; addedP99: number | null };
  maxRate?: {
    concurrency: number;
    rps: number;
    p50: number;
    p99: number;
    errors: number;
    total: number;
    /** Share of one CPU the proxy used during the phase, and requests per CPU-second it spent: the second
     * holds up on a busy machine, where the proxy does not get all of its CPU. */
    cpu?: number | null;
    perCpuSecond?: number | null;
    /** Requests per CPU-second of each interleaved round (the figures above are the rounds' medians). */
    rounds?: (number | null)[];
  };
  sustained?: { delayMs: number; rps: number; failedAt: number | null; probes: ProbeRecord[] };
  stream?: {
    n: number;
    errors: number;
    ttfbP50: number;
    ttfbP99: number;
    gapP50: number;
    gapP99: number;
    addedTtfbP50: number | null;
    addedTtfbP99: number | null;
    addedGapP50: number | null;
    addedGapP99: number | null;
  };
  streamsHeld?: {
    held: number;
    steps: { streams: number; ok: boolean; reason?: string; ttfbP99?: number; addedGapP99?: number; effectiveGapP99?: number }[];
  };
  rss?: { idleMb: number | null; loadMb: number | null };
}

export interface Machine {
  nproc: number;
  cpu: string;
  node: string;
  kernel: string;
  pinned: boolean;
  /** 1-minute load average before the run started (other work on the machine skews every number). */
  loadAvg: number;
}

export interface RunReport {
  startedAt: string;
  mode: 'quick' | 'full';
  durationS: number;
  machine: Machine;
  plan: unknown;
  targets: TargetResult[];
  /** Per subject (a target held to the performance goals): ratios to the forwarder and Portkey, and the checks. */
  subjects: SubjectReport[];
  /**
   * The forwarder (the limit of Node here) against Portkey: the bounds relative to Portkey are only
   * reachable by a target when the forwarder itself reaches them.
   */
  forwarderVsPortkey?: Record<string, number | null>;
  tasks: TaskBenchResult;
}

export interface SubjectReport {
  subject: string;
  ratios: Record<string, number | null>;
  checks: Check[];
}

/** The numbers the performance checks use, from one target's result. */
export function numbersOf(t: TargetResult | undefined): TargetNumbers | null {
  if (!t || t.status !== 'ok') return null;
  return {
    addedP50: t.latency?.addedP50 ?? null,
    addedP99: t.latency?.addedP99 ?? null,
    sustainedRps: t.sustained?.rps ?? null,
    addedTtfb: t.stream?.addedTtfbP50 ?? null,
    streamsHeld: t.streamsHeld?.held ?? null,
  };
}

const dash = '–';

function ms(v: number | null | undefined, digits = 2): string {
  return v === null || v === undefined || !Number.isFinite(v) ? dash : v.toFixed(digits);
}

function us(vMs: number | null | undefined): string {
  return vMs === null || vMs === undefined || !Number.isFinite(vMs) ? dash : `${Math.round(vMs * 1000)}`;
}

function int(v: number | null | undefined): string {
  return v === null || v === undefined || !Number.isFinite(v) ? dash : Math.round(v).toLocaleString('en-US');
}

export function renderTable(r: RunReport): string {
  const ts = r.targets;
  const cell = (t: TargetResult, f: (t: TargetResult) => string) => (t.status === 'ok' ? f(t) : 'unavailable');
  const rows: [string, (t: TargetResult) => string][] = [
    ['c=1 latency p50 (ms)', (t) => ms(t.latency?.p50, 3)],
    ['c=1 latency p99 (ms)', (t) => ms(t.latency?.p99, 3)],
    ['**added p50 (µs)**', (t) => (t.name === 'direct' ? dash : us(t.latency?.addedP50))],
    ['**added p99 (µs)**', (t) => (t.name === 'direct' ? dash : us(t.latency?.addedP99))],
    [`max req/s, c=${ts.find((t) => t.maxRate)?.maxRate?.concurrency ?? 50}, no delay`, (t) => int(t.maxRate?.rps)],
    ['  p50 / p99 at max (ms)', (t) => (t.maxRate ? `${ms(t.maxRate.p50)} / ${ms(t.maxRate.p99)}` : dash)],
    [
      '  proxy CPU at max (%) / req per CPU-second',
      (t) => (t.maxRate?.cpu != null ? `${Math.round(t.maxRate.cpu * 100)} / ${int(t.maxRate.perCpuSecond)}` : dash),
    ],
    [
      `**sustained req/s, ${ts.find((t) => t.sustained)?.sustained?.delayMs ?? 20} ms upstream** (p99 < 1 s, < 0.1 % errors)`,
      (t) => int(t.sustained?.rps),
    ],
    ['stream TTFB p50 / p99 (ms)', (t) => (t.stream ? `${ms(t.stream.ttfbP50)} / ${ms(t.stream.ttfbP99)}` : dash)],
    [
      '**stream added TTFB p50 / p99 (ms)**',
      (t) => (t.stream && t.name !== 'direct' ? `${ms(t.stream.addedTtfbP50)} / ${ms(t.stream.addedTtfbP99)}` : dash),
    ],
    ['stream gap p50 / p99 (ms)', (t) => (t.stream ? `${ms(t.stream.gapP50)} / ${ms(t.stream.gapP99)}` : dash)],
    [
      'stream added gap p50 / p99 (ms)',
      (t) => (t.stream && t.name !== 'direct' ? `${ms(t.stream.addedGapP50)} / ${ms(t.stream.addedGapP99)}` : dash),
    ],
    [
      'concurrent streams held',
      (t) => {
        const s = t.streamsHeld;
        if (!s) return dash;
        if (ladderOpenEnded(s.held, s.steps)) return `≥ ${s.held}`;
        return s.held === 0 && s.steps.length ? `< ${s.steps[0].streams}` : `${s.held}`;
      },
    ],
    ['RSS idle / under load (MB)', (t) => (t.rss && t.name !== 'direct' ? `${ms(t.rss.idleMb, 0)} / ${ms(t.rss.loadMb, 0)}` : dash)],
  ];
  const head = `| | ${ts.map((t) => t.name).join(' | ')} |\n|---|${ts.map(() => '---:').join('|')}|`;
  const body = rows.map(([label, f]) => `| ${label} | ${ts.map((t) => cell(t, f)).join(' | ')} |`).join('\n');
  return `${head}\n${body}`;
}

export function renderReport(r: RunReport): string {
  const out: string[] = [];
  const m = r.machine;
  out.push(`## Gatehouse benchmarks (${r.mode}, ${r.startedAt}, ${r.durationS.toFixed(0)} s)`);
  out.push('');
  out.push(
    `Machine: ${m.nproc} CPU (${m.cpu}), Node ${m.node}, Linux ${m.kernel}; load average ${m.loadAvg.toFixed(2)} before the run; ${m.pinned ? 'proxy pinned to CPU 0, load generator and upstream to CPU 1' : 'not pinned (taskset unavailable or one CPU)'}.`,
  );
  out.push('');
  out.push(renderTable(r));
  const notes = r.targets.filter((t) => t.status !== 'ok' || t.errors.length);
  if (notes.length) {
    out.push('');
    for (const t of notes) {
      if (t.status !== 'ok') out.push(`- ${t.name}: unavailable: ${t.reason}`);
      for (const e of t.errors) out.push(`- ${t.name}: ${e}`);
    }
  }
  out.push('');
  for (const s of r.subjects) {
    out.push(`### Ratios (${s.subject})`);
    out.push('');
    out.push('| ratio | value |\n|---|---:|');
    for (const [k, v] of Object.entries(s.ratios)) out.push(`| ${k} | ${v === null ? dash : v.toFixed(2)} |`);
    out.push('');
    out.push(`### Performance targets (${s.subject})`);
    out.push('');
    out.push('| check | result | detail |\n|---|---|---|');
    for (const c of s.checks) out.push(`| ${c.name} | ${c.status} | ${c.note ?? ''} |`);
    out.push('');
  }
  if (r.forwarderVsPortkey && Object.values(r.forwarderVsPortkey).some((v) => v !== null)) {
    out.push('### The forwarder against Portkey (how far the bounds relative to Portkey can be reached)');
    out.push('');
    out.push('| ratio | value |\n|---|---:|');
    for (const [k, v] of Object.entries(r.forwarderVsPortkey)) out.push(`| ${k} | ${v === null ? dash : v.toFixed(2)} |`);
    out.push('');
  }
  out.push(`### Task host`);
  out.push('');
  out.push(r.tasks.status === 'ok' ? taskTable(r.tasks) : `not available: ${r.tasks.reason ?? ''}`);
  out.push('');
  return out.join('\n');
}

/** The task-host numbers as a table (in-process gateway, SQLite; see bench/tasks.ts). */
export function taskTable(t: TaskBenchResult): string {
  const rows: string[] = ['| measurement | value |', '|---|---:|'];
  const s = t.submitThroughput;
  if (s)
    rows.push(
      `| submit through a per_task plugin (c=${s.concurrency}, ${s.requests} tasks) | ${s.rps.toLocaleString('en-US')} tasks/s, p50 ${s.p50Ms} ms, p99 ${s.p99Ms} ms |`,
    );
  const p = t.pollerPerTask;
  if (p)
    rows.push(
      `| poller, per_task plugin, ${p.inFlight.toLocaleString('en-US')} tasks due | ${p.tasksPerSecond.toLocaleString('en-US')} tasks/s to SUCCESS (${p.seconds} s) |`,
    );
  const b = t.pollerBatch;
  if (b)
    rows.push(
      `| poller, batch plugin, ${b.inFlight.toLocaleString('en-US')} tasks due | ${b.tasksPerSecond.toLocaleString('en-US')} tasks/s to SUCCESS (${b.seconds} s) |`,
    );
  const h = t.hookCallUs;
  if (h) rows.push(`| one plugin hook call (parseTaskResult, ${h.calls} calls) | p50 ${h.p50} µs, p99 ${h.p99} µs |`);
  return rows.join('\n');
}

export const RESULTS_START = '<!-- results:start -->';
export const RESULTS_END = '<!-- results:end -->';

/** Replaces what lies between the results markers of a document with `block`. */
export function spliceResults(doc: string, block: string): string {
  const a = doc.indexOf(RESULTS_START);
  const b = doc.indexOf(RESULTS_END);
  if (a < 0 || b < a) throw new Error(`the document has no ${RESULTS_START} ... ${RESULTS_END} section`);
  return `${doc.slice(0, a + RESULTS_START.length)}\n${block.trim()}\n${doc.slice(b)}`;
}
