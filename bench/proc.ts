/**
 * Child processes of the bench: spawning pinned to a CPU with `taskset` (when it exists and there are
 * at least two CPUs), waiting for readiness, stopping, reading RSS from /proc, and the client side of the
 * load generator's IPC.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { LoadJob, LoadResult } from './load.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BENCH = fileURLToPath(new URL('.', import.meta.url));
export const TSX = ['--no-node-snapshot', '--import', 'tsx'];

let tasksetChecked: boolean | null = null;

/** Whether processes can be pinned: `taskset` runs and there are at least two CPUs. */
export function canPin(): boolean {
  if (tasksetChecked === null) {
    const r = spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
    tasksetChecked = r.status === 0 && availableParallelism() >= 2;
  }
  return tasksetChecked;
}

/** CPU of the proxies under test, and CPU shared by the load generator and the upstream. */
export const CPU_PROXY = 0;
export const CPU_LOAD = 1;

const nofileChecked = new Map<number, boolean>();

/** Whether a child can be given `n` open files: within this process's hard limit, or raised by `prlimit` (root). */
export function canRaiseNofile(n: number): boolean {
  let ok = nofileChecked.get(n);
  if (ok === undefined) {
    ok = spawnSync('prlimit', [`--nofile=${n}:${n}`, '--', 'true'], { stdio: 'ignore' }).status === 0;
    nofileChecked.set(n, ok);
  }
  return ok;
}

/** The open-file limit (soft) a child of this process gets unless raised. */
export function nofileLimit(): number | null {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

export interface Proc {
  child: ChildProcess;
  pid: number;
  name: string;
  /** The last few KB of stdout and stderr, for error messages. */
  output(): string;
  /** All of stdout (only with `keepStdout`). */
  stdout(): string;
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** Spawns `cmd args`, pinned to `cpu` when possible. stdout and stderr are drained into a short tail. */
export function spawnProc(
  name: string,
  cmd: string,
  args: string[],
  opts: {
    cpu?: number | string;
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    ipc?: boolean;
    stopTimeoutMs?: number;
    keepStdout?: boolean;
    /** Open files the process may have (soft and hard limit), set with `prlimit` when that is allowed. */
    nofile?: number;
  } = {},
): Proc {
  const pinned = opts.cpu !== undefined && canPin();
  let file = cmd;
  let argv = args;
  if (pinned) [file, argv] = ['taskset', ['-c', String(opts.cpu), file, ...argv]];
  if (opts.nofile && canRaiseNofile(opts.nofile))
    [file, argv] = ['prlimit', [`--nofile=${opts.nofile}:${opts.nofile}`, '--', file, ...argv]];
  const child = spawn(file, argv, {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, ...opts.env },
    stdio: opts.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (b: Buffer) => {
    tail = (tail + b.toString('utf8')).slice(-4000);
  };
  const all: Buffer[] = [];
  if (opts.keepStdout) child.stdout!.on('data', (b: Buffer) => all.push(b));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', (e) => {
      keep(Buffer.from(`\n${e.message}`));
      resolve(null);
    });
  });
  const proc: Proc = {
    child,
    pid: child.pid ?? 0,
    name,
    output: () => tail,
    stdout: () => Buffer.concat(all).toString('utf8'),
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), opts.stopTimeoutMs ?? 5000);
      await exited;
      clearTimeout(t);
    },
  };
  return proc;
}

/** Resolves with the first stdout line matching `re`; rejects when the process exits or time runs out. */
export function waitForLine(p: Proc, re: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (b: Buffer) => {
      buf += b.toString('utf8');
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const line of lines) {
        const m = re.exec(line);
        if (m) {
          done();
          return resolve(m);
        }
      }
    };
    const t = setTimeout(() => {
      done();
      reject(new Error(`${p.name} not ready after ${timeoutMs} ms: ${lastLines(p.output())}`));
    }, timeoutMs);
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`${p.name} exited (code ${code}): ${lastLines(p.output())}`));
    };
    const done = () => {
      clearTimeout(t);
      p.child.stdout!.off('data', onData);
      p.child.off('exit', onExit);
    };
    p.child.stdout!.on('data', onData);
    p.child.once('exit', onExit);
  });
}

export function lastLines(s: string, n = 3): string {
  return s.trim().split('\n').slice(-n).join(' | ').slice(0, 600) || '(no output)';
}

/** Starts one of the bench's own TypeScript services (upstream, forwarder) and waits for `READY {port}` (unpinned when `cpu` is undefined). */
export async function startService(
  name: string,
  script: string,
  args: string[],
  cpu: number | undefined,
  nofile?: number,
): Promise<{ proc: Proc; port: number }> {
  const proc = spawnProc(name, process.execPath, [...TSX, `${BENCH}${script}`, ...args], { cpu, nofile });
  try {
    const m = await waitForLine(proc, /^READY (\{.*\})$/, 30_000);
    return { proc, port: (JSON.parse(m[1]) as { port: number }).port };
  } catch (e) {
    await proc.stop();
    throw e;
  }
}

/** A free TCP port on 127.0.0.1 (for programs that cannot be told to take port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** The process and its descendants (the workers of a `WORKERS=N` gateway), read from /proc. */
function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  try {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (!children.has(ppid)) children.set(ppid, []);
        children.get(ppid)!.push(Number(name));
      } catch {
        // ended while being read
      }
    }
  } catch {
    return [pid];
  }
  const out: number[] = [];
  const walk = (p: number) => {
    out.push(p);
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}

