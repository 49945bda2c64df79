/**
 * `npm run bench:streams`: what streams cost, side by side, with the C load generator and upstream of
 * bench/sse (a stream costs them a few hundred bytes and a few microseconds per event, so the proxies
 * are what is measured):
 *
 *   ladder  concurrent 64-event streams, 20 ms apart, all started at once, stepped up until the p99
 *           effective gap grows by more than 20 % (the same rule as `npm run bench`), then the counts
 *           between the last step held and the first failed searched by halves to a thirty-second
 *   cost    CPU per event of the proxy: the same streams with 2 and with 202 events, the difference of
 *           the proxy's CPU over the difference of events, for every caller format against every upstream
 *           format the gateway converts (OpenAI chat, Anthropic messages, Responses); the proxies share
 *           the rounds, each gateway flavor measured back to back with the forwarder's (bench/cost.ts)
 *   slow    N streams (10,000) of one event per second for S seconds (60) on one node: every event in
 *           order, the p99 of the gap the path added, the memory an open stream costs; once with the
 *           calls all at once, once with them arriving over R seconds (10)
 *
 *   npm run bench:streams [-- --phases ladder,cost,slow] [--targets forwarder,gatehouse] [--streams 10000]
 *                         [--seconds 60] [--ramp 10] [--rounds 5] [--workers N] [--quick] [--out DIR | --no-json]
 *
 * Over the open-file limit (2 per stream, not raisable) the proxies run as N workers on one port
 * (`forwarder-workers`, `gatehouse-workers`; bench/nofile.ts); `--workers N` asks for that shape.
 *
 * Prints a markdown report to stdout and writes the JSON to bench/results/streams-<timestamp>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { CPU_LOAD, FdSampler, ROOT, RssSampler, canPin, canRaiseNofile, cpuSecondsPrecise, nofileLimit, rssMb } from './proc.ts';
import { chooseShape, isWorkersTarget } from './nofile.ts';
import { cpuPerEventUs, judgeSlowStreams, perStreamKb, runSseLoad, startSseUpstream, type SseLoadResult } from './sse.ts';
import { LADDER_RAMP_MS, LADDER_RESOLUTION, STREAM_LADDER } from './config.ts';
import { climbLadder, judgeStreamStep, ladderOpenEnded, median, ratio } from './stats.ts';
import { costBaseTarget, costFlavors, costSchedule, pairedRatio, type CostStep, type PairedRatio } from './cost.ts';
import {
  ALL_TARGETS,
  BENCH_CHAT_ONLY_MODEL,
  BENCH_CLAUDE_MODEL,
  BENCH_MODEL,
  CHAT_PATH,
  chatBody,
  targetNamed,
  verifyTarget,
  type RunningTarget,
} from './targets.ts';

const t0 = Date.now();
const log = (msg: string) => process.stderr.write(`[streams ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const f = (v: number | null | undefined, digits = 1) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits) : '–');

export const STREAM_TARGETS = ['direct', 'forwarder', 'gatehouse', 'gatehouse-allowance'];
const PHASES = ['ladder', 'cost', 'slow'] as const;
type Phase = (typeof PHASES)[number];

export interface StreamsOptions {
  targets: string[];
  phases: Phase[];
  streams: number;
  seconds: number;
  rampS: number;
  /** `--rounds N`: rounds of the cost phase (5; 1 with --quick). */
  rounds: number | null;
  /** `--workers N`: the proxies as N processes on one port; null: only when the open-file limit demands it. */
  workers: number | null;
  quick: boolean;
  outDir: string | null;
  help: boolean;
}

export const STREAMS_USAGE =
  'npm run bench:streams -- [--phases ladder,cost,slow] [--targets direct,forwarder,gatehouse,gatehouse-allowance] [--streams 10000] [--seconds 60] [--ramp 10] [--rounds 5] [--workers N] [--quick] [--out DIR | --no-json]';

