/**
 * Status changes of a submitted task: the results of polls, counted poll failures, tasks the upstream
 * no longer knows, the outer deadline and stale submissions. Each is a compare-and-swap on the previous
 * status (and, for a poll, on the lease) through the task store; only the winner of a terminal
 * transition settles or refunds (`Settlement.settle`).
 */
import { redactSecrets, sentSecrets } from '../../platform/redact.ts';
import type { Task } from './context.ts';
import type { TaskEnv } from './env.ts';
import type { BillingInfo, Settlement } from './settle.ts';
import type { SwapCondition, TaskChanges } from './store.ts';
import type { LoadedPlugin } from '../../plugins/runtime/loader.ts';
import { normalizeProgress, normalizeStatus, parseJson, TERMINAL, type TaskStatus } from './states.ts';

/** A task that ended in an unknown outcome (flagged for an administrator), as written by this node. */
export interface UnknownOutcome {
  taskId: string;
  userId: number;
  plugin: string;
  channelId: number | null;
  reason: string;
}

function NON_TERMINAL_RESULT(s: TaskStatus): boolean {
  return !TERMINAL.has(s);
}

function toMs(v: number): number {
  return v < 1e12 ? v * 1000 : v;
}

function stripPrivate(r: Record<string, unknown>): Record<string, unknown> {
  const { countAsFailure: _a, fromBatch: _b, ...rest } = r;
  return rest;
}

export class Transitions {
  private unknownListeners: Array<(u: UnknownOutcome) => void> = [];

  constructor(
    private readonly env: TaskEnv,
    private readonly money: Settlement,
  ) {}

  private get log() {
    return this.env.log;
  }

  /**
   * Compare-and-swap on the previous status (and, for a poll, on the lease; `when` adds the flag or
   * the failure count seen). Returns whether this call won.
   */
  async transition(
    t: Task,
    from: string,
    set: TaskChanges,
    leaseOwner?: string,
    when: Omit<SwapCondition, 'leaseOwner'> = {},
  ): Promise<boolean> {
    return this.env.store.swap(t.id, from, set, { leaseOwner, ...when });
  }

  /**
   * Applies a normalised plugin result to a polled task. `data` is what is stored as the task's
   * snapshot (undefined keeps the old one). Returns the new status.
   */
  async applyResult(plugin: LoadedPlugin, t: Task, result: Record<string, unknown>, data: unknown, leaseOwner: string): Promise<string> {
    const now = Date.now();
    let status = normalizeStatus(result.status);
    if (typeof result.reason === 'string' && result.reason && result.fromBatch) status = 'FAILURE';
    const set: Record<string, unknown> = {};
    if (result.state !== undefined && result.state !== null) set.state = JSON.stringify(result.state);
    if (data !== undefined && t.retain === 1) set.data = JSON.stringify(data);
    if (status === 'UNKNOWN' || (NON_TERMINAL_RESULT(status) && result.countAsFailure)) {
      if (status === 'UNKNOWN') set.status = 'UNKNOWN';
      return this.pollFailed(t, `unrecognised upstream status ${JSON.stringify(result.status ?? null)?.slice(0, 64)}`, leaseOwner, set);
    }
    set.status = status;
    set.progress = normalizeProgress(result.progress, status, t.progress);
    if (status === 'IN_PROGRESS' && t.started_at === null)
      set.started_at = typeof result.startTime === 'number' && result.startTime > 0 ? toMs(result.startTime) : now;
    if (TERMINAL.has(status)) {
      set.finished_at = typeof result.finishTime === 'number' && result.finishTime > 0 ? toMs(result.finishTime) : now;
      set.next_poll_at = null;
      set.poll_failures = 0;
      if (t.started_at === null) set.started_at = set.finished_at;
      if (status === 'FAILURE') {
        set.fail_reason =
          typeof result.reason === 'string' && result.reason
            ? this.redactReason(t.channel_id, result.reason).slice(0, 2000)
            : 'the upstream reported a failure';
        set.quota_final = 0;
      } else {
        const billing = parseJson(t.billing) as BillingInfo | null;
        set.quota_final = billing
          ? await this.money.finalQuota(plugin, { ...t, ...set } as Task, billing, stripPrivate(result), data ?? parseJson(t.data))
          : Number(t.quota_reserved);
      }
    } else {
      set.poll_failures = 0;
      set.next_poll_at = now + this.env.pollIntervalMs();
    }
    set.lease_owner = null;
    set.lease_until = null;
    const won = await this.transition(t, t.status, set, leaseOwner);
    if (won && TERMINAL.has(status)) await this.money.settle(t.public_id);
    return won ? status : t.status;
  }

