/**
 * The background poller. Every node runs it. A due task (next_poll_at ≤ now) is claimed with a
 * conditional UPDATE that sets a lease, so one node polls it at a time; a node that dies leaves a
 * lease that simply expires. Each pass also: fails tasks past TASK_TIMEOUT_SECONDS (refund),
 * finishes settlements a dead node left half-done, and flags submissions that never completed.
 *
 * Background polling always uses the newest plugin generation.
 */
import type { Core } from '../../core.ts';
import { inSpan, tracer } from '../../platform/tracing.ts';
import { hookMessage, type QueryAnswer, type TaskService } from './service.ts';
import type { Task } from './context.ts';
import type { TaskStore } from './store.ts';
import type { LoadedPlugin } from '../../plugins/runtime/loader.ts';
import { firstHeaders, OutboundError, type OutboundTarget } from '../outbound/request.ts';

const CLAIM_BATCH = 100;

/** 404/410: the upstream no longer knows the task (FAILURE and refund). */
const upstreamGone = (status: number) => status === 404 || status === 410;
/** Answers counted as a failed poll (retried with back-off). */
const countedFailure = (status: number) => status === 401 || status === 403 || status === 429 || status >= 500;
const MAX_IN_FLIGHT = 64;

export class Poller {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly svc: TaskService,
    private readonly store: TaskStore,
    private readonly log: Core['log'],
  ) {}

  /** This node's id: the owner of the leases it takes. */
  private get me(): string {
    return this.svc.pollSettings().nodeId;
  }

  start(): void {
    this.stopped = false;
    // A restarted node with the same id takes back its own leases at once (row by row, by primary
    // key: see store.ts).
    void this.store
      .releaseLeasesOf(this.me)
      .catch((e) => this.log.warn({ err: (e as Error).message }, "releasing this node's task leases failed"));
    this.schedule(Math.min(200, this.svc.pollSettings().intervalMs));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    // Polls still waiting on an upstream keep their lease and are taken up again after it expires.
    await Promise.race([this.drain(), new Promise((r) => setTimeout(r, 2000).unref())]);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((e) => this.log.warn({ err: (e as Error).message }, 'task poll pass failed'))
        .finally(() => {
          this.running = null;
          this.schedule(this.svc.pollSettings().intervalMs);
        });
    }, ms);
    this.timer.unref();
  }

  /**
   * One pass: sweeps, then claims due tasks up to the free capacity and starts polling them. Polls
   * run in the background (a hung upstream does not hold up the sweeps or other tasks); a claimed
   * task is leased, so no other pass or node takes it meanwhile.
   */
  async tick(): Promise<void> {
    await this.sweepTimeouts();
    await this.sweepSettlements();
    await this.sweepStaleSubmits();
    const free = MAX_IN_FLIGHT - this.inFlight.size;
    if (free <= 0) return;
    const claimed = await this.claim(Math.min(free, CLAIM_BATCH));
    if (!claimed.length) return;
    let gen;
    try {
      gen = this.svc.generation();
    } catch {
      await this.release(claimed);
      return;
    }
    const batches = new Map<string, { plugin: LoadedPlugin; tasks: Task[] }>();
    for (const t of claimed) {
      const plugin = gen.plugins.get(t.plugin_key);
      if (!plugin) {
        await this.svc.pollFailed(t, `plugin ${t.plugin_key} is not installed`, this.me);
        continue;
      }
      if (plugin.manifest.fetchMode === 'batch' && plugin.has('buildBatchQueryRequest')) {
        const k = `${plugin.key}\0${t.channel_id}\0${t.channel_key_index}`;
        const b = batches.get(k) ?? { plugin, tasks: [] };
        b.tasks.push(t);
        batches.set(k, b);
      } else this.launch(() => this.pollOne(plugin, t));
    }
    for (const b of batches.values()) this.launch(() => this.pollBatch(b.plugin, b.tasks));
  }

  /**
   * In-request polling (image protocol, Responses sync/stream): polls one task now, under the same
   * lease and compare-and-swap as a background poll, and waits for it. Skipped (false) when the task
   * is terminal, not yet submitted, flagged, leased by another poll, or backing off after failures.
   */
  async pollNow(publicId: string): Promise<boolean> {
    const { nodeId, leaseMs } = this.svc.pollSettings();
    const t = await this.store.leaseForPoll(publicId, nodeId, leaseMs);
    if (!t) return false;
    let plugin: LoadedPlugin | undefined;
    try {
      plugin = this.svc.generation().plugins.get(t.plugin_key);
    } catch {
      plugin = undefined;
    }
    if (!plugin) {
      await this.release([t]);
      return false;
    }
    if (plugin.manifest.fetchMode === 'batch' && plugin.has('buildBatchQueryRequest')) await this.pollBatch(plugin, [t]);
    else await this.pollOne(plugin, t);
    return true;
  }

  private launch(job: () => Promise<void>): void {
    const p: Promise<void> = job()
      .catch((e) => this.log.warn({ err: (e as Error).message }, 'task poll failed unexpectedly'))
      .finally(() => {
        this.inFlight.delete(p);
      });
    this.inFlight.add(p);
  }

  /** Waits for the polls started so far (tests). */
  async drain(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  private async claim(limit: number): Promise<Task[]> {
    const { nodeId, leaseMs } = this.svc.pollSettings();
    return this.store.claimDue(nodeId, limit, leaseMs);
  }

  private async release(ts: Task[]): Promise<void> {
    const me = this.me;
    for (const t of ts) await this.store.releaseLease(t.id, me);
  }

  private async target(plugin: LoadedPlugin, t: Task) {
    const { ch, ctx } = await this.svc.pollContext(plugin, t);
    return { ch, ctx, target: { baseUrl: String(ctx.baseUrl), allowedHosts: plugin.manifest.allowedHosts ?? [], defaultMethod: 'GET' } };
  }

  /** Sends a query descriptor and reads its answer within the limits; throws on transport errors. */
  private query(desc: unknown, target: OutboundTarget): Promise<QueryAnswer> {
    return this.svc.query(desc, target);
  }

  pollOne(plugin: LoadedPlugin, t: Task): Promise<void> {
    // A span per poll when tracing is on (platform/tracing.ts).
    if (tracer)
      return inSpan(
        tracer,
        'gatehouse.task_poll',
        { 'gatehouse.plugin': plugin.key, 'gatehouse.task.id': t.public_id, 'gatehouse.task.status': t.status },
        () => this.pollOneTask(plugin, t),
      );
    return this.pollOneTask(plugin, t);
  }

  private async pollOneTask(plugin: LoadedPlugin, t: Task): Promise<void> {
    const me = this.me;
    const { ch, ctx, target } = await this.target(plugin, t);
    if (!ch) {
      await this.svc.pollFailed(t, 'the task channel is disabled or gone', me);
      return;
    }
    if (!t.upstream_task_id) {
      await this.svc.pollFailed(t, 'the task has no upstream id', me);
      return;
    }
    let desc;
    try {
      desc = await plugin.call('buildQueryRequest', ctx);
    } catch (e) {
      await this.svc.pollFailed(t, `buildQueryRequest: ${hookMessage(e)}`, me);
      return;
    }
    let answer: QueryAnswer;
    try {
      answer = await this.query(desc, target);
    } catch (e) {
      await this.svc.pollFailed(t, e instanceof OutboundError ? e.message : `transport error: ${(e as Error).message}`, me);
      return;
    }
    const { status, headers, body } = answer;
    if (upstreamGone(status)) {
      await this.svc.upstreamGone(t, status, me);
      return;
    }
    if (countedFailure(status)) {
      await this.svc.pollFailed(t, `HTTP ${status}`, me);
      return;
    }
    let result: Record<string, unknown>;
    try {
      result = (await plugin.call('parseTaskResult', ctx, body, { status, headers: firstHeaders(headers) })) as Record<string, unknown>;
      if (!result || typeof result !== 'object') throw new Error('parseTaskResult returned no object');
    } catch (e) {
      await this.svc.pollFailed(t, `parseTaskResult: ${hookMessage(e)}`, me);
      return;
    }
    const other4xx = status >= 400;
    await this.svc.applyResult(plugin, t, { ...result, countAsFailure: other4xx }, body, me);
  }

  pollBatch(plugin: LoadedPlugin, tasks: Task[]): Promise<void> {
    if (tracer)
      return inSpan(tracer, 'gatehouse.task_poll', { 'gatehouse.plugin': plugin.key, 'gatehouse.task.batch_size': tasks.length }, () =>
        this.pollTaskBatch(plugin, tasks),
      );
    return this.pollTaskBatch(plugin, tasks);
  }

  private async pollTaskBatch(plugin: LoadedPlugin, tasks: Task[]): Promise<void> {
    const me = this.me;
    const first = tasks[0];
    const { ch, ctx: firstCtx, target } = await this.target(plugin, first);
    if (!ch) {
      for (const t of tasks) await this.svc.pollFailed(t, 'the task channel is disabled or gone', me);
      return;
    }
    const ready = tasks.filter((t) => t.upstream_task_id);
    for (const t of tasks) if (!t.upstream_task_id) await this.svc.pollFailed(t, 'the task has no upstream id', me);
    if (!ready.length) return;
    const items = await Promise.all(ready.map(async (t) => (await this.svc.pollContext(plugin, t, ch)).ctx));
    const { taskId: _a, publicTaskId: _b, action: _c, model: _d, upstreamModel: _e, data: _f, state: _g, ...chan } = firstCtx;
    const bctx = { ...chan, tasks: items };
    const fail = async (reason: string) => {
      for (const t of ready) await this.svc.pollFailed(t, reason, me);
    };
    let desc;
    try {
      desc = await plugin.call('buildBatchQueryRequest', bctx, items);
    } catch (e) {
      await fail(`buildBatchQueryRequest: ${hookMessage(e)}`);
      return;
    }
    let answer: QueryAnswer;
    try {
      answer = await this.query(desc, target);
    } catch (e) {
      await fail(e instanceof OutboundError ? e.message : 'transport error');
      return;
    }
    const { status, headers, body } = answer;
    if (upstreamGone(status)) {
      for (const t of ready) await this.svc.upstreamGone(t, status, me);
      return;
    }
    if (countedFailure(status)) {
      await fail(`HTTP ${status}`);
      return;
    }
    let list: unknown;
    try {
      list = await plugin.call('parseBatchResult', bctx, body, { status, headers: firstHeaders(headers) });
      if (!Array.isArray(list)) throw new Error('parseBatchResult must return an array');
    } catch (e) {
      await fail(`parseBatchResult: ${hookMessage(e)}`);
      return;
    }
    const byUpstream = new Map(ready.map((t) => [t.upstream_task_id!, t]));
    const seen = new Set<string>();
    for (const item of list as Array<Record<string, unknown>>) {
      const t = item && typeof item.taskId === 'string' ? byUpstream.get(item.taskId) : undefined;
      if (!t) {
        this.log.warn({ plugin: plugin.key }, 'batch result names an unknown task; ignored');
        continue;
      }
      seen.add(t.upstream_task_id!);
      const data = item.data === undefined ? undefined : item.data;
      await this.svc.applyResult(plugin, t, { ...item, fromBatch: true, countAsFailure: status >= 400 }, data, me);
    }
    for (const t of ready)
      if (!seen.has(t.upstream_task_id!)) await this.svc.pollFailed(t, 'the batch result did not include this task', me);
  }

  /** Tasks past TASK_TIMEOUT_SECONDS fail and are refunded (the outer deadline). */
  private async sweepTimeouts(): Promise<void> {
    const mins = this.svc.pollSettings().timeoutMinutes;
    if (!(mins > 0)) return;
    const cutoff = Date.now() - mins * 60_000;
    for (const t of await this.store.submittedBefore(cutoff, 100)) await this.svc.timedOut(t, mins);
  }

  /** Terminal tasks whose settlement did not finish (a node died in between) are settled now. */
  private async sweepSettlements(): Promise<void> {
    for (const id of await this.store.unsettled(Date.now() - 2000, 100)) await this.svc.settle(id);
  }

  /**
   * A submission that never finished (its node died mid-call) has an unknown outcome: flag it.
   *
   * Found with a plain read, then changed one row at a time through the primary key (the condition
   * checked again). Never one UPDATE over a range: on MySQL/MariaDB (REPEATABLE READ) that locks every
   * NOT_START entry of the status index — including the row of a submit in flight on any node —
   * before it locks the rows themselves, while the submit's own UPDATE by id locks the row first and
   * the index entry second. The opposite order deadlocks, and the submit's statement can be the
   * one rolled back: the user would get a 500 for a request that did nothing wrong.
   */
  private async sweepStaleSubmits(): Promise<void> {
    const cutoff = Date.now() - this.svc.pollSettings().staleSubmitMs;
    for (const row of await this.store.staleSubmits(cutoff, 100)) await this.svc.flagStaleSubmit(row, cutoff);
  }
}
