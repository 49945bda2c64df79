/**
 * `npm run bench:ladder-split`: where a proxy's CPU goes at the ladder's own load. The ladder (bench:streams)
 * says how many 20 ms streams a proxy holds, not why; the cost phase splits events from calls at 50
 * streams, where a proxy's per-event work costs less than at hundreds. This runs N streams of 20 ms gaps
 * arriving over a second (a ladder step) twice, with 32 and with 96 events per stream, reads the proxy's
 * CPU for each (the scheduler's account, every thread) and splits it into CPU per event and per call
 * (`splitStreamCost`, bench/cost.ts), round by round, the targets in turn (reversed every other round);
 * ratios to the forwarder are the medians of the per-round ratios.
 *
 *   npm run bench:ladder-split -- [--streams 400,700] [--rounds 5] [--targets forwarder,forwarder-readable,gatehouse]
 *
 * `forwarder-readable` is the forwarder reading the upstream body as undici's `Readable` (forwarder.ts
 * `--readable`), as the gateway does. `gatehouse@<dir>` serves the compiled build of another checkout
 * (`<dir>/packages/gateway/bin/start.mjs`, built with `node scripts/build-gateway.mjs` there), so two
 * builds share the rounds. Markdown on stdout.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { startSseUpstream, runSseLoad } from './sse.ts';
import { targetNamed, CHAT_PATH, chatBody } from './targets.ts';
import { CPU_LOAD, CPU_PROXY, cpuSecondsPrecise, startService } from './proc.ts';
import { pairedRatio, splitStreamCost } from './cost.ts';
import { LADDER_RAMP_MS } from './config.ts';
import { median } from './stats.ts';

const args = process.argv.slice(2);
const arg = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : dflt;
};
const COUNTS = arg('streams', '400,700').split(',').map(Number);
const ROUNDS = Number(arg('rounds', '5'));
const TARGETS = arg('targets', 'forwarder,forwarder-readable,gatehouse').split(',');
const EVENTS = [32, 96] as const;
const GAP_MS = 20;
const log = (m: string) => process.stderr.write(`[split ${new Date().toISOString().slice(11, 19)}] ${m}\n`);

interface Live {
  name: string;
  url: string;
  headers: Record<string, string>;
  pid: number;
  stop: () => Promise<void>;
}

async function start(name: string, upstream: string): Promise<Live> {
  if (name === 'forwarder-readable') {
    const { proc, port } = await startService(name, 'forwarder.ts', ['--upstream', upstream, '--readable'], CPU_PROXY);
    return {
      name,
      url: `http://127.0.0.1:${port}`,
      headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
      pid: proc.pid!,
      stop: () => proc.stop(),
    };
  }
  const [target, dir] = name.split('@');
  const t = targetNamed(target);
  if (!t) throw new Error(`unknown target ${name}`);
  const before = process.env.BENCH_GATEHOUSE_MAIN;
  if (dir) process.env.BENCH_GATEHOUSE_MAIN = join(dir, 'packages/gateway/bin/start.mjs');
  try {
    const r = await t.start({ upstream, installPortkey: false, log } as never);
    return { name, url: r.url, headers: r.headers, pid: r.pid!, stop: r.stop };
  } finally {
    if (before === undefined) delete process.env.BENCH_GATEHOUSE_MAIN;
    else process.env.BENCH_GATEHOUSE_MAIN = before;
  }
}

const up = await startSseUpstream(CPU_LOAD);
const upstream = `http://127.0.0.1:${up.port}`;
const setEvents = async (chunks: number) => {
  const r = await request(`${upstream}/__bench/config`, {
    method: 'POST',
    body: JSON.stringify({ delayMs: 0, chunks, gapMs: GAP_MS }),
    headers: { 'content-type': 'application/json' },
  });
  await r.body.dump();
};
const live: Live[] = [];
for (const name of TARGETS) live.push(await start(name, upstream));
const step = async (l: Live, streams: number): Promise<number> => {
  const c0 = cpuSecondsPrecise(l.pid)!;
  const r = await runSseLoad(
    { origin: l.url, path: CHAT_PATH, headers: l.headers, body: chatBody(true), streams, rampMs: LADDER_RAMP_MS, timeoutMs: 60_000 },
    CPU_LOAD,
  );
  const c1 = cpuSecondsPrecise(l.pid)!;
  if (r.errors) log(`${l.name}: ${r.errors} of ${streams} streams failed`);
  await new Promise((res) => setTimeout(res, 300));
  return ((c1 - c0) * 1e6) / streams;
};

const lines = [
  `| streams, target | CPU per event (µs): median (range) | × the forwarder | CPU per call (µs): median (range) | × the forwarder |`,
  '|---|---:|---:|---:|---:|',
];
try {
  // A warm-up step per target (compilation, connections).
  await setEvents(EVENTS[0]);
  for (const l of live) await step(l, 200);
  for (const n of COUNTS) {
    const perEvent: Record<string, number[]> = {};
    const perCall: Record<string, number[]> = {};
    for (let k = 0; k < ROUNDS; k++) {
      const cpu: Record<string, number[]> = {};
      for (const events of EVENTS) {
        await setEvents(events);
        for (const l of k % 2 ? [...live].reverse() : live) (cpu[l.name] ??= []).push(await step(l, n));
      }
      for (const l of live) {
        const [a, b] = cpu[l.name];
        const s = splitStreamCost({ cpuPerStreamUs: a, events: EVENTS[0] }, { cpuPerStreamUs: b, events: EVENTS[1] })!;
        (perEvent[l.name] ??= []).push(s.perEventUs);
        (perCall[l.name] ??= []).push(s.perCallUs);
      }
      log(
        `${n} streams, round ${k + 1}: ${live.map((l) => `${l.name} ${perEvent[l.name][k].toFixed(1)} µs/event, ${perCall[l.name][k].toFixed(0)} µs/call`).join('; ')}`,
      );
    }
    const range = (x: number[], d: number) => `${median(x).toFixed(d)} (${Math.min(...x).toFixed(d)}–${Math.max(...x).toFixed(d)})`;
    for (const l of live) {
      const base = l.name === 'forwarder' || !perEvent.forwarder;
      const re = base ? null : pairedRatio(perEvent[l.name], perEvent.forwarder);
      const rc = base ? null : pairedRatio(perCall[l.name], perCall.forwarder);
      lines.push(
        `| ${n}, ${l.name} | ${range(perEvent[l.name], 1)} | ${re?.median ? `${re.median.toFixed(2)}×` : '–'} | ${range(perCall[l.name], 0)} | ${rc?.median ? `${rc.median.toFixed(2)}×` : '–'} |`,
      );
    }
  }
} finally {
  for (const l of live) await l.stop();
  await up.proc.stop();
}
process.stdout.write(`${lines.join('\n')}\n`);
process.exit(0);
