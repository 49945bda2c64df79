/**
 * Task completion callbacks (docs/tasks.md#callbacks): which URL a submission's callback goes to (the
 * `X-Callback-URL` header, else the key's `callback_url`), the checks made at submit (an http(s) URL
 * whose host is public unless CONTENT_ALLOW_PRIVATE_ADDRESSES=true, and a key with a signing secret),
 * the delivery row kept per task, its arming when the task becomes terminal, the signature, and the
 * view shown to the caller and on the console. Deliveries themselves run in `worker.ts`.
 */
import type { Selectable } from 'kysely';
import type { Core } from '../../core.ts';
import type { KeyPrincipal } from '../../accounts/types.ts';
import { randomToken } from '../../platform/crypto.ts';
import { fail } from '../../platform/errors.ts';
import { randomId } from '../../platform/ids.ts';
import { isPublicHost } from '../../platform/ssrf.ts';
import { isUniqueViolation } from '../../store/db.ts';
import { TERMINAL } from '../lifecycle/states.ts';
import { KeyStore } from '../../accounts/key-store.ts';
import type { TaskCallbackRow, TaskRow } from '../../store/schema-tasks.ts';

export const CALLBACK_URL_MAX = 2048;
/** Attempts kept in a delivery's history. */
export const HISTORY_MAX = 20;

export type CallbackRow = Selectable<TaskCallbackRow>;

/** One delivery attempt as recorded (`at` unix ms; `status` the HTTP status, null without an answer). */
export interface CallbackAttempt {
  at: number;
  status: number | null;
  error: string | null;
  ms: number;
}

/** The callback of a task as its owner sees it (`GET /v1/tasks/{id}`; times in unix seconds). */
export interface CallbackView {
  url: string;
  delivery_id: string;
  /** waiting | pending | delivered | failed | skipped */
  status: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: number | null;
  next_attempt_at: number | null;
  delivered_at: number | null;
  history: Array<{ at: number; status: number | null; error: string | null; duration_ms: number }>;
}

type Unit = 's' | 'ms';
const at = (ms: number | null, unit: Unit) =>
  ms === null || ms === undefined ? null : unit === 'ms' ? Number(ms) : Math.floor(Number(ms) / 1000);

/** The callback's `X-Signature`, with the key's callback secret (platform/crypto.ts). */
export { signBody } from '../../platform/crypto.ts';

/** A new signing secret: `whsec_` + 32 random bytes, base64url. */
export function newCallbackSecret(): string {
  return `whsec_${randomToken(32)}`;
}

/** The syntax check of a callback URL (key fields and submissions): http or https, no spaces, ≤ 2048. */
export function parseCallbackUrl(raw: string, field = 'X-Callback-URL'): URL {
  const s = raw.trim();
  let u: URL | null = null;
  if (s.length <= CALLBACK_URL_MAX && !/\s/.test(s)) {
    try {
      u = new URL(s);
    } catch {
      u = null;
    }
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) {
    throw fail('callback_url_invalid', `${field} must be an http or https URL of at most ${CALLBACK_URL_MAX} characters`);
  }
  if (u.username || u.password) throw fail('callback_url_invalid', `${field} may not carry a user name or password`);
  return u;
}

/** Back-off before attempt `attempts + 1` (after `attempts` failures): base × 2^(attempts−1), capped. */
export function retryDelay(attempts: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30));
}

export class TaskCallbacks {
  /** Called after a delivery was armed (the worker looks at once instead of at its next pass). */
  onArmed: (() => void) | null = null;

  constructor(private readonly core: Core) {}

  private get db() {
    return this.core.h.db;
  }

