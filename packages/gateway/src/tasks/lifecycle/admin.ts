/**
 * Task administration: lists and details for administrators, the users' own task list, and the
 * resolution of flagged tasks (submit outcome unknown). A resolution is one compare-and-swap on the
 * task's status and flag, then the lifecycle's own settlement (`TaskService.settle`), so money moves
 * through the ledger exactly as for a polled task and at most once, whoever calls and how often.
 */
import type { Core } from '../../core.ts';
import { insertLogs } from '../../logs/writer.ts';
import type { Ledger } from '../../billing/ledger.ts';
import type { UserPrincipal } from '../../accounts/types.ts';
import { fail } from '../../platform/errors.ts';
import { Reader, fieldError, paging, type Obj, type Page } from '../../platform/validate.ts';
import { AuditLog } from '../../logs/audit.ts';
import { ledgerRef, type TaskService } from './service.ts';
import type { Task } from './context.ts';
import type { TaskFilter, TaskStore, TaskWithOwner } from './store.ts';
import type { CallbackView, TaskCallbacks } from '../callbacks/service.ts';
import { DEFAULT_PROGRESS, NON_TERMINAL, STATUSES, TERMINAL } from './states.ts';

export const BILLING_STATUSES = ['none', 'reserving', 'reserved', 'settled', 'refunded'] as const;
export const RESOLVE_ACTIONS = ['refund', 'fail', 'charge', 'poll'] as const;
export type ResolveAction = (typeof RESOLVE_ACTIONS)[number];

export type { TaskFilter };

export interface PageQuery {
  page: number;
  pageSize: number;
  offset: number;
}

/** A task as administrators see it (times in unix ms). */
export interface AdminTaskView {
  task_id: string;
  plugin: string;
  plugin_version: string;
  action: string;
  status: string;
  progress: string;
  fail_reason: string | null;
  user_id: number;
  username: string | null;
  key_id: number | null;
  group: string;
  channel_id: number | null;
  model: string;
  upstream_model: string;
  upstream_task_id: string | null;
  poll_failures: number;
  next_poll_at: number | null;
  billing_status: string;
  quota_reserved: number;
  quota_final: number | null;
  flagged: boolean;
  flag_reason: string | null;
  retained: boolean;
  created_at: number;
  submitted_at: number | null;
  started_at: number | null;
  finished_at: number | null;
  updated_at: number;
}

/** A task as its owner sees it on /api/task/self: no upstream id, channel or routing details. */
export interface SelfTaskView {
  task_id: string;
  plugin: string;
  action: string;
  status: string;
  progress: string;
  fail_reason: string | null;
  model: string;
  billing_status: string;
  quota_reserved: number;
  quota_final: number | null;
  flagged: boolean;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  updated_at: number;
}

export interface ResolveInput {
  action: ResolveAction;
  /** `poll`: required; `charge`: optional (kept for the record). */
  upstreamTaskId?: string;
  /** `charge`: how the task ends (default SUCCESS: the upstream did the work). */
  status?: 'SUCCESS' | 'FAILURE';
  reason?: string;
}

export interface ResolveOutcome {
  /** False when an earlier identical resolution already applied (nothing changed now). */
  changed: boolean;
  task: AdminTaskView & { ledger: Record<string, number>; callback: CallbackView | null };
}

type Row = TaskWithOwner;

