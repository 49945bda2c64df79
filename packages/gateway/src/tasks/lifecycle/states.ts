/** Task states (docs/tasks.md) and the public view of a task. */
import type { Selectable } from 'kysely';
import { TASK_STATUSES, type TaskStatus } from '@gatehouse/plugin-sdk';
import type { TaskRow } from '../../store/schema-tasks.ts';

export type { TaskStatus };
export const STATUSES = TASK_STATUSES;
export const TERMINAL: ReadonlySet<string> = new Set(['SUCCESS', 'FAILURE']);
export const NON_TERMINAL: readonly TaskStatus[] = ['NOT_START', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'UNKNOWN'];

export function normalizeStatus(s: unknown): TaskStatus {
  if (typeof s !== 'string') return 'UNKNOWN';
  const u = s.trim().toUpperCase();
  return (STATUSES as readonly string[]).includes(u) ? (u as TaskStatus) : 'UNKNOWN';
}

/** Default progress by state; a plugin's progress overrides it (UNKNOWN never advances it). */
export const DEFAULT_PROGRESS: Record<TaskStatus, string> = {
  NOT_START: '0%',
  SUBMITTED: '10%',
  QUEUED: '20%',
  IN_PROGRESS: '30%',
  SUCCESS: '100%',
  FAILURE: '100%',
  UNKNOWN: '0%',
};

export function normalizeProgress(p: unknown, status: TaskStatus, prev: string): string {
  if (status === 'SUCCESS' || status === 'FAILURE') return '100%';
  if (status === 'UNKNOWN') return prev;
  if (typeof p === 'number' && Number.isFinite(p)) return `${Math.max(0, Math.min(100, Math.round(p)))}%`;
  if (typeof p === 'string' && /^\d{1,3}(\.\d+)?%?$/.test(p.trim())) {
    const n = Math.max(0, Math.min(100, Math.round(parseFloat(p))));
    return `${n}%`;
  }
  return DEFAULT_PROGRESS[status];
}

/** The task query response (docs/tasks.md) (times in unix seconds). */
export interface PublicTask {
  task_id: string;
  platform: string;
  status: string;
  progress: string;
  fail_reason: string;
  model: string;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  updated_at: number;
}

const sec = (ms: number | null) => (ms === null || ms === undefined ? null : Math.floor(Number(ms) / 1000));

/** The task row fields the public view reads. */
export type PublicTaskRow = Pick<
  Selectable<TaskRow>,
  'public_id' | 'plugin_key' | 'status' | 'progress' | 'fail_reason' | 'model' | 'created_at' | 'started_at' | 'finished_at' | 'updated_at'
>;

export function publicTask(r: PublicTaskRow): PublicTask {
  return {
    task_id: r.public_id,
    platform: r.plugin_key,
    status: r.status,
    progress: r.progress,
    fail_reason: r.fail_reason ?? '',
    model: r.model,
    created_at: sec(r.created_at)!,
    started_at: sec(r.started_at),
    finished_at: sec(r.finished_at),
    updated_at: sec(r.updated_at)!,
  };
}

export function parseJson(s: string | null): unknown {
  if (s === null || s === undefined) return null;
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}
