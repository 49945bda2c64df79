/**
 * The one API client: openapi-fetch over the generated types (schema.d.ts), cookies included. `call`
 * unwraps the `/api` envelope {success, message, data} and throws ApiError carrying the server's
 * message, its error code (the X-Error-Code header) and the field a 400 is about; a 401 on any call but the login sends the browser to the login page (and back afterwards).
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];

export const client = createClient<paths>({ baseUrl: '', credentials: 'include' });

/**
 * A refused or failed API call. `status` 0 means the server could not be reached; `code` is the
 * gateway's error code (its catalog, for translated messages) and `field` the input a 400 is about.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code?: string;
  readonly field?: string;
  constructor(status: number, message: string, code?: string, field?: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.field = field;
  }
  get isNetwork(): boolean {
    return this.status === 0;
  }
}

let onUnauthorized: (() => void) | null = null;
/** Set by the app: what to do when a call answers 401 (the session ended). */
export function setUnauthorizedHandler(fn: (() => void) | null): void {
  onUnauthorized = fn;
}

const authMiddleware: Middleware = {
  onResponse({ request, response }) {
    if (response.status === 401 && !new URL(request.url, location.origin).pathname.startsWith('/api/user/login')) onUnauthorized?.();
    return undefined;
  },
};
client.use(authMiddleware);

/**
 * Every POST, PUT and PATCH carries a JSON body (`{}` when the call has none): the gateway refuses a
 * change made with the session cookie without one (its check against cross-site forms).
 */
const jsonBodyMiddleware: Middleware = {
  onRequest({ request }) {
    if (!['POST', 'PUT', 'PATCH'].includes(request.method) || request.headers.has('content-type')) return undefined;
    const headers = new Headers(request.headers);
    headers.set('content-type', 'application/json');
    return new Request(request, { body: '{}', headers });
  },
};
client.use(jsonBodyMiddleware);

type Envelope<T> = { success?: boolean; message?: string; data?: T };
type FetchResult<T> = { data?: T; error?: unknown; response: Response };

function messageOf(body: unknown, fallback: string): string {
  if (body && typeof body === 'object') {
    const b = body as { message?: unknown; error?: { message?: unknown } };
    if (typeof b.message === 'string' && b.message) return b.message;
    if (typeof b.error?.message === 'string') return b.error.message;
  }
  if (typeof body === 'string' && body) return body;
  return fallback;
}

/** The `field` of an `/api` error body, when it names one. */
function fieldOf(body: unknown): string | undefined {
  const f = body && typeof body === 'object' ? (body as { field?: unknown }).field : undefined;
  return typeof f === 'string' && f ? f : undefined;
}

/** Awaits an openapi-fetch call, unwraps the envelope, throws ApiError on refusal or network failure. */
export async function call<T extends Envelope<unknown>>(p: Promise<FetchResult<T>>): Promise<NonNullable<T['data']>> {
  let r: FetchResult<T>;
  try {
    r = await p;
  } catch (e) {
    throw new ApiError(0, (e as Error).message || 'network error');
  }
  const code = r.response.headers.get('x-error-code') ?? undefined;
  if (!r.response.ok || r.error !== undefined)
    throw new ApiError(r.response.status, messageOf(r.error, r.response.statusText || `HTTP ${r.response.status}`), code, fieldOf(r.error));
  const body = r.data as Envelope<unknown> | undefined;
  if (body && body.success === false) throw new ApiError(r.response.status, messageOf(body, 'refused'), code, fieldOf(body));
  return body?.data as NonNullable<T['data']>;
}

/** Like `call`, plus the envelope's message (e.g. "shown once: store it now"). */
export async function callWithMessage<T extends Envelope<unknown>>(
  p: Promise<FetchResult<T>>,
): Promise<{ data: NonNullable<T['data']>; message: string }> {
  let message = '';
  const data = await call(
    (async () => {
      const r = await p;
      message = (r.data as Envelope<unknown> | undefined)?.message ?? '';
      return r;
    })(),
  );
  return { data, message };
}

/** A same-origin URL with a query string, for links (CSV export) that the browser follows itself. */
export function urlWithQuery(path: string, query: Record<string, unknown>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}
