/**
 * The administrative audit log: every administrative write (users, keys, channels, prices, group
 * ratios, options, plugins, redemption codes, top-ups, task resolutions) is recorded with its actor,
 * time, target and a diff of the fields that changed. Secrets never reach a row: fields with
 * credential-looking names, header values and anything shaped like an API key are replaced by
 * `[redacted]` (a changed secret still shows that it changed). Read by GET /api/audit.
 */
import type { Core } from '../core.ts';
import { Reader, fieldError, isObj, paging, stableJson, type Obj, type Page } from '../platform/validate.ts';

/**
 * Who wrote: a logged-in user (accounts/types.ts `UserPrincipal`, of which the log keeps the id, name
 * and role), or null for the system (configuration file, bootstrap).
 */
export type AuditActor = { id: number; username: string; role: string; group?: string } | null;

export interface AuditTarget {
  /** user, key, channel, price, group_ratio, option, plugin, marketplace, redemption, task … */
  type: string;
  id: string | number;
}

export interface AuditChange {
  before?: unknown;
  after?: unknown;
}

export interface AuditEntryView {
  id: number;
  created_at: number;
  actor_id: number | null;
  actor: string;
  actor_role: string;
  action: string;
  target_type: string;
  target_id: string;
  /** The target's name (a user's, key's or channel's, as it is now; null when gone or of another type). */
  target_name: string | null;
  diff: Record<string, AuditChange>;
}

/** Names of users, keys or channels by id (logs/usage.ts NameLookup). */
type TargetNames = (type: 'user' | 'key' | 'channel', ids: number[]) => Promise<Array<{ id: number; name: string | null }>>;

export interface AuditQuery {
  actor?: string;
  targetType?: string;
  targetId?: string;
  action?: string;
  from?: number;
  to?: number;
  page: number;
  pageSize: number;
  offset: number;
}

export const REDACTED = '[redacted]';
/** Field names whose values are secrets (checked at every depth). */
const SECRET_NAME =
  /password|passwd|secret|token|invitationcode|api[-_]?key|authorization|cookie|credential|private|signature|^keys?$|^codes?$|_hash$|_sealed$/i;
/** Fields whose every value is treated as a secret (header values carry credentials). */
const SECRET_VALUES = /^header_override$|^headers?$/i;
/** API keys, access tokens, bearer credentials inside free text. */
const SECRET_TEXT = /\b(?:sk|gh|rk|pk)-[A-Za-z0-9_-]{8,}|\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g;

/** A copy of `v` with its secrets replaced (see the module comment). */
export function redactValue(v: unknown, name = '', depth = 0): unknown {
  if (name && SECRET_NAME.test(name)) return v === null || v === undefined ? v : REDACTED;
  if (typeof v === 'string') return v.replace(SECRET_TEXT, REDACTED);
  if (depth > 8) return REDACTED;
  if (Array.isArray(v)) return v.map((x) => redactValue(x, '', depth + 1));
  if (isObj(v)) {
    const every = name !== '' && SECRET_VALUES.test(name);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, every ? REDACTED : redactValue(x, k, depth + 1)]));
  }
  return v;
}

const same = (a: unknown, b: unknown) => stableJson(a ?? null) === stableJson(b ?? null);

/**
 * The fields that differ between `before` and `after` (objects; null for a create or a delete), each
 * as `{before, after}` with secrets removed. A field with a secret name that changed shows
 * `[redacted]` on the sides that have a value.
 */
export function auditDiff(before: unknown, after: unknown): Record<string, AuditChange> {
  const b: Obj = isObj(before) ? before : before === null || before === undefined ? {} : { value: before };
  const a: Obj = isObj(after) ? after : after === null || after === undefined ? {} : { value: after };
  const out: Record<string, AuditChange> = {};
  for (const k of [...new Set([...Object.keys(b), ...Object.keys(a)])].sort()) {
    if (same(b[k], a[k])) continue;
    const c: AuditChange = {};
    if (k in b && b[k] !== undefined) c.before = redactValue(b[k], k);
    if (k in a && a[k] !== undefined) c.after = redactValue(a[k], k);
    out[k] = c;
  }
  return out;
}

export class AuditLog {
  constructor(private readonly core: Core) {}

