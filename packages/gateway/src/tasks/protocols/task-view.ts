/**
 * The task as protocol renderers see it (TaskView of the contract), and the mapping of task states to
 * the states of the OpenAI-shaped objects the host returns.
 */
export type TaskStatus = 'NOT_START' | 'SUBMITTED' | 'QUEUED' | 'IN_PROGRESS' | 'SUCCESS' | 'FAILURE' | 'UNKNOWN';

export interface TaskViewLike {
  task_id: string;
  platform: string;
  status: TaskStatus | string;
  progress: string;
  fail_reason: string;
  /** Unix seconds. */
  created_at: number;
  updated_at: number;
  finished_at: number;
  data: unknown;
}

export const isTerminal = (s: string): boolean => s === 'SUCCESS' || s === 'FAILURE';

/** `37%` → 37; clamps to 0..100. */
export function progressInt(p: unknown): number {
  const n = typeof p === 'number' ? p : parseFloat(String(p ?? '').replace('%', ''));
  if (!Number.isFinite(n)) return 0;
  return Math.max(0, Math.min(100, Math.round(n)));
}

/** Unix seconds from a time in ms or s (values above 1e11 are taken as ms). */
export function toSec(t: number | null | undefined): number | null {
  if (t === null || t === undefined || !Number.isFinite(t) || t <= 0) return null;
  return t > 1e11 ? Math.floor(t / 1000) : Math.floor(t);
}

const ID_FIELDS = new Set(['id', 'task_id', 'taskId']);

/** Replaces the private upstream id by the public id in exact-match values of known id fields. */
export function replaceUpstreamId(v: unknown, upstreamId: string | null, publicId: string, depth = 0): unknown {
  if (!upstreamId || depth > 32) return v;
  if (Array.isArray(v)) return v.map((x) => replaceUpstreamId(x, upstreamId, publicId, depth + 1));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = ID_FIELDS.has(k) && x === upstreamId ? publicId : replaceUpstreamId(x, upstreamId, publicId, depth + 1);
    return out;
  }
  return v;
}

export interface RowForView {
  public_id: string; plugin_key: string; status: string; progress: string; fail_reason: string | null;
  created_at: number; updated_at: number; finished_at: number | null; data: string | null; upstream_task_id: string | null;
}

/** The TaskView renderers receive (times in unix seconds; the private upstream id replaced). */
export function taskViewOf(row: RowForView): TaskViewLike {
  let data: unknown = null;
  if (row.data) { try { data = JSON.parse(row.data); } catch { data = null; } }
  return {
    task_id: row.public_id,
    platform: row.plugin_key,
    status: row.status,
    progress: row.progress,
    fail_reason: row.fail_reason ?? '',
    created_at: toSec(row.created_at) ?? 0,
    updated_at: toSec(row.updated_at) ?? 0,
    finished_at: toSec(row.finished_at) ?? 0,
    data: replaceUpstreamId(data, row.upstream_task_id, row.public_id),
  };
}
