/**
 * `npm run bench`: every target side by side in one run, against one loopback upstream.
 *
 *   1. added latency at concurrency 1 (interleaved rounds; target minus direct, p50 and p99)
 *   2. max req/s at a fixed concurrency with no upstream delay, then the sustained req/s with a 20 ms
 *      upstream delay at p99 < 1 s and < 0.1 % errors (open-loop rate search)
 *   3. streams: added TTFB and inter-event gap, then concurrent streams held without the gap growing
 *   4. RSS of each proxy idle and under load
 *   5. task host (a hook, see tasks.ts)
 *
 * Prints a markdown report to stdout and writes JSON to bench/results/<timestamp>.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, release } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { request } from 'undici';
import { LADDER_RAMP_MS, USAGE, parseArgs, plan, type Plan } from './config.ts';
import { LoadClient, ROOT, RssSampler, CPU_LOAD, canPin, cpuSeconds, rssMb, type Proc } from './proc.ts';
import { runSseLoad, startSseUpstream } from './sse.ts';
import { ALL_TARGETS, CHAT_PATH, chatBody, verifyTarget, type RunningTarget, type TargetContext } from './targets.ts';
import { checkTargets, climbLadder, judgeRateProbe, judgeStreamStep, median, ratio, searchRate, summarize } from './stats.ts';
import { numbersOf, renderReport, spliceResults, type Machine, type RunReport, type SubjectReport, type TargetResult } from './report.ts';
import type { ClosedJob, LoadResult, OpenJob } from './load.ts';
import { runTaskBench } from './tasks.ts';

const t0 = Date.now();
const log = (msg: string) => process.stderr.write(`[bench ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A number for the progress log (NaN and missing values as '-'). */
const f = (v: number | null | undefined, digits = 1) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits) : '-');

/** One round of the maximum-rate phase: the load's result and the proxy's CPU share. */
interface MaxRound {
  r: LoadResult;
  share: number | null;
}

interface Live {
  result: TargetResult;
  running: RunningTarget;
}

function machine(): Machine {
  let cpu = 'unknown';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpu;
  } catch {}
  return { nproc: availableParallelism(), cpu, node: process.versions.node, kernel: release(), pinned: canPin(), loadAvg: loadavg()[0] };
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

function spec(t: RunningTarget, stream: boolean, timeoutMs: number) {
  return { origin: t.url, path: CHAT_PATH, headers: t.headers, body: chatBody(stream), stream, timeoutMs };
}

function errText(r: LoadResult): string {
  return r.errors ? `${r.errors}/${r.total} errors (${r.errorSamples.slice(0, 2).join('; ')})` : '';
}

/** Runs `fn` for every live target, recording a failure as that target's phase error. */
async function each(live: Live[], phase: string, fn: (l: Live) => Promise<void>): Promise<void> {
  for (const l of live) {
    try {
      await fn(l);
    } catch (e) {
      const msg = `${phase}: ${(e as Error).message.split('\n')[0]}`;
      l.result.errors.push(msg);
      log(`${l.result.name}: ${msg}`);
    }
  }
}

function sampleLoad(l: Live): () => void {
  if (l.running.pid === null) return () => {};
  const s = new RssSampler(l.running.pid).start();
  return () => {
    const peak = s.stop();
    if (l.result.rss && peak !== null) l.result.rss.loadMb = Math.max(l.result.rss.loadMb ?? 0, peak);
  };
}

async function phaseLatency(live: Live[], load: LoadClient, upstream: string, p: Plan): Promise<void> {
  await setUpstream(upstream, { delayMs: 0 });
  const raw = new Map<string, number[]>();
  for (let round = 0; round < p.latency.rounds; round++) {
    await each(live, 'latency', async (l) => {
      const job: ClosedJob = {
        kind: 'closed',
        ...spec(l.running, false, p.timeoutMs),
        concurrency: 1,
        count: p.latency.perRound,
        warmupCount: round === 0 ? p.latency.warmup : 5,
        raw: true,
      };
      const r = await load.run(job);
      if (r.errors) throw new Error(errText(r));
      raw.set(l.result.name, [...(raw.get(l.result.name) ?? []), ...(r.raw ?? [])]);
    });
  }
  const base = raw.get('direct') ? summarize(raw.get('direct')!) : null;
  for (const l of live) {
    const samples = raw.get(l.result.name);
    if (!samples?.length || l.result.errors.some((e) => e.startsWith('latency'))) continue;
    const s = summarize(samples);
    l.result.latency = {
      n: s.n,
      p50: s.p50,
      p99: s.p99,
      mean: s.mean,
      addedP50: base ? s.p50 - base.p50 : null,
      addedP99: base ? s.p99 - base.p99 : null,
    };
    log(`${l.result.name}: c=1 p50 ${f(s.p50, 3)} ms, p99 ${f(s.p99, 3)} ms (${s.n} requests)`);
  }
}

