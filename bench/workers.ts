/**
 * `npm run bench:workers`: does Gatehouse with WORKERS=2 serve 1.7× the requests per second of WORKERS=1
 * on a 2-CPU machine? The Node load generator and upstream of `npm run bench` need a CPU of their own,
 * so here the load comes from `wrk` and the upstream is `nginx` answering a fixed chat completion: both
 * cost a small fraction of a CPU at these rates, leaving the CPUs to the gateway.
 *
 *   npm run bench:workers [-- --conns 64,128 --rounds 3 --duration 10 --warmup 3 --threads 1]
 *   npm run bench:workers -- --database postgres [--pg postgres://postgres@127.0.0.1:5432]
 *   npm run bench:workers -- --allowances     (QuotaAllowanceEnabled: the ledger off the call's path)
 *
 * Both gateways (compiled, unpinned, each on a fresh database) run side by side on their own ports;
 * the wrk rounds alternate between them. Every measured round is checked: no non-2xx answer, no socket
 * error, and the upstream saw at least as many calls as wrk counted answers. A markdown table goes to
 * stdout (docs/benchmarks.md), progress to stderr.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import { cpuSeconds, freePort, lastLines, spawnProc, type Proc } from './proc.ts';
import { median } from './stats.ts';
import { BENCH_KEY, BENCH_MODEL, CHAT_PATH, chatBody, gatehouseTarget, type RunningTarget } from './targets.ts';

// ---------------------------------------------------------------------------------------------------
// Pure parts (bench/workers.test.ts)

/** The answer of the upstream: the same completion bench/upstream.ts returns for `prompt` (about 0.5 KB). */
export function completionJson(prompt: string, model = BENCH_MODEL): string {
  const promptTokens = Math.max(1, Math.round(prompt.length / 4));
  return JSON.stringify({
    id: 'chatcmpl-bench0',
    object: 'chat.completion',
    created: 1795651200,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Gatehouse benchmark reply. '.repeat(8).trim() },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: promptTokens, completion_tokens: 48, total_tokens: promptTokens + 48 },
  });
}

/** An nginx string literal in single quotes. */
function nginxString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * nginx.conf for the upstream: one worker process, in the foreground, every path under `prefix`.
 * `POST /v1/chat/completions` answers `completion`; `GET /v1/models` one model; `/__bench/stats` is
 * stub_status (its `requests` counter tells whether the gateway's calls reached the upstream).
 */
export function nginxConf(o: { port: number; prefix: string; completion: string; user?: string }): string {
  const models = JSON.stringify({ object: 'list', data: [{ id: BENCH_MODEL, object: 'model', created: 0, owned_by: 'bench' }] });
  return `${[
    ...(o.user ? [`user ${o.user};`] : []),
    'daemon off;',
    'master_process on;',
    'worker_processes 1;',
    `pid ${o.prefix}/nginx.pid;`,
    `error_log ${o.prefix}/error.log warn;`,
    'events { worker_connections 4096; }',
    'http {',
    '  access_log off;',
    `  client_body_temp_path ${o.prefix}/client_body;`,
    `  proxy_temp_path ${o.prefix}/proxy;`,
    `  fastcgi_temp_path ${o.prefix}/fastcgi;`,
    `  uwsgi_temp_path ${o.prefix}/uwsgi;`,
    `  scgi_temp_path ${o.prefix}/scgi;`,
    '  keepalive_requests 10000000;',
    '  keepalive_timeout 300s;',
    '  client_max_body_size 1m;',
    '  server {',
    `    listen 127.0.0.1:${o.port};`,
    '    location = /v1/chat/completions {',
    '      default_type application/json;',
    `      return 200 ${nginxString(o.completion)};`,
    '    }',
    '    location = /v1/models {',
    '      default_type application/json;',
    `      return 200 ${nginxString(models)};`,
    '    }',
    '    location = /__bench/stats { stub_status; }',
    '    location / { return 404; }',
    '  }',
    '}',
  ].join('\n')}\n`;
}

/** The `requests` counter of an nginx stub_status page. */
export function parseStubStatus(text: string): number {
  const m = /server accepts handled requests\s*\n\s*(\d+)\s+(\d+)\s+(\d+)/.exec(text);
  if (!m) throw new Error(`not a stub_status page: ${text.slice(0, 120)}`);
  return Number(m[3]);
}

/** The wrk script: every request a POST of `body` with these headers. */
export function wrkScript(body: string, headers: Record<string, string>): string {
  let eq = '';
  while (body.includes(`]${eq}]`)) eq += '=';
  const lines = ['wrk.method = "POST"', `wrk.body = [${eq}[${body}]${eq}]`];
  for (const [k, v] of Object.entries(headers)) lines.push(`wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`);
  return `${lines.join('\n')}\n`;
}

export interface WrkResult {
  requests: number;
  seconds: number;
  rps: number;
  /** Latency percentiles in ms (from --latency). */
  p50: number;
  p75: number;
  p90: number;
  p99: number;
  /** Answers with a status of 400 or more ("Non-2xx or 3xx responses"). */
  non2xx: number;
  socket: { connect: number; read: number; write: number; timeout: number };
}

/** A wrk duration ("812.00us", "1.23ms", "2.01s", "1.00m") in ms. */
export function parseWrkDuration(s: string): number {
  const m = /^([\d.]+)(us|ms|s|m|h)$/.exec(s.trim());
  if (!m) throw new Error(`not a wrk duration: ${s}`);
  const unit = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'us' | 'ms' | 's' | 'm' | 'h'];
  return Number(m[1]) * unit;
}