  /**
   * Records one administrative write. `before`/`after` are the target's views (or any object of
   * the fields that matter) before and after it; null for a create (before) or a delete (after).
   * A write that changed nothing (equal sides, neither null) is not recorded. A failure to record
   * is logged, never thrown: the write it describes has already happened.
   */
  async record(actor: AuditActor, action: string, target: AuditTarget, before: unknown, after: unknown): Promise<void> {
    const diff = auditDiff(before, after);
    if (Object.keys(diff).length === 0 && before !== null && after !== null) return;
    try {
      await this.core.h.db
        .insertInto('audit_log')
        .values({
          created_at: Date.now(),
          actor_id: actor?.id ?? null,
          actor_name: (actor?.username ?? 'system').slice(0, 64),
          actor_role: actor?.role ?? 'system',
          action: action.slice(0, 64),
          target_type: target.type.slice(0, 32),
          target_id: String(target.id).slice(0, 191),
          diff: JSON.stringify(diff),
        })
        .execute();
    } catch (e) {
      this.core.log.error({ action, target: target.type, err: (e as Error).message }, 'audit row could not be written');
    }
  }

  parseQuery(q: Obj): AuditQuery {
    const r = new Reader(q);
    const out: AuditQuery = {
      actor: r.str('actor', { max: 64 }) || undefined,
      targetType: r.str('target_type', { max: 32 }) || undefined,
      targetId: r.str('target_id', { max: 191 }) || undefined,
      action: r.str('action', { max: 64 }) || undefined,
      from: r.time('from') ?? undefined,
      to: r.time('to') ?? undefined,
      ...paging(q.p !== undefined && q.page === undefined ? { ...q, page: q.p } : q),
    };
    if (out.from !== undefined && out.to !== undefined && out.from > out.to) throw fieldError('from', 'must not be after to');
    return out;
  }

  /**
   * Entries newest first. `actor` is a user id (digits) or a name (`system` for system writes);
   * `action` matches exactly, or every action of a target type when it ends in `.*`.
   */
  async list(q: AuditQuery, names?: TargetNames): Promise<Page<AuditEntryView>> {
    let base = this.core.h.db.selectFrom('audit_log');
    if (q.actor) base = /^\d+$/.test(q.actor) ? base.where('actor_id', '=', Number(q.actor)) : base.where('actor_name', '=', q.actor);
    if (q.targetType) base = base.where('target_type', '=', q.targetType);
    if (q.targetId) base = base.where('target_id', '=', q.targetId);
    if (q.action) {
      base = q.action.endsWith('.*')
        ? base.where('action', 'like', `${q.action.slice(0, -2).replace(/[\\%_]/g, (c) => '\\' + c)}.%`)
        : base.where('action', '=', q.action);
    }
    if (q.from !== undefined) base = base.where('created_at', '>=', q.from);
    if (q.to !== undefined) base = base.where('created_at', '<=', q.to);
    const [rows, total] = await Promise.all([
      base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.pageSize).offset(q.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
    ]);
    // One lookup per target type on the page.
    const named = new Map<string, string | null>();
    for (const type of ['user', 'key', 'channel'] as const) {
      const ids = [...new Set(rows.filter((r) => r.target_type === type && /^\d+$/.test(r.target_id)).map((r) => Number(r.target_id)))];
      if (names && ids.length) for (const n of await names(type, ids)) named.set(`${type}:${n.id}`, n.name);
    }
    return {
      items: rows.map((r) => ({
        id: Number(r.id),
        created_at: Number(r.created_at),
        actor_id: r.actor_id === null ? null : Number(r.actor_id),
        actor: r.actor_name,
        actor_role: r.actor_role,
        action: r.action,
        target_type: r.target_type,
        target_id: r.target_id,
        target_name: named.get(`${r.target_type}:${r.target_id}`) ?? null,
        diff: parseDiff(r.diff),
      })),
      total: Number(total?.n ?? 0),
      page: q.page,
      page_size: q.pageSize,
    };
  }
}

function parseDiff(text: string): Record<string, AuditChange> {
  try {
    const v = JSON.parse(text);
    return isObj(v) ? (v as Record<string, AuditChange>) : {};
  } catch {
    return {};
  }
}