export function parseStreamsArgs(argv: string[]): StreamsOptions {
  const o: StreamsOptions = {
    targets: STREAM_TARGETS,
    phases: [...PHASES],
    streams: 10_000,
    seconds: 60,
    rampS: 10,
    rounds: null,
    workers: null,
    quick: false,
    outDir: 'bench/results',
    help: false,
  };
  let streamsSet = false;
  let secondsSet = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const flag = a.split('=')[0];
    const value = (): string => {
      const eq = a.indexOf('=');
      if (eq >= 0) return a.slice(eq + 1);
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    const num = (min: number): number => {
      const v = Number(value());
      if (!Number.isFinite(v) || v < min) throw new Error(`${flag} needs a number >= ${min}`);
      return v;
    };
    const list = () =>
      value()
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    switch (flag) {
      case '--targets': {
        const l = list();
        const known = ALL_TARGETS.map((t) => t.name);
        const bad = l.filter((t) => !known.includes(t));
        if (bad.length) throw new Error(`unknown target(s): ${bad.join(', ')} (known: ${known.join(', ')})`);
        o.targets = ['direct', ...l.filter((t) => t !== 'direct')];
        break;
      }
      case '--phases': {
        const l = list();
        const bad = l.filter((p) => !(PHASES as readonly string[]).includes(p));
        if (bad.length || !l.length) throw new Error(`--phases takes ${PHASES.join(', ')}`);
        o.phases = PHASES.filter((p) => l.includes(p));
        break;
      }
      case '--streams':
        o.streams = Math.round(num(1));
        streamsSet = true;
        break;
      case '--seconds':
        o.seconds = Math.round(num(2));
        secondsSet = true;
        break;
      case '--ramp':
        o.rampS = num(0);
        break;
      case '--rounds':
        o.rounds = num(1);
        break;
      case '--workers':
        o.workers = Math.round(num(2));
        break;
      case '--quick':
        o.quick = true;
        break;
      case '--out':
        o.outDir = value();
        break;
      case '--no-json':
        o.outDir = null;
        break;
      case '--help':
      case '-h':
        o.help = true;
        break;
      default:
        throw new Error(`unknown option ${a}`);
    }
  }
  if (o.quick) {
    if (!streamsSet) o.streams = 1000;
    if (!secondsSet) o.seconds = 10;
  }
  return o;
}

/** One way of calling: the caller's API and model, and which upstream format the gateway answers it from. */
export interface Flavor {
  name: string;
  path: string;
  model: string;
  /** The event that ends a complete stream of the caller's format. */
  done: string;
  /** The forwarder's flavor it is compared with (the same caller format, relayed byte for byte). */
  base: string;
}

export const FLAVORS: Flavor[] = [
  { name: 'openai', path: CHAT_PATH, model: BENCH_MODEL, done: '[DONE]', base: 'openai' },
  { name: 'anthropic', path: '/v1/messages', model: BENCH_CLAUDE_MODEL, done: 'message_stop', base: 'anthropic' },
  { name: 'responses', path: '/v1/responses', model: BENCH_MODEL, done: 'response.completed', base: 'responses' },
  { name: 'openai from anthropic', path: CHAT_PATH, model: BENCH_CLAUDE_MODEL, done: '[DONE]', base: 'openai' },
  { name: 'anthropic from openai', path: '/v1/messages', model: BENCH_MODEL, done: 'message_stop', base: 'anthropic' },
  { name: 'responses from openai', path: '/v1/responses', model: BENCH_CHAT_ONLY_MODEL, done: 'response.completed', base: 'responses' },
];

/** The streamed request body of a flavor (about 1 KB of prompt, output bounded high enough that metering never needs the tokenizer). */
export function flavorBody(fl: Flavor): string {
  const content = 'Summarise the following paragraph in one sentence. '.repeat(18).trim();
  if (fl.path === '/v1/messages')
    return JSON.stringify({
      model: fl.model,
      max_tokens: 16384,
      system: 'You are terse.',
      messages: [{ role: 'user', content }],
      stream: true,
    });
  if (fl.path === '/v1/responses')
    return JSON.stringify({ model: fl.model, instructions: 'You are terse.', input: content, max_output_tokens: 16384, stream: true });
  const b = JSON.parse(chatBody(true)) as Record<string, unknown>;
  return JSON.stringify({ ...b, model: fl.model, max_tokens: 16384 });
}

interface Live {
  name: string;
  running: RunningTarget;
  idleMb: number | null;
  errors: string[];
  /** Stops the target and starts a fresh one (the slow phase measures each run from a fresh process). */
  restart(): Promise<void>;
}

interface LadderResult {
  held: number;
  steps: { streams: number; ok: boolean; reason?: string; effectiveGapP99?: number; addedGapP99?: number; ttfbP99?: number }[];
}