/** Reads wrk's report (run with --latency). Throws when the numbers it must have are missing. */
export function parseWrk(out: string): WrkResult {
  const done = /(\d+) requests in ([\d.]+)(us|ms|s|m|h),/.exec(out);
  const rps = /Requests\/sec:\s*([\d.]+)/.exec(out);
  if (!done || !rps) throw new Error(`no wrk summary in: ${out.slice(0, 300)}`);
  const pct = (p: string) => {
    const m = new RegExp(`^\\s*${p}%\\s+(\\S+)\\s*$`, 'm').exec(out);
    if (!m) throw new Error(`no ${p}% latency in wrk's report (run it with --latency)`);
    return parseWrkDuration(m[1]);
  };
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const non = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  return {
    requests: Number(done[1]),
    seconds: parseWrkDuration(`${done[2]}${done[3]}`) / 1000,
    rps: Number(rps[1]),
    p50: pct('50'),
    p75: pct('75'),
    p90: pct('90'),
    p99: pct('99'),
    non2xx: non ? Number(non[1]) : 0,
    socket: sock
      ? { connect: Number(sock[1]), read: Number(sock[2]), write: Number(sock[3]), timeout: Number(sock[4]) }
      : { connect: 0, read: 0, write: 0, timeout: 0 },
  };
}

/** user + system and children's user + system of a /proc/<pid>/stat line, in seconds (USER_HZ 100). */
export function statCpu(stat: string): { self: number; children: number } {
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { self: (Number(rest[11]) + Number(rest[12])) / 100, children: (Number(rest[13]) + Number(rest[14])) / 100 };
}

export interface Round {
  conns: number;
  round: number;
  workers: number;
  wrk: WrkResult;
  /** CPU used during the measured run, in % of one CPU. */
  cpu: { gateway: number; nginx: number; wrk: number; machine: number };
  /** Chat completions the upstream served during the run. */
  upstream: number;
}

/** Why a round does not count, or null when every answer was 2xx and reached the upstream. */
export function roundProblem(r: Pick<Round, 'wrk' | 'upstream'>): string | null {
  const w = r.wrk;
  const errs: string[] = [];
  if (w.requests === 0) errs.push('no answers');
  if (w.non2xx) errs.push(`${w.non2xx} non-2xx`);
  const s = w.socket;
  const sockets = s.connect + s.read + s.write + s.timeout;
  if (sockets) errs.push(`socket errors ${s.connect}/${s.read}/${s.write}/${s.timeout} (connect/read/write/timeout)`);
  if (r.upstream < w.requests) errs.push(`upstream saw ${r.upstream} of ${w.requests}`);
  return errs.length ? errs.join(', ') : null;
}

export interface Verdict {
  conns: number;
  one: number;
  two: number;
  ratio: number;
  pass: boolean;
  invalid: number;
}

