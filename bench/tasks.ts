/**
 * Task-host benchmarks: the hook the run calls, not yet implemented (the task host lands separately).
 *
 * When it is, `runTaskBench` will start a gateway with the example plugins and a loopback task upstream,
 * and report:
 *  - submitThroughput: task submissions per second through a `per_task` plugin (submit hook, billing
 *    pre-charge, task row insert), at the same concurrency as the relay measurements, with p50/p99;
 *  - pollerPerTask / pollerBatch: tasks brought to a final state per second by the poller with 10,000
 *    tasks in flight, once with a `per_task` plugin (one status call per task) and once with a `batch`
 *    plugin (one call per batch), with the upstream completing every task on its first poll;
 *  - hookCallUs: the cost of one plugin hook call in the sandbox (p50/p99 in microseconds), measured in
 *    process over a few thousand calls of a trivial hook.
 * Each number is null until measured; `status` says why when it is not.
 */

export interface TaskBenchOptions {
  quick: boolean;
  log(msg: string): void;
}

export interface TaskBenchResult {
  status: 'ok' | 'not available';
  reason?: string;
  submitThroughput: { rps: number; p50Ms: number; p99Ms: number } | null;
  pollerPerTask: { tasksPerSecond: number; inFlight: number } | null;
  pollerBatch: { tasksPerSecond: number; inFlight: number } | null;
  hookCallUs: { p50: number; p99: number } | null;
}

export async function runTaskBench(_opts: TaskBenchOptions): Promise<TaskBenchResult> {
  return {
    status: 'not available',
    reason: 'the task host is not part of this build yet',
    submitThroughput: null,
    pollerPerTask: null,
    pollerBatch: null,
    hookCallUs: null,
  };
}