interface CostResult {
  flavor: string;
  /** µs of proxy CPU per event (median of the rounds), and each round's. */
  usPerEvent: number | null;
  rounds: (number | null)[];
  /** µs of proxy CPU per call of two events (its start, its two events, its end; median of the rounds). */
  usPerCall?: number | null;
  /** Each round's µs per call. */
  callRounds?: (number | null)[];
  /**
   * Against the forwarder's flavor of the same caller format, measured back to back with it in each round:
   * the per-round ratios, their median and range (per event and per call).
   */
  vsBase?: { target: string; flavor: string; perEvent: PairedRatio; perCall: PairedRatio };
  errors: string[];
}

interface SlowResult {
  mode: 'at once' | 'arriving';
  rampS: number;
  streams: number;
  seconds: number;
  ok: boolean;
  reasons: string[];
  load: SseLoadResult;
  rss: { idleMb: number | null; peakMb: number | null };
  kbPerStream: number | null;
  /** CPU of the proxy's processes (primary and workers) during the run. */
  cpuS: number | null;
  /** The most open files the proxy's process held, and one of its workers (sampled every 2 s). */
  fds: { root: number | null; child: number | null };
  /** Load average (1 min) at the end of the run. */
  loadAfter: number;
}

interface TargetStreams {
  name: string;
  status: 'ok' | 'unavailable';
  reason?: string;
  errors: string[];
  ladder?: LadderResult;
  cost?: CostResult[];
  slow?: SlowResult[];
}

async function setUpstream(upstream: string, s: { delayMs?: number; chunks?: number; gapMs?: number }): Promise<void> {
  const r = await request(`${upstream}/__bench/config`, {
    method: 'POST',
    body: JSON.stringify(s),
    headers: { 'content-type': 'application/json' },
  });
  await r.body.dump();
  if (r.statusCode !== 200) throw new Error(`upstream config: HTTP ${r.statusCode}`);
}

async function phaseLadder(l: Live, upstream: string, quick: boolean): Promise<LadderResult> {
  const chunks = 64;
  const gapMs = 20;
  await setUpstream(upstream, { delayMs: 0, chunks, gapMs });
  const ladder = quick ? STREAM_LADDER.filter((n) => n >= 256 && n <= 2048 && (n & (n - 1)) === 0) : STREAM_LADDER;
  const steps: LadderResult['steps'] = [];
  const res = await climbLadder(
    ladder,
    async (n) => {
      const r = await runSseLoad(
        {
          origin: l.running.url,
          path: CHAT_PATH,
          headers: l.running.headers,
          body: chatBody(true),
          streams: n,
          rampMs: LADDER_RAMP_MS,
          timeoutMs: 30_000,
        },
        CPU_LOAD,
      );
      const eff = r.duration.p99 / (chunks - 1);
      const s = judgeStreamStep(
        { streams: n, errors: r.errors - r.incomplete + r.outOfOrder, incomplete: r.incomplete, gapP99: eff },
        gapMs,
        0.2,
      );
      log(
        `${l.name}: ${n} streams: effective gap p99 ${f(eff, 2)} ms, added gap p99 ${f(r.addedGap.p99, 2)} ms: ${s.ok ? 'held' : s.reason}`,
      );
      steps.push({ ...s, effectiveGapP99: eff, addedGapP99: r.addedGap.p99, ttfbP99: r.ttfb.p99 });
      await sleep(500);
      return s;
    },
    quick ? 0 : 1,
    quick ? 0 : LADDER_RESOLUTION,
  );
  return { held: res.held, steps };
}

/**
 * The cost phase for every running proxy at once: each round measures, per caller format, the forwarder's
 * flavor and each proxy's flavors of that format back to back (bench/cost.ts), so drift of the machine
 * between the two sides stays within the round; the ratio to the forwarder is the median of the per-round
 * ratios.
 */