/**
 * The maximum rate in `rounds` interleaved rounds (every target once per round, in turn), so that the
 * machine's drift during the phase hits every target alike. Each figure is the median of the rounds';
 * `rounds` keeps every round's requests per CPU-second.
 */
async function phaseMaxRate(live: Live[], load: LoadClient, upstream: string, p: Plan): Promise<void> {
  await setUpstream(upstream, { delayMs: 0 });
  const m = p.maxRate;
  const rounds = new Map<string, MaxRound[]>();
  for (let round = 0; round < m.rounds; round++) {
    await each(live, 'max rate', async (l) => {
      const done = sampleLoad(l);
      try {
        const pid = l.running.pid;
        // CPU used by the proxy over the whole job (warm-up included), against the job's wall time.
        const cpu0 = pid === null ? null : cpuSeconds(pid);
        const w0 = Date.now();
        const r = await load.run({
          kind: 'closed',
          ...spec(l.running, false, p.timeoutMs),
          concurrency: m.concurrency,
          durationMs: m.durationMs,
          warmupMs: round === 0 ? m.warmupMs : m.roundWarmupMs,
        });
        const cpu1 = pid === null ? null : cpuSeconds(pid);
        const share = cpu0 === null || cpu1 === null ? null : (cpu1 - cpu0) / ((Date.now() - w0) / 1000);
        rounds.set(l.result.name, [...(rounds.get(l.result.name) ?? []), { r, share }]);
        log(
          `${l.result.name}: max ${Math.round(r.rps)} req/s at c=${m.concurrency} (round ${round + 1}/${m.rounds}), p99 ${f(r.latency.p99, 2)} ms${share === null ? '' : `, proxy CPU ${Math.round(share * 100)} %`} ${errText(r)}`,
        );
        if (r.errors) l.result.errors.push(`max rate: ${errText(r)}`);
      } finally {
        done();
      }
      await sleep(300);
    });
  }
  for (const l of live) {
    const rs = rounds.get(l.result.name);
    if (!rs?.length) continue;
    const shares = rs.map((x) => x.share);
    const perCpu = rs.map((x) => (x.share ? x.r.rps / x.share : null));
    l.result.maxRate = {
      concurrency: m.concurrency,
      rps: median(rs.map((x) => x.r.rps)),
      p50: median(rs.map((x) => x.r.latency.p50)),
      p99: median(rs.map((x) => x.r.latency.p99)),
      errors: rs.reduce((n, x) => n + x.r.errors, 0),
      total: rs.reduce((n, x) => n + x.r.total, 0),
      cpu: shares.every((x) => x !== null) ? median(shares as number[]) : null,
      perCpuSecond: perCpu.every((x) => x !== null) ? median(perCpu as number[]) : null,
      rounds: perCpu.map((x) => (x === null ? null : Math.round(x))),
    };
  }
}

