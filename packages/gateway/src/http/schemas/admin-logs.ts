/**
 * The schemas of the log and usage routes (http/admin-routes.ts, and a team's logs in
 * http/team-routes.ts): log rows and pages with their totals, usage reports, and the filters of
 * their query strings (read by admin/logs.ts and logs/usage.ts, which give the error messages).
 */
import { Type, type TSchema } from 'typebox';
import { PAGING, ref } from './common.ts';

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
/** A time in a query string: unix ms (or s), or ISO 8601. */
const Time = (description = 'unix ms (or s), or ISO 8601') => Type.Union([Type.Integer(), Type.String()], { description });

/**
 * A log row; the channel fields are an admin's only (absent from a user's own rows, /api/log/self).
 * Other columns of the row (an admin's upstream model and notes) are answered as they are.
 */
export const Log = Type.Object(
  {
    id: Type.Integer(),
    created_at: Type.Integer(),
    type: Type.String(),
    request_id: Type.String(),
    user_id: Nullable(Type.Integer()),
    username: Nullable(Type.String()),
    key_id: Nullable(Type.Integer()),
    key_name: Nullable(Type.String()),
    group_name: Nullable(Type.String()),
    model: Nullable(Type.String()),
    channel_id: Type.Optional(Nullable(Type.Integer({ description: 'admins only' }))),
    channel_name: Type.Optional(Nullable(Type.String({ description: 'admins only: the name of that channel (null once it is deleted)' }))),
    endpoint: Nullable(Type.String()),
    status_code: Nullable(Type.Integer()),
    prompt_tokens: Type.Integer(),
    completion_tokens: Type.Integer(),
    cached_tokens: Type.Integer(),
    cache_write_tokens: Type.Integer(),
    cache_write_quota: Type.Integer({ description: 'what the cache writes cost (quota units, at the prices of the call)' }),
    cache_saving_quota: Type.Integer({ description: 'what the cache reads saved against the uncached input price (quota units)' }),
    quota: Type.Integer(),
    latency_ms: Type.Integer(),
    first_byte_ms: Nullable(Type.Integer()),
    is_stream: Type.Integer(),
    attempts: Type.Integer(),
    content: Nullable(Type.String()),
  },
  { $id: 'Log', additionalProperties: true },
);

export const LogTotals = Type.Object(
  {
    count: Type.Integer({ description: 'rows of the filter' }),
    calls: Type.Integer({ description: 'model calls and task submissions among them' }),
    quota: Type.Integer({ description: 'what those calls spent (quota units)' }),
    movements: Type.Integer({ description: 'top-ups, adjustments and system credits among them' }),
    moved_quota: Type.Integer({ description: 'their net amount (quota units; a deduction is negative)' }),
    prompt_tokens: Type.Integer(),
    completion_tokens: Type.Integer(),
  },
  { $id: 'LogTotals' },
);

const logPageOf = <T extends TSchema>(row: T, $id?: string) =>
  Type.Object(
    {
      items: Type.Array(row),
      total: Type.Integer({ description: 'rows the filter matches, counted up to 10,000 (see totals_capped)' }),
      page: Type.Integer(),
      page_size: Type.Integer(),
      totals: ref(LogTotals),
      totals_capped: Type.Boolean({
        description: 'the filter matches more than 10,000 rows: total and totals are those of the newest 10,000',
      }),
      next_cursor: Nullable(Type.String({ description: 'pass as cursor for the next page; null on the last page' })),
    },
    $id ? { $id } : {},
  );

export const LogPage = logPageOf(ref(Log), 'LogPage');

/** A page of a team's rows: the rows of /api/log/self (no channel or upstream model), `content` null where hidden. */
export const TeamLogPage = logPageOf(
  Type.Object(
    {
      id: Type.Integer(),
      user_id: Type.Optional(Nullable(Type.Integer())),
      key_id: Type.Optional(Nullable(Type.Integer())),
      content: Type.Optional(Nullable(Type.String({ description: "null: another member's text, hidden" }))),
    },
    { additionalProperties: true },
  ),
);

/** The filters of a log list or export; `self`: a user's own (no user or channel filters). */
export const logFilters = (self: boolean) => ({
  type: Type.Optional(Type.Union(['consume', 'error', 'task', 'system', 'topup', 'mcp'].map((t) => Type.Literal(t)))),
  ...(self
    ? {}
    : { user_id: Type.Optional(Type.Integer()), username: Type.Optional(Type.String()), channel_id: Type.Optional(Type.Integer()) }),
  token_id: Type.Optional(Type.Integer({ description: 'API key id (alias key_id)' })),
  key_id: Type.Optional(Type.Integer({ description: 'alias of token_id' })),
  key_name: Type.Optional(Type.String()),
  model: Type.Optional(Type.String()),
  request_id: Type.Optional(Type.String()),
  start: Type.Optional(Time()),
  end: Type.Optional(Time()),
});

const cursor = Type.Optional(
  Type.String({
    description: 'next_cursor of the page before: the page after it (page is then ignored); pages by number reach the newest 10,000 rows',
  }),
);
/** The query string of a log list. */
export const LogQuery = (self: boolean) => Type.Object({ ...PAGING, cursor, ...logFilters(self) });
/** The query string of a CSV export. */
export const LogExportQuery = (self: boolean) => Type.Object(logFilters(self));

