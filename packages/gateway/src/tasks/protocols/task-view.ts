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