async function phaseCost(lives: Live[], upstream: string, quick: boolean, rounds = quick ? 1 : 5): Promise<Map<string, CostResult[]>> {
  const streams = 50;
  const gapMs = 5;
  const measured = lives.filter((l) => l.running.pid !== null);
  const results = new Map<string, Map<string, CostResult>>();
  for (const l of lives) {
    const flavors = l.running.pid === null ? [] : costFlavors(l.name, FLAVORS);
    results.set(
      l.name,
      new Map(flavors.map((fl) => [fl.name, { flavor: fl.name, usPerEvent: null, rounds: [], callRounds: [], errors: [] }])),
    );
  }
  const run = async (l: Live, fl: Flavor, result: CostResult, chunks: number) => {
    const pid = l.running.pid!;
    await setUpstream(upstream, { delayMs: 0, chunks, gapMs });
    const c0 = cpuSecondsPrecise(pid);
    const r = await runSseLoad(
      {
        origin: l.running.url,
        path: fl.path,
        headers: l.running.headers,
        body: flavorBody(fl),
        streams,
        timeoutMs: 30_000,
        done: fl.done,
      },
      CPU_LOAD,
    );
    // The settlement and log row of the last streams may still be running: give them a moment.
    await sleep(200);
    const c1 = cpuSecondsPrecise(pid);
    if (r.errors) result.errors.push(`${r.errors} errors (${r.errorSamples.slice(0, 2).join('; ')})`);
    return { cpuS: c0 === null || c1 === null ? NaN : c1 - c0, events: r.contentEvents };
  };
  const schedule = costSchedule(
    measured.map((l) => l.name),
    FLAVORS,
    rounds,
  );
  const at = (step: CostStep) => ({
    l: measured.find((x) => x.name === step.target)!,
    fl: FLAVORS.find((x) => x.name === step.flavor)!,
    result: results.get(step.target)!.get(step.flavor)!,
  });
  // A step that failed (the proxy or the upstream refused) is not tried again; its later rounds are empty.
  const failed = new Set<CostResult>();
  const fail = (result: CostResult, e: unknown) => {
    result.errors.push((e as Error).message.split('\n')[0]);
    failed.add(result);
  };
  for (const step of schedule[0] ?? []) {
    const { l, fl, result } = at(step);
    try {
      await run(l, fl, result, 16); // warm-up
    } catch (e) {
      fail(result, e);
    }
  }
  for (const [k, steps] of schedule.entries()) {
    for (const step of steps) {
      const { l, fl, result } = at(step);
      let perEvent: number | null = null;
      let perCall: number | null = null;
      if (!failed.has(result)) {
        try {
          const small = await run(l, fl, result, 2);
          const big = await run(l, fl, result, 202);
          perEvent = cpuPerEventUs(small, big);
          if (Number.isFinite(small.cpuS)) perCall = (small.cpuS * 1e6) / streams;
        } catch (e) {
          fail(result, e);
        }
      }
      result.rounds.push(perEvent);
      result.callRounds!.push(perCall);
      log(`cost round ${k + 1}/${rounds}: ${l.name}: ${fl.name}: ${f(perEvent, 2)} µs per event, ${f(perCall, 0)} µs per call`);
    }
  }
  const out = new Map<string, CostResult[]>();
  for (const l of lives) {
    const list = [...results.get(l.name)!.values()];
    for (const result of list) {
      const finite = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null && Number.isFinite(x));
      const ev = finite(result.rounds);
      const calls = finite(result.callRounds!);
      result.usPerEvent = ev.length ? median(ev) : null;
      result.usPerCall = calls.length ? median(calls) : null;
      const baseTarget = costBaseTarget(l.name);
      const baseFlavor = FLAVORS.find((x) => x.name === result.flavor)!.base;
      const base = baseTarget === null ? undefined : results.get(baseTarget)?.get(baseFlavor);
      if (base && baseTarget !== null)
        result.vsBase = {
          target: baseTarget,
          flavor: baseFlavor,
          perEvent: pairedRatio(result.rounds, base.rounds),
          perCall: pairedRatio(result.callRounds!, base.callRounds!),
        };
    }
    for (const result of list) {
      const v = result.vsBase?.perEvent;
      log(
        `${l.name}: ${result.flavor}: ${f(result.usPerEvent, 2)} µs of CPU per event${v ? ` (${f(v.median, 2)}× the ${result.vsBase!.target}, rounds ${f(v.min, 2)}–${f(v.max, 2)}×)` : ''}, ${f(result.usPerCall ?? null, 0)} µs per call${result.errors.length ? ` (${result.errors[0]})` : ''}`,
      );
    }
    out.set(l.name, list);
  }
  return out;
}

