/**
 * The task store: every SQL statement on the `tasks` table is a named method here — the insert of a
 * submission, the status compare-and-swap, the billing-status steps, the poller's leases and sweeps,
 * and the reads (by id, by public id, the administrators' filtered pages). Nothing else in the gateway
 * writes the table.
 *
 * Lock order. Every write of one task goes through `update(id)`: an UPDATE reached through the primary
 * key, which locks the row and then its index entries. On MySQL/MariaDB (REPEATABLE READ) an UPDATE
 * whose condition names an indexed column (status, billing_status, next_poll_at) may otherwise be
 * read through that index and lock the index entries of other tasks before their rows — the opposite
 * order, which deadlocks against a submit's own update by id, and the submit's statement can be the
 * one rolled back. So a sweep never UPDATEs a range: it finds rows with a plain read and changes each
 * through its primary key, the condition checked again (`staleSubmits` + `flagStaleSubmit`,
 * `dueForPoll` in `claimDue`, `leasedBy` in `releaseLeasesOf`).
 */
import { sql, type Insertable } from 'kysely';
import type { DbHandle } from '../../store/db.ts';
import type { TaskRow } from '../../store/schema-tasks.ts';
import type { UserPrincipal } from '../../accounts/types.ts';
import type { Task } from './context.ts';
import { NON_TERMINAL, TERMINAL } from './states.ts';

/** Column changes of one task (the values are checked by the callers). */
export type TaskChanges = Record<string, unknown>;

/** Extra conditions of a compare-and-swap besides the previous status. */
export interface SwapCondition {
  /** The poll's lease: only the lease holder may apply its result. */
  leaseOwner?: string;
  /** The flag seen (an administrator's resolution swaps on `flagged = 1`). */
  flagged?: 0 | 1;
  /** The poll-failure count seen (a stale poll cannot overwrite a newer count). */
  pollFailures?: number;
}

/** Filters of the task lists (administrators' and users' own). */
export interface TaskFilter {
  status?: string;
  plugin?: string;
  model?: string;
  userId?: number;
  username?: string;
  channelId?: number;
  flagged?: boolean;
  billingStatus?: string;
  taskId?: string;
  start?: number;
  end?: number;
}

/** A task with its owner's name (administrators' lists). */
export type TaskWithOwner = Task & { username?: string | null };

export class TaskStore {
  constructor(private readonly h: DbHandle) {}

  private get db() {
    return this.h.db;
  }

  /**
   * An UPDATE of the one task `id`, reached through the primary key. On MySQL/MariaDB the key is
   * forced: on a small table the optimizer may otherwise read the row through an index named in the
   * compare-and-swap condition and lock the index entries of other tasks before their rows (see the
   * file comment).
   */
  private update(id: Task['id']) {
    const table = this.h.dialect === 'mysql' ? (sql`tasks FORCE INDEX (PRIMARY)` as unknown as 'tasks') : 'tasks';
    return this.db.updateTable(table).where('id', '=', id);
  }

  // ------------------------------------------------------------------------------------------
  // Reads
  // ------------------------------------------------------------------------------------------

  async byPublicId(publicId: string): Promise<Task | undefined> {
    return this.db.selectFrom('tasks').selectAll().where('public_id', '=', publicId).executeTakeFirst();
  }