const n = (v: unknown): number => Number(v);
const nn = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export class TaskAdmin {
  constructor(
    private readonly core: Core,
    private readonly svc: TaskService,
    private readonly store: TaskStore,
    private readonly ledger: Ledger,
    private readonly callbacks: TaskCallbacks | null = null,
  ) {}

  /** Filters and paging from a query string; `self` allows only the filters that make sense for one's own tasks. */
  parseQuery(q: Obj, self: boolean): { filter: TaskFilter } & PageQuery {
    const r = new Reader(q);
    const f: TaskFilter = {};
    f.status = r.oneOf('status', STATUSES);
    f.plugin = r.str('plugin', { max: 128 }) || undefined;
    f.model = r.str('model', { max: 191 }) || undefined;
    f.taskId = r.str('task_id', { max: 64 }) || undefined;
    if (!self) {
      f.userId = r.num('user_id', { int: true, min: 1 });
      f.username = r.str('username', { max: 64 }) || undefined;
      f.channelId = r.num('channel_id', { int: true, min: 1 });
      f.flagged = r.bool('flagged');
      f.billingStatus = r.oneOf('billing_status', BILLING_STATUSES);
    }
    f.start = r.time('start') ?? undefined;
    f.end = r.time('end') ?? undefined;
    if (f.start !== undefined && f.end !== undefined && f.start > f.end) throw fieldError('start', 'must not be after end');
    return { filter: f, ...paging(q) };
  }

  private async page(f: TaskFilter, p: PageQuery, actor: UserPrincipal | null): Promise<{ rows: Row[]; total: number }> {
    return this.store.page(f, p.pageSize, p.offset, actor);
  }

  /** Every task `actor` may administer, filtered and paged. */
  async list(f: TaskFilter, p: PageQuery, actor: UserPrincipal | null): Promise<Page<AdminTaskView>> {
    const { rows, total } = await this.page(f, p, actor);
    return { items: rows.map(adminView), total, page: p.page, page_size: p.pageSize };
  }

  /** The caller's own tasks. */
  async listOwn(userId: number, f: TaskFilter, p: PageQuery): Promise<Page<SelfTaskView>> {
    const own: TaskFilter = { status: f.status, plugin: f.plugin, model: f.model, taskId: f.taskId, start: f.start, end: f.end, userId };
    const { rows, total } = await this.page(own, p, null);
    return { items: rows.map(selfView), total, page: p.page, page_size: p.pageSize };
  }

  /** One task with its ledger movements; 404 when absent or not visible to `actor`. */
  async get(
    publicId: string,
    actor: UserPrincipal | null,
  ): Promise<AdminTaskView & { ledger: Record<string, number>; callback: CallbackView | null }> {
    const t = await this.find(publicId, actor);
    return { ...adminView(t), ledger: await this.ledger.movements(ledgerRef(t.public_id)), callback: await this.callbackOf(t) };
  }

  /** One of the user's own tasks with its callback delivery (times in unix ms); 404 for anything else. */
  async getOwn(userId: number, publicId: string): Promise<SelfTaskView & { callback: CallbackView | null }> {
    const id = typeof publicId === 'string' ? publicId.trim() : '';
    const t = id && id.length <= 64 ? await this.store.ownedBy(id, userId) : undefined;
    if (!t) throw fail('task_not_found', `no task ${id.slice(0, 64)}`);
    return { ...selfView(t), callback: await this.callbackOf(t) };
  }

  private async callbackOf(t: Task): Promise<CallbackView | null> {
    return this.callbacks ? this.callbacks.view(t.id, 'ms') : null;
  }

  private async find(publicId: string, actor: UserPrincipal | null): Promise<Row> {
    const id = typeof publicId === 'string' ? publicId.trim() : '';
    const r = id && id.length <= 64 ? await this.store.findVisible(id, actor) : undefined;
    if (!r) throw fail('task_not_found', `no task ${String(publicId).slice(0, 64)}`);
    return r;
  }

  parseResolve(body: unknown): ResolveInput {
    const r = Reader.of(body).only(['action', 'upstream_task_id', 'status', 'reason']);
    const action = r.oneOf('action', RESOLVE_ACTIONS, { required: true })!;
    const upstreamTaskId = r.str('upstream_task_id', { max: 191 }) || undefined;
    const status = r.oneOf('status', ['SUCCESS', 'FAILURE'] as const);
    const reason = r.str('reason', { max: 1000 }) || undefined;
    if (action === 'poll' && !upstreamTaskId)
      throw fieldError('upstream_task_id', 'is required for action poll (the id the vendor gave the task)');
    if (status && action !== 'charge') throw fieldError('status', 'is only used with action charge');
    if (upstreamTaskId && (action === 'refund' || action === 'fail'))
      throw fieldError('upstream_task_id', `is not used with action ${action}`);
    return { action, upstreamTaskId, status, reason };
  }

  /**
   * Resolves a flagged task. `refund`/`fail`: FAILURE and the reserve goes back; `charge`: the
   * reserve is kept (settled at the reserved amount) and the task ends as `status` says; `poll`: the
   * upstream id is recorded, the flag is cleared and the poller takes the task up again.
   *
   * The change is a compare-and-swap on (status, flagged = 1): of concurrent calls exactly one
   * wins. Repeating a resolution that already applied answers `changed: false`; a different one is 409.
   */
  async resolve(publicId: string, input: ResolveInput, actor: UserPrincipal): Promise<ResolveOutcome> {
    let t = await this.find(publicId, actor);
    const tag = resolutionTag(input.action, input.status);
    if (t.flagged !== 1) return this.already(t, tag, actor);
    if (TERMINAL.has(t.status) || !(NON_TERMINAL as readonly string[]).includes(t.status)) {
      throw fail('task_not_resolvable', { task: t.public_id, status: t.status });
    }
    t = await this.repairBilling(t);
    const now = Date.now();
    const by = `resolved: ${tag} by ${actor.username}`;
    const flagReason = `${by}${input.reason ? ` (${input.reason})` : ''}`.slice(0, 1000);
    let set: Record<string, unknown>;
    if (input.action === 'poll') {
      set = {
        status: 'SUBMITTED',
        progress: DEFAULT_PROGRESS.SUBMITTED,
        upstream_task_id: input.upstreamTaskId,
        fail_reason: null,
        flagged: 0,
        flag_reason: flagReason,
        poll_failures: 0,
        next_poll_at: now,
        lease_owner: null,
        lease_until: null,
        submitted_at: t.submitted_at ?? now,
      };
    } else {
      const failed = input.action !== 'charge' || input.status === 'FAILURE';
      set = {
        status: failed ? 'FAILURE' : 'SUCCESS',
        progress: '100%',
        fail_reason: failed
          ? (input.reason ?? `resolved by an administrator (${tag}): ${t.fail_reason ?? 'submit outcome unknown'}`).slice(0, 2000)
          : null,
        quota_final: input.action === 'charge' ? n(t.quota_reserved) : 0,
        finished_at: now,
        started_at: t.started_at ?? now,
        next_poll_at: null,
        lease_owner: null,
        lease_until: null,
        flagged: 0,
        flag_reason: flagReason,
        ...(input.upstreamTaskId ? { upstream_task_id: input.upstreamTaskId } : {}),
      };
    }
    const won = await this.svc.transition(t, t.status, set, undefined, { flagged: 1 });
    if (!won) return this.already(await this.find(publicId, actor), tag, actor);
    if (input.action !== 'poll') await this.svc.settle(t.public_id);
    await this.logResolution(t, input, tag, actor);
    await new AuditLog(this.core).record(
      actor,
      'task.resolve',
      { type: 'task', id: t.public_id },
      { status: t.status, flagged: true },
      {
        status: set.status,
        flagged: false,
        action: tag,
        reason: input.reason ?? undefined,
        upstream_task_id: input.upstreamTaskId ?? undefined,
      },
    );
    this.core.log.info({ task: t.public_id, action: tag, admin: actor.username }, 'flagged task resolved');
    return { changed: true, task: await this.get(t.public_id, actor) };
  }

  /** A call that lost the race (or came later): fine when the same resolution applied, else 409. */
  private async already(t: Row, tag: string, actor: UserPrincipal): Promise<ResolveOutcome> {
    if (t.flagged === 1) throw fail('task_changed', { task: t.public_id });
    const prev = /^resolved: (\S+) by /.exec(t.flag_reason ?? '')?.[1];
    if (prev === tag) return { changed: false, task: await this.get(t.public_id, actor) };
    throw fail(
      'task_not_flagged',
      prev
        ? `task ${t.public_id} was already resolved (${prev})`
        : `task ${t.public_id} is not flagged; only tasks whose submit outcome is unknown can be resolved`,
    );
  }

  /**
   * A node that stopped between the reserve and recording it leaves `reserving`: the ledger says
   * whether the reserve happened, so the settlement below can (or need not) close it.
   */
  private async repairBilling(t: Row): Promise<Row> {
    if (t.billing_status !== 'reserving') return t;
    const moved = await this.ledger.movements(ledgerRef(t.public_id));
    const to = moved.reserve !== undefined ? 'reserved' : 'none';
    await this.store.repairReserving(t.id, to);
    const fresh = await this.store.byId(t.id);
    if (!fresh) throw fail('task_not_found', `no task ${t.public_id}`);
    return { ...fresh, username: t.username };
  }

  private async logResolution(t: Row, input: ResolveInput, tag: string, actor: UserPrincipal): Promise<void> {
    try {
      await insertLogs(this.core.h, [
        {
          created_at: Date.now(),
          type: 'task',
          request_id: t.public_id,
          user_id: actor.id,
          username: actor.username,
          key_id: null,
          key_name: null,
          group_name: t.group_name,
          model: t.model,
          upstream_model: t.upstream_model,
          channel_id: t.channel_id,
          endpoint: `/api/task/${t.public_id}/resolve`,
          status_code: null,
          prompt_tokens: 0,
          completion_tokens: 0,
          cached_tokens: 0,
          quota: 0,
          latency_ms: 0,
          first_byte_ms: null,
          is_stream: 0,
          attempts: 1,
          content: `task resolved: ${tag}`,
          other: JSON.stringify({
            movement: 'resolve',
            action: input.action,
            plugin: t.plugin_key,
            task_user_id: n(t.user_id),
            admin: actor.username,
            ...(input.status ? { status: input.status } : {}),
            ...(input.reason ? { reason: input.reason } : {}),
            ...(input.upstreamTaskId ? { upstream_task_id_set: true } : {}),
          }),
        },
      ]);
    } catch (e) {
      this.core.log.warn({ task: t.public_id, err: (e as Error).message }, 'task resolution log write failed');
    }
  }
}