async function phaseSlow(l: Live, upstream: string, o: StreamsOptions): Promise<SlowResult[]> {
  await setUpstream(upstream, { delayMs: 0, chunks: o.seconds + 1, gapMs: 1000 });
  const out: SlowResult[] = [];
  for (const rampS of [0, o.rampS]) {
    // Each run on a fresh process: the memory a run leaves behind is not the next run's idle.
    if (rampS) await l.restart();
    const pid = l.running.pid;
    await sleep(1000);
    const idle = pid === null ? null : rssMb(pid);
    const sampler = pid === null ? null : new RssSampler(pid, 500).start();
    const fdSampler = pid === null ? null : new FdSampler(pid).start();
    const c0 = pid === null ? null : cpuSecondsPrecise(pid);
    const load = await runSseLoad(
      {
        origin: l.running.url,
        path: CHAT_PATH,
        headers: l.running.headers,
        body: chatBody(true),
        streams: o.streams,
        rampMs: rampS * 1000,
        timeoutMs: (o.seconds + rampS + 60) * 1000,
      },
      CPU_LOAD,
    );
    const c1 = pid === null ? null : cpuSecondsPrecise(pid);
    const peak = sampler ? sampler.stop() : null;
    const fds = fdSampler ? fdSampler.stop() : { root: null, child: null };
    const v = judgeSlowStreams(load, { streams: o.streams, events: o.seconds, maxAddedGapP99Ms: 50 });
    const r: SlowResult = {
      mode: rampS ? 'arriving' : 'at once',
      rampS,
      streams: o.streams,
      seconds: o.seconds,
      ok: v.ok,
      reasons: v.reasons,
      load,
      rss: { idleMb: idle, peakMb: peak },
      kbPerStream: perStreamKb(idle, peak, load.maxOpen),
      cpuS: c0 === null || c1 === null ? null : c1 - c0,
      fds,
      loadAfter: loadavg()[0],
    };
    log(
      `${l.name}: ${o.streams} slow streams ${rampS ? `arriving over ${rampS} s` : 'at once'}: ${load.ok} complete, ${load.outOfOrder} out of order, ` +
        `added gap p99 ${f(load.addedGap.p99, 2)} ms, most open ${load.maxOpen}, open files at most ${fds.root ?? '–'} (process)${isWorkersTarget(l.name) ? ` and ${fds.child ?? '–'} (one worker)` : ''}, RSS ${f(idle, 0)} -> ${f(peak, 0)} MB (${f(r.kbPerStream, 1)} KB per stream): ${v.ok ? 'held' : v.reasons.join('; ')}`,
    );
    out.push(r);
  }
  return out;
}