async function phaseSustained(live: Live[], load: LoadClient, upstream: string, p: Plan): Promise<void> {
  const s = p.sustained;
  await setUpstream(upstream, { delayMs: s.delayMs });
  await each(live, 'sustained', async (l) => {
    if (l.result.name === 'direct' && !s.direct) return;
    const done = sampleLoad(l);
    try {
      // Start near the closed-loop maximum: the search then needs a few probes only.
      const hint = l.result.maxRate?.rps ? l.result.maxRate.rps * 0.6 : 500;
      // Warm the target, the pools and the load generator's open-loop path; not recorded.
      await load.run({
        kind: 'open',
        ...spec(l.running, false, p.timeoutMs),
        rate: Math.max(50, Math.round(hint / 2)),
        durationMs: s.prewarmMs,
        warmupMs: 0,
        connections: s.connections,
        maxInFlight: s.maxInFlight,
        abortLatencyMs: s.p99Ms,
      });
      await sleep(s.pauseMs);
      const res = await searchRate(
        { start: Math.max(50, hint), factor: s.factor, precision: s.precision, maxProbes: s.maxProbes, min: 10, retries: s.retries },
        async (rate) => {
          const job: OpenJob = {
            kind: 'open',
            ...spec(l.running, false, p.timeoutMs),
            rate,
            durationMs: s.probeMs,
            warmupMs: s.warmupMs,
            connections: s.connections,
            maxInFlight: s.maxInFlight,
            abortLatencyMs: s.p99Ms,
          };
          const r = await load.run(job);
          const verdict = r.aborted
            ? { ok: false, reason: r.aborted }
            : judgeRateProbe(
                { offered: rate, achieved: r.achieved ?? 0, p99: r.latency.p99, errors: r.errors, total: r.total },
                { p99Ms: s.p99Ms, maxErrorRatio: s.maxErrorRatio },
              );
          log(
            `${l.result.name}: ${rate} req/s offered -> ${Math.round(r.achieved ?? 0)} delivered, p99 ${f(r.latency.p99, 1)} ms, ${r.errors} errors: ${verdict.ok ? 'ok' : verdict.reason}`,
          );
          await sleep(verdict.ok ? s.pauseMs : s.pauseMs * 2);
          return {
            rate,
            ok: verdict.ok,
            reason: verdict.reason,
            detail: { achieved: r.achieved, p99: r.latency.p99, errors: r.errors, errorSamples: r.errorSamples },
          };
        },
      );
      l.result.sustained = {
        delayMs: s.delayMs,
        rps: res.best,
        failedAt: res.failedAt,
        probes: res.probes.map((pr) => ({ rate: pr.rate, ok: pr.ok, reason: pr.reason, ...pr.detail })),
      };
      log(`${l.result.name}: sustained ${res.best} req/s with ${s.delayMs} ms upstream delay`);
    } finally {
      done();
    }
  });
}

async function phaseStreams(live: Live[], load: LoadClient, upstream: string, p: Plan): Promise<void> {
  const st = p.stream;
  await setUpstream(upstream, { delayMs: 0, chunks: st.chunks, gapMs: st.gapMs });
  const timeoutMs = Math.max(p.timeoutMs, st.chunks * st.gapMs * 4);
  const raw = new Map<string, { ttfb: number[]; gaps: number[] }>();
  // TTFB at concurrency 1 on short streams.
  await setUpstream(upstream, { delayMs: 0, chunks: 2, gapMs: st.gapMs });
  await each(live, 'stream TTFB', async (l) => {
    const r = await load.run({
      kind: 'closed',
      ...spec(l.running, true, timeoutMs),
      concurrency: 1,
      count: st.ttfbStreams,
      warmupCount: 5,
      raw: true,
    });
    if (r.errors) throw new Error(errText(r));
    raw.set(l.result.name, { ttfb: r.rawTtfb ?? [], gaps: [] });
  });
  // Gaps on full streams, a few at a time.
  await setUpstream(upstream, { delayMs: 0, chunks: st.chunks, gapMs: st.gapMs });
  await each(live, 'stream gaps', async (l) => {
    const done = sampleLoad(l);
    try {
      const r = await load.run({
        kind: 'closed',
        ...spec(l.running, true, timeoutMs),
        concurrency: st.concurrency,
        count: st.gapStreams,
        warmupCount: st.gapStreams > st.concurrency ? st.concurrency : 0,
        raw: true,
      });
      if (r.errors) throw new Error(errText(r));
      const prev = raw.get(l.result.name);
      if (prev) prev.gaps = r.rawGaps ?? [];
    } finally {
      done();
    }
  });
  const base = raw.get('direct');
  const bt = base ? summarize(base.ttfb) : null;
  const bg = base ? summarize(base.gaps) : null;
  for (const l of live) {
    const r = raw.get(l.result.name);
    if (!r || !r.gaps.length) continue;
    const t = summarize(r.ttfb);
    const g = summarize(r.gaps);
    l.result.stream = {
      n: t.n,
      errors: 0,
      ttfbP50: t.p50,
      ttfbP99: t.p99,
      gapP50: g.p50,
      gapP99: g.p99,
      addedTtfbP50: bt ? t.p50 - bt.p50 : null,
      addedTtfbP99: bt ? t.p99 - bt.p99 : null,
      addedGapP50: bg ? g.p50 - bg.p50 : null,
      addedGapP99: bg ? g.p99 - bg.p99 : null,
    };
    log(`${l.result.name}: stream TTFB p50 ${f(t.p50, 2)} ms p99 ${f(t.p99, 2)} ms, gap p50 ${f(g.p50, 2)} p99 ${f(g.p99, 2)} ms`);
  }
  await each(live, 'stream ladder', async (l) => {
    const done = sampleLoad(l);
    try {
      const res = await climbLadder(st.ladder, (n) => ladderStep(l, n, st, timeoutMs), st.retries, st.resolution);
      l.result.streamsHeld = { held: res.held, steps: res.steps };
    } finally {
      done();
    }
  });
}

