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
export const page = (item: string): Schema =>
  envelope(obj({ items: arr(ref(item)), total: int(), page: int(), page_size: int() }, ['items', 'total', 'page', 'page_size']));

export const pagingParams = [
  { name: 'page', in: 'query', schema: int('1-based page', { minimum: 1, default: 1 }) },
  { name: 'page_size', in: 'query', schema: int('rows per page', { minimum: 1, maximum: 100, default: 20 }) },
];
export const q = (name: string, schema: Schema, description?: string) => ({
  name,
  in: 'query',
  schema,
  ...(description ? { description } : {}),
});
export const idParam = { name: 'id', in: 'path', required: true, schema: int() };

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

export const conflict = (schema: Schema, description: string) => ({ 409: { description, content: { 'application/json': { schema } } } });
export const logCursor = q(
  'cursor',
  str(),
  'next_cursor of the page before: the page after it (page is then ignored); pages by number reach the newest 10,000 rows',
);
export const logFilters = (self: boolean) => [
  q('type', str(undefined, { enum: ['consume', 'error', 'task', 'system', 'topup', 'mcp'] })),
  ...(self ? [] : [q('user_id', int()), q('username', str()), q('channel_id', int())]),
  q('token_id', int('API key id (alias key_id)')),
  q('key_name', str()),
  q('model', str()),
  q('request_id', str()),
  q('start', int(), 'unix ms (or s), or ISO 8601'),
  q('end', int(), 'unix ms (or s), or ISO 8601'),
];
export const usageParams = (self: boolean) => [
  q('from', int('unix ms (or s), or ISO 8601; default: to − 24 h; rounded down to the hour')),
  q('to', int('unix ms (or s), or ISO 8601; default: now; at most 400 days after from')),
  q('bucket', str('series bucket', { enum: ['hour', 'day'], default: 'hour' })),
  q('group_by', str('top groups by quota', { enum: self ? ['model', 'key'] : ['model', 'user', 'channel', 'key'] })),
  q('limit', int('how many groups', { minimum: 1, maximum: 50, default: 10 })),
  q('tz_offset_minutes', int('day buckets: minutes east of UTC (UTC+8 = 480)', { minimum: -840, maximum: 840, default: 0 })),
  ...(self ? [] : [q('user_id', int()), q('channel_id', int())]),
  q('token_id', int('API key id (alias key_id)')),
  q('model', str()),
];

/** The limit fields of a key and a user (docs/limits.md): as shown, and as set (null or 0 = none). */
export const PERIODS = { enum: ['day', 'week', 'month'] };
export const limitView = (): Record<string, Schema> => ({
  rpm: nullable(int('requests per minute; null = no limit')),
  tpm: nullable(int('tokens (input + output) per minute; null = no limit')),
  max_concurrency: nullable(int('calls in flight at once; null = no limit')),
  budget: nullable(int('what may be spent per budget_period, in quota units; null = no budget')),
  budget_usd: nullable(num()),
  budget_period: nullable(str(undefined, PERIODS)),
  budget_spent: nullable(int('spent in the current period (reserves in flight included)')),
  budget_spent_usd: nullable(num()),
  budget_resets_at: nullable(int('unix ms: when the current period ends')),
});
export const limitInput = (): Record<string, Schema> => ({
  rpm: nullable(int('requests per minute; null or 0 = no limit', { minimum: 0 })),
  tpm: nullable(int('tokens per minute; null or 0 = no limit', { minimum: 0 })),
  max_concurrency: nullable(int('calls in flight at once; null or 0 = no limit', { minimum: 0 })),
  budget: nullable(int('quota units per budget_period; null = no budget', { minimum: 0 })),
  budget_usd: nullable(num('USD per budget_period (or budget)')),
  budget_period: nullable(str("the budget's period (UTC calendar, see BudgetUtcOffsetMinutes)", PERIODS)),
});

/** The prompt-cache figures of every usage series point, group and total (`/api/usage`, `/api/usage/self`). */
export const CACHE_USAGE: Record<string, Schema> = {
  cached_tokens: int('prompt tokens read from the prompt cache'),
  cache_write_tokens: int('prompt tokens written to the prompt cache'),
  cache_write_quota: int('what the cache writes cost (quota units, at the prices of each call)'),
  cache_saving_quota: int('what the cache reads saved against the uncached input price (quota units, at the prices of each call)'),
  cache_hit_rate: nullable(num('cached_tokens ÷ prompt_tokens (null without prompt tokens)')),
};
export const CACHE_USAGE_FIELDS = Object.keys(CACHE_USAGE);

/** Response models carry every listed field: mark them required so generated clients need no checks. */
export const COMPLETE_RESPONSES = ['User', 'Key', 'QuotaHold', 'Log', 'TaskCallback'];

export function withRequiredFields(all: Record<string, Schema>): Record<string, Schema> {
  const out = { ...all };
  for (const name of COMPLETE_RESPONSES) {
    const s = out[name] as { properties?: Record<string, Schema>; required?: string[] };
    if (s?.properties && !s.required) out[name] = { ...s, required: Object.keys(s.properties) };
  }
  return out;
}
