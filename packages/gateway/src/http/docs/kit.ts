/**
 * The building blocks of the described API: JSON Schema shorthands (str, int, obj, nullable …), the admin envelope, paging and filter parameters, and `op`, one operation's description.
 * Routes take these through http/route-docs.ts; @fastify/swagger builds the document from the routes.
 */

export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const str = (description?: string, extra: Schema = {}): Schema => ({
  type: 'string',
  ...(description ? { description } : {}),
  ...extra,
});
export const int = (description?: string, extra: Schema = {}): Schema => ({
  type: 'integer',
  ...(description ? { description } : {}),
  ...extra,
});
export const num = (description?: string): Schema => ({ type: 'number', ...(description ? { description } : {}) });
export const bool = (description?: string): Schema => ({ type: 'boolean', ...(description ? { description } : {}) });
export const arr = (items: Schema, description?: string): Schema => ({ type: 'array', items, ...(description ? { description } : {}) });
export const obj = (properties: Record<string, Schema>, required: string[] = [], extra: Schema = {}): Schema => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
  ...extra,
});
export const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: 'null' }] });

export const envelope = (data: Schema): Schema => obj({ success: bool(), message: str(), data }, ['success', 'message', 'data']);
export const q = (name: string, schema: Schema, description?: string) => ({
  name,
  in: 'query',
  schema,
  ...(description ? { description } : {}),
});

export const adminErrors = {
  400: { description: 'invalid input; the message names the field', content: { 'application/json': { schema: ref('AdminError') } } },
  401: { description: 'not logged in', content: { 'application/json': { schema: ref('AdminError') } } },
  403: { description: 'role too low', content: { 'application/json': { schema: ref('AdminError') } } },
  404: { description: 'not found', content: { 'application/json': { schema: ref('AdminError') } } },
};

export function op(
  tag: string,
  summary: string,
  resp: Schema,
  o: { params?: unknown[]; body?: Schema; security?: string; role?: string; contentType?: string; extra?: Record<number, Schema> } = {},
): Schema {
  return {
    tags: [tag],
    summary: o.role ? `${summary} (${o.role})` : summary,
    ...(o.params ? { parameters: o.params } : {}),
    ...(o.body ? { requestBody: { required: true, content: { 'application/json': { schema: o.body } } } } : {}),
    security: o.security === 'none' ? [] : o.security === 'key' ? [{ apiKey: [] }] : [{ session: [] }, { accessToken: [] }],
    responses: {
      200: { description: 'OK', content: { [o.contentType ?? 'application/json']: { schema: resp } } },
      ...(o.security === 'key'
        ? { 401: { description: 'invalid API key', content: { 'application/json': { schema: ref('OpenAIError') } } } }
        : adminErrors),
      ...(o.extra ?? {}),
    },
  };
}

export const header = (description: string, schema: Schema = str()) => ({ description, schema });
/** A model call's 429 (docs/limits.md): a rate limit, the user's request limit, or the balance or a budget. */
export const limited = {
  429: {
    description:
      "rate_limit_exceeded (a rate limit or request limit; Retry-After) or insufficient_quota (the balance, a key's cap or a budget)",
    headers: {
      'retry-after': header('seconds until the limit admits the call again', int()),
      'x-ratelimit-limit-requests': header(
        'requests per minute of the scope closest to its limit (also on successful answers of limited calls)',
        int(),
      ),
      'x-ratelimit-remaining-requests': header('requests left in its minute', int()),
      'x-ratelimit-reset-requests': header('when its minute ends, e.g. 41.5s or 1m0s'),
      'x-ratelimit-limit-tokens': header('tokens per minute (input + output) of the scope closest to its limit', int()),
      'x-ratelimit-remaining-tokens': header('tokens left in its minute, after the estimates of calls in flight', int()),
      'x-ratelimit-reset-tokens': header('when its minute ends'),
      'x-ratelimit-limit-concurrency': header('calls in flight allowed at once', int()),
      'x-ratelimit-remaining-concurrency': header('calls in flight still allowed', int()),
    },
    content: { 'application/json': { schema: ref('OpenAIError') } },
  },
};

/** Response models carry every listed field: mark them required so generated clients need no checks. */
export const COMPLETE_RESPONSES = ['TaskCallback'];

export function withRequiredFields(all: Record<string, Schema>): Record<string, Schema> {
  const out = { ...all };
  for (const name of COMPLETE_RESPONSES) {
    const s = out[name] as { properties?: Record<string, Schema>; required?: string[] };
    if (s?.properties && !s.required) out[name] = { ...s, required: Object.keys(s.properties) };
  }
  return out;
}