/**
 * One step of the ladder: `n` streams started at once by the C load generator (bench/sse), held when
 * every stream completes in order and the p99 effective gap (request to last event over the gaps) stays
 * within the tolerance.
 */
async function ladderStep(l: Live, n: number, st: Plan['stream'], timeoutMs: number) {
  const r = await runSseLoad(
    {
      origin: l.running.url,
      path: CHAT_PATH,
      headers: l.running.headers,
      body: chatBody(true),
      streams: n,
      rampMs: LADDER_RAMP_MS,
      timeoutMs,
    },
    CPU_LOAD,
  );
  const effGapP99 = r.duration.p99 / (st.chunks - 1);
  const failed = r.errors - r.incomplete + r.outOfOrder;
  const step = judgeStreamStep({ streams: n, errors: failed, incomplete: r.incomplete, gapP99: effGapP99 }, st.gapMs, st.tolerance);
  const errs = r.errors ? `, ${r.errors}/${n} errors (${r.errorSamples.slice(0, 2).join('; ')})` : '';
  log(
    `${l.result.name}: ${n} streams: effective gap p99 ${f(effGapP99, 2)} ms, TTFB p99 ${f(r.ttfb.p99, 1)} ms, added gap p99 ${f(r.addedGap.p99, 2)} ms${errs}: ${step.ok ? 'held' : step.reason}`,
  );
  await sleep(300);
  return { ...step, ttfbP99: r.ttfb.p99, addedGapP99: r.addedGap.p99, effectiveGapP99: effGapP99 };
}