  /** Terminal tasks whose callback still waits (the node that finished them stopped first). */
  async terminalWithWaitingCallback(limit: number): Promise<Array<{ id: number; retain: number }>> {
    const rows = await this.db
      .selectFrom('task_callbacks as c')
      .innerJoin('tasks as t', 't.id', 'c.task_id')
      .select(['t.id', 't.retain'])
      .where('c.status', '=', 'waiting')
      .where('t.status', 'in', [...TERMINAL])
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, retain: Number(r.retain) }));
  }

  /**
   * The callback URL of a submission, checked, or null when there is none. `header` is the value of
   * `X-Callback-URL` (undefined when absent); the key's default applies otherwise.
   */
  async resolve(p: KeyPrincipal, header: string | undefined): Promise<string | null> {
    const given = typeof header === 'string' && header.trim() !== '';
    const raw = given ? header : (p.callbackUrl ?? null);
    if (!raw) return null;
    const field = given ? 'X-Callback-URL' : "the API key's callback_url";
    const u = parseCallbackUrl(raw, field);
    if (!this.core.config.contentAllowPrivateAddresses && !(await isPublicHost(u.hostname))) {
      throw fail('callback_url_not_public', { field });
    }
    const callbackSecret = await new KeyStore(this.core.h).callbackSecret(p.keyId);
    if (!callbackSecret) {
      throw fail(
        'callback_secret_missing',
        'this API key has no callback signing secret yet: create one with POST /api/token/{id}/callback-secret',
      );
    }
    return u.toString();
  }

  /** Records the callback of an accepted task (waiting until the task is terminal). */
  async create(task: Pick<Selectable<TaskRow>, 'id' | 'public_id' | 'key_id'>, url: string): Promise<void> {
    try {
      await this.db
        .insertInto('task_callbacks')
        .values({
          task_id: task.id,
          public_task_id: task.public_id,
          key_id: task.key_id,
          url,
          delivery_id: `dlv_${randomId(32)}`,
          status: 'waiting',
          attempts: 0,
          next_attempt_at: null,
          lease_owner: null,
          lease_until: null,
          first_attempt_at: null,
          last_attempt_at: null,
          last_status: null,
          last_error: null,
          history: null,
          payload: null,
          delivered_at: null,
          created_at: Date.now(),
        })
        .execute();
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
    }
  }

  /**
   * Makes the callback of a terminal task due (a compare-and-swap on `waiting`, so any number of calls
   * from any node arm it once). A task whose result was not retained has nothing to show: skipped.
   */
  async arm(task: Pick<Selectable<TaskRow>, 'id' | 'retain'>, now = Date.now()): Promise<boolean> {
    const set = task.retain === 1 ? { status: 'pending', next_attempt_at: now } : { status: 'skipped', next_attempt_at: null };
    const r = await this.db
      .updateTable('task_callbacks')
      .set(set)
      .where('task_id', '=', task.id)
      .where('status', '=', 'waiting')
      .executeTakeFirst();
    const armed = Number(r.numUpdatedRows) > 0 && set.status === 'pending';
    if (armed) this.onArmed?.();
    return armed;
  }

  /**
   * Leases up to `limit` due deliveries to `node` until `leaseUntil`: a compare-and-swap per row on its
   * status, attempt count and lease, so two nodes never hold one delivery at a time.
   */
  async claimDue(node: string, limit: number, now: number, leaseUntil: number): Promise<CallbackRow[]> {
    const due = await this.db
      .selectFrom('task_callbacks')
      .select(['id', 'attempts'])
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .orderBy('next_attempt_at')
      .limit(limit)
      .execute();
    const out: CallbackRow[] = [];
    for (const d of due) {
      const r = await this.db
        .updateTable('task_callbacks')
        .set({ lease_owner: node, lease_until: leaseUntil })
        .where('id', '=', d.id)
        .where('status', '=', 'pending')
        .where('attempts', '=', d.attempts)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) continue;
      const row = await this.db.selectFrom('task_callbacks').selectAll().where('id', '=', d.id).executeTakeFirst();
      if (row && row.lease_owner === node && row.status === 'pending') out.push(row);
    }
    return out;
  }

  /**
   * Records an attempt of a claimed delivery: a compare-and-swap on the lease `node` holds and the
   * attempt count `seenAttempts` it read. Returns whether the record was written.
   */
  async recordAttempt(id: CallbackRow['id'], node: string, seenAttempts: number, set: Record<string, unknown>): Promise<boolean> {
    const r = await this.db
      .updateTable('task_callbacks')
      .set(set as never)
      .where('id', '=', id)
      .where('lease_owner', '=', node)
      .where('attempts', '=', seenAttempts)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async forTask(taskId: number): Promise<CallbackRow | undefined> {
    return this.db.selectFrom('task_callbacks').selectAll().where('task_id', '=', taskId).executeTakeFirst();
  }

  /** The view of a task's callback, or null when it has none. */
  async view(taskId: number, unit: Unit = 's'): Promise<CallbackView | null> {
    const r = await this.forTask(taskId);
    return r ? callbackView(r, unit) : null;
  }

  /** The signing secret of a key, opened (null when the key or its secret is gone). */
  async secretOf(keyId: number | null): Promise<string | null> {
    if (keyId === null) return null;
    const sealed = await new KeyStore(this.core.h).callbackSecret(keyId);
    if (!sealed) return null;
    try {
      return this.core.secrets.open(sealed);
    } catch {
      return null;
    }
  }
}

export function parseHistory(s: string | null): CallbackAttempt[] {
  if (!s) return [];
  try {
    const a = JSON.parse(s);
    return Array.isArray(a) ? (a as CallbackAttempt[]) : [];
  } catch {
    return [];
  }
}

/** The view of a delivery; times in unix seconds (the task API) or milliseconds (the admin API). */
export function callbackView(r: CallbackRow, unit: Unit = 's'): CallbackView {
  return {
    url: r.url,
    delivery_id: r.delivery_id,
    status: r.status,
    attempts: Number(r.attempts),
    last_status: r.last_status === null ? null : Number(r.last_status),
    last_error: r.last_error,
    last_attempt_at: at(r.last_attempt_at, unit),
    next_attempt_at: r.status === 'pending' ? at(r.next_attempt_at, unit) : null,
    delivered_at: at(r.delivered_at, unit),
    history: parseHistory(r.history).map((a) => ({ at: at(a.at, unit)!, status: a.status, error: a.error, duration_ms: a.ms })),
  };
}
