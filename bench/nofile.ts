/**
 * Open files the stream phases need, per process, and the shape of proxy that fits the limit: one
 * process per proxy (`forwarder`, `gatehouse`), or each proxy as N processes on one port
 * (`forwarder-workers`, `gatehouse-workers`: a node:cluster primary that accepts the connections and
 * hands them to N workers in turn) when one process would need more open files than the limit allows
 * and the limit cannot be raised. Pure; tested in nofile.test.ts.
 */

/** What a proxy process needs besides its streams' sockets: listen socket, pipes, database, epoll, modules. */
export const NOFILE_MARGIN = 1024;
/** What the load generator and the upstream (bench/sse/ssebench.c) need besides one socket per stream. */
export const HARNESS_MARGIN = 64;

/** The proxies that can run as N processes on one port, and the name of that form. */
export const WORKERS_FORM: Readonly<Record<string, string>> = { forwarder: 'forwarder-workers', gatehouse: 'gatehouse-workers' };

export const isWorkersTarget = (name: string): boolean => Object.values(WORKERS_FORM).includes(name);

/**
 * Open files one proxy process needs when `processes` processes share `streams` streams: two sockets per
 * stream (the caller's and the upstream's) plus the margin.
 */
export function proxyNofile(streams: number, processes = 1): number {
  return 2 * Math.ceil(streams / processes) + NOFILE_MARGIN;
}

/**
 * Open files a node:cluster primary may need: it accepts every connection and holds it until a worker
 * has taken it, so with calls arriving faster than the workers take them it holds up to one per stream
 * (up to 9,716 of 10,000 calls made at once, measured here).
 */
export function primaryNofile(streams: number): number {
  return streams + NOFILE_MARGIN;
}

/** The fewest processes (at least two) among which `streams` fit under `limit` open files each; null if none can. */
export function workersFor(streams: number, limit: number): number | null {
  const perProcess = Math.floor((limit - NOFILE_MARGIN) / 2);
  if (perProcess < 1) return null;
  return Math.max(2, Math.ceil(streams / perProcess));
}

export interface ShapeRequest {
  /** The targets asked for (`direct` included). */
  targets: string[];
  /** The most streams one run opens at once. */
  streams: number;
  /** `--workers N`: run the workers form of each proxy with N processes; null: only when the limit demands it. */
  workers: number | null;
  /** The open-file limit a child gets (soft); null when unknown. */
  limit: number | null;
  /** Whether a child's limit can be raised to `n` (prlimit). */
  canRaise(n: number): boolean;
}

export interface Shape {
  targets: string[];
  /** Processes of each `-workers` target. */
  workers: number;
  /** Open files to give each proxy (prlimit); undefined: the inherited limit suffices. */
  nofile?: number;
  /** What was decided and why (for the log and the report). */
  notes: string[];
}

const n = (v: number) => v.toLocaleString('en-US');

/**
 * Checks every process's need against the limit and picks the shape. Throws (with the numbers) when
 * the load generator or the upstream cannot hold the streams, or when a proxy process would need more
 * than the limit and it can be neither raised nor split among workers.
 */
export function chooseShape(r: ShapeRequest): Shape {
  const notes: string[] = [];
  const fits = (need: number) => r.limit === null || need <= r.limit;
  const harness = r.streams + HARNESS_MARGIN;
  if (!fits(harness))
    throw new Error(
      `${n(r.streams)} streams need ${n(harness)} open files in the load generator and in the upstream; the limit here is ${n(r.limit!)}`,
    );
  let workers = r.workers ?? 2;
  let targets = [...r.targets];
  const single = proxyNofile(r.streams, 1);
  let toWorkers = r.workers !== null;
  if (!toWorkers && targets.some((t) => WORKERS_FORM[t]) && !fits(single) && !r.canRaise(single)) {
    const w = workersFor(r.streams, r.limit!);
    if (w === null || !fits(primaryNofile(r.streams)))
      throw new Error(
        `${n(r.streams)} streams need ${n(single)} open files in one proxy process, or ${n(primaryNofile(r.streams))} in the primary of its workers; the limit here is ${n(r.limit!)} and cannot be raised`,
      );
    workers = w;
    toWorkers = true;
    notes.push(
      `one proxy process would need ${n(single)} open files for ${n(r.streams)} streams (2 per stream + ${n(NOFILE_MARGIN)}); ` +
        `the limit here is ${n(r.limit!)} and cannot be raised: each proxy runs as ${w} workers on one port, ` +
        `${n(proxyNofile(r.streams, w))} open files each, up to ${n(primaryNofile(r.streams))} in their primary`,
    );
  }
  if (toWorkers) {
    const dropped = targets.filter((t) => t !== 'direct' && !WORKERS_FORM[t] && !isWorkersTarget(t));
    if (dropped.length) notes.push(`left out (no form with workers): ${dropped.join(', ')}`);
    targets = [...new Set(targets.filter((t) => !dropped.includes(t)).map((t) => WORKERS_FORM[t] ?? t))];
  }
  const needs = targets
    .filter((t) => t !== 'direct')
    .map((t) => (isWorkersTarget(t) ? Math.max(proxyNofile(r.streams, workers), primaryNofile(r.streams)) : proxyNofile(r.streams)));
  const most = Math.max(0, ...needs);
  let nofile: number | undefined;
  if (most > 0 && !fits(most)) {
    if (!r.canRaise(most))
      throw new Error(
        `${n(r.streams)} streams need ${n(most)} open files per proxy process; the limit here is ${n(r.limit!)} and cannot be raised (ulimit -n ${most})`,
      );
    nofile = most;
  }
  return { targets, workers, nofile, notes };
}