async function main(): Promise<void> {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\nusage: ${USAGE}\n`);
    process.exit(2);
  }
  if (opts.help) {
    process.stdout.write(`usage: ${USAGE}\nSee bench/README.md.\n`);
    return;
  }
  const p = plan(opts.quick);
  const m = machine();
  const startedAt = new Date().toISOString();
  if (m.loadAvg > m.nproc / 2) log(`warning: load average ${f(m.loadAvg, 2)} on ${m.nproc} CPU; other work will skew the numbers`);
  log(
    `${opts.quick ? 'quick' : 'full'} run of ${opts.targets.join(', ')} on ${m.nproc} CPU, Node ${m.node}${m.pinned ? '' : ' (not pinned: taskset unavailable or one CPU)'}`,
  );

  const procs: Proc[] = [];
  const live: Live[] = [];
  const results: TargetResult[] = [];
  let load: LoadClient | null = null;
  const cleanup = async () => {
    for (const l of live) await l.running.stop().catch(() => {});
    if (load) await load.close().catch(() => {});
    for (const pr of procs) await pr.stop().catch(() => {});
  };
  process.once('SIGINT', () => {
    log('interrupted; stopping children');
    void cleanup().finally(() => process.exit(130));
  });

  try {
    const up = await startSseUpstream(CPU_LOAD);
    procs.push(up.proc);
    const upstream = `http://127.0.0.1:${up.port}`;
    load = await LoadClient.start();
    const ctx: TargetContext = { upstream, installPortkey: opts.installPortkey, log };

    // Started together (start-up is most of a quick run's set-up time), then probed one at a time: the
    // probe counts requests at the upstream.
    const started = opts.targets.map((name) => {
      const target = ALL_TARGETS.find((t) => t.name === name)!;
      log(`starting ${name}`);
      return target.start(ctx).then(
        (r) => ({ ok: true as const, r }),
        (e: unknown) => ({ ok: false as const, e }),
      );
    });
    // Short probe streams whether or not a target forwards the x-bench-* headers (the phases set their own).
    await setUpstream(upstream, { delayMs: 0, chunks: 4, gapMs: 1 });
    for (const [i, name] of opts.targets.entries()) {
      const result: TargetResult = { name, status: 'ok', errors: [] };
      results.push(result);
      let running: RunningTarget | null = null;
      try {
        const s = await started[i];
        if (!s.ok) throw s.e;
        running = s.r;
        await verifyTarget(running, upstream);
        await sleep(300);
        result.rss = { idleMb: running.pid === null ? null : rssMb(running.pid), loadMb: null };
        live.push({ result, running });
        log(`${name} ready at ${running.url}${running.pid ? ` (pid ${running.pid}, ${f(result.rss.idleMb, 0)} MB)` : ''}`);
      } catch (e) {
        result.status = 'unavailable';
        result.reason = (e as Error).message.split('\n')[0].slice(0, 400);
        log(`${name} unavailable: ${result.reason}`);
        if (running) await running.stop().catch(() => {});
      }
    }
    if (!live.some((l) => l.result.name === 'direct')) throw new Error('the direct path is not available; nothing to measure against');

    log('phase 1: added latency at concurrency 1');
    await phaseLatency(live, load, upstream, p);
    log('phase 2: max rate without delay, then sustained rate with upstream delay');
    await phaseMaxRate(live, load, upstream, p);
    await phaseSustained(live, load, upstream, p);
    log('phase 3: streams');
    await phaseStreams(live, load, upstream, p);
    log('phase 5: task host');
    const tasks = await runTaskBench({ quick: opts.quick, log });

    const by = (n: string) => results.find((r) => r.name === n);
    const fwd = by('forwarder');
    const pk = by('portkey');
    const subjects = opts.subjects
      .filter((s) => opts.targets.includes(s))
      .map((name): SubjectReport => {
        const subj = by(name);
        const sn = numbersOf(subj);
        const checks = checkTargets(sn, numbersOf(fwd), numbersOf(pk));
        if (!sn) for (const c of checks) c.note = `${name} unavailable`;
        return {
          subject: name,
          ratios: {
            [`sustained rps ${name}/forwarder`]: ratio(subj?.sustained?.rps, fwd?.sustained?.rps),
            [`sustained rps ${name}/portkey`]: ratio(subj?.sustained?.rps, pk?.sustained?.rps),
            [`added p50 ${name}/forwarder`]: ratio(subj?.latency?.addedP50, fwd?.latency?.addedP50),
            [`added p99 ${name}/forwarder`]: ratio(subj?.latency?.addedP99, fwd?.latency?.addedP99),
            [`added p50 ${name}/portkey`]: ratio(subj?.latency?.addedP50, pk?.latency?.addedP50),
            [`added p99 ${name}/portkey`]: ratio(subj?.latency?.addedP99, pk?.latency?.addedP99),
            [`stream added TTFB ${name}/forwarder`]: ratio(subj?.stream?.addedTtfbP50, fwd?.stream?.addedTtfbP50),
            [`stream added TTFB ${name}/portkey`]: ratio(subj?.stream?.addedTtfbP50, pk?.stream?.addedTtfbP50),
            [`concurrent streams held ${name}/forwarder`]: ratio(subj?.streamsHeld?.held, fwd?.streamsHeld?.held),
          },
          checks,
        };
      });
    const report: RunReport = {
      startedAt,
      mode: opts.quick ? 'quick' : 'full',
      durationS: (Date.now() - t0) / 1000,
      machine: m,
      plan: p,
      targets: results,
      subjects,
      forwarderVsPortkey: {
        'sustained rps forwarder/portkey': ratio(fwd?.sustained?.rps, pk?.sustained?.rps),
        'added p50 forwarder/portkey': ratio(fwd?.latency?.addedP50, pk?.latency?.addedP50),
        'added p99 forwarder/portkey': ratio(fwd?.latency?.addedP99, pk?.latency?.addedP99),
      },
      tasks,
    };
    process.stdout.write(`${renderReport(report)}\n`);
    if (opts.outDir) {
      const dir = isAbsolute(opts.outDir) ? opts.outDir : join(ROOT, opts.outDir);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${startedAt.replace(/[:.]/g, '-')}.json`);
      writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
      writeFileSync(file.replace(/\.json$/, '.md'), `${renderReport(report)}\n`);
      log(`JSON and markdown written to ${file.replace(/\.json$/, '.{json,md}')}`);
    }
    if (opts.updateDocs) {
      const doc = join(ROOT, 'docs/benchmarks.md');
      writeFileSync(
        doc,
        spliceResults(
          readFileSync(doc, 'utf8'),
          renderReport(report)
            .replace(/^## /, '### ')
            .replace(/^### (Ratios|Targets|Task|The forwarder)/gm, '#### $1'),
        ),
      );
      log(`report written into ${doc}`);
    }
  } finally {
    await cleanup();
  }
  log(`done in ${f((Date.now() - t0) / 1000, 0)} s`);
}

main().catch((e) => {
  log(`failed: ${(e as Error).stack || e}`);
  process.exit(1);
});
