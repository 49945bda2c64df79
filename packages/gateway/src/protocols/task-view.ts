/**
 * The task as protocol renderers see it (TaskView of the contract), and the mapping of task states to
 * the states of the OpenAI-shaped objects the host returns.
 */
import type { TaskView } from '@gatehouse/plugin-sdk';
import type { Task } from '../tasks/lifecycle/context.ts';
import { parseJson, publicTask, TERMINAL, type PublicTaskRow } from '../tasks/lifecycle/states.ts';

/** The contract's TaskView (times in unix seconds) as the host builds it: status as stored, data not yet JSON-checked. */
export type TaskViewLike = Omit<TaskView, 'status' | 'data'> & { status: string; data: unknown };

export const isTerminal = (s: string): boolean => TERMINAL.has(s);

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
    for (const [k, x] of Object.entries(v))
      out[k] = ID_FIELDS.has(k) && x === upstreamId ? publicId : replaceUpstreamId(x, upstreamId, publicId, depth + 1);
    return out;
  }
  return v;
}

export type RowForView = PublicTaskRow & Pick<Task, 'data' | 'upstream_task_id'>;

/** The TaskView renderers receive (the public view's times; the private upstream id replaced). */
export function taskViewOf(row: RowForView): TaskViewLike {
  const { task_id, platform, status, progress, fail_reason, created_at, updated_at, finished_at } = publicTask(row);
  return {
    task_id,
    platform,
    status,
    progress,
    fail_reason,
    created_at,
    updated_at,
    finished_at: finished_at ?? 0,
    data: replaceUpstreamId(parseJson(row.data), row.upstream_task_id, row.public_id),
  };
}