/** The answer of a CSV export. */
export const CsvAnswer = {
  description: 'CSV with a header row, CRLF line ends (Content-Disposition: attachment)',
  content: { 'text/csv': { schema: Type.String({ description: 'CSV with a header row, CRLF line ends' }) } },
};

const CACHE_USAGE = {
  cached_tokens: Type.Integer({ description: 'prompt tokens read from the prompt cache' }),
  cache_write_tokens: Type.Integer({ description: 'prompt tokens written to the prompt cache' }),
  cache_write_quota: Type.Integer({ description: 'what the cache writes cost (quota units, at the prices of each call)' }),
  cache_saving_quota: Type.Integer({
    description: 'what the cache reads saved against the uncached input price (quota units, at the prices of each call)',
  }),
  cache_hit_rate: Nullable(Type.Number({ description: 'cached_tokens ÷ prompt_tokens (null without prompt tokens)' })),
};

export const UsagePoint = Type.Object(
  {
    t: Type.Integer({ description: 'bucket start, unix ms' }),
    requests: Type.Integer(),
    errors: Type.Integer(),
    prompt_tokens: Type.Integer(),
    completion_tokens: Type.Integer(),
    quota: Type.Integer(),
    p50_ms: Nullable(Type.Integer({ description: 'latency median of model calls, from a histogram of log-scale buckets' })),
    p95_ms: Nullable(Type.Integer()),
    ...CACHE_USAGE,
  },
  { $id: 'UsagePoint' },
);

export const UsageGroup = Type.Object(
  {
    key: Type.String({ description: 'model name, or user, key or channel id' }),
    label: Type.String({ description: 'model, username, key name or channel name' }),
    requests: Type.Integer(),
    errors: Type.Integer(),
    prompt_tokens: Type.Integer(),
    tokens: Type.Integer({ description: 'prompt + completion' }),
    quota: Type.Integer({ description: 'revenue: what callers were charged' }),
    upstream_cost: Type.Optional(
      Type.Integer({ description: "what the calls cost upstream: list price × the channel's cost_ratio (administrators' report only)" }),
    ),
    margin: Type.Optional(Type.Integer({ description: "quota − upstream_cost (administrators' report only)" })),
    ...CACHE_USAGE,
  },
  { $id: 'UsageGroup' },
);

export const UsageReport = Type.Object(
  {
    from: Type.Integer(),
    to: Type.Integer(),
    bucket: Type.Union([Type.Literal('hour'), Type.Literal('day')]),
    group_by: Nullable(Type.Union([Type.Literal('model'), Type.Literal('user'), Type.Literal('channel'), Type.Literal('key')])),
    totals: Type.Object({
      requests: Type.Integer(),
      errors: Type.Integer(),
      prompt_tokens: Type.Integer(),
      completion_tokens: Type.Integer(),
      quota: Type.Integer(),
      quota_usd: Type.Number(),
      p50_ms: Nullable(Type.Integer()),
      p95_ms: Nullable(Type.Integer()),
      ...CACHE_USAGE,
      cache_write_usd: Type.Number({ description: 'cache_write_quota in USD' }),
      cache_saving_usd: Type.Number({ description: 'cache_saving_quota in USD' }),
    }),
    series: Type.Array(ref(UsagePoint), { description: 'every bucket of the range, empty ones included' }),
    groups: Type.Array(ref(UsageGroup), { description: 'top groups by quota (empty without group_by)' }),
  },
  { $id: 'UsageReport' },
);

/** The query string of a usage report; `self`: a user's own (no user or channel filter, group_by model or key). */
export const UsageQuery = (self: boolean) =>
  Type.Object({
    from: Type.Optional(Time('unix ms (or s), or ISO 8601; default: to − 24 h; rounded down to the hour')),
    to: Type.Optional(Time('unix ms (or s), or ISO 8601; default: now; at most 400 days after from')),
    bucket: Type.Optional(Type.Union([Type.Literal('hour'), Type.Literal('day')], { description: 'series bucket', default: 'hour' })),
    group_by: Type.Optional(
      Type.Union(
        (self ? ['model', 'key'] : ['model', 'user', 'channel', 'key']).map((g) => Type.Literal(g)),
        {
          description: 'top groups by quota',
        },
      ),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'how many groups' })),
    tz_offset_minutes: Type.Optional(
      Type.Integer({ minimum: -840, maximum: 840, default: 0, description: 'day buckets: minutes east of UTC (UTC+8 = 480)' }),
    ),
    ...(self ? {} : { user_id: Type.Optional(Type.Integer()), channel_id: Type.Optional(Type.Integer()) }),
    token_id: Type.Optional(Type.Integer({ description: 'API key id (alias key_id)' })),
    key_id: Type.Optional(Type.Integer({ description: 'alias of token_id' })),
    model: Type.Optional(Type.String()),
  });

export const LOG_SCHEMAS: TSchema[] = [Log, LogTotals, LogPage, UsagePoint, UsageGroup, UsageReport];