  /**
   * Counts a poll failure; at TASK_POLL_MAX_FAILURES the task fails and is refunded. The update is
   * a compare-and-swap on the count it read too, so a stale poll (one whose lease expired while it
   * waited, and which the same node id would otherwise still pass) cannot overwrite a newer count.
   */
  async pollFailed(t: Task, reason: string, leaseOwner: string, extra: Record<string, unknown> = {}): Promise<string> {
    const seen = Number(t.poll_failures);
    const failures = seen + 1;
    const max = this.env.config.taskPollMaxFailures;
    if (max > 0 && failures >= max) {
      const won = await this.transition(
        t,
        t.status,
        {
          ...extra,
          status: 'FAILURE',
          progress: '100%',
          poll_failures: failures,
          fail_reason: `poll failed ${failures} times: ${reason}`.slice(0, 2000),
          quota_final: 0,
          finished_at: Date.now(),
          next_poll_at: null,
          lease_owner: null,
          lease_until: null,
        },
        leaseOwner,
        { pollFailures: seen },
      );
      if (won) await this.money.settle(t.public_id);
      return won ? 'FAILURE' : t.status;
    }
    const interval = this.env.pollIntervalMs();
    const backoff = Math.min(
      interval * 2 ** Math.min(failures - 1, 8),
      Math.max(interval, this.env.config.taskPollBackoffMaxSeconds * 1000),
    );
    const status = (extra.status as string | undefined) ?? t.status;
    await this.transition(
      t,
      t.status,
      { ...extra, status, poll_failures: failures, next_poll_at: Date.now() + backoff, lease_owner: null, lease_until: null },
      leaseOwner,
      { pollFailures: seen },
    );
    this.log.warn({ task: t.public_id, failures, reason: reason.slice(0, 512) }, 'task poll failed');
    return status;
  }

  /** A failure reason a plugin read from its upstream, without the channel's keys (an upstream may echo them). */
  redactReason(channelId: number | null, reason: string): string {
    const ch = channelId === null ? undefined : this.env.catalog.channel(channelId);
    return ch ? redactSecrets(reason, sentSecrets(ch.keys)) : reason;
  }

  /** Upstream says the task does not exist (404/410): it fails and is refunded. */
  async upstreamGone(t: Task, httpStatus: number, leaseOwner: string): Promise<void> {
    const won = await this.transition(
      t,
      t.status,
      {
        status: 'FAILURE',
        progress: '100%',
        fail_reason: `upstream task not found (HTTP ${httpStatus})`,
        quota_final: 0,
        finished_at: Date.now(),
        next_poll_at: null,
        lease_owner: null,
        lease_until: null,
      },
      leaseOwner,
    );
    if (won) await this.money.settle(t.public_id);
  }

  /** A task past TASK_TIMEOUT_SECONDS (`minutes`, its value / 60) fails and is refunded (the outer deadline). */
  async timedOut(t: Task, minutes: number): Promise<void> {
    const won = await this.transition(t, t.status, {
      status: 'FAILURE',
      progress: '100%',
      fail_reason: `task timed out after ${minutes} minutes`,
      quota_final: 0,
      finished_at: Date.now(),
      next_poll_at: null,
      lease_owner: null,
      lease_until: null,
    });
    if (won) await this.money.settle(t.public_id);
  }

  /**
   * A submission that never finished (its node died mid-call, created before `cutoff`) has an unknown
   * outcome: it is flagged for an administrator, not refunded.
   */
  async flagStaleSubmit(row: Pick<Task, 'id' | 'public_id' | 'user_id' | 'plugin_key' | 'channel_id'>, cutoff: number): Promise<void> {
    const reason = 'submission did not finish (node stopped?); outcome unknown, not refunded automatically';
    if (await this.env.store.flagStaleSubmit(row.id, cutoff, reason)) this.flaggedUnknown(row, reason);
  }

  /** Adds a listener of the tasks this node flags with an unknown outcome (the operator alerts). */
  onUnknownOutcome(fn: (u: UnknownOutcome) => void): void {
    this.unknownListeners.push(fn);
  }

  /** Tells the listeners that `row` was flagged with an unknown outcome (by this node's write). */
  flaggedUnknown(row: Pick<Task, 'public_id' | 'user_id' | 'plugin_key' | 'channel_id'>, reason: string): void {
    const u: UnknownOutcome = {
      taskId: row.public_id,
      userId: Number(row.user_id),
      plugin: row.plugin_key,
      channelId: row.channel_id === null ? null : Number(row.channel_id),
      reason,
    };
    for (const fn of this.unknownListeners) {
      try {
        fn(u);
      } catch (err) {
        this.log.error({ err: (err as Error).message }, 'unknown-outcome listener failed');
      }
    }
  }
}