export function renderStreams(rep: {
  startedAt: string;
  durationS: number;
  loadAvg: number;
  opts: StreamsOptions;
  /** What the open-file limit decided (bench/nofile.ts). */
  shape?: { workers: number; nofile?: number; limit: number | null; notes: string[] };
  targets: TargetStreams[];
}): string {
  const out: string[] = [];
  const ts = rep.targets.filter((t) => t.status === 'ok');
  // Each proxy is held to the forwarder of its own shape (one process, or workers on one port).
  const baseOf = (name: string) => ts.find((t) => t.name === (isWorkersTarget(name) ? 'forwarder-workers' : 'forwarder'));
  const isBase = (name: string) => name === 'direct' || name === 'forwarder' || name === 'forwarder-workers';
  out.push(`## Streams (${rep.opts.quick ? 'quick' : 'full'}, ${rep.startedAt}, ${rep.durationS.toFixed(0)} s)`);
  out.push('');
  out.push(
    `Load average ${rep.loadAvg.toFixed(2)} before the run; ${canPin() ? 'single-process proxies pinned to CPU 0 (`-workers` targets not pinned), load generator and upstream to CPU 1' : 'not pinned'}.`,
  );
  if (rep.shape) {
    const w = rep.targets.some((t) => isWorkersTarget(t.name))
      ? `; \`-workers\` targets: ${rep.shape.workers} workers on one port (node:cluster), unpinned`
      : '';
    out.push(
      `Open files per process: limit ${rep.shape.limit?.toLocaleString('en-US') ?? 'unknown'}${rep.shape.nofile ? `, raised to ${rep.shape.nofile.toLocaleString('en-US')}` : ''}${w}.`,
    );
    for (const note of rep.shape.notes) out.push(`- ${note}`);
  }
  for (const t of rep.targets.filter((x) => x.status !== 'ok' || x.errors.length)) {
    out.push(`- ${t.name}: ${t.status !== 'ok' ? `unavailable: ${t.reason}` : t.errors.join('; ')}`);
  }
  out.push('');
  if (ts.some((t) => t.ladder)) {
    out.push('| concurrent 64-event streams held (20 ms gaps, p99 effective gap within 20 %) | held | vs forwarder |');
    out.push('|---|---:|---:|');
    for (const t of ts.filter((x) => x.ladder)) {
      const held = ladderOpenEnded(t.ladder!.held, t.ladder!.steps) ? `≥ ${t.ladder!.held}` : `${t.ladder!.held}`;
      out.push(`| ${t.name} | ${held} | ${isBase(t.name) ? '–' : f(ratio(t.ladder!.held, baseOf(t.name)?.ladder?.held), 2)} |`);
    }
    out.push('');
  }
  const costed = ts.filter((t) => t.cost?.length);
  if (costed.length) {
    // The ratio to the forwarder is the median of the per-round ratios (each round measures both back to
    // back), not the ratio of the two medians; the range is the lowest and highest round.
    const n = Math.max(...costed.flatMap((t) => t.cost!.map((c) => c.rounds.length)));
    const vs = (p: PairedRatio | undefined) =>
      p?.median == null ? '' : ` (${p.median.toFixed(2)}×, ${p.min!.toFixed(2)}–${p.max!.toFixed(2)})`;
    const note = `median of ${n} round${n === 1 ? '' : 's'}; × the forwarder: median of the per-round ratios (range)`;
    out.push(`| CPU per event (µs), 50 streams, 5 ms gaps; ${note} | ` + costed.map((t) => t.name).join(' | ') + ' |');
    out.push(`|---|${costed.map(() => '---:').join('|')}|`);
    for (const fl of FLAVORS) {
      const cells = costed.map((t) => {
        const c = t.cost!.find((x) => x.flavor === fl.name);
        if (!c) return '–';
        return `${f(c.usPerEvent, 2)}${isBase(t.name) ? '' : vs(c.vsBase?.perEvent)}`;
      });
      out.push(`| ${fl.name} | ${cells.join(' | ')} |`);
    }
    out.push('');
    out.push(`| CPU per call of 2 events (µs), 50 at once; ${note} | ` + costed.map((t) => t.name).join(' | ') + ' |');
    out.push(`|---|${costed.map(() => '---:').join('|')}|`);
    for (const fl of FLAVORS) {
      const cells = costed.map((t) => {
        const c = t.cost!.find((x) => x.flavor === fl.name);
        if (!c) return '–';
        return `${f(c.usPerCall ?? null, 0)}${isBase(t.name) ? '' : vs(c.vsBase?.perCall)}`;
      });
      out.push(`| ${fl.name} | ${cells.join(' | ')} |`);
    }
    out.push('');
  }
  const slowed = ts.filter((t) => t.slow?.length);
  if (slowed.length) {
    const s0 = slowed[0].slow![0];
    out.push(
      `| ${s0.streams.toLocaleString('en-US')} streams, 1 event/s for ${s0.seconds} s | calls | held | complete / out of order | added gap p50 / p99 (ms) | delay p99 (ms) | most open | open files (most in one worker / primary) | RSS idle → peak (MB) | KB per stream | vs forwarder | CPU (s) | load average after |`,
    );
    out.push('|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const t of slowed) {
      for (const s of t.slow!) {
        const fs = baseOf(t.name)?.slow?.find((x) => x.mode === s.mode);
        const n = (v: number | null | undefined) => (typeof v === 'number' ? v.toLocaleString('en-US') : '–');
        const fds = isWorkersTarget(t.name) ? `${n(s.fds?.child)} / ${n(s.fds?.root)}` : n(s.fds?.root);
        out.push(
          `| ${t.name} | ${s.mode === 'at once' ? 'at once' : `over ${s.rampS} s`} | ${s.ok ? 'yes' : `no: ${s.reasons.join('; ')}`} | ${s.load.ok.toLocaleString('en-US')} / ${s.load.outOfOrder} | ${f(s.load.addedGap.p50, 2)} / ${f(s.load.addedGap.p99, 2)} | ${f(s.load.delay.p99, 2)} | ${s.load.maxOpen.toLocaleString('en-US')} | ${fds} | ${t.name === 'direct' ? '–' : `${f(s.rss.idleMb, 0)} → ${f(s.rss.peakMb, 0)}`} | ${f(s.kbPerStream, 1)} | ${isBase(t.name) ? '–' : f(ratio(s.kbPerStream, fs?.kbPerStream), 2)} | ${f(s.cpuS, 1)} | ${f(s.loadAfter, 2)} |`,
        );
      }
    }
    out.push('');
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  let o: StreamsOptions;
  try {
    o = parseStreamsArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\nusage: ${STREAMS_USAGE}\n`);
    process.exit(2);
  }
  if (o.help) {
    process.stdout.write(`usage: ${STREAMS_USAGE}\nSee docs/benchmarks.md.\n`);
    return;
  }
  const startedAt = new Date().toISOString();
  const la = loadavg()[0];
  if (la > availableParallelism() / 2) log(`warning: load average ${f(la, 2)}; other work will skew the numbers`);
  // A proxy process holds two sockets per stream (the caller's and the upstream's); the ladder's top is 4,096.
  const [limit, streams] = [nofileLimit(), o.phases.includes('slow') ? o.streams : 4096];
  const shape = chooseShape({ targets: o.targets, streams, workers: o.workers, limit, canRaise: canRaiseNofile });
  for (const note of shape.notes) log(note);
  const nofile = shape.nofile;
  const up = await startSseUpstream(CPU_LOAD);
  const upstream = `http://127.0.0.1:${up.port}`;
  const results: TargetStreams[] = [];
  const live: Live[] = [];
  try {
    await setUpstream(upstream, { delayMs: 0, chunks: 4, gapMs: 1 });
    for (const name of shape.targets) {
      const target = targetNamed(name, shape.workers)!;
      const res: TargetStreams = { name, status: 'ok', errors: [] };
      results.push(res);
      log(`starting ${name}`);
      let running: RunningTarget | null = null;
      try {
        running = await target.start({ upstream, installPortkey: false, log, nofile });
        await verifyTarget(running, upstream);
        await sleep(500);
        const l: Live = {
          name,
          running,
          idleMb: running.pid === null ? null : rssMb(running.pid),
          errors: res.errors,
          async restart() {
            if (l.running.pid === null) return;
            await l.running.stop();
            l.running = await target.start({ upstream, installPortkey: false, log, nofile });
            await setUpstream(upstream, { delayMs: 0, chunks: 4, gapMs: 1 });
            await verifyTarget(l.running, upstream);
            await setUpstream(upstream, { delayMs: 0, chunks: o.seconds + 1, gapMs: 1000 });
          },
        };
        live.push(l);
      } catch (e) {
        res.status = 'unavailable';
        res.reason = (e as Error).message.split('\n')[0].slice(0, 300);
        log(`${name} unavailable: ${res.reason}`);
        if (running) await running.stop().catch(() => {});
      }
    }
    for (const phase of o.phases) {
      log(`phase ${phase}`);
      if (phase === 'cost') {
        // Every proxy in the same rounds, next to the forwarder (bench/cost.ts).
        try {
          const byTarget = await phaseCost(live, upstream, o.quick, o.rounds ?? undefined);
          for (const [name, cost] of byTarget) results.find((r) => r.name === name)!.cost = cost;
        } catch (e) {
          const msg = `cost: ${(e as Error).message.split('\n')[0]}`;
          for (const l of live) results.find((r) => r.name === l.name)!.errors.push(msg);
          log(msg);
        }
        continue;
      }
      for (const l of live) {
        const res = results.find((r) => r.name === l.name)!;
        try {
          if (phase === 'ladder') res.ladder = await phaseLadder(l, upstream, o.quick);
          else res.slow = await phaseSlow(l, upstream, o);
        } catch (e) {
          const msg = `${phase}: ${(e as Error).message.split('\n')[0]}`;
          res.errors.push(msg);
          log(`${l.name}: ${msg}`);
        }
      }
    }
  } finally {
    for (const l of live) await l.running.stop().catch(() => {});
    await up.proc.stop();
  }
  const rep = {
    startedAt,
    durationS: (Date.now() - t0) / 1000,
    loadAvg: la,
    opts: o,
    shape: { workers: shape.workers, nofile, limit, notes: shape.notes },
    targets: results,
  };
  process.stdout.write(`${renderStreams(rep)}\n`);
  if (o.outDir) {
    const dir = isAbsolute(o.outDir) ? o.outDir : join(ROOT, o.outDir);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `streams-${startedAt.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(rep, null, 2)}\n`);
    writeFileSync(file.replace(/\.json$/, '.md'), `${renderStreams(rep)}\n`);
    log(`JSON and markdown written to ${file.replace(/\.json$/, '.{json,md}')}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    log(`failed: ${(e as Error).stack || e}`);
    process.exit(1);
  });
}