/** Median req/s of the valid rounds of each WORKERS value per connection count, their ratio against `goal`. */
export function verdicts(rounds: Round[], goal: number): Verdict[] {
  const out: Verdict[] = [];
  for (const conns of [...new Set(rounds.map((r) => r.conns))]) {
    const at = rounds.filter((r) => r.conns === conns);
    const ok = at.filter((r) => roundProblem(r) === null);
    const one = median(ok.filter((r) => r.workers === 1).map((r) => r.wrk.rps));
    const two = median(ok.filter((r) => r.workers === 2).map((r) => r.wrk.rps));
    const ratio = two / one;
    out.push({ conns, one, two, ratio, pass: ratio >= goal, invalid: at.length - ok.length });
  }
  return out;
}

const f0 = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–');

/** The markdown report: every round, then the medians and the ratio per connection count. */
export function markdown(rounds: Round[], goal: number): string {
  const lines = [
    '| c | round | WORKERS | req/s | p50 ms | p99 ms | errors | gateway CPU | nginx CPU | wrk CPU | machine busy | req per gateway CPU-s |',
    '|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of rounds) {
    const problem = roundProblem(r);
    lines.push(
      `| ${r.conns} | ${r.round} | ${r.workers} | ${f0(r.wrk.rps)} | ${f2(r.wrk.p50)} | ${f2(r.wrk.p99)} | ${problem ? `**invalid: ${problem}**` : '0'} | ` +
        `${f0(r.cpu.gateway)} % | ${f0(r.cpu.nginx)} % | ${f0(r.cpu.wrk)} % | ${f0(r.cpu.machine)} % | ${f0((r.wrk.rps * 100) / r.cpu.gateway)} |`,
    );
  }
  lines.push('', '| c | WORKERS=1 median req/s | WORKERS=2 median req/s | workers=2 / workers=1 | against ' + goal + '× |');
  lines.push('|---:|---:|---:|---:|---|');
  for (const v of verdicts(rounds, goal)) {
    const note = v.invalid ? ` (${v.invalid} invalid round(s) left out)` : '';
    lines.push(`| ${v.conns} | ${f0(v.one)} | ${f0(v.two)} | ${f2(v.ratio)}× | ${v.pass ? 'PASS' : 'MISS'}${note} |`);
  }
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------
// The run

const GOAL = 1.7;

function parseArgs(argv: string[]) {
  const arg = (name: string, dflt: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 && argv[i + 1] ? argv[i + 1] : dflt;
  };
  const num = (name: string, dflt: number) => {
    const v = Number(arg(name, String(dflt)));
    if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} needs a positive number`);
    return v;
  };
  const database = arg('database', 'sqlite');
  if (database !== 'sqlite' && database !== 'postgres') throw new Error('--database is sqlite or postgres');
  return {
    conns: arg('conns', '64,128')
      .split(',')
      .map((s) => Number(s.trim()))
      .filter((n) => n > 0),
    rounds: num('rounds', 3),
    duration: num('duration', 10),
    warmup: num('warmup', 3),
    threads: num('threads', 1),
    database,
    allowances: argv.includes('--allowances'),
    pg: arg('pg', process.env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432'),
  };
}

const log = (msg: string) => process.stderr.write(`${msg}\n`);

/** Busy and total jiffies of the whole machine (/proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - f[3] - f[4], total };
}

function execText(cmd: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} failed: ${err.message} ${stderr.slice(0, 300)}`));
      else resolve(stdout);
    });
  });
}

/**
 * Runs wrk through `sh`, which reads its own /proc stat once wrk has been reaped: the children's CPU
 * there is wrk's, exactly, even though wrk is gone when it is read.
 */
async function runWrk(script: string, url: string, o: { threads: number; conns: number; seconds: number }) {
  const shell = 'wrk "$@"; rc=$?; read -r s < /proc/$$/stat; echo "WRKCPU $s"; exit $rc';
  const args = ['-c', shell, 'sh', '--latency', `-t${o.threads}`, `-c${o.conns}`, `-d${o.seconds}s`, '-s', script, url];
  const out = await execText('sh', args, (o.seconds + 30) * 1000);
  const cpuLine = /^WRKCPU (.*)$/m.exec(out);
  return { out, cpu: cpuLine ? statCpu(cpuLine[1]).children : NaN };
}

