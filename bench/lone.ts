/**
 * `npm run bench:lone`: where the time of one call at a time goes. The compiled gateway (as installed,
 * or with `--allowances`) and the forwarder, each pinned, in front of the C upstream (bench/sse), get
 * `--calls` non-streamed calls one after another; for each target it reports the added latency (p50 /
 * p99 over the upstream alone), the CPU the proxy used per call (scheduler time, so a busy machine
 * shows in the wall times but less in this) and, for the gateway, its own time per call as it reports
 * it (`x-gatehouse-time-ms`: from the request's arrival to the answer's first byte, less the upstream's
 * wait). With `--profile DIR` the gateway writes a V8 CPU profile of the calls (sampled every 50 µs),
 * summarised by bench/profile-summary.mjs. With `--stream` the calls are streamed, each answered with two
 * events (a call's start and end with as little of the events as a stream can have).
 *
 * With `--delay MS` the upstream answers each call after MS milliseconds (a model's time, during which
 * the gateway's work that overlaps the upstream's costs the caller nothing).
 *
 *   npm run bench:lone -- [--calls 3000] [--allowances] [--stream] [--delay 0] [--profile /tmp/lone]
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { CPU_LOAD, cpuSecondsPrecise } from './proc.ts';
import { startSseUpstream } from './sse.ts';
import { CHAT_PATH, chatBody, forwarder, gatehouseTarget, type RunningTarget } from './targets.ts';
import { percentile } from './stats.ts';

const args = process.argv.slice(2);
const arg = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : dflt;
};
const CALLS = Number(arg('calls', '3000'));
const PROFILE = arg('profile', '');
const STREAM = args.includes('--stream');
/** The upstream's wait before it answers, in ms (0: at once, the bench's default). */
const DELAY_MS = Number(arg('delay', '0'));
const log = (m: string) => process.stderr.write(`[lone] ${m}\n`);

interface Lone {
  name: string;
  p50: number;
  p99: number;
  cpuUsPerCall: number | null;
  ownP50: number | null;
}

async function lone(name: string, t: { url: string; headers: Record<string, string>; pid: number | null }): Promise<Lone> {
  const body = chatBody(STREAM);
  const ms: number[] = [];
  const own: number[] = [];
  const once = async (record: boolean) => {
    const s = performance.now();
    const r = await request(`${t.url}${CHAT_PATH}`, { method: 'POST', headers: t.headers, body });
    await r.body.text();
    if (r.statusCode !== 200) throw new Error(`${name}: HTTP ${r.statusCode}`);
    if (!record) return;
    ms.push(performance.now() - s);
    const g = r.headers['x-gatehouse-time-ms'];
    if (typeof g === 'string') own.push(Number(g));
  };
  for (let i = 0; i < 300; i++) await once(false);
  const c0 = t.pid === null ? null : cpuSecondsPrecise(t.pid);
  for (let i = 0; i < CALLS; i++) await once(true);
  const c1 = t.pid === null ? null : cpuSecondsPrecise(t.pid);
  ms.sort((a, b) => a - b);
  own.sort((a, b) => a - b);
  return {
    name,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    cpuUsPerCall: c0 === null || c1 === null ? null : ((c1 - c0) * 1e6) / CALLS,
    ownP50: own.length ? percentile(own, 50) : null,
  };
}

const up = await startSseUpstream(CPU_LOAD);
const upstream = `http://127.0.0.1:${up.port}`;
if (STREAM || DELAY_MS > 0) {
  const r = await request(`${upstream}/__bench/config`, {
    method: 'POST',
    body: JSON.stringify(STREAM ? { delayMs: DELAY_MS, chunks: 2, gapMs: 0 } : { delayMs: DELAY_MS }),
    headers: { 'content-type': 'application/json' },
  });
  await r.body.dump();
  if (r.statusCode !== 200) throw new Error(`upstream config: HTTP ${r.statusCode}`);
}
if (PROFILE) {
  mkdirSync(PROFILE, { recursive: true });
  process.env.BENCH_CPU_PROF = PROFILE;
  process.env.BENCH_CPU_PROF_INTERVAL = '50';
}
const ctx = { upstream, installPortkey: false, log };
const targets: Array<[string, RunningTarget]> = [
  ['direct', { url: upstream, headers: { 'content-type': 'application/json' }, pid: null, stop: async () => {} }],
  ['forwarder', await forwarder.start(ctx)],
  [
    args.includes('--allowances') ? 'gatehouse-allowance' : 'gatehouse',
    await gatehouseTarget('gatehouse', args.includes('--allowances') ? { QuotaAllowanceEnabled: true } : {}).start(ctx),
  ],
];
const rows: Lone[] = [];
try {
  // Interleaved rounds, so that the machine's drift hits every target alike.
  const parts = new Map<string, Lone[]>();
  for (let round = 0; round < 3; round++) {
    for (const [name, t] of targets) {
      const r = await lone(name, t);
      parts.set(name, [...(parts.get(name) ?? []), r]);
      log(`${name}: p50 ${r.p50.toFixed(3)} ms, p99 ${r.p99.toFixed(3)} ms, CPU ${r.cpuUsPerCall?.toFixed(1) ?? '–'} µs per call`);
    }
  }
  const med = (xs: (number | null)[]) => {
    const v = xs.filter((x): x is number => x !== null).sort((a, b) => a - b);
    return v.length ? v[Math.floor(v.length / 2)] : null;
  };
  for (const [name, rs] of parts) {
    rows.push({
      name,
      p50: med(rs.map((r) => r.p50))!,
      p99: med(rs.map((r) => r.p99))!,
      cpuUsPerCall: med(rs.map((r) => r.cpuUsPerCall)),
      ownP50: med(rs.map((r) => r.ownP50)),
    });
  }
} finally {
  for (const [, t] of targets) await t.stop();
  await up.proc.stop();
}
const direct = rows.find((r) => r.name === 'direct')!;
const fwd = rows.find((r) => r.name === 'forwarder')!;
const lines = [
  `| ${CALLS}${STREAM ? ' streamed' : ''} calls at c=1${DELAY_MS ? `, upstream answering after ${DELAY_MS} ms` : ''}, median of 3 rounds | p50 (ms) | p99 (ms) | added p50 (µs) | vs forwarder | proxy CPU per call (µs) | gateway's own time p50 (µs) |`,
  '|---|---:|---:|---:|---:|---:|---:|',
];
for (const r of rows) {
  const added = r.name === 'direct' ? null : (r.p50 - direct.p50) * 1000;
  const ratio = r.name.startsWith('gatehouse') && added !== null ? added / ((fwd.p50 - direct.p50) * 1000) : null;
  lines.push(
    `| ${r.name} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${added === null ? '–' : added.toFixed(0)} | ${ratio === null ? '–' : `${ratio.toFixed(2)}×`} | ${r.cpuUsPerCall?.toFixed(1) ?? '–'} | ${r.ownP50 === null ? '–' : (r.ownP50 * 1000).toFixed(0)} |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
if (PROFILE) {
  const files = readdirSync(PROFILE).filter((f) => f.endsWith('.cpuprofile'));
  process.stdout.write(
    `\nCPU profiles: ${files.map((f) => join(PROFILE, f)).join(', ')} (node bench/profile-summary.mjs FILE --skip-ms 8000)\n`,
  );
}
process.exit(0);