/** VmRSS of a process and its descendants in MB, or null when /proc cannot tell. */
export function rssMb(pid: number): number | null {
  let sum: number | null = null;
  for (const p of processTree(pid)) {
    try {
      const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) sum = (sum ?? 0) + Number(m[1]) / 1024;
    } catch {
      // ended
    }
  }
  return sum;
}

/**
 * CPU time (user + system) a process and its live descendants have used, in seconds, or null when /proc
 * cannot tell.
 */
export function cpuSeconds(pid: number): number | null {
  let sum: number | null = null;
  for (const p of processTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields 14 and 15 of stat (utime, stime) in clock ticks; USER_HZ is 100 on Linux.
      sum = (sum ?? 0) + (Number(rest[11]) + Number(rest[12])) / 100;
    } catch {
      // ended
    }
  }
  return sum;
}

/**
 * CPU time a process and its live descendants have run, in seconds with nanosecond resolution (the
 * scheduler's own account, /proc/<pid>/task/<tid>/schedstat, summed over every thread), or null when
 * /proc cannot tell. Finer than `cpuSeconds` (clock ticks), for short measurements.
 */
export function cpuSecondsPrecise(pid: number): number | null {
  let sum: number | null = null;
  for (const p of processTree(pid)) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      try {
        const ns = Number(readFileSync(`/proc/${p}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
        if (Number.isFinite(ns)) sum = (sum ?? 0) + ns / 1e9;
      } catch {
        // ended
      }
    }
  }
  return sum;
}

/** Reads a process every `intervalMs` from `start()` until `finish()` (which reads it once more). */
abstract class Sampler {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    protected readonly pid: number,
    private readonly intervalMs: number,
  ) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  protected abstract sample(): void;

  protected finish(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.sample();
  }
}

/** Samples VmRSS every `intervalMs` and keeps the peak. */
export class RssSampler extends Sampler {
  private peak: number | null = null;

  constructor(pid: number, intervalMs = 200) {
    super(pid, intervalMs);
  }

  protected sample(): void {
    const v = rssMb(this.pid);
    if (v !== null && (this.peak === null || v > this.peak)) this.peak = v;
  }

  stop(): number | null {
    this.finish();
    return this.peak;
  }
}

/** Open descriptors of each process of a tree (entries of /proc/<pid>/fd), by pid; a process that cannot be read is left out. */
export function openFds(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const p of processTree(pid)) {
    try {
      out.set(p, readdirSync(`/proc/${p}/fd`).length);
    } catch {
      // ended, or not ours to read
    }
  }
  return out;
}

/**
 * Samples the open descriptors of a process and of its descendants every `intervalMs`; keeps the most
 * the process held and the most one descendant held (a node:cluster primary and its workers).
 */
export class FdSampler extends Sampler {
  private root: number | null = null;
  private child: number | null = null;

  constructor(pid: number, intervalMs = 2000) {
    super(pid, intervalMs);
  }

  protected sample(): void {
    for (const [p, v] of openFds(this.pid)) {
      if (p === this.pid) this.root = Math.max(this.root ?? 0, v);
      else this.child = Math.max(this.child ?? 0, v);
    }
  }

  /** The most descriptors the process held, and the most one of its descendants held (null: none seen). */
  stop(): { root: number | null; child: number | null } {
    this.finish();
    return { root: this.root, child: this.child };
  }
}

/** IPC carries JSON, which turns NaN (a summary of no samples) into null: turn it back. */
export function reviveResult(r: LoadResult): LoadResult {
  for (const key of ['latency', 'ttfb', 'gap', 'streamMeanGap'] as const) {
    const s = r[key] as unknown as Record<string, number | null> | undefined;
    if (!s) continue;
    for (const k of Object.keys(s)) if (s[k] === null) s[k] = NaN;
  }
  return r;
}

/** The load generator process, pinned to CPU_LOAD, taking jobs over IPC. */
export class LoadClient {
  private next = 1;
  private waiting = new Map<number, { resolve: (r: LoadResult) => void; reject: (e: Error) => void }>();

  private constructor(readonly proc: Proc) {
    proc.child.on('message', (msg: { id?: number; result?: LoadResult; error?: string }) => {
      if (msg.id === undefined) return;
      const w = this.waiting.get(msg.id);
      if (!w) return;
      this.waiting.delete(msg.id);
      if (msg.error) w.reject(new Error(msg.error));
      else w.resolve(reviveResult(msg.result!));
    });
    void proc.exited.then((code) => {
      for (const w of this.waiting.values()) w.reject(new Error(`load generator exited (code ${code}): ${lastLines(proc.output())}`));
      this.waiting.clear();
    });
  }

  static async start(): Promise<LoadClient> {
    const proc = spawnProc('load generator', process.execPath, [...TSX, `${BENCH}load.ts`], {
      cpu: CPU_LOAD,
      ipc: true,
      env: { GATEHOUSE_BENCH_ROLE: 'load' },
    });
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`load generator not ready: ${lastLines(proc.output())}`)), 30_000);
      proc.child.once('message', () => {
        clearTimeout(t);
        resolve();
      });
      void proc.exited.then((code) => {
        clearTimeout(t);
        reject(new Error(`load generator exited (code ${code}): ${lastLines(proc.output())}`));
      });
    });
    return new LoadClient(proc);
  }

  run(job: LoadJob): Promise<LoadResult> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.proc.child.send({ id, job });
    });
  }

  async close(): Promise<void> {
    this.proc.child.disconnect?.();
    await this.proc.stop();
  }
}