  async byId(id: Task['id']): Promise<Task | undefined> {
    return this.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The task `publicId` when `userId` submitted it. */
  async ownedBy(publicId: string, userId: number): Promise<Task | undefined> {
    return this.db.selectFrom('tasks').selectAll().where('public_id', '=', publicId).where('user_id', '=', userId).executeTakeFirst();
  }

  /** How many tasks of `pluginKey` are not terminal (a plugin with tasks in flight cannot be removed). */
  async countUnfinished(pluginKey: string): Promise<number> {
    const r = await this.db
      .selectFrom('tasks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('plugin_key', '=', pluginKey)
      .where('status', 'not in', ['SUCCESS', 'FAILURE'])
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /** Tasks with their owner's name, limited to what `actor` may see (root: all; admin: users' and own). */
  private visible(f: TaskFilter, actor: UserPrincipal | null) {
    let q = this.db.selectFrom('tasks').leftJoin('users', 'users.id', 'tasks.user_id');
    if (actor && actor.role !== 'root') {
      const id = actor.id;
      q = q.where((eb) => eb.or([eb('users.role', '=', 'user'), eb('tasks.user_id', '=', id)]));
    }
    if (f.status) q = q.where('tasks.status', '=', f.status);
    if (f.plugin) q = q.where('tasks.plugin_key', '=', f.plugin);
    if (f.model) q = q.where('tasks.model', '=', f.model);
    if (f.taskId) q = q.where('tasks.public_id', '=', f.taskId);
    if (f.userId !== undefined) q = q.where('tasks.user_id', '=', f.userId);
    if (f.username) q = q.where('users.username', '=', f.username);
    if (f.channelId !== undefined) q = q.where('tasks.channel_id', '=', f.channelId);
    if (f.flagged !== undefined) q = q.where('tasks.flagged', '=', f.flagged ? 1 : 0);
    if (f.billingStatus) q = q.where('tasks.billing_status', '=', f.billingStatus);
    if (f.start !== undefined) q = q.where('tasks.created_at', '>=', f.start);
    if (f.end !== undefined) q = q.where('tasks.created_at', '<=', f.end);
    return q;
  }

  /** One page of the tasks `actor` may see, newest first, with the total count. */
  async page(f: TaskFilter, limit: number, offset: number, actor: UserPrincipal | null): Promise<{ rows: TaskWithOwner[]; total: number }> {
    const base = this.visible(f, actor);
    const t = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows = await base
      .selectAll('tasks')
      .select('users.username as username')
      .orderBy('tasks.created_at', 'desc')
      .orderBy('tasks.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    return { rows: rows as TaskWithOwner[], total: Number(t.n) };
  }

  /** The task `publicId` with its owner's name when `actor` may see it. */
  async findVisible(publicId: string, actor: UserPrincipal | null): Promise<TaskWithOwner | undefined> {
    const r = await this.visible({ taskId: publicId }, actor).selectAll('tasks').select('users.username as username').executeTakeFirst();
    return r as TaskWithOwner | undefined;
  }

  // ------------------------------------------------------------------------------------------
  // Submission and billing status
  // ------------------------------------------------------------------------------------------

  /** Inserts a new task and reads it back. */
  async insert(values: Insertable<TaskRow>): Promise<Task> {
    await this.db.insertInto('tasks').values(values).execute();
    return (await this.byPublicId(values.public_id))!;
  }

  /** The reserve of a task that was just inserted was refused: it fails with the ledger's reason. */
  async failReserve(id: Task['id'], reason: string): Promise<void> {
    await this.update(id)
      .set({
        status: 'FAILURE',
        progress: '100%',
        billing_status: 'none',
        fail_reason: reason,
        finished_at: Date.now(),
        updated_at: Date.now(),
      })
      .execute();
  }

  /** `reserving` → `reserved` once the ledger took the reserve. */
  async markReserved(id: Task['id']): Promise<void> {
    await this.update(id).set({ billing_status: 'reserved' }).where('billing_status', '=', 'reserving').execute();
  }

  /** `reserving` → `to` (the ledger says whether the reserve happened: `reserved` or `none`). */
  async repairReserving(id: Task['id'], to: 'reserved' | 'none'): Promise<void> {
    await this.update(id).set({ billing_status: to }).where('billing_status', '=', 'reserving').execute();
  }

  /** `reserved` → `settled` or `refunded` once the ledger closed the reserve. */
  async closeBilling(id: Task['id'], status: 'settled' | 'refunded'): Promise<void> {
    await this.update(id).set({ billing_status: status, updated_at: Date.now() }).where('billing_status', '=', 'reserved').execute();
  }

  /** A submission moves to another channel (or key) before it was sent there; only while NOT_START. */
  async moveToChannel(id: Task['id'], channelId: number, keyIndex: number, upstreamModel: string): Promise<void> {
    await this.update(id)
      .set({ channel_id: channelId, channel_key_index: keyIndex, upstream_model: upstreamModel, updated_at: Date.now() })
      .where('status', '=', 'NOT_START')
      .execute();
  }

  /** NOT_START → UNKNOWN and flagged: the upstream may have taken the task. Returns whether this call won. */
  async flagUnknownSubmit(id: Task['id'], failReason: string, flagReason: string): Promise<boolean> {
    const upd = await this.update(id)
      .set({
        status: 'UNKNOWN',
        fail_reason: failReason,
        flagged: 1,
        flag_reason: flagReason,
        next_poll_at: null,
        updated_at: Date.now(),
      })
      .where('status', '=', 'NOT_START')
      .executeTakeFirst();
    return Number(upd.numUpdatedRows) === 1;
  }

  // ------------------------------------------------------------------------------------------
  // Status compare-and-swap
  // ------------------------------------------------------------------------------------------

  /**
   * Compare-and-swap on the previous status (and whatever `cond` adds); `updated_at` is set too.
   * Returns whether this call won.
   */
  async swap(id: Task['id'], from: string, set: TaskChanges, cond: SwapCondition = {}): Promise<boolean> {
    let q = this.update(id)
      .set({ ...set, updated_at: Date.now() } as never)
      .where('status', '=', from);
    if (cond.leaseOwner) q = q.where('lease_owner', '=', cond.leaseOwner);
    if (cond.flagged !== undefined) q = q.where('flagged', '=', cond.flagged);
    if (cond.pollFailures !== undefined) q = q.where('poll_failures', '=', cond.pollFailures);
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  // ------------------------------------------------------------------------------------------
  // Poll leases
  // ------------------------------------------------------------------------------------------

  /**
   * Leases the task `publicId` to `owner` for an in-request poll when it could be polled now (not
   * terminal, submitted, not flagged, not leased, not backing off). Null when it cannot.
   */
  async leaseForPoll(publicId: string, owner: string, leaseMs: number): Promise<Task | null> {
    const now = Date.now();
    const found = await this.db.selectFrom('tasks').select(['id']).where('public_id', '=', publicId).executeTakeFirst();
    if (!found) return null;
    const r = await this.update(found.id)
      .set({ lease_owner: owner, lease_until: now + leaseMs })
      .where('status', 'in', NON_TERMINAL as unknown as string[])
      .where('flagged', '=', 0)
      .where('upstream_task_id', 'is not', null)
      .where('next_poll_at', 'is not', null)
      .where((eb) => eb.or([eb('poll_failures', '=', 0), eb('next_poll_at', '<=', now)]))
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) return null;
    const t = await this.byId(found.id);
    return t && t.lease_owner === owner ? t : null;
  }

  /** Leases up to `limit` due, unleased tasks to `owner`, one by one through the primary key. */
  async claimDue(owner: string, limit: number, leaseMs: number): Promise<Task[]> {
    const now = Date.now();
    const due = await this.db
      .selectFrom('tasks')
      .select(['id'])
      .where('next_poll_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .orderBy('next_poll_at')
      .limit(limit)
      .execute();
    const leaseUntil = now + leaseMs;
    const out: Task[] = [];
    for (const { id } of due) {
      const r = await this.update(id)
        .set({ lease_owner: owner, lease_until: leaseUntil })
        .where('next_poll_at', '<=', now)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 1) {
        const t = await this.byId(id);
        if (t && t.lease_owner === owner && !TERMINAL.has(t.status)) out.push(t);
      }
    }
    return out;
  }

  /** Gives back the lease of one task when `owner` holds it. */
  async releaseLease(id: Task['id'], owner: string): Promise<void> {
    await this.update(id).set({ lease_owner: null, lease_until: null }).where('lease_owner', '=', owner).execute();
  }

  /** Gives back every lease `owner` holds (a restarted node), row by row through the primary key. */
  async releaseLeasesOf(owner: string): Promise<void> {
    const mine = await this.db.selectFrom('tasks').select(['id']).where('lease_owner', '=', owner).execute();
    for (const { id } of mine) await this.releaseLease(id, owner);
  }

  // ------------------------------------------------------------------------------------------
  // Sweeps (plain reads; each change then goes through the primary key)
  // ------------------------------------------------------------------------------------------

  /** Submitted, unflagged, unfinished tasks submitted before `cutoff` (the outer deadline). */
  async submittedBefore(cutoff: number, limit: number): Promise<Task[]> {
    return this.db
      .selectFrom('tasks')
      .selectAll()
      .where('status', 'in', NON_TERMINAL as unknown as string[])
      .where('flagged', '=', 0)
      .where('upstream_task_id', 'is not', null)
      .where('submitted_at', '<', cutoff)
      .limit(limit)
      .execute();
  }

  /** Public ids of terminal tasks still `reserved` and unchanged since `before` (settlement left half-done). */
  async unsettled(before: number, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('tasks')
      .select(['public_id'])
      .where('billing_status', '=', 'reserved')
      .where('status', 'in', ['SUCCESS', 'FAILURE'])
      .where('updated_at', '<', before)
      .limit(limit)
      .execute();
    return rows.map((r) => r.public_id);
  }

  /** Unflagged NOT_START tasks created before `cutoff` (their submission never finished). */
  async staleSubmits(
    cutoff: number,
    limit: number,
  ): Promise<Array<Pick<Task, 'id' | 'public_id' | 'user_id' | 'plugin_key' | 'channel_id'>>> {
    return this.db
      .selectFrom('tasks')
      .select(['id', 'public_id', 'user_id', 'plugin_key', 'channel_id'])
      .where('status', '=', 'NOT_START')
      .where('flagged', '=', 0)
      .where('created_at', '<', cutoff)
      .limit(limit)
      .execute();
  }

  /** Flags one stale submission as UNKNOWN, the condition of `staleSubmits` checked again. Returns whether this call won. */
  async flagStaleSubmit(id: Task['id'], cutoff: number, reason: string): Promise<boolean> {
    const upd = await this.update(id)
      .set({
        status: 'UNKNOWN',
        flagged: 1,
        flag_reason: reason,
        updated_at: Date.now(),
      })
      .where('status', '=', 'NOT_START')
      .where('flagged', '=', 0)
      .where('created_at', '<', cutoff)
      .executeTakeFirst();
    return Number(upd.numUpdatedRows) === 1;
  }
}
