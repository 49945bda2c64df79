/**
 * Light shape checks of hook results, so that the lifecycle gets a readable PluginCallError instead of
 * a TypeError deep inside it. Detailed limits (artifacts, render events) follow the contract reference.
 */
import { TASK_STATUSES } from '@gatehouse/plugin-sdk';
import { isObj } from '../../platform/validate.ts';

const ARTIFACT_KEY = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$/;

function descriptor(v: unknown): string | null {
  if (!isObj(v)) return 'must return a request descriptor object';
  if (typeof v.url !== 'string' || !v.url) return 'must return a descriptor with a non-empty "url"';
  if (v.method !== undefined && typeof v.method !== 'string') return 'descriptor "method" must be a string';
  if (v.headers !== undefined && (!isObj(v.headers) || Object.values(v.headers).some((h) => typeof h !== 'string')))
    return 'descriptor "headers" must map names to strings';
  if (v.bodyType !== undefined && v.bodyType !== 'json' && v.bodyType !== 'multipart')
    return 'descriptor "bodyType" must be "json" or "multipart"';
  if (v.bodyType === 'multipart' && !Array.isArray(v.parts)) return 'a multipart descriptor needs "parts"';
  if (v.responseType !== undefined && v.responseType !== 'json' && v.responseType !== 'sse')
    return 'descriptor "responseType" must be "json" or "sse"';
  return null;
}

function status(v: unknown, where: string): string | null {
  if (typeof v !== 'string' || !(TASK_STATUSES as readonly string[]).includes(v))
    return `${where} "status" must be one of ${TASK_STATUSES.join(', ')}`;
  return null;
}

function intent(v: unknown): string | null {
  if (!isObj(v)) return 'must return an object';
  if ('renderer' in v) return '"renderer" is no longer supported in decoder results';
  if (v.kind === 'submit') return typeof v.model === 'string' && v.model ? null : 'a submit intent needs a non-empty "model"';
  if (v.kind === 'query')
    return Array.isArray(v.taskIds) && v.taskIds.length <= 100 && v.taskIds.every((t) => typeof t === 'string' && t)
      ? null
      : 'a query intent needs "taskIds": up to 100 non-empty strings';
  return 'must return { kind: "submit", model, ... } or { kind: "query", taskIds }';
}

const usage = (v: unknown) => (v === null || isObj(v) ? null : 'must return a usage facts object or null');

const CHECKS: Record<string, (v: unknown) => string | null> = {
  buildSubmitRequest: descriptor,
  buildQueryRequest: descriptor,
  buildBatchQueryRequest: descriptor,
  buildContentRequest: descriptor,
  parseSubmitResponse: (v) => {
    if (!isObj(v)) return 'must return { taskId, taskData?, immediate?, state? }';
    if (typeof v.taskId !== 'string' && typeof v.taskId !== 'number') return 'must return a "taskId"';
    if ('clientResponse' in v) return '"clientResponse" is not allowed in parseSubmitResponse results';
    if (v.immediate !== undefined && v.immediate !== null)
      return isObj(v.immediate) ? status(v.immediate.status, 'immediate') : '"immediate" must be an object';
    return null;
  },
  parseTaskResult: (v) => (isObj(v) ? status(v.status, 'the result') : 'must return { status, progress?, reason?, ... }'),
  parseBatchResult: (v) => {
    if (!Array.isArray(v)) return 'must return an array of results';
    for (let i = 0; i < v.length; i++) {
      const it = v[i];
      if (!isObj(it)) return `item ${i} must be an object`;
      if (typeof it.taskId !== 'string' || !it.taskId) return `item ${i} needs a "taskId"`;
      const s = status(it.status, `item ${i}`);
      if (s) return s;
    }
    return null;
  },
  extractUsage: usage,
  extractUsageOnSubmit: usage,
  extractUsageOnComplete: usage,
  listArtifacts: (v) => {
    if (!Array.isArray(v)) return 'must return an array of { key, type, mimeType? }';
    if (v.length > 64) return 'must return at most 64 artifacts';
    const seen = new Set<string>();
    for (let i = 0; i < v.length; i++) {
      const a = v[i];
      if (!isObj(a)) return `artifact ${i} must be an object`;
      for (const k of Object.keys(a)) if (k !== 'key' && k !== 'type' && k !== 'mimeType') return `artifact ${i} has unknown field "${k}"`;
      if (typeof a.key !== 'string' || !ARTIFACT_KEY.test(a.key)) return `artifact ${i} key must match ${ARTIFACT_KEY.source}`;
      if (seen.has(a.key)) return `artifact key "${a.key}" is listed twice`;
      seen.add(a.key);
      if (!['video', 'audio', 'image', 'file'].includes(a.type as string)) return `artifact ${i} type must be video, audio, image or file`;
      if (a.mimeType !== undefined && (typeof a.mimeType !== 'string' || a.mimeType.length > 255 || /[\r\n]/.test(a.mimeType)))
        return `artifact ${i} mimeType must be a string of at most 255 characters without line breaks`;
    }
    return null;
  },
  parseSubmitEvent: (v) => (isObj(v) && 'state' in v && typeof v.done === 'boolean' ? null : 'must return { state, done }'),
  parseSubmitEventDelta: (v) => {
    if (!isObj(v) || !Array.isArray(v.changes) || !('state' in v) || typeof v.done !== 'boolean')
      return 'must return exactly { changes, state, done }';
    if (Object.keys(v).length !== 3) return 'must return exactly { changes, state, done }';
    return null;
  },
  decodeRequest: intent,
  renderEvents: (v) => {
    if (!isObj(v) || !Array.isArray(v.events) || typeof v.done !== 'boolean') return 'must return { events, state?, done }';
    for (const k of Object.keys(v)) if (!['events', 'state', 'done'].includes(k)) return `unknown field "${k}"`;
    if (v.events.length > 16) return 'must return at most 16 events';
    for (const e of v.events) {
      if (!isObj(e) || !['progress', 'output', 'error'].includes(e.type as string))
        return 'each event must have type progress, output or error';
      if (e.type === 'error' && typeof e.message !== 'string') return 'an error event needs a "message"';
    }
    return null;
  },
  renderFinal: (v) => (isObj(v) ? null : 'must return an object'),
};

/** Returns a readable reason when `value` is not a well-formed result of `hook`, else null. */
export function checkHookResult(hook: string, value: unknown, routeDecoders?: ReadonlySet<string>): string | null {
  const parts = hook.split('.');
  const last = parts[parts.length - 1];
  if (parts[0] === 'protocols') {
    if (last === 'render')
      return parts[1] === 'compat_image'
        ? isObj(value) && Array.isArray(value.data)
          ? null
          : 'must return { data: [...] }'
        : isObj(value)
          ? null
          : 'must return an object';
    return CHECKS[last]?.(value) ?? null;
  }
  if (parts[0] === 'native') return routeDecoders?.has(last) ? intent(value) : null;
  return CHECKS[hook]?.(value) ?? null;
}