function resolutionTag(action: ResolveAction, status?: 'SUCCESS' | 'FAILURE'): string {
  if (action === 'charge') return status === 'FAILURE' ? 'charge-failure' : 'charge-success';
  return action;
}

export function adminView(r: Row): AdminTaskView {
  return {
    task_id: r.public_id,
    plugin: r.plugin_key,
    plugin_version: r.plugin_version,
    action: r.action,
    status: r.status,
    progress: r.progress,
    fail_reason: r.fail_reason,
    user_id: n(r.user_id),
    username: r.username ?? null,
    key_id: nn(r.key_id),
    group: r.group_name,
    channel_id: nn(r.channel_id),
    model: r.model,
    upstream_model: r.upstream_model,
    upstream_task_id: r.upstream_task_id,
    poll_failures: n(r.poll_failures),
    next_poll_at: nn(r.next_poll_at),
    billing_status: r.billing_status,
    quota_reserved: n(r.quota_reserved),
    quota_final: nn(r.quota_final),
    flagged: n(r.flagged) === 1,
    flag_reason: r.flag_reason,
    retained: n(r.retain) === 1,
    created_at: n(r.created_at),
    submitted_at: nn(r.submitted_at),
    started_at: nn(r.started_at),
    finished_at: nn(r.finished_at),
    updated_at: n(r.updated_at),
  };
}

export function selfView(r: Row): SelfTaskView {
  return {
    task_id: r.public_id,
    plugin: r.plugin_key,
    action: r.action,
    status: r.status,
    progress: r.progress,
    fail_reason: r.fail_reason,
    model: r.model,
    billing_status: r.billing_status,
    quota_reserved: n(r.quota_reserved),
    quota_final: nn(r.quota_final),
    flagged: n(r.flagged) === 1,
    created_at: n(r.created_at),
    started_at: nn(r.started_at),
    finished_at: nn(r.finished_at),
    updated_at: n(r.updated_at),
  };
}
