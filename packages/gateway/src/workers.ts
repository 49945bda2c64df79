/**
 * `WORKERS=N` (or `auto`, the CPUs this process may use): N serving processes on one port.
 *
 * The primary process (node:cluster) serves nothing itself: it accepts connections and hands them to
 * the workers in turn. Every worker is a whole gateway process (`gatehouse serve`) on the shared
 * database, with a node id of its own (`NODE_ID-<n>`), so background work stays under the leases that
 * already keep two machines apart, and a worker's open reserves are its own.
 *
 * - Start: the first worker starts alone (it runs the migrations and creates the root account), the
 *   others after it listens; the primary prints one "listening" line.
 * - A worker that dies is replaced (same number, new process); what it had in flight is settled by the
 *   usual reserve recovery once its node lease lapses (billing/recovery.ts).
 * - SIGTERM / SIGINT: every worker is told to stop gracefully (gateway.ts `shutdown`), the primary exits
 *   when all have; a second signal tells them to cut what is left.
 */
import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';

/** Messages between the primary and its workers. */
export type WorkerMessage = { type: 'listening'; url: string } | { type: 'stop' } | { type: 'stop-now' };

/** Reads WORKERS: unset or empty = 1 (no primary), `auto` = the CPUs available, else a whole number ≥ 1. */
export function workerCount(value: string | undefined, cpus: number = availableParallelism()): number {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '') return 1;
  if (v === 'auto') return Math.max(1, cpus);
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new Error(`WORKERS must be a whole number of at least 1 or "auto" (got "${value}")`);
  return Number(v);
}

/** Whether this process is a worker started by `runPrimary`. */
export const isWorker = (): boolean => cluster.isWorker;

/** In a worker: tells the primary where it listens. */
export function reportListening(url: string): void {
  process.send?.({ type: 'listening', url } satisfies WorkerMessage);
}

/**
 * In a worker: calls `stop` (which must be idempotent: a Ctrl-C reaches the worker too) when the primary
 * asks for a graceful stop or goes away, `now` when it asks a second time.
 */
export function onPrimaryStop(stop: () => void, now: () => void): void {
  process.on('message', (m: WorkerMessage) => {
    if (m?.type === 'stop') stop();
    else if (m?.type === 'stop-now') now();
  });
  // The primary died: nobody hands this worker connections any more.
  process.once('disconnect', stop);
}

export interface PrimaryOptions {
  workers: number;
  env: NodeJS.ProcessEnv;
  /** Where the primary says what it does (stdout). */
  say: (line: string) => void;
  /** Restarts of a worker that keeps dying at start are spaced by this much (ms). */
  restartDelayMs?: number;
}

/**
 * Runs the primary: starts the workers, replaces the ones that die, stops them on SIGTERM / SIGINT.
 * Resolves with the URL once every worker listens; the process exits when the workers have stopped.
 */
export async function runPrimary(opts: PrimaryOptions): Promise<string> {
  const base = opts.env.NODE_ID || `node-${randomBytes(4).toString('hex')}`;
  const restartDelayMs = opts.restartDelayMs ?? 1000;
  const slots = new Map<Worker, number>();
  const startedAt = new Map<number, number>();
  let stopping = false;
  let url = '';

  const fork = (n: number): Promise<string> => {
    const w = cluster.fork({ ...opts.env, NODE_ID: `${base}-${n}`, GATEHOUSE_WORKER: String(n) });
    slots.set(w, n);
    startedAt.set(n, Date.now());
    return new Promise((resolve, reject) => {
      const onMessage = (m: WorkerMessage) => {
        if (m?.type !== 'listening') return;
        w.off('exit', onEarlyExit);
        // A stop asked for while this worker was starting reached it before it listened for one.
        if (stopping) w.send({ type: 'stop' } satisfies WorkerMessage);
        resolve(m.url);
      };
      const onEarlyExit = (code: number | null, signal: string | null) => {
        w.off('message', onMessage);
        reject(new Error(`worker ${n} exited before listening (${signal ?? `code ${code}`})`));
      };
      w.on('message', onMessage);
      w.once('exit', onEarlyExit);
    });
  };

  // One at a time first: the first worker migrates the database and creates the root account.
  url = await fork(1);
  await Promise.all(Array.from({ length: opts.workers - 1 }, (_, i) => fork(i + 2)));

  cluster.on('exit', (w, code, signal) => {
    const n = slots.get(w);
    slots.delete(w);
    if (n === undefined) return;
    if (stopping) {
      if (slots.size === 0) process.exit(0);
      return;
    }
    opts.say(`worker ${n} (pid ${w.process.pid}) exited (${signal ?? `code ${code}`}); starting another`);
    const quick = Date.now() - (startedAt.get(n) ?? 0) < 5000;
    setTimeout(
      () => {
        if (!stopping) fork(n).catch((e: Error) => opts.say(e.message));
      },
      quick ? restartDelayMs : 0,
    );
  });

  const stop = () => {
    if (stopping) {
      for (const w of slots.keys()) w.send({ type: 'stop-now' } satisfies WorkerMessage);
      return;
    }
    stopping = true;
    if (slots.size === 0) process.exit(0);
    for (const w of slots.keys()) w.send({ type: 'stop' } satisfies WorkerMessage);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return url;
}
