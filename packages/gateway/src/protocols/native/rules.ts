/**
 * Native plugin routes (docs/protocols.md): reserved host namespaces, decoder intents,
 * originTaskIds normalisation (ownership and channel checks are the lifecycle's), and the host's error envelopes for these routes. No I/O here.
 */
import type { NativeRoute } from '@gatehouse/plugin-sdk';
import { echo, fail } from '../../platform/errors.ts';
import { parsePath, reservedIntersection } from '../../plugins/runtime/routes.ts';
import { foldModel, type PluginLike } from '../plugin-like.ts';
import { sanitizeHookText } from '../hook-text.ts';

/**
 * Whether a route path (with `:params` / `*catchall`) intersects a path the host keeps for itself
 * (the SDK's RESERVED_ROUTE_PREFIXES, the same check as at upload). An unparseable path counts as reserved.
 */
export function isReservedPath(path: string): boolean {
  try {
    return reservedIntersection(parsePath(path)) !== null;
  } catch {
    return true;
  }
}

/** The route fields these rules read: the contract's NativeRoute. */
export type RouteDecl = NativeRoute;

export type NativeIntent =
  { kind: 'submit'; model: string; action?: string; requestBody?: unknown; originTaskIds: string[] } | { kind: 'query'; taskIds: string[] };

const invalidResult = () => fail('invalid_request', 'plugin returned an invalid route result');

/** Checks the top-level model of a submit/dynamic body against the route's `models`. */
export function checkRouteModel(route: RouteDecl, body: unknown): void {
  if (!route.models || route.models.length === 0) return;
  const m = body && typeof body === 'object' && !Array.isArray(body) ? (body as { model?: unknown }).model : undefined;
  if (typeof m !== 'string' || !route.models.some((x) => foldModel(x) === foldModel(m))) {
    throw fail('model_not_on_route', `model ${JSON.stringify(typeof m === 'string' ? m : '')} is not allowed on this route`);
  }
}

/** Normalises originTaskIds: at most 16, each trimmed, non-empty, at most 128 characters, deduplicated. */
export function normalizeOriginIds(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalidResult();
  const out: string[] = [];
  for (const x of v) {
    if (typeof x !== 'string') throw invalidResult();
    const t = x.trim();
    if (!t || Array.from(t).length > 128)
      throw fail('invalid_request', 'originTaskIds entries must be non-empty ids of at most 128 characters');
    if (!out.includes(t)) out.push(t);
  }
  if (out.length > 16) throw fail('invalid_request', 'at most 16 originTaskIds are allowed');
  return out;
}

/** Checks a decoder's return value on a native route (submit routes allow submit intents only). */
export function checkNativeIntent(value: unknown, route: RouteDecl, plugin: PluginLike): NativeIntent {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalidResult();
  const v = value as Record<string, unknown>;
  if ('renderer' in v || typeof v.kind !== 'string') throw invalidResult();
  if (v.kind === 'query') {
    if (route.type !== 'dynamic') throw fail('invalid_request', 'a query intent is only allowed on dynamic routes');
    const ids = v.taskIds;
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > 100 || ids.some((x) => typeof x !== 'string' || !x.trim())) {
      throw fail('invalid_request', 'taskIds must be 1 to 100 non-empty task ids');
    }
    return { kind: 'query', taskIds: (ids as string[]).map((x) => x.trim()) };
  }
  if (v.kind !== 'submit') throw invalidResult();
  if (typeof v.model !== 'string' || !v.model.trim()) throw fail('invalid_request', 'the route did not name a model');
  const declared = plugin.manifest.models.find((m) => foldModel(m) === foldModel(v.model as string));
  if (!declared) throw fail('model_not_on_route', `model ${JSON.stringify(echo(v.model))} is not served by this route`);
  if (route.models?.length && !route.models.some((m) => foldModel(m) === foldModel(declared))) {
    throw fail('model_not_on_route', `model ${JSON.stringify(echo(v.model))} is not allowed on this route`);
  }
  if (v.action !== undefined && typeof v.action !== 'string') throw invalidResult();
  const action = (typeof v.action === 'string' && v.action.trim()) || route.action;
  return {
    kind: 'submit',
    model: declared,
    ...(action ? { action } : {}),
    ...(v.requestBody !== undefined ? { requestBody: v.requestBody } : {}),
    originTaskIds: normalizeOriginIds(v.originTaskIds),
  };
}

export interface NativeErrorInfo {
  code: string;
  message: string;
  httpStatus: number;
  retryable: boolean;
  requestId: string;
}

/** The host's error description for a native route: codes by status; detail only for 4xx. */
export function nativeError(status: number, detail: string | null, requestId: string): NativeErrorInfo {
  const table: Record<number, [string, string, boolean]> = {
    400: ['invalid_request', 'Invalid request', false],
    401: ['authentication_error', 'Authentication failed', false],
    403: ['permission_denied', 'Permission denied', false],
    404: ['task_not_found', 'Task not found', false],
    409: ['request_conflict', 'Request conflict', false],
    413: ['request_too_large', 'Request too large', false],
    415: ['unsupported_media_type', 'Unsupported media type', false],
    429: ['rate_limit_exceeded', 'Too many requests', true],
  };
  const [code, msg, retryable] =
    status >= 500 ? ['server_error', 'Task request failed', true] : (table[status] ?? ['invalid_request', 'Invalid request', false]);
  const message = status < 500 && detail ? sanitizeHookText(detail) : msg;
  return { code, message, httpStatus: status, retryable, requestId };
}

/** Default body when the plugin has no `native.error`. */
export const defaultNativeErrorBody = (e: NativeErrorInfo): Record<string, unknown> => ({
  code: e.code,
  message: `${e.message} (request id: ${e.requestId})`,
  data: null,
});