async function upstreamRequests(origin: string): Promise<number> {
  const r = await request(`${origin}/__bench/stats`);
  return parseStubStatus(await r.body.text());
}

async function startNginx(dir: string): Promise<{ proc: Proc; origin: string }> {
  const prefix = join(dir, 'nginx');
  mkdirSync(prefix);
  const port = await freePort();
  const conf = join(prefix, 'nginx.conf');
  // As root, nginx's worker would run as nobody, which cannot enter the temp dir.
  const user = process.getuid?.() === 0 ? 'root' : undefined;
  writeFileSync(conf, nginxConf({ port, prefix, completion: completionJson(chatBody(false)), user }));
  const proc = spawnProc('nginx', '/usr/sbin/nginx', ['-p', `${prefix}/`, '-c', conf, '-e', join(prefix, 'error.log')]);
  const origin = `http://127.0.0.1:${port}`;
  const end = Date.now() + 10_000;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`nginx exited: ${lastLines(proc.output())} ${readLog(join(prefix, 'error.log'))}`);
    try {
      await upstreamRequests(origin);
      return { proc, origin };
    } catch {}
    if (Date.now() > end) {
      await proc.stop();
      throw new Error(`nginx did not answer on ${origin}: ${readLog(join(prefix, 'error.log'))}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function readLog(file: string): string {
  try {
    return lastLines(readFileSync(file, 'utf8'));
  } catch {
    return '';
  }
}

/** One chat completion through the gateway: 200, a choice, and the upstream saw it. */
async function probe(t: RunningTarget, upstream: string): Promise<void> {
  const before = await upstreamRequests(upstream);
  const r = await request(`${t.url}${CHAT_PATH}`, { method: 'POST', headers: t.headers, body: chatBody(false) });
  const text = await r.body.text();
  if (r.statusCode !== 200) throw new Error(`probe: HTTP ${r.statusCode} ${text.slice(0, 200)}`);
  const parsed = JSON.parse(text) as { choices?: { message?: { content?: string } }[] };
  if (!parsed.choices?.[0]?.message?.content) throw new Error(`probe: no choices in ${text.slice(0, 120)}`);
  // The stats request itself counts once.
  const seen = (await upstreamRequests(upstream)) - before - 1;
  if (seen < 1) throw new Error('probe: the upstream did not see the call');
}

function psql(url: string, sql: string): void {
  const r = spawnSync('psql', [url, '-v', 'ON_ERROR_STOP=1', '-q', '-c', sql], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`psql: ${r.stderr || r.error?.message}`);
}

/** wrk and nginx come from the system's packages (Debian: `apt-get install wrk nginx-light`). */
function requireTools(): void {
  const missing = ['wrk', 'nginx'].filter((t) => spawnSync('sh', ['-c', `command -v ${t} || test -x /usr/sbin/${t}`]).status !== 0);
  if (missing.length) {
    throw new Error(
      `bench:workers needs ${missing.join(' and ')} (Debian: apt-get install wrk nginx-light; the nginx service need not run)`,
    );
  }
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  requireTools();
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-workers-'));
  const cleanups: Array<() => Promise<void> | void> = [() => rmSync(dir, { recursive: true, force: true })];
  const cleanup = async () => {
    for (const c of cleanups.reverse()) await c();
  };
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void cleanup().then(() => process.exit(130)));
  try {
    const load = readFileSync('/proc/loadavg', 'utf8').trim();
    log(`load average before: ${load}`);
    const nginx = await startNginx(dir);
    cleanups.push(() => nginx.proc.stop());
    log(`nginx upstream on ${nginx.origin}`);

    const targets: Array<{ workers: number; t: RunningTarget }> = [];
    for (const workers of [1, 2]) {
      let databaseUrl: string | undefined;
      if (o.database === 'postgres') {
        const db = `gatehouse_workers_${workers}_${randomBytes(4).toString('hex')}`;
        psql(`${o.pg}/postgres`, `create database ${db}`);
        cleanups.push(() => psql(`${o.pg}/postgres`, `drop database if exists ${db} with (force)`));
        databaseUrl = `${o.pg}/${db}`;
      }
      const target = gatehouseTarget(`gatehouse WORKERS=${workers}`, o.allowances ? { QuotaAllowanceEnabled: true } : {}, {
        workers,
        databaseUrl,
      });
      const t = await target.start({ upstream: nginx.origin, installPortkey: false, log });
      cleanups.push(() => t.stop());
      await probe(t, nginx.origin);
      log(`WORKERS=${workers} on ${t.url} (pid ${t.pid}), database ${o.database}`);
      targets.push({ workers, t });
    }

    const script = join(dir, 'chat.lua');
    writeFileSync(script, wrkScript(chatBody(false), { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` }));

    const rounds: Round[] = [];
    for (const conns of o.conns) {
      for (let round = 1; round <= o.rounds; round++) {
        // Alternate which goes first, so neither always follows the other.
        const order = round % 2 ? targets : [...targets].reverse();
        for (const { workers, t } of order) {
          const url = `${t.url}${CHAT_PATH}`;
          await runWrk(script, url, { threads: o.threads, conns, seconds: o.warmup });
          await new Promise((r) => setTimeout(r, 300));
          const g0 = cpuSeconds(t.pid!) ?? NaN;
          const n0 = cpuSeconds(nginx.proc.pid) ?? NaN;
          const m0 = machineTicks();
          const u0 = await upstreamRequests(nginx.origin);
          const t0 = process.hrtime.bigint();
          const { out, cpu: wrkCpu } = await runWrk(script, url, { threads: o.threads, conns, seconds: o.duration });
          const wall = Number(process.hrtime.bigint() - t0) / 1e9;
          const g1 = cpuSeconds(t.pid!) ?? NaN;
          const n1 = cpuSeconds(nginx.proc.pid) ?? NaN;
          const m1 = machineTicks();
          // Calls still in flight when wrk stopped reach the upstream a moment later.
          await new Promise((r) => setTimeout(r, 300));
          const u1 = await upstreamRequests(nginx.origin);
          const wrk = parseWrk(out);
          const r: Round = {
            conns,
            round,
            workers,
            wrk,
            cpu: {
              gateway: ((g1 - g0) / wall) * 100,
              nginx: ((n1 - n0) / wall) * 100,
              wrk: (wrkCpu / wall) * 100,
              // Jiffies are 1/100 s, so busy jiffies per second are % of one CPU.
              machine: (m1.busy - m0.busy) / wall,
            },
            // The second stats request counts itself.
            upstream: u1 - u0 - 1,
          };
          rounds.push(r);
          const problem = roundProblem(r);
          log(
            `c=${conns} round ${round} WORKERS=${workers}: ${Math.round(wrk.rps)} req/s, p50 ${wrk.p50.toFixed(2)} ms, p99 ${wrk.p99.toFixed(2)} ms, ` +
              `gateway ${Math.round(r.cpu.gateway)} %, nginx ${Math.round(r.cpu.nginx)} %, wrk ${Math.round(r.cpu.wrk)} %${problem ? ` INVALID: ${problem}` : ''}`,
          );
        }
      }
    }
    const loadAfter = readFileSync('/proc/loadavg', 'utf8').trim();
    process.stdout.write(
      `Database: ${o.database}${o.allowances ? ', quota allowances on' : ''}. wrk -t${o.threads}, ${o.duration} s measured after ${o.warmup} s warm-up, ${o.rounds} rounds each, ` +
        `alternating. Load average before: ${load}; after: ${loadAfter}. CPU in % of one CPU; machine busy is every CPU (200 % = both).\n\n`,
    );
    process.stdout.write(markdown(rounds, GOAL));
    for (const v of verdicts(rounds, GOAL)) {
      process.stdout.write(`\nc=${v.conns}: workers=2 / workers=1 = ${f2(v.ratio)}× — ${v.pass ? 'PASS' : 'MISS'} against ${GOAL}×`);
    }
    process.stdout.write(`\n\n(${Math.round((Date.now() - started) / 1000)} s)\n`);
  } finally {
    await cleanup();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: Error) => {
    log(e.stack ?? e.message);
    process.exit(1);
  });
}
