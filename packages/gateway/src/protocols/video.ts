/**
 * The video object (docs/protocols.md). The host sets id, object, model, status, progress and the time
 * fields; vendor fields from the plugin's `render` are kept when they pass the rules below.
 */
import { fail } from '../platform/errors.ts';
import { progressInt, toSec, type TaskViewLike } from './task-view.ts';

export type VideoStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'unknown';

export function videoStatusOf(s: string): VideoStatus {
  switch (s) {
    case 'SUCCESS':
      return 'completed';
    case 'FAILURE':
      return 'failed';
    case 'IN_PROGRESS':
      return 'in_progress';
    case 'UNKNOWN':
      return 'unknown';
    default:
      return 'queued';
  }
}

/** Keys the host owns: a vendor value under these names is replaced or removed. */
const HOST_KEYS = new Set(['id', 'object', 'model', 'status', 'progress', 'created_at', 'completed_at', 'task_id']);
const KEY_RE = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const MAX_FIELDS = 64;
const MAX_FIELD_BYTES = 64 * 1024;
const MAX_TOTAL_BYTES = 256 * 1024;
const MAX_DEPTH = 8;

function depthOf(v: unknown, d = 0): number {
  if (d > MAX_DEPTH + 1) return d;
  if (Array.isArray(v)) return v.reduce<number>((m, x) => Math.max(m, depthOf(x, d + 1)), d + 1);
  if (v && typeof v === 'object') return Object.values(v).reduce<number>((m, x) => Math.max(m, depthOf(x, d + 1)), d + 1);
  return d;
}

function mentions(v: unknown, needle: string): boolean {
  if (!needle) return false;
  return JSON.stringify(v ?? null).includes(needle);
}

/**
 * Vendor fields that pass: a plain key name, not host-owned, JSON-serialisable, at most 64 KiB and
 * 8 levels each (256 KiB and 64 fields in all), never mentioning the private upstream task id.
 */
export function keepVendorFields(rendered: Record<string, unknown>, privateUpstreamId: string | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let total = 0;
  let n = 0;
  for (const [k, v] of Object.entries(rendered)) {
    if (HOST_KEYS.has(k) || !KEY_RE.test(k) || v === undefined || typeof v === 'function') continue;
    let enc: string;
    try {
      enc = JSON.stringify(v);
    } catch {
      continue;
    }
    if (enc === undefined || enc.length > MAX_FIELD_BYTES || depthOf(v) > MAX_DEPTH) continue;
    if (privateUpstreamId && privateUpstreamId.length >= 4 && mentions(v, privateUpstreamId)) continue;
    if (total + enc.length > MAX_TOTAL_BYTES || n >= MAX_FIELDS) break;
    total += enc.length;
    n++;
    out[k] = v;
  }
  return out;
}

/** The host's video object for a task. */
export function videoObject(task: TaskViewLike, model: string, vendor: Record<string, unknown> = {}): Record<string, unknown> {
  const status = videoStatusOf(String(task.status));
  const obj: Record<string, unknown> = {
    ...vendor,
    id: task.task_id,
    object: 'video',
    model,
    status,
    progress: status === 'completed' ? 100 : progressInt(task.progress),
    created_at: toSec(task.created_at) ?? 0,
  };
  const done = toSec(task.finished_at);
  if ((status === 'completed' || status === 'failed') && done) obj.completed_at = done;
  else delete obj.completed_at;
  if (status === 'failed' && obj.error === undefined)
    obj.error = { code: 'video_generation_failed', message: task.fail_reason || 'The task failed.' };
  return obj;
}

/** Applies the rules to a `render` result: it must be a JSON object. */
export function videoFromRender(
  rendered: unknown,
  task: TaskViewLike,
  model: string,
  privateUpstreamId: string | null,
): Record<string, unknown> {
  if (!rendered || typeof rendered !== 'object' || Array.isArray(rendered)) {
    throw fail('plugin_render_invalid', 'the video render hook must return a JSON object');
  }
  return videoObject(task, model, keepVendorFields(rendered as Record<string, unknown>, privateUpstreamId));
}
