/**
 * The OpenAPI 3.1 document served at GET /api/openapi.json: the admin API and the main model-call
 * endpoints (chat completions, completions, embeddings, models).
 */
type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const str = (description?: string, extra: Schema = {}): Schema => ({ type: 'string', ...(description ? { description } : {}), ...extra });
const int = (description?: string, extra: Schema = {}): Schema => ({ type: 'integer', ...(description ? { description } : {}), ...extra });
const num = (description?: string): Schema => ({ type: 'number', ...(description ? { description } : {}) });
const bool = (description?: string): Schema => ({ type: 'boolean', ...(description ? { description } : {}) });
const arr = (items: Schema, description?: string): Schema => ({ type: 'array', items, ...(description ? { description } : {}) });
const obj = (properties: Record<string, Schema>, required: string[] = [], extra: Schema = {}): Schema => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
  ...extra,
});
const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: 'null' }] });

const EXPRESSION_TEXT =
  'a task price (`<plugin>::<model>`): USD per task over its usage facts; a model call: USD per 1M tokens over u("p"), u("c"), u("cr") …, param(), header(), hour()';
/** The rules of a model-call price beyond flat rates (billing/price-rules.ts). */
const PRICE_RULES: Record<string, Schema> = {
  tiers: arr(
    {
      type: 'object',
      properties: {
        above_input_tokens: { type: 'integer' },
        input: num(),
        output: num(),
        cached_input: nullable(num()),
        cache_write_5m: nullable(num()),
        cache_write_1h: nullable(num()),
      },
      required: ['above_input_tokens', 'input', 'output'],
      additionalProperties: false,
    },
    'context tiers: the whole call at the rates of the highest tier its input exceeds',
  ),
  audio_input: num('USD per 1M audio input tokens (default: input)'),
  audio_output: num('USD per 1M audio output tokens (default: output)'),
  image_input: num('USD per 1M image input tokens (default: input)'),
  image_output: num('USD per 1M image output tokens (default: output)'),
  reasoning: num('USD per 1M reasoning tokens (default: output)'),
  web_search: num('USD per 1,000 web searches the upstream reports'),
  server_tools: { type: 'object', additionalProperties: { type: 'number' }, description: 'USD per 1,000 calls, by server tool' },
  service_tiers: {
    type: 'object',
    additionalProperties: { type: 'number' },
    description: 'multiplier of the token cost by the service tier the upstream reports',
  },
};

const envelope = (data: Schema): Schema => obj({ success: bool(), message: str(), data }, ['success', 'message', 'data']);
const page = (item: string): Schema =>
  envelope(obj({ items: arr(ref(item)), total: int(), page: int(), page_size: int() }, ['items', 'total', 'page', 'page_size']));

const pagingParams = [
  { name: 'page', in: 'query', schema: int('1-based page', { minimum: 1, default: 1 }) },
  { name: 'page_size', in: 'query', schema: int('rows per page', { minimum: 1, maximum: 100, default: 20 }) },
];
const q = (name: string, schema: Schema, description?: string) => ({ name, in: 'query', schema, ...(description ? { description } : {}) });
const idParam = { name: 'id', in: 'path', required: true, schema: int() };

const adminErrors = {
  400: { description: 'invalid input; the message names the field', content: { 'application/json': { schema: ref('AdminError') } } },
  401: { description: 'not logged in', content: { 'application/json': { schema: ref('AdminError') } } },
  403: { description: 'role too low', content: { 'application/json': { schema: ref('AdminError') } } },
  404: { description: 'not found', content: { 'application/json': { schema: ref('AdminError') } } },
};

function op(
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

const header = (description: string, schema: Schema = str()) => ({ description, schema });
/** A model call's 429 (docs/limits.md): a rate limit, the user's request limit, or the balance or a budget. */
const limited = {
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

const conflict = (schema: Schema, description: string) => ({ 409: { description, content: { 'application/json': { schema } } } });
const keyParam = { name: 'key', in: 'path', required: true, schema: str('plugin key') };
const flagParam = (name: string, description: string) => q(name, str(description, { enum: ['true', 'false', '1', '0'] }));
const logCursor = q(
  'cursor',
  str(),
  'next_cursor of the page before: the page after it (page is then ignored); pages by number reach the newest 10,000 rows',
);
const logFilters = (self: boolean) => [
  q('type', str(undefined, { enum: ['consume', 'error', 'task', 'system', 'topup', 'mcp'] })),
  ...(self ? [] : [q('user_id', int()), q('username', str()), q('channel_id', int())]),
  q('token_id', int('API key id (alias key_id)')),
  q('key_name', str()),
  q('model', str()),
  q('request_id', str()),
  q('start', int(), 'unix ms (or s), or ISO 8601'),
  q('end', int(), 'unix ms (or s), or ISO 8601'),
];
const usageParams = (self: boolean) => [
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
const PERIODS = { enum: ['day', 'week', 'month'] };
const limitView = (): Record<string, Schema> => ({
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
const limitInput = (): Record<string, Schema> => ({
  rpm: nullable(int('requests per minute; null or 0 = no limit', { minimum: 0 })),
  tpm: nullable(int('tokens per minute; null or 0 = no limit', { minimum: 0 })),
  max_concurrency: nullable(int('calls in flight at once; null or 0 = no limit', { minimum: 0 })),
  budget: nullable(int('quota units per budget_period; null = no budget', { minimum: 0 })),
  budget_usd: nullable(num('USD per budget_period (or budget)')),
  budget_period: nullable(str("the budget's period (UTC calendar, see BudgetUtcOffsetMinutes)", PERIODS)),
});

/** The prompt-cache figures of every usage series point, group and total (`/api/usage`, `/api/usage/self`). */
const CACHE_USAGE: Record<string, Schema> = {
  cached_tokens: int('prompt tokens read from the prompt cache'),
  cache_write_tokens: int('prompt tokens written to the prompt cache'),
  cache_write_quota: int('what the cache writes cost (quota units, at the prices of each call)'),
  cache_saving_quota: int('what the cache reads saved against the uncached input price (quota units, at the prices of each call)'),
  cache_hit_rate: nullable(num('cached_tokens ÷ prompt_tokens (null without prompt tokens)')),
};
const CACHE_USAGE_FIELDS = Object.keys(CACHE_USAGE);

const schemas: Record<string, Schema> = {
  LoginSecondFactor: obj({ require_2fa: { const: true }, methods: arr(str(undefined, { enum: ['totp', 'passkey', 'recovery_code'] })) }, [
    'require_2fa',
    'methods',
  ]),
  TwoFactorStatus: obj(
    {
      enabled: bool('a login needs a second factor'),
      totp_enabled: bool(),
      totp_pending: bool('an enrolment waits for its first code'),
      passkeys: int(),
      recovery_codes_left: int(),
      required: bool('AdminRequireTwoFactor applies to you'),
      passkeys_available: bool('PUBLIC_URL is set'),
    },
    ['enabled', 'totp_enabled', 'totp_pending', 'passkeys', 'recovery_codes_left', 'required', 'passkeys_available'],
  ),
  TotpSetup: obj({ secret: str('base32'), otpauth_uri: str() }, ['secret', 'otpauth_uri']),
  RecoveryCodes: obj({ recovery_codes: arr(str(), 'shown once; empty when unused ones remain') }, ['recovery_codes']),
  Passkey: obj({ id: int(), name: str(), created_at: int('unix ms'), last_used_at: nullable(int('unix ms')) }, [
    'id',
    'name',
    'created_at',
    'last_used_at',
  ]),
  Readiness: obj(
    {
      ready: bool(),
      checks: obj(
        {
          database: str(undefined, { enum: ['ok', 'failed'] }),
          redis: str(undefined, { enum: ['ok', 'failed', 'not configured'] }),
          plugins: str(undefined, { enum: ['ok', 'not built'] }),
          shutdown: str(undefined, { enum: ['ok', 'shutting down'] }),
        },
        ['database', 'redis', 'plugins', 'shutdown'],
      ),
      errors: arr(str(), 'what failed, without credentials'),
    },
    ['ready', 'checks'],
  ),
  AdminError: obj(
    { success: { const: false }, message: str(), data: { type: 'null' }, field: str('the input field a 400 is about, when known') },
    ['success', 'message'],
  ),
  OpenAIError: obj({ error: obj({ message: str(), type: str(), param: nullable(str()), code: nullable(str()) }) }),
  User: obj({
    ...limitView(),
    id: int(),
    username: str(),
    display_name: str(),
    role: str(undefined, { enum: ['user', 'admin', 'root'] }),
    group: str(),
    quota: int('remaining balance in quota units (QUOTA_PER_USD per USD)'),
    quota_usd: num(),
    used_quota: int(),
    request_count: int(),
    status: str(undefined, { enum: ['enabled', 'disabled'] }),
    created_at: int('unix ms'),
    updated_at: int('unix ms'),
  }),
  SelfUser: {
    allOf: [
      ref('User'),
      obj(
        {
          public_url: nullable(
            str(
              'the public address, PUBLIC_URL (or its older names): where callers reach the gateway; null: not set, callers use the address they reached the console at',
            ),
          ),
          quota_per_usd: int('quota units per USD (QUOTA_PER_USD)'),
          reauth: {
            type: 'string',
            enum: ['password', 'second_factor', 'recent_sign_in'],
            description:
              'how a sensitive change is confirmed: the current password; a second-factor code or passkey (no password); a sign-in within 10 minutes (neither)',
          },
        },
        ['public_url', 'quota_per_usd', 'reauth'],
      ),
    ],
  },
  UserCreate: obj(
    {
      username: str('1-64 of letters, digits, _ . @ -'),
      password: str('8-256 characters'),
      display_name: str(),
      role: str(undefined, { enum: ['user', 'admin', 'root'] }),
      group: str(undefined, { default: 'default' }),
      quota: int('starting balance in quota units'),
      quota_usd: num('starting balance in USD'),
      status: str(undefined, { enum: ['enabled', 'disabled'] }),
      ...limitInput(),
    },
    ['username', 'password'],
    { additionalProperties: false },
  ),
  UserUpdate: obj(
    {
      username: str(),
      password: str("8-256 characters; ends the user's sessions"),
      display_name: str(),
      role: str(undefined, { enum: ['user', 'admin', 'root'] }),
      group: str(),
      status: str(undefined, { enum: ['enabled', 'disabled'] }),
      ...limitInput(),
    },
    [],
    { additionalProperties: false },
  ),
  QuotaChange: obj({
    mode: str('add (default; negative amounts deduct) or set', { enum: ['add', 'set'] }),
    amount: int('quota units'),
    amount_usd: num('USD'),
    reason: str("why (up to 500 characters); shown in the ledger history and the user's logs"),
  }),
  LedgerEntry: obj(
    {
      id: int(),
      ref: str('request id, task id or top-up id'),
      kind: str('reserve | extend:<n> | settle | refund | topup | adjust | charge | spend'),
      key_id: nullable(int()),
      change: int('signed change of the balance in quota units'),
      change_usd: num(),
      note: nullable(str('the reason given with a top-up or adjustment')),
      created_at: int('unix ms'),
    },
    ['id', 'ref', 'kind', 'key_id', 'change', 'change_usd', 'note', 'created_at'],
  ),
  Key: obj({
    ...limitView(),
    id: int(),
    user_id: int(),
    username: str(),
    name: str(),
    hint: str('sk-ab…wxyz'),
    status: str(undefined, { enum: ['enabled', 'disabled', 'expired', 'exhausted'] }),
    expires_at: nullable(int('unix ms')),
    unlimited_quota: bool(),
    remain_quota: int(),
    remain_quota_usd: num(),
    used_quota: int(),
    max_spend_usd: nullable(num('lifetime spending ceiling in USD (spent plus remaining); null = none')),
    models: nullable(arr(str())),
    allowed_ips: nullable(arr(str())),
    group: nullable(str()),
    callback_url: nullable(str("default task callback URL of the key's submissions")),
    callback_secret_set: bool('whether the key has a callback signing secret (shown once, when made)'),
    mcp_tools: nullable(arr(str('server/tool or server/*'), 'MCP tools the key may use through /mcp; null = none')),
    created_at: int(),
    accessed_at: nullable(int()),
  }),
  ChildKeyInput: obj(
    {
      name: str(),
      max_spend_usd: num("the child key's lifetime ceiling in USD, taken out of the parent's remaining ceiling"),
      expires_at: nullable({ anyOf: [int('unix ms or s'), str('ISO 8601')] }),
      models: arr(str(), "a subset of the parent's models (default: the parent's)"),
    },
    ['name', 'max_spend_usd'],
    { additionalProperties: false },
  ),
  KeyInput: obj(
    {
      user_id: int('owner (admins only; default: yourself)'),
      name: str(),
      key: str('fixed key value sk-… (admins only)'),
      status: str(undefined, { enum: ['enabled', 'disabled'] }),
      expires_at: nullable({ anyOf: [int('unix ms or s'), str('ISO 8601')] }),
      quota: nullable(int('own cap in quota units; null = unlimited')),
      quota_usd: nullable(num()),
      max_spend_usd: nullable(num('lifetime spending ceiling in USD: remaining = ceiling - spent; not with quota; null = none')),
      unlimited_quota: bool(),
      models: nullable(arr(str())),
      allowed_ips: nullable(arr(str('IP or CIDR'))),
      group: nullable(str()),
      mcp_tools: nullable(arr(str('server/tool or server/*'), 'MCP tools through /mcp (admins only); null = none')),
      callback_url: nullable(str('default task callback URL (http or https; null = none); its address is checked at each submission')),
      ...limitInput(),
    },
    [],
    { additionalProperties: false },
  ),
  CallbackSecret: obj(
    { callback_secret: str('whsec_…: signs task callbacks (X-Signature: sha256=<hex HMAC-SHA256 of the body>); shown only here') },
    ['callback_secret'],
  ),
  TaskCallback: obj(
    {
      url: str(),
      delivery_id: str('dlv_…: the same on every attempt (X-Delivery-Id)'),
      status: str(
        'waiting: the task is not finished; pending: due or retrying; delivered; failed: given up; skipped: the result was not kept',
        { enum: ['waiting', 'pending', 'delivered', 'failed', 'skipped'] },
      ),
      attempts: int(),
      last_status: nullable(int('HTTP status of the last answer')),
      last_error: nullable(str()),
      last_attempt_at: nullable(int()),
      next_attempt_at: nullable(int()),
      delivered_at: nullable(int()),
      history: arr(
        obj({ at: int(), status: nullable(int()), error: nullable(str()), duration_ms: int() }, ['at', 'status', 'error', 'duration_ms']),
        'the latest attempts (up to 20)',
      ),
    },
    [],
    { description: "a task's completion callback; times are unix seconds in GET /v1/tasks/{taskId} and unix ms in /api/task" },
  ),
  TaskView: obj(
    {
      task_id: str(),
      platform: str('plugin key'),
      status: str(undefined, { enum: ['NOT_START', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS', 'FAILURE', 'UNKNOWN'] }),
      progress: str(),
      fail_reason: str(),
      model: str(),
      created_at: int('unix s'),
      started_at: nullable(int()),
      finished_at: nullable(int()),
      updated_at: int(),
      callback: ref('TaskCallback'),
    },
    ['task_id', 'platform', 'status', 'progress', 'fail_reason', 'model', 'created_at', 'started_at', 'finished_at', 'updated_at'],
  ),
  ChannelKey: obj({
    index: int(),
    hint: str(),
    status: str(undefined, { enum: ['enabled', 'disabled', 'auto_disabled'] }),
    reason: nullable(str()),
    at: nullable(int()),
  }),
  Channel: obj({
    id: int(),
    name: str(),
    type: int('1 openai, 3 azure, 14 anthropic, 24 gemini, 33 bedrock, 41 vertex, 60 gateway, 61 task_plugin'),
    type_name: str(),
    base_url: str(),
    key_count: int(),
    keys: arr(ref('ChannelKey'), 'hints and state only; key values are never returned'),
    key_mode: str(undefined, { enum: ['random', 'round_robin'] }),
    models: arr(str()),
    groups: arr(str()),
    priority: int(),
    weight: int(),
    model_mapping: { type: 'object' },
    header_override: { type: 'object' },
    param_override: { type: 'object' },
    status: str(undefined, { enum: ['enabled', 'disabled', 'auto_disabled'] }),
    status_reason: nullable(str()),
    settings: {
      type: 'object',
      description:
        'openai: preset; azure: api_version; vertex: region, project_id; bedrock: region (of Bedrock API keys); task_plugin: plugin; gateway: plugins',
    },
    test_model: nullable(str()),
    cost_ratio: num('what the operator pays the vendor relative to list prices (the upstream cost of its calls)'),
    max_concurrency: int('calls in flight above which the relay skips the channel (0: no cap)'),
    max_input_tokens: int('estimated prompt tokens above which the relay skips the channel (0: no cap)'),
    response_time_ms: nullable(int()),
    tested_at: nullable(int()),
    created_at: int(),
    updated_at: int(),
    tag: nullable(str('a free label that bulk actions select by')),
    balance: nullable(num("the upstream's balance as its vendor last reported it (USD, or CNY for Chinese vendors)")),
    balance_updated_at: nullable(int()),
    last_test: nullable(ref('ChannelTestAll')),
  }),
  ChannelTestAll: obj(
    {
      at: int(),
      results: arr(
        obj({ model: str(), ok: bool(), status: int('upstream HTTP status; 0: no answer'), time_ms: int(), message: str() }, [
          'model',
          'ok',
          'status',
          'time_ms',
          'message',
        ]),
      ),
    },
    ['at', 'results'],
  ),
  PublicPricing: obj(
    {
      groups: arr(obj({ group: str(), ratio: num() }, ['group', 'ratio'])),
      models: arr(
        obj(
          {
            model: str(),
            groups: arr(str()),
            prices: {
              type: 'object',
              description: 'group → price in that group (USD per 1M tokens, or per call), the group ratio applied',
              additionalProperties: obj(
                { input: nullable(num()), output: nullable(num()), cached_input: nullable(num()), per_request: nullable(num()) },
                ['input', 'output', 'cached_input', 'per_request'],
              ),
            },
          },
          ['model', 'groups', 'prices'],
        ),
      ),
    },
    ['groups', 'models'],
  ),
  ChannelInput: obj(
    {
      name: str(),
      type: { anyOf: [int(), str('openai, azure, anthropic, gemini, bedrock, vertex, gateway, task_plugin')] },
      base_url: str(),
      keys: { anyOf: [arr(str()), str('newline-separated')], description: 'absent on update = keep the stored keys' },
      key_mode: str(),
      models: arr(str()),
      groups: arr(str()),
      priority: int(),
      weight: int(),
      model_mapping: { type: 'object' },
      header_override: { type: 'object' },
      param_override: { type: 'object' },
      status: str(),
      status_reason: nullable(str()),
      settings: { type: 'object' },
      test_model: nullable(str()),
      cost_ratio: num('what the operator pays the vendor relative to list prices (0.8: a fifth off); 1 when not given'),
      max_concurrency: int(),
      max_input_tokens: int(),
      tag: nullable(str()),
    },
    [],
    { additionalProperties: false },
  ),
  Price: obj({
    model: str(),
    input: nullable(num('USD per 1M input tokens')),
    output: nullable(num('USD per 1M output tokens')),
    cached_input: nullable(num('USD per 1M cached input tokens')),
    cache_write_5m: nullable(num('USD per 1M prompt-cache write tokens kept 5 minutes (null: 1.25 × input)')),
    cache_write_1h: nullable(num('USD per 1M prompt-cache write tokens kept 1 hour (null: 2 × input)')),
    per_request: nullable(num('USD per request')),
    expression: nullable(str(EXPRESSION_TEXT)),
    ...PRICE_RULES,
    updated_at: int(),
  }),
  PriceInput: obj(
    {
      model: str(),
      input: nullable(num('USD per 1M input tokens')),
      output: nullable(num('USD per 1M output tokens')),
      cached_input: nullable(num('USD per 1M cached input tokens')),
      cache_write_5m: nullable(num('USD per 1M prompt-cache write tokens kept 5 minutes (null: 1.25 × input)')),
      cache_write_1h: nullable(num('USD per 1M prompt-cache write tokens kept 1 hour (null: 2 × input)')),
      per_request: nullable(num('USD per request')),
      expression: nullable(str(EXPRESSION_TEXT)),
      ...PRICE_RULES,
    },
    ['model'],
    {
      additionalProperties: false,
      description: 'a whole price: fields not given are cleared; at least one of input/output, per_request, expression or a rule',
    },
  ),
  GroupRatio: obj({ group: str(), ratio: num() }, ['group', 'ratio']),
  CatalogEntry: obj(
    {
      model: str(),
      vendor: str('the channel type or preset whose vendor lists the price'),
      input: num(),
      output: num(),
      cached_input: num(),
      cache_write_5m: num(),
      cache_write_1h: num(),
      rules: { type: 'object', description: 'tiers, modality prices, web_search, service_tiers (the fields of a price)' },
      source: str("the vendor's price page"),
      as_of: str('the day the page gave these prices (YYYY-MM-DD)'),
      note: str(),
      priced: bool('the price book has a price for the model'),
    },
    ['model', 'vendor', 'input', 'output', 'source', 'as_of', 'priced'],
  ),
  CatalogImport: obj({ imported: arr(str()), kept: arr(str('already priced, kept (no overwrite)')) }, ['imported', 'kept']),
  PricePreviewInput: obj(
    {
      model: str('a saved price (when `price` is not given)'),
      price: ref('PriceInput'),
      usage: obj(
        {
          input_tokens: int(),
          output_tokens: int(),
          cached_input_tokens: int(),
          cache_write_tokens: int(),
          cache_write_1h_tokens: int(),
          reasoning_tokens: int(),
          audio_input_tokens: int(),
          audio_output_tokens: int(),
          image_input_tokens: int(),
          image_output_tokens: int(),
          server_tools: { type: 'object', additionalProperties: { type: 'integer' } },
          service_tier: str(),
        },
        [],
        { additionalProperties: false },
      ),
      params: { type: 'object', description: 'request parameters an expression reads' },
      headers: { type: 'object', additionalProperties: { type: 'string' } },
      hour: int('UTC hour 0–23 (default: now)'),
      group: str('group whose ratio applies (default: default)'),
    },
    [],
    { additionalProperties: false },
  ),
  PricePreview: obj(
    {
      quota: int('what the call would be charged (quota units)'),
      usd: num(),
      bound_quota: int('the reserve a call of these token counts holds'),
      tier: nullable(int('above_input_tokens of the context tier reached')),
      group_ratio: num(),
    },
    ['quota', 'usd', 'bound_quota', 'tier', 'group_ratio'],
  ),
  PasswordChange: obj(
    {
      old_password: str('the current password (an account without one confirms with code or assertion instead)'),
      new_password: str('8-256 characters, not the current one'),
      code: str('an account without a password: a code of its authenticator app, or a recovery code'),
      assertion: { type: 'object', additionalProperties: true, description: 'an account without a password: a passkey assertion' },
    },
    ['new_password'],
    { additionalProperties: false },
  ),
  Reauth: obj(
    {
      password: str('the current password (accounts that have one)'),
      code: str('accounts without a password: a code of the authenticator app, or a recovery code'),
      assertion: {
        type: 'object',
        additionalProperties: true,
        description: 'accounts without a password: a passkey assertion (options from POST /api/user/reauth/passkey-options)',
      },
    },
    [],
    {
      description:
        'Confirms a sensitive change (docs/two-factor.md#confirming-sensitive-changes): 403 reauth_required without it, 400 when it is wrong (counted as a failed login)',
    },
  ),
  GroupModelPrice: obj(
    {
      model: str(),
      priced: bool('false: the price book has no price for it'),
      input: nullable(num('USD per 1M input tokens, group ratio applied')),
      output: nullable(num('USD per 1M output tokens, group ratio applied')),
      cached_input: nullable(num('USD per 1M cached input tokens, group ratio applied')),
      per_request: nullable(num('USD per call, group ratio applied')),
      cache_write_5m: nullable(num('USD per 1M prompt-cache write tokens kept 5 minutes, group ratio applied')),
      cache_write_1h: nullable(num('USD per 1M prompt-cache write tokens kept 1 hour, group ratio applied')),
    },
    ['model', 'priced', 'input', 'output', 'cached_input', 'cache_write_5m', 'cache_write_1h', 'per_request'],
  ),
  GroupModels: obj({ group: str(), group_ratio: num(), items: arr(ref('GroupModelPrice')) }, ['group', 'group_ratio', 'items']),
  UsagePoint: obj(
    {
      t: int('bucket start, unix ms'),
      requests: int(),
      errors: int(),
      prompt_tokens: int(),
      completion_tokens: int(),
      quota: int(),
      p50_ms: nullable(int('latency median of model calls, from a histogram of log-scale buckets')),
      p95_ms: nullable(int()),
      ...CACHE_USAGE,
    },
    ['t', 'requests', 'errors', 'prompt_tokens', 'completion_tokens', 'quota', 'p50_ms', 'p95_ms', ...CACHE_USAGE_FIELDS],
  ),
  UsageGroup: obj(
    {
      key: str('model name, or user, key or channel id'),
      label: str('model, username, key name or channel name'),
      requests: int(),
      errors: int(),
      prompt_tokens: int(),
      tokens: int('prompt + completion'),
      quota: int('revenue: what callers were charged'),
      upstream_cost: int("what the calls cost upstream: list price × the channel's cost_ratio (administrators' report only)"),
      margin: int("quota − upstream_cost (administrators' report only)"),
      ...CACHE_USAGE,
    },
    ['key', 'label', 'requests', 'errors', 'prompt_tokens', 'tokens', 'quota', ...CACHE_USAGE_FIELDS],
  ),
  UsageReport: obj(
    {
      from: int(),
      to: int(),
      bucket: str(undefined, { enum: ['hour', 'day'] }),
      group_by: nullable(str(undefined, { enum: ['model', 'user', 'channel', 'key'] })),
      totals: obj(
        {
          requests: int(),
          errors: int(),
          prompt_tokens: int(),
          completion_tokens: int(),
          quota: int(),
          quota_usd: num(),
          p50_ms: nullable(int()),
          p95_ms: nullable(int()),
          ...CACHE_USAGE,
          cache_write_usd: num('cache_write_quota in USD'),
          cache_saving_usd: num('cache_saving_quota in USD'),
        },
        [
          'requests',
          'errors',
          'prompt_tokens',
          'completion_tokens',
          'quota',
          'quota_usd',
          'p50_ms',
          'p95_ms',
          ...CACHE_USAGE_FIELDS,
          'cache_write_usd',
          'cache_saving_usd',
        ],
      ),
      series: arr(ref('UsagePoint'), 'every bucket of the range, empty ones included'),
      groups: arr(ref('UsageGroup'), 'top groups by quota (empty without group_by)'),
    },
    ['from', 'to', 'bucket', 'group_by', 'totals', 'series', 'groups'],
  ),
  LogTotals: obj(
    {
      count: int('rows of the filter'),
      calls: int('model calls and task submissions among them'),
      quota: int('what those calls spent (quota units)'),
      movements: int('top-ups, adjustments and system credits among them'),
      moved_quota: int('their net amount (quota units; a deduction is negative)'),
      prompt_tokens: int(),
      completion_tokens: int(),
    },
    ['count', 'calls', 'quota', 'movements', 'moved_quota', 'prompt_tokens', 'completion_tokens'],
  ),
  LogPage: obj(
    {
      items: arr(ref('Log')),
      total: int('rows the filter matches, counted up to 10,000 (see totals_capped)'),
      page: int(),
      page_size: int(),
      totals: ref('LogTotals'),
      totals_capped: bool('the filter matches more than 10,000 rows: total and totals are those of the newest 10,000'),
      next_cursor: nullable(str('pass as cursor for the next page; null on the last page')),
    },
    ['items', 'total', 'page', 'page_size', 'totals', 'totals_capped', 'next_cursor'],
  ),
  ChannelTest: obj({ time_ms: int(), status: nullable(int('upstream HTTP status')), model: str() }),
  BoundChannel: obj(
    {
      id: int(),
      name: str(),
      type: int(),
      status: int('1 enabled, 2 disabled, 3 auto-disabled'),
      via: str(undefined, { enum: ['key', 'peer', 'channel_type'] }),
    },
    ['id', 'name', 'type', 'status', 'via'],
  ),
  PluginInUse: obj(
    {
      success: { const: false },
      message: str(),
      data: obj({ channels: arr(ref('BoundChannel')), in_flight_count: int() }, ['channels', 'in_flight_count']),
    },
    ['success', 'message', 'data'],
  ),
  PluginManifest: {
    type: 'object',
    description: "the plugin's `meta` as uploaded (see the plugin SDK's manifest JSON Schema)",
    additionalProperties: true,
  },
  PluginSummary: obj(
    {
      key: str(),
      meta: nullable(ref('PluginManifest')),
      source: str(),
      layer: str(),
      enabled: bool(),
      active: bool(),
      active_version: nullable(str()),
      serving_version: nullable(str('the version this node runs')),
      source_hash: nullable(str('sha256 of the active source')),
      has_icon: bool(),
      remark: str(),
      runtime_status: str(undefined, { enum: ['registered', 'disabled', 'compile_failed', 'not_registered'] }),
      runtime_error: str(),
      channel_count: int(),
      in_flight_count: int(),
    },
    ['key', 'meta', 'enabled', 'active', 'active_version', 'serving_version', 'runtime_status', 'channel_count', 'in_flight_count'],
  ),
  PluginUpload: obj(
    {
      source: str('the plugin module (ESM text, at most 1 MiB)'),
      enabled: bool('default true'),
      remark: str(),
      force: bool('store even when it conflicts with running plugins'),
      sourceSha256: str('optional integrity check, 64 hex'),
      icon: str('data: URL of a PNG/SVG/WebP icon'),
    },
    ['source'],
  ),
  PluginUploaded: obj(
    {
      plugin: str(),
      version: str(),
      meta: ref('PluginManifest'),
      source: str(),
      layer: str(),
      has_icon: bool(),
      sha256: str(),
      enabled: bool(),
    },
    ['plugin', 'version', 'sha256', 'enabled'],
  ),
  PluginDetail: obj(
    {
      key: str(),
      layer: str(),
      source: str(),
      enabled: bool(),
      active_version: nullable(str()),
      remark: str(),
      version: nullable(str()),
      meta: nullable(ref('PluginManifest')),
      normalized_meta: nullable({
        type: 'object',
        description: 'the manifest as the runtime normalised it (when this version is serving)',
      }),
      plugin_source: nullable(str()),
      source_hash: nullable(str()),
      has_icon: bool(),
      uploaded_at: nullable(int('unix s')),
      runtime_error: nullable(str()),
    },
    ['key', 'enabled', 'active_version', 'version', 'meta'],
  ),
  PluginVersion: obj(
    {
      version: str(),
      sha256: str(),
      source_hash: str(),
      uploaded_at: int('unix s'),
      has_icon: bool(),
      active: bool(),
      meta: ref('PluginManifest'),
    },
    ['version', 'sha256', 'uploaded_at', 'active'],
  ),
  PluginStatusChange: obj({ plugin_enabled: bool(), disabled_channels: arr(int()), unbound_channels: arr(int()) }, [
    'plugin_enabled',
    'disabled_channels',
    'unbound_channels',
  ]),
  PluginRuntimeStatus: obj(
    {
      current_generation: int(),
      generation_published_at: nullable(int('unix s')),
      database_revision: nullable(int()),
      database_error: str(),
      last_rebuild: obj({
        status: str(undefined, { enum: ['never', 'success', 'partial', 'failed'] }),
        attempted_at: nullable(int('unix s')),
        generation: int(),
        database_revision: int(),
        plugin_error_count: int(),
        error: str(),
      }),
      plugin_errors: { type: 'object', additionalProperties: str() },
      plugins: { type: 'object', additionalProperties: obj({ version: str(), sha256: str(), pool: { type: 'object' } }) },
    },
    ['current_generation', 'last_rebuild', 'plugin_errors', 'plugins'],
  ),
  MarketSource: obj({ name: str(), index_url: str('http(s) URL of an index.json') }, ['name', 'index_url']),
  MarketIndex: obj(
    {
      indexVersion: { const: 1 },
      name: str(),
      plugins: arr(
        obj(
          {
            key: str(),
            name: str(),
            latest: str(),
            versions: arr(
              obj({ version: str(), path: str(), sha256: str(), kind: str(), minApiVersion: int() }, ['version', 'path', 'sha256']),
            ),
            iconFile: obj({ path: str(), sha256: str() }),
          },
          ['key', 'versions'],
        ),
      ),
    },
    ['indexVersion', 'plugins'],
  ),
  Option: obj({
    key: str(),
    value: str(),
    default: bool(),
    type: str('how the value is read', {
      enum: [
        'string',
        'int',
        'number',
        'bool',
        'int_list',
        'text_list',
        'url',
        'group_counts',
        'secret',
        'model_limits',
        'group_model_limits',
        'guardrails',
        'routing',
        'model_fallbacks',
      ],
    }),
    unit: nullable(
      str('of a number: seconds, minutes, hours, or quota units (an amount of money)', { enum: ['seconds', 'minutes', 'hours', 'quota'] }),
    ),
    doc: str(),
  }),
  AuditEntry: obj(
    {
      id: int(),
      created_at: int('unix ms'),
      actor_id: nullable(int('null for system writes (configuration file)')),
      actor: str('username, or system'),
      actor_role: str(),
      action: str('<target type>.<verb>, e.g. user.update, channel.key_disable, option.set'),
      target_type: str(),
      target_id: str(),
      target_name: nullable(str("the user's, key's or channel's name as it is now (null when gone or for another type)")),
      diff: {
        type: 'object',
        description: 'changed fields: {field: {before?, after?}}; secrets are [redacted]',
        additionalProperties: obj({ before: {}, after: {} }),
      },
    },
    ['id', 'created_at', 'actor_id', 'actor', 'actor_role', 'action', 'target_type', 'target_id', 'target_name', 'diff'],
  ),
  AlertSettings: obj(
    {
      low_balance_threshold: int('quota units; 0 = off'),
      low_balance_threshold_usd: num(),
      email: nullable(str()),
      webhook_url: nullable(str()),
      webhook_secret_set: bool(),
      low_balance_alerted: bool('the balance is below the threshold and the alert was sent'),
      webhook_secret: str('the webhook signing secret: only in the answer that generated it'),
    },
    ['low_balance_threshold', 'low_balance_threshold_usd', 'email', 'webhook_url', 'webhook_secret_set', 'low_balance_alerted'],
  ),
  AlertSettingsInput: obj({
    low_balance_threshold: int('quota units; 0 = off'),
    low_balance_threshold_usd: num('alternative to low_balance_threshold'),
    email: nullable(str('needs SMTP_URL on the gateway')),
    webhook_url: nullable(str('http(s) URL on a public address')),
    webhook_secret: nullable(str('at least 16 characters; generated (and shown once) when a webhook has none')),
  }),
  Alert: obj(
    {
      id: str('the idempotency id of every attempt'),
      kind: str(),
      target: str('operator or user:<id>'),
      transport: str(undefined, { enum: ['webhook', 'email'] }),
      status: str(undefined, { enum: ['pending', 'delivered', 'failed'] }),
      attempts: int(),
      next_attempt_at: int(),
      delivered_at: nullable(int()),
      last_error: nullable(str()),
      created_at: int(),
      payload: {},
    },
    ['id', 'kind', 'target', 'transport', 'status', 'attempts', 'next_attempt_at', 'delivered_at', 'last_error', 'created_at', 'payload'],
  ),
  QuotaHold: obj({
    ref: str(),
    user_id: int(),
    key_id: { type: ['integer', 'null'] },
    amount: int(),
    spent: int(),
    held: int(),
    node: str(),
    expires_at: int(),
    created_at: int(),
  }),
  Log: obj({
    id: int(),
    created_at: int(),
    type: str(),
    request_id: str(),
    user_id: nullable(int()),
    username: nullable(str()),
    key_id: nullable(int()),
    key_name: nullable(str()),
    group_name: nullable(str()),
    model: nullable(str()),
    channel_id: nullable(int('admins only')),
    channel_name: nullable(str('admins only: the name of that channel (null once it is deleted)')),
    endpoint: nullable(str()),
    status_code: nullable(int()),
    prompt_tokens: int(),
    completion_tokens: int(),
    cached_tokens: int(),
    cache_write_tokens: int(),
    cache_write_quota: int('what the cache writes cost (quota units, at the prices of the call)'),
    cache_saving_quota: int('what the cache reads saved against the uncached input price (quota units)'),
    quota: int(),
    latency_ms: int(),
    first_byte_ms: nullable(int()),
    is_stream: int(),
    attempts: int(),
    content: nullable(str()),
  }),
  AdminTask: obj({
    task_id: str('public id task_…'),
    plugin: str(),
    plugin_version: str(),
    action: str(),
    status: str(undefined, { enum: ['NOT_START', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS', 'FAILURE', 'UNKNOWN'] }),
    progress: str('e.g. 30%'),
    fail_reason: nullable(str()),
    user_id: int(),
    username: nullable(str()),
    key_id: nullable(int()),
    group: str(),
    channel_id: nullable(int()),
    model: str(),
    upstream_model: str(),
    upstream_task_id: nullable(str("the vendor's id; administrators only")),
    poll_failures: int(),
    next_poll_at: nullable(int('unix ms')),
    billing_status: str(undefined, { enum: ['none', 'reserving', 'reserved', 'settled', 'refunded'] }),
    quota_reserved: int(),
    quota_final: nullable(int()),
    flagged: bool('an administrator must decide (submit outcome unknown)'),
    flag_reason: nullable(str('why it was flagged, or "resolved: <action> by <admin>"')),
    retained: bool(),
    created_at: int('unix ms'),
    submitted_at: nullable(int()),
    started_at: nullable(int()),
    finished_at: nullable(int()),
    updated_at: int(),
  }),
  AdminTaskDetail: {
    allOf: [
      ref('AdminTask'),
      obj(
        {
          ledger: {
            type: 'object',
            additionalProperties: { type: 'integer' },
            description: 'ledger movements of task:<id> by kind (reserve, close, settle | refund)',
          },
          callback: nullable(ref('TaskCallback')),
        },
        ['ledger', 'callback'],
      ),
    ],
  },
  OwnTaskDetail: { allOf: [ref('OwnTask'), obj({ callback: nullable(ref('TaskCallback')) }, ['callback'])] },
  OwnTask: obj({
    task_id: str(),
    plugin: str(),
    action: str(),
    status: str(),
    progress: str(),
    fail_reason: nullable(str()),
    model: str(),
    billing_status: str(),
    quota_reserved: int(),
    quota_final: nullable(int()),
    flagged: bool(),
    created_at: int('unix ms'),
    started_at: nullable(int()),
    finished_at: nullable(int()),
    updated_at: int(),
  }),
  TaskResolve: obj(
    {
      action: str('refund | fail: FAILURE and refund; charge: settle at the reserved amount; poll: resume polling with upstream_task_id', {
        enum: ['refund', 'fail', 'charge', 'poll'],
      }),
      upstream_task_id: str('poll: required; charge: optional'),
      status: str('charge only: how the task ends (default SUCCESS)', { enum: ['SUCCESS', 'FAILURE'] }),
      reason: str('kept in the flag reason and, for failures, as fail_reason'),
    },
    ['action'],
    { additionalProperties: false },
  ),
  ChatCompletionRequest: obj(
    {
      model: str(),
      messages: arr(obj({ role: str(), content: { anyOf: [str(), arr({ type: 'object' })] } }, ['role'])),
      stream: bool(),
      temperature: num(),
      max_tokens: int(),
      tools: arr({ type: 'object' }),
      stream_options: obj({ include_usage: bool() }),
    },
    ['model', 'messages'],
  ),
  CompletionRequest: obj({ model: str(), prompt: { anyOf: [str(), arr(str())] }, max_tokens: int(), stream: bool() }, ['model', 'prompt']),
  EmbeddingRequest: obj(
    { model: str(), input: { anyOf: [str(), arr(str()), arr(int()), arr(arr(int()))] }, dimensions: int(), encoding_format: str() },
    ['input'],
  ),
  Usage: obj({ prompt_tokens: int(), completion_tokens: int(), total_tokens: int() }),
  ChatCompletion: obj({
    id: str(),
    object: { const: 'chat.completion' },
    created: int(),
    model: str(),
    choices: arr({ type: 'object' }),
    usage: ref('Usage'),
  }),
  Completion: obj({
    id: str(),
    object: { const: 'text_completion' },
    created: int(),
    model: str(),
    choices: arr({ type: 'object' }),
    usage: ref('Usage'),
  }),
  EmbeddingList: obj({
    object: { const: 'list' },
    data: arr(obj({ object: str(), index: int(), embedding: { anyOf: [arr(num()), str()] } })),
    model: str(),
    usage: ref('Usage'),
  }),
  Model: obj({ id: str(), object: { const: 'model' }, created: int(), owned_by: str() }),
  ModelList: obj({ object: { const: 'list' }, data: arr(ref('Model')) }),
};

// ---- money in: redemption codes and online top-up (http/topup-routes.ts) ----
Object.assign(schemas, {
  RedemptionCode: obj({
    id: int(),
    name: str(),
    note: str(),
    code: str('the code in full (32 hex characters)'),
    quota: int('quota units credited'),
    quota_usd: num(),
    status: str(undefined, { enum: ['enabled', 'disabled', 'used', 'expired'] }),
    created_by: nullable(int()),
    created_at: int('unix ms'),
    expires_at: int('unix ms; 0 = never'),
    used_user_id: nullable(int()),
    redeemed_at: nullable(int('unix ms')),
    plan_id: nullable(int('the plan the code grants')),
  }),
  RedemptionBatch: obj(
    {
      name: str(undefined, { maxLength: 128 }),
      quota: int('quota units per code (or quota_usd)', { minimum: 1 }),
      quota_usd: num('USD per code'),
      count: int('codes to create', { minimum: 1, maximum: 1000, default: 1 }),
      expired_time: int('unix seconds (New API); 0 = never'),
      expires_at: int('unix ms; 0 = never'),
      note: str(undefined, { maxLength: 500 }),
      plan_id: { anyOf: [int(), str()], description: 'a plan (id or name) each code grants instead of quota' },
    },
    ['name'],
    { additionalProperties: false },
  ),
  Redeemed: obj(
    { quota: int(), quota_usd: num(), balance: int('the balance after the credit'), plan_id: int('the plan granted, for a plan code') },
    ['quota', 'quota_usd', 'balance'],
  ),
  TopupInfo: obj(
    {
      currency: str('ISO code, lower case'),
      quotaPerUnit: num('quota units per unit of the currency'),
      minAmount: num(),
      maxAmount: num(),
      providers: arr(str(), 'configured providers, e.g. stripe'),
    },
    ['currency', 'quotaPerUnit', 'minAmount', 'maxAmount', 'providers'],
  ),
  Checkout: obj(
    { trade_no: str(), url: str('where to pay'), pay_link: str('the same as url'), currency: str(), amount: num(), quota: int() },
    ['trade_no', 'url', 'pay_link', 'currency', 'amount', 'quota'],
  ),
  Payment: obj({
    id: int(),
    trade_no: str(),
    provider: str(),
    currency: str(),
    amount: num('in units of the currency'),
    quota: int(),
    quota_usd: num(),
    status: str(undefined, { enum: ['pending', 'paid', 'expired'] }),
    created_at: int(),
    paid_at: nullable(int()),
  }),
});

// ---- plans with usage windows (http/plan-routes.ts) ----
const planWindow = obj({ every: str('30m, 5h, 7d, 1w'), quota: int('quota units per window'), quota_usd: num() }, [
  'every',
  'quota',
  'quota_usd',
]);
Object.assign(schemas, {
  Plan: obj(
    {
      id: int(),
      name: str(),
      price_usd: num(),
      price_quota: int(),
      duration_days: num('how long one purchase lasts'),
      windows: arr(planWindow),
      models: nullable(arr(str(), 'the models covered; null: every model')),
      overflow: str('what a call past a window gets', { enum: ['refuse', 'balance'] }),
      enabled: bool(),
      created_at: int(),
      updated_at: int(),
      subscribers: int('running subscriptions (lists only)'),
    },
    ['id', 'name', 'price_usd', 'price_quota', 'duration_days', 'windows', 'models', 'overflow', 'enabled', 'created_at', 'updated_at'],
  ),
  PlanInput: obj(
    {
      id: int('PUT /api/plan only'),
      name: str(undefined, { maxLength: 64 }),
      price_usd: num(),
      price_quota: int(),
      duration_days: num('default 30'),
      windows: arr(obj({ every: str(), quota_usd: num(), quota: int() }, ['every'], { additionalProperties: false }), '1 to 8 windows'),
      models: arr(str()),
      overflow: str(undefined, { enum: ['refuse', 'balance'] }),
      enabled: bool(),
    },
    [],
    { additionalProperties: false },
  ),
  PlanSubscriber: obj({ user_id: int(), username: str(), started_at: int(), expires_at: int(), stripe_subscription: nullable(str()) }, [
    'user_id',
    'username',
    'started_at',
    'expires_at',
    'stripe_subscription',
  ]),
  MyPlan: obj(
    {
      plan: nullable(ref('Plan')),
      subscription: nullable(
        obj({ started_at: int(), expires_at: int(), stripe_subscription: nullable(str()) }, [
          'started_at',
          'expires_at',
          'stripe_subscription',
        ]),
      ),
      windows: arr(
        obj(
          {
            every: str(),
            quota: int(),
            quota_usd: num(),
            used: int(),
            used_usd: num(),
            started_at: int('unix ms'),
            resets_at: int('unix ms'),
          },
          ['every', 'quota', 'quota_usd', 'used', 'used_usd', 'started_at', 'resets_at'],
        ),
      ),
      on_sale: arr(ref('Plan'), 'GET only'),
    },
    ['plan', 'subscription', 'windows'],
  ),
  PlanCheckout: obj({ trade_no: str(), url: str('where to pay'), currency: str(), amount: num(), recurring: bool() }, [
    'trade_no',
    'url',
    'currency',
    'amount',
    'recurring',
  ]),
});

function planPaths(admin: string): Record<string, Record<string, Schema>> {
  return {
    '/api/plan': {
      get: op('plans', 'Plans, with their running subscribers', envelope(arr(ref('Plan'))), { role: admin }),
      post: op('plans', 'Create a plan', envelope(ref('Plan')), { role: admin, body: ref('PlanInput') }),
      put: op('plans', 'Update a plan (id in the body)', envelope(ref('Plan')), { role: admin, body: ref('PlanInput') }),
    },
    '/api/plan/{id}': {
      get: op('plans', 'One plan', envelope(ref('Plan')), { role: admin, params: [idParam] }),
      put: op('plans', 'Update a plan', envelope(ref('Plan')), { role: admin, params: [idParam], body: ref('PlanInput') }),
      delete: op('plans', 'Delete a plan nobody holds (409 plan_in_use otherwise)', envelope({ type: 'null' }), {
        role: admin,
        params: [idParam],
      }),
    },
    '/api/plan/{id}/subscribers': {
      get: op('plans', "A plan's running subscribers", envelope(arr(ref('PlanSubscriber'))), { role: admin, params: [idParam] }),
    },
    '/api/user/plan': {
      get: op('plans', 'Your plan, what each window used, and the plans on sale', envelope(ref('MyPlan'))),
      post: op('plans', 'Buy or renew a plan from your balance (charged once)', envelope(ref('MyPlan')), {
        body: obj({ plan_id: int() }, ['plan_id'], { additionalProperties: false }),
      }),
    },
    '/api/user/plan/{provider}/pay': {
      post: op('plans', "Start a provider's checkout of a plan: once, or recurring (a subscription)", envelope(ref('PlanCheckout')), {
        params: [{ name: 'provider', in: 'path', required: true, schema: str('e.g. stripe') }],
        body: obj({ plan_id: int(), recurring: bool() }, ['plan_id'], { additionalProperties: false }),
      }),
    },
  };
}

function topupPaths(admin: string): Record<string, Record<string, Schema>> {
  const codeFilters = [
    q('status', str(undefined, { enum: ['enabled', 'disabled', 'used', 'expired'] })),
    q('keyword', str('part of the name, or a whole code')),
  ];
  return {
    '/api/redemption': {
      get: op('redemption', 'Redemption codes, newest first, with the codes in full', page('RedemptionCode'), {
        role: admin,
        params: [...pagingParams, ...codeFilters],
      }),
      post: op('redemption', 'Create a batch of codes; data is the list of codes', envelope(arr(str())), {
        role: admin,
        body: ref('RedemptionBatch'),
      }),
      put: op('redemption', 'Enable (status 1) or disable (status 2) an unused code', envelope(ref('RedemptionCode')), {
        role: admin,
        body: obj({ id: int(), status: { anyOf: [int(undefined, { enum: [1, 2] }), str(undefined, { enum: ['enabled', 'disabled'] })] } }, [
          'id',
          'status',
        ]),
        extra: conflict(ref('AdminError'), 'the code was already used'),
      }),
    },
    '/api/redemption/search': {
      get: op('redemption', 'The same list, by keyword (New API path)', page('RedemptionCode'), {
        role: admin,
        params: [...pagingParams, ...codeFilters],
      }),
    },
    '/api/redemption/export': {
      get: op(
        'redemption',
        'Codes of a filter as CSV (with the codes): Content-Disposition attachment',
        str('CSV with a header row, CRLF line ends'),
        { role: admin, params: codeFilters, contentType: 'text/csv' },
      ),
    },
    '/api/redemption/{id}': {
      get: op('redemption', 'One code', envelope(ref('RedemptionCode')), { role: admin, params: [idParam] }),
      delete: op('redemption', 'Delete a code (the ledger row of a used one stays)', envelope({ type: 'null' }), {
        role: admin,
        params: [idParam],
      }),
    },
    '/api/user/topup': {
      post: op(
        'top-up',
        'Redeem a code: credited once. 400 invalid_code / code_used / code_disabled / code_expired; 429 after too many unknown codes',
        envelope(ref('Redeemed')),
        {
          body: obj({ key: str('the code') }, ['key'], { additionalProperties: false }),
          extra: {
            429: {
              description: 'too many unknown codes from this user or address (Retry-After)',
              content: { 'application/json': { schema: ref('AdminError') } },
            },
          },
        },
      ),
    },
    '/api/user/topup/info': {
      get: op('top-up', 'Online top-up settings: currency, rate, limits, configured providers', envelope(ref('TopupInfo'))),
    },
    '/api/user/stripe/pay': {
      post: op('top-up', 'Start a Stripe Checkout for an amount of the top-up currency; pay at data.url', envelope(ref('Checkout')), {
        body: obj(
          { amount: num('in units of the currency (e.g. 5 or 5.50)'), payment_method: str('ignored (New API compatibility)') },
          ['amount'],
          { additionalProperties: false },
        ),
      }),
    },
    '/api/user/payments': { get: op('top-up', 'Your payments, newest first', page('Payment'), { params: pagingParams }) },
    '/api/user/payments/{trade_no}': {
      get: op('top-up', 'One of your payments', envelope(ref('Payment')), {
        params: [{ name: 'trade_no', in: 'path', required: true, schema: str() }],
      }),
    },
    '/api/stripe/webhook': {
      post: {
        tags: ['top-up'],
        summary:
          'Stripe webhook (checkout.session.completed, async_payment_succeeded, expired); verified by the Stripe-Signature header over the raw body',
        security: [],
        parameters: [{ name: 'stripe-signature', in: 'header', required: true, schema: str() }],
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
        responses: {
          200: {
            description:
              'applied (message: credited, already_credited, granted, already_granted, expired, ignored, unknown_payment, mismatch)',
            content: { 'application/json': { schema: envelope({ type: 'null' }) } },
          },
          400: {
            description: 'the signature does not verify: nothing applied',
            content: { 'application/json': { schema: ref('AdminError') } },
          },
          404: { description: 'Stripe is not configured', content: { 'application/json': { schema: ref('AdminError') } } },
        },
      },
    },
  };
}

/** Self-service sign-up and mailed links (docs/signup.md). */
function signupPaths(): Record<string, Record<string, Schema>> {
  const err = (description: string) => ({ description, content: { 'application/json': { schema: ref('AdminError') } } });
  const throttled = { 429: err('too many sign-ups or mails asked for from this address (Retry-After)') };
  const noMail = { 503: err('email_not_configured: SMTP_URL or ServerAddress is not set') };
  const badLink = { 400: err('invalid_link: the link is unknown, used or expired (or a field is invalid)') };
  return {
    '/api/user/signup': {
      get: op(
        'sign-up',
        'Sign-up settings for the console: whether sign-up is on, needs an invitation code or an e-mail address, and whether mail can be sent',
        envelope(
          obj(
            {
              enabled: bool(),
              invitation_required: bool(),
              email_required: bool(),
              email_configured: bool(),
            },
            ['enabled', 'invitation_required', 'email_required', 'email_configured'],
          ),
        ),
        { security: 'none' },
      ),
    },
    '/api/user/register': {
      post: op(
        'sign-up',
        'Create your own account (New API path). 403 signup_disabled when sign-up is off; 403 on a missing or wrong invitation_code; 409 for a taken username or e-mail address',
        envelope(
          obj(
            {
              id: int(),
              username: str(),
              email: nullable(str()),
              verification_sent: bool('a verification link was mailed'),
              credited: int('starting balance credited now (quota units)'),
            },
            ['id', 'username', 'email', 'verification_sent', 'credited'],
          ),
        ),
        {
          security: 'none',
          body: obj(
            {
              username: str(),
              password: str('8-256 characters'),
              email: str('required when SignupEmailVerification is on'),
              invitation_code: str('required when SignupInvitationCode is set'),
              verification_code: str('ignored (New API compatibility)'),
              aff_code: str('ignored (New API compatibility)'),
            },
            ['username', 'password'],
            { additionalProperties: false },
          ),
          extra: { ...conflict(ref('AdminError'), 'the username or e-mail address is taken'), ...throttled, ...noMail },
        },
      ),
    },
    '/api/user/email/verify': {
      post: op(
        'sign-up',
        'Follow a verification link: verifies the address (and credits a starting balance waiting for it); a link works once',
        envelope(obj({ email: str(), credited: int() }, ['email', 'credited'])),
        {
          security: 'none',
          body: obj({ token: str('the token of the link') }, ['token'], { additionalProperties: false }),
          extra: badLink,
        },
      ),
    },
    '/api/user/password/forgot': {
      post: op(
        'sign-up',
        'Ask for a password reset link; the same answer whether or not an account has the address',
        envelope({ type: 'null' }),
        {
          security: 'none',
          body: obj({ email: str() }, ['email'], { additionalProperties: false }),
          extra: { ...throttled, ...noMail },
        },
      ),
    },
    '/api/user/password/reset': {
      post: op(
        'sign-up',
        'Follow a reset link with a new password: every session and the personal access token end; the link works once',
        envelope({ type: 'null' }),
        {
          security: 'none',
          body: obj({ token: str(), password: str('8-256 characters') }, ['token', 'password'], { additionalProperties: false }),
          extra: badLink,
        },
      ),
    },
    '/api/user/self/email': {
      get: op(
        'sign-up',
        'Your e-mail address and whether it is verified (null: none)',
        envelope(nullable(obj({ email: str(), verified: bool() }, ['email', 'verified']))),
      ),
      post: op(
        'sign-up',
        'Set your e-mail address (or keep it when omitted) and mail a verification link to it',
        envelope(obj({ email: str(), verified: bool() }, ['email', 'verified'])),
        {
          body: obj(
            {
              email: str('a bare address (name@example.com); kept in lower case'),
              password: str('confirms a new address (Reauth); not needed to mail the link again to the same one'),
              code: str(),
              assertion: { type: 'object', additionalProperties: true },
            },
            [],
            { additionalProperties: false },
          ),
          extra: {
            ...conflict(ref('AdminError'), 'the address is already verified, or belongs to another account'),
            ...throttled,
            ...noMail,
          },
        },
      ),
    },
  };
}

/** Response models carry every listed field: mark them required so generated clients need no checks. */
const COMPLETE_RESPONSES = [
  'User',
  'Key',
  'ChannelKey',
  'Channel',
  'Price',
  'Option',
  'QuotaHold',
  'Log',
  'AdminTask',
  'OwnTask',
  'TaskCallback',
];
COMPLETE_RESPONSES.push('RedemptionCode', 'Payment');
/** Single sign-on (accounts/sso.ts): providers for admins, the login page's list, the browser flow. */
const ssoSchemas: Record<string, Schema> = {
  SsoProvider: obj(
    {
      id: str('slug used in URLs'),
      kind: str(undefined, { enum: ['oidc', 'github'] }),
      name: str(),
      button_label: str(),
      issuer: str('OpenID issuer (discovery), or the GitHub web address'),
      api_url: nullable(str('GitHub REST API address')),
      client_id: str(),
      client_secret_set: bool('the secret itself is never returned'),
      scopes: arr(str()),
      account_mode: str('first login: link to the account with the same verified e-mail (else create), or always create', {
        enum: ['link', 'create'],
      }),
      default_group: str('group of accounts a first login creates'),
      allow_insecure: bool('http:// addresses beyond loopback'),
      enabled: bool(),
      sort: int(),
      redirect_uri: str('{PUBLIC_URL}/api/sso/{id}/callback: register it with the provider'),
      changed_by: nullable(int('who changed the provider last (null: the configuration file)')),
      changed_by_role: str(
        'their role then (the file counts as root): a sign-in through the provider never lands in an account of this role or above, unless root',
        { enum: ['user', 'admin', 'root'] },
      ),
      created_at: int(),
      updated_at: int(),
    },
    [
      'id',
      'kind',
      'name',
      'button_label',
      'issuer',
      'api_url',
      'client_id',
      'client_secret_set',
      'scopes',
      'account_mode',
      'default_group',
      'allow_insecure',
      'enabled',
      'sort',
      'redirect_uri',
      'changed_by',
      'changed_by_role',
      'created_at',
      'updated_at',
    ],
  ),
  SsoLink: obj(
    {
      id: str(),
      name: str(),
      button_label: str(),
      linked: nullable(
        obj({ provider_id: str(), email: nullable(str()), created_at: int(), last_login_at: int() }, [
          'provider_id',
          'email',
          'created_at',
          'last_login_at',
        ]),
      ),
    },
    ['id', 'name', 'button_label', 'linked'],
  ),
  SsoProviderInput: obj({
    id: str('create only: lower-case letters, digits, _ and -'),
    kind: str('create only; default oidc', { enum: ['oidc', 'github'] }),
    name: str(),
    button_label: str(),
    issuer: str('https URL (http for loopback or with allow_insecure); GitHub: default https://github.com'),
    api_url: nullable(str('GitHub only')),
    client_id: str(),
    client_secret: str('write only'),
    scopes: { anyOf: [arr(str()), str('space separated')] },
    account_mode: str(undefined, { enum: ['link', 'create'] }),
    default_group: str(),
    allow_insecure: bool(),
    enabled: bool(),
    sort: int(),
  }),
  SsoPublicProvider: obj({ id: str(), name: str(), button_label: str() }, ['id', 'name', 'button_label']),
};
Object.assign(schemas, ssoSchemas);

/** The MCP gateway's servers (mcp/servers.ts, docs/mcp.md). */
Object.assign(schemas, {
  McpServer: obj(
    {
      name: str("the tools' namespace: <name>__<tool>"),
      url: str(),
      header_names: arr(str(), 'names of the headers sent upstream (their values are never returned)'),
      oauth: nullable(
        obj({ client_id: str(), scope: nullable(str()), issuer: nullable(str()), client_secret_set: bool() }, [
          'client_id',
          'scope',
          'issuer',
          'client_secret_set',
        ]),
      ),
      tools: nullable(arr(str(), 'upstream tools served; null = every tool')),
      groups: nullable(arr(str(), 'user groups whose keys may reach the server; null = every group')),
      description: nullable(str()),
      enabled: bool(),
      created_at: int(),
      updated_at: int(),
    },
    ['name', 'url', 'header_names', 'oauth', 'tools', 'groups', 'description', 'enabled', 'created_at', 'updated_at'],
  ),
  McpServerInput: obj({
    name: str('create only: a-z, 0-9, -'),
    url: str(),
    headers: nullable(obj({}, [], { additionalProperties: str() })),
    oauth: nullable(
      obj({ client_id: str(), client_secret: str('write only'), scope: str(), issuer: str() }, ['client_id', 'client_secret']),
    ),
    tools: nullable(arr(str())),
    groups: nullable(arr(str())),
    description: nullable(str()),
    enabled: bool(),
  }),
  McpTool: obj(
    {
      name: str(),
      title: str(),
      description: str(),
      inputSchema: obj({}, [], { additionalProperties: true }),
    },
    ['name', 'inputSchema'],
  ),
});

function mcpPaths(admin: string): Record<string, Record<string, Schema>> {
  const name = { name: 'name', in: 'path', required: true, schema: str('server name') };
  return {
    '/api/mcp/servers': {
      get: op('mcp', 'Registered MCP servers', envelope(arr(ref('McpServer'))), { role: admin }),
      post: op('mcp', 'Register an MCP server (409 when the name exists)', envelope(ref('McpServer')), {
        role: admin,
        body: ref('McpServerInput'),
      }),
    },
    '/api/mcp/servers/{name}': {
      get: op('mcp', 'One MCP server', envelope(ref('McpServer')), { role: admin, params: [name] }),
      put: op('mcp', 'Change an MCP server (headers and oauth replace the stored ones)', envelope(ref('McpServer')), {
        role: admin,
        params: [name],
        body: ref('McpServerInput'),
      }),
      delete: op('mcp', 'Delete an MCP server', envelope({ type: 'null' }), { role: admin, params: [name] }),
    },
    '/api/mcp/servers/{name}/tools': {
      get: op('mcp', "The server's tools (502 when it cannot be reached)", envelope(arr(ref('McpTool'))), { role: admin, params: [name] }),
    },
    '/mcp': {
      post: op(
        'mcp',
        'MCP endpoint (streamable HTTP, stateless): tools/list and tools/call of the tools the key allows',
        obj({}, [], { additionalProperties: true }),
        {
          security: 'key',
          body: obj({ jsonrpc: str(), id: { anyOf: [str(), int()] }, method: str(), params: obj({}, [], { additionalProperties: true }) }, [
            'jsonrpc',
            'method',
          ]),
        },
      ),
    },
  };
}

function ssoPaths(admin: string): Record<string, Record<string, Schema>> {
  const sid = { name: 'id', in: 'path', required: true, schema: str('provider id') };
  const redirect = (description: string) => ({ 302: { description } });
  return {
    '/api/sso/providers': {
      get: op('sso', 'Single sign-on providers', envelope(arr(ref('SsoProvider'))), { role: admin }),
      post: op('sso', 'Add a provider (409 when the id exists)', envelope(ref('SsoProvider')), {
        role: admin,
        body: ref('SsoProviderInput'),
      }),
    },
    '/api/sso/providers/public': {
      get: op('sso', "Enabled providers for the login page's buttons", envelope(arr(ref('SsoPublicProvider'))), { security: 'none' }),
    },
    '/api/sso/providers/{id}': {
      get: op('sso', 'One provider', envelope(ref('SsoProvider')), { role: admin, params: [sid] }),
      put: op('sso', 'Change a provider (fields not given are kept; client_secret only when given)', envelope(ref('SsoProvider')), {
        role: admin,
        params: [sid],
        body: ref('SsoProviderInput'),
      }),
      delete: op('sso', 'Delete a provider and its sign-in links (the accounts stay)', envelope({ type: 'null' }), {
        role: admin,
        params: [sid],
      }),
    },
    '/api/user/sso': {
      get: op('sso', 'The enabled providers, each with its link to your account (null: not linked)', envelope(arr(ref('SsoLink')))),
    },
    '/api/user/sso/{id}/link': {
      post: op(
        'sso',
        "Link a provider to your account: confirmed with your password and your second factor (Reauth); the answer's url is the provider's page to send the browser to (a flow cookie is set), whose callback links the sign-in and returns to /profile?sso_linked={id}",
        envelope(obj({ url: str() }, ['url'])),
        { params: [sid], body: ref('Reauth') },
      ),
    },
    '/api/user/sso/{id}': {
      delete: op('sso', 'Unlink a provider from your account (confirmed, Reauth)', envelope({ type: 'null' }), {
        params: [sid],
        body: ref('Reauth'),
      }),
    },
    '/api/sso/{id}/start': {
      get: op('sso', 'Begin a login: redirects to the provider (sets a short-lived flow cookie)', envelope({ type: 'null' }), {
        security: 'none',
        params: [sid, q('next', str('console path to return to after the login (same origin; default /)'))],
        extra: redirect("to the provider's authorization page"),
      }),
    },
    '/api/sso/{id}/callback': {
      get: op(
        'sso',
        "The provider's redirect: checks state, nonce and PKCE, signs in (session cookie) and redirects to the console (the next of the start, default /); a browser is sent to /login?sso_error=<code> when refused",
        envelope({ type: 'null' }),
        {
          security: 'none',
          params: [sid, q('code', str()), q('state', str())],
          extra: redirect('to the console (/) with a session cookie'),
        },
      ),
    },
  };
}

function withRequiredFields(all: Record<string, Schema>): Record<string, Schema> {
  const out = { ...all };
  for (const name of COMPLETE_RESPONSES) {
    const s = out[name] as { properties?: Record<string, Schema>; required?: string[] };
    if (s?.properties && !s.required) out[name] = { ...s, required: Object.keys(s.properties) };
  }
  return out;
}

/** Second factors of console logins (docs/two-factor.md). */
function twoFactorPaths(admin: string): Record<string, Record<string, Schema>> {
  const code = obj({ code: str('6-digit code of the authenticator app, or a recovery code') }, ['code']);
  const webauthn = {
    type: 'object',
    description: 'WebAuthn options for @simplewebauthn/browser (startRegistration / startAuthentication)',
    additionalProperties: true,
  } as Schema;
  const sessionOrSetup = envelope(ref('User'));
  return {
    '/api/user/login/2fa': {
      post: op(
        'account',
        'Complete a pending login (its cookie) with a code or a passkey assertion; sets the session cookie. Wrong codes count as failed logins of the address',
        sessionOrSetup,
        {
          body: obj({
            code: str('authenticator app or recovery code'),
            assertion: { type: 'object', description: 'startAuthentication() result', additionalProperties: true },
          }),
          security: 'none',
        },
      ),
    },
    '/api/user/login/2fa/passkey-options': {
      post: op('account', 'WebAuthn options to complete a pending login with a passkey', envelope(webauthn), { security: 'none' }),
    },
    '/api/user/passkey/login/options': {
      post: op(
        'account',
        'WebAuthn options of a login without a password (any passkey of this site, with user verification)',
        envelope(webauthn),
        { security: 'none' },
      ),
    },
    '/api/user/passkey/login': {
      post: op('account', 'Log in with a passkey (no password); sets the session cookie', sessionOrSetup, {
        body: obj({ assertion: { type: 'object', additionalProperties: true } }, ['assertion']),
        security: 'none',
      }),
    },
    '/api/user/2fa/status': {
      get: op('account', 'Your second factors, and whether AdminRequireTwoFactor applies to you', envelope(ref('TwoFactorStatus'))),
    },
    '/api/user/2fa/setup': {
      post: op(
        'account',
        'Start enrolling an authenticator app: a new secret and its otpauth:// URI (shown once); 409 while TOTP is on',
        envelope(ref('TotpSetup')),
      ),
    },
    '/api/user/2fa/enable': {
      post: op(
        'account',
        'Confirm the enrolment with a current code: TOTP is on; recovery codes in the answer (shown once)',
        envelope(ref('RecoveryCodes')),
        { body: code },
      ),
    },
    '/api/user/2fa/disable': {
      post: op(
        'account',
        'Turn the authenticator app off (needs a current or recovery code, and the password of an account that has one)',
        envelope({ type: 'null' }),
        {
          body: obj({ code: str('6-digit code of the authenticator app, or a recovery code'), password: str('the current password') }, [
            'code',
          ]),
        },
      ),
    },
    '/api/user/2fa/backup_codes': {
      post: op('account', 'New recovery codes, replacing the old ones (needs a current or recovery code)', envelope(ref('RecoveryCodes')), {
        body: code,
      }),
    },
    '/api/user/passkey': { get: op('account', 'Your passkeys', envelope(arr(ref('Passkey')))) },
    '/api/user/passkey/register/options': {
      post: op('account', 'WebAuthn options to register a passkey (needs PUBLIC_URL: 503 otherwise)', envelope(webauthn)),
    },
    '/api/user/passkey/register': {
      post: op(
        'account',
        'Register a passkey from the startRegistration() result; the first second factor also brings recovery codes (shown once)',
        envelope(obj({ passkey: ref('Passkey'), recovery_codes: arr(str()) }, ['passkey', 'recovery_codes'])),
        {
          body: obj({ response: { type: 'object', additionalProperties: true }, name: str() }, ['response']),
        },
      ),
    },
    '/api/user/passkey/{id}': {
      delete: op('account', 'Remove one of your passkeys (confirmed like every sensitive change)', envelope({ type: 'null' }), {
        params: [idParam],
        body: ref('Reauth'),
      }),
    },
    '/api/user/reauth/passkey-options': {
      post: op(
        'account',
        'WebAuthn options of a passkey assertion that confirms a sensitive change (accounts without a password)',
        envelope(webauthn),
      ),
    },
    '/api/user/{id}/2fa': {
      delete: op('users', 'Remove every second factor of a user (a lost device)', envelope({ type: 'null' }), {
        role: admin,
        params: [idParam],
      }),
    },
  };
}

/** Channel chores at New API's paths (http/channel-chore-routes.ts) and the public pricing list. */
function channelChorePaths(admin: string): Record<string, Record<string, Schema>> {
  const tagBody = (extra: Record<string, Schema> = {}) => obj({ tag: str(), ...extra }, ['tag']);
  return {
    '/api/channel/update_balance/{id}': {
      get: op(
        'channels',
        "Read the channel's upstream balance from its vendor's billing endpoint and store it",
        envelope(obj({ balance: num(), balance_updated_at: int() }, ['balance', 'balance_updated_at'])),
        { role: admin, params: [idParam] },
      ),
    },
    '/api/channel/update_balance': {
      get: op(
        'channels',
        'Read and store the balance of every enabled OpenAI-compatible channel; each result',
        envelope(
          arr(obj({ id: int(), name: str(), balance: nullable(num()), error: nullable(str()) }, ['id', 'name', 'balance', 'error'])),
        ),
        { role: admin },
      ),
    },
    '/api/channel/fetch_models/{id}': {
      get: op(
        'channels',
        "The upstream's model list (data), with what a sync would add to and remove from the channel's models",
        obj({ success: bool(), message: str(), data: arr(str()), added: arr(str()), removed: arr(str()) }, [
          'success',
          'message',
          'data',
          'added',
          'removed',
        ]),
        { role: admin, params: [idParam] },
      ),
    },
    '/api/channel/tag/disabled': {
      post: op('channels', 'Disable every channel of a tag; the ids changed', envelope(arr(int())), { role: admin, body: tagBody() }),
    },
    '/api/channel/tag/enabled': {
      post: op('channels', 'Enable every channel of a tag; the ids changed', envelope(arr(int())), { role: admin, body: tagBody() }),
    },
    '/api/channel/tag': {
      put: op('channels', 'Set the same fields on every channel of a tag; the channels changed', envelope(arr(ref('Channel'))), {
        role: admin,
        body: tagBody({
          new_tag: nullable(str()),
          priority: int(),
          weight: int(),
          models: arr(str()),
          groups: arr(str()),
          model_mapping: { type: 'object' },
          header_override: { type: 'object' },
          param_override: { type: 'object' },
          test_model: nullable(str()),
          key_mode: str(),
        }),
      }),
    },
    '/api/channel/copy/{id}': {
      post: op('channels', 'Copy a channel under its name plus a suffix', envelope(ref('Channel')), {
        role: admin,
        params: [idParam, q('suffix', str('default _copy')), q('reset_balance', bool('default true'))],
      }),
    },
    '/api/channel/batch': {
      post: op('channels', 'Delete the channels with these ids; how many went', envelope(int()), {
        role: admin,
        body: obj({ ids: arr(int()) }, ['ids']),
      }),
    },
    '/api/channel/disabled': {
      delete: op('channels', 'Delete every disabled channel (by hand or automatically); how many went', envelope(int()), { role: admin }),
    },
    '/api/channel/{id}/test_all': {
      post: op('channels', 'Test every model of a channel; kept as its last test', envelope(ref('ChannelTestAll')), {
        role: admin,
        params: [idParam],
      }),
    },
    '/api/pricing': {
      get: op(
        'public',
        'The models a visitor may call with their price per group (404 unless PublicPricingEnabled)',
        envelope(ref('PublicPricing')),
        {
          security: 'none',
        },
      ),
    },
  };
}

export function buildOpenApi(serverUrl: string): Schema {
  const admin = 'admin',
    root = 'root';
  const paths: Record<string, Record<string, Schema>> = {
    '/api/user/login': {
      post: op(
        'account',
        'Log in; sets a session cookie, or — for a user with a second factor — a pending-login cookie and {require_2fa, methods} (POST /api/user/login/2fa completes it)',
        envelope({ anyOf: [ref('User'), ref('LoginSecondFactor')] }),
        { body: obj({ username: str(), password: str() }, ['username', 'password']), security: 'none' },
      ),
    },
    '/api/user/logout': { post: op('account', 'Log out', envelope({ type: 'null' })) },
    '/api/user/self': {
      get: op(
        'account',
        'The logged-in user with balance (quota, quota_usd), used_quota and request_count; the public address (PUBLIC_URL) and quota units per USD; how it confirms a sensitive change',
        envelope(ref('SelfUser')),
      ),
    },
    '/api/user/self/password': {
      put: op(
        'account',
        'Change your password (the current one is checked; an account without one confirms with a second factor); your other sessions and your personal access token are revoked, this session stays. A wrong old_password is a 400, and counts as a failed login of the address',
        envelope({ type: 'null' }),
        { body: ref('PasswordChange') },
      ),
    },
    '/api/user/models': {
      get: op('account', 'The models your group may call, with the prices you pay (group ratio applied)', envelope(ref('GroupModels'))),
    },
    '/api/usage': {
      get: op(
        'usage',
        'Usage report for the dashboard: totals, a series in hour or day buckets, top groups by quota (from hourly roll-ups; ranges are whole hours)',
        envelope(ref('UsageReport')),
        { role: admin, params: usageParams(false) },
      ),
    },
    '/api/usage/self': {
      get: op(
        'usage',
        'Your own usage report (same shape; no user or channel filter, group_by model or key)',
        envelope(ref('UsageReport')),
        { params: usageParams(true) },
      ),
    },
    '/api/user/cli-session': {
      post: op(
        'account',
        'Open a command-line session: a bearer token (ghs-…, shown once, 90 days) that other logins do not end; POST /api/user/logout with it ends it',
        envelope(obj({ token: str(), expires_at: int('unix ms') }, ['token', 'expires_at'])),
      ),
    },
    '/api/user/token': {
      post: op(
        'account',
        'Issue a personal access token (shown once) for scripts and the CLI, replacing the old one; confirmed (Reauth)',
        envelope(obj({ access_token: str() })),
        { body: ref('Reauth') },
      ),
    },
    '/api/user': {
      get: op('users', 'List users', page('User'), {
        role: admin,
        params: [...pagingParams, q('keyword', str()), q('role', str()), q('status', str()), q('group', str())],
      }),
      post: op('users', 'Create a user', envelope(ref('User')), { role: admin, body: ref('UserCreate') }),
    },
    '/api/user/{id}': {
      get: op('users', 'One user', envelope(ref('User')), { role: admin, params: [idParam] }),
      put: op('users', 'Update role, group, status, password, display name', envelope(ref('User')), {
        role: admin,
        params: [idParam],
        body: ref('UserUpdate'),
      }),
      delete: op('users', 'Delete a user and their keys', envelope({ type: 'null' }), { role: admin, params: [idParam] }),
    },
    '/api/user/{id}/quota': {
      post: op('users', 'Top up, deduct or set the balance (writes a ledger row)', envelope(ref('User')), {
        role: admin,
        params: [idParam],
        body: ref('QuotaChange'),
      }),
    },
    '/api/user/{id}/ledger': {
      get: op(
        'users',
        "The user's ledger, newest first: every movement of the balance, with the reason of top-ups and adjustments",
        page('LedgerEntry'),
        { role: admin, params: [idParam, ...pagingParams] },
      ),
    },
    '/api/token': {
      get: op('keys', 'List API keys (your own; admins: ?all=true or ?user_id=)', page('Key'), {
        params: [...pagingParams, q('keyword', str()), q('user_id', int()), q('all', bool())],
      }),
      post: op(
        'keys',
        'Create an API key; the full key is in data.key, shown once',
        envelope({ allOf: [ref('Key'), obj({ key: str() })] }),
        { body: ref('KeyInput') },
      ),
    },
    '/api/token/{id}': {
      get: op('keys', 'One API key', envelope(ref('Key')), { params: [idParam] }),
      put: op('keys', 'Update an API key', envelope(ref('Key')), { params: [idParam], body: ref('KeyInput') }),
      delete: op('keys', 'Delete (revoke) an API key', envelope({ type: 'null' }), { params: [idParam] }),
    },
    '/api/token/{id}/children': {
      post: op(
        'keys',
        "Mint a child key, authenticated by the parent key itself as Bearer; its ceiling is taken out of the parent's remaining ceiling; the full key is in data.key, shown once",
        envelope({ allOf: [ref('Key'), obj({ key: str() })] }),
        { params: [idParam], security: 'key', body: ref('ChildKeyInput') },
      ),
    },
    '/api/token/{id}/callback-secret': {
      post: op(
        'keys',
        'Make a new task callback signing secret for the key (the old one stops signing at once); shown only in this answer',
        envelope(ref('CallbackSecret')),
        { params: [idParam] },
      ),
    },
    '/api/channel': {
      get: op('channels', 'List channels', page('Channel'), {
        role: admin,
        params: [...pagingParams, q('keyword', str()), q('type', str()), q('status', str()), q('group', str()), q('tag', str())],
      }),
      post: op('channels', 'Create a channel', envelope(ref('Channel')), { role: admin, body: ref('ChannelInput') }),
    },
    '/api/channel/models': {
      get: op('channels', 'Every model some channel lists, sorted (for pickers)', envelope(arr(str())), { role: admin }),
    },
    '/api/channel/upstream-url': {
      post: op(
        'channels',
        'Where a chat call to `model` would go on a channel of this type, base URL and settings: the URL the relay builds (null for task channels and for a URL that needs what only a key holds)',
        envelope(obj({ url: nullable(str()) }, ['url'])),
        {
          role: admin,
          body: obj({
            type: str('channel type name or number'),
            base_url: str('empty: the preset or the type default'),
            settings: obj({}, [], { additionalProperties: true }),
            model: str('default MODEL'),
          }),
        },
      ),
    },
    '/api/channel/{id}': {
      get: op('channels', 'One channel', envelope(ref('Channel')), { role: admin, params: [idParam] }),
      put: op('channels', 'Update a channel (absent keys are kept)', envelope(ref('Channel')), {
        role: admin,
        params: [idParam],
        body: ref('ChannelInput'),
      }),
      delete: op('channels', 'Delete a channel', envelope({ type: 'null' }), { role: admin, params: [idParam] }),
    },
    '/api/channel/{id}/keys/{index}': {
      put: op('channels', 'Enable or disable one key of a channel', envelope(ref('Channel')), {
        role: admin,
        params: [idParam, { name: 'index', in: 'path', required: true, schema: int() }],
        body: obj({ enabled: bool(), reason: str() }, ['enabled']),
      }),
    },
    '/api/channel/{id}/test': {
      post: op(
        'channels',
        "Send a small test request through the channel (success false with the upstream's message when it fails)",
        obj({ success: bool(), message: str(), data: ref('ChannelTest') }, ['success', 'message', 'data']),
        { role: admin, params: [idParam], body: obj({ model: str() }) },
      ),
    },
    '/api/price': {
      get: op('prices', 'List model prices', page('Price'), { params: [...pagingParams, q('keyword', str())] }),
      put: op('prices', 'Set the price of a model (replaces it; POST does the same)', envelope(ref('Price')), {
        role: admin,
        body: ref('PriceInput'),
      }),
    },
    '/api/price/catalog': {
      get: op(
        'prices',
        'The list-price catalog: every entry with its source and date, and whether the price book has the model',
        envelope(arr(ref('CatalogEntry'))),
        {
          role: admin,
        },
      ),
    },
    '/api/price/import': {
      post: op(
        'prices',
        "Adopt the catalog's prices (all, or `models`); prices already set are kept unless `overwrite`",
        envelope(ref('CatalogImport')),
        {
          role: admin,
          body: obj({ models: arr(str()), overwrite: bool() }, [], { additionalProperties: false }),
        },
      ),
    },
    '/api/price/preview': {
      post: op(
        'prices',
        'What a call with a given usage would cost at a price being edited (`price`) or a saved one (`model`)',
        envelope(ref('PricePreview')),
        {
          role: admin,
          body: ref('PricePreviewInput'),
        },
      ),
    },
    '/api/price/{model}': {
      get: op('prices', 'Price of one model', envelope(ref('Price')), {
        params: [{ name: 'model', in: 'path', required: true, schema: str() }],
      }),
      delete: op('prices', 'Delete a price', envelope({ type: 'null' }), {
        role: admin,
        params: [{ name: 'model', in: 'path', required: true, schema: str() }],
      }),
    },
    '/api/group_ratio': {
      get: op('prices', 'Group ratios (1 when a group has none)', envelope(arr(ref('GroupRatio')))),
      put: op('prices', 'Set a group ratio', envelope(ref('GroupRatio')), { role: admin, body: ref('GroupRatio') }),
    },
    '/api/group_ratio/{group}': {
      delete: op('prices', 'Delete a group ratio', envelope({ type: 'null' }), {
        role: admin,
        params: [{ name: 'group', in: 'path', required: true, schema: str() }],
      }),
    },
    '/api/option': {
      get: op('options', 'All options with their values and defaults', envelope(arr(ref('Option'))), { role: root }),
      put: op('options', 'Set one option ({key, value}) or several ({options: {...}})', envelope(arr(ref('Option'))), {
        role: root,
        body: { anyOf: [obj({ key: str(), value: {} }, ['key', 'value']), obj({ options: { type: 'object' } }, ['options'])] },
      }),
    },
    '/api/option/{key}': {
      delete: op('options', 'Reset an option to its default', envelope(arr(ref('Option'))), {
        role: root,
        params: [{ name: 'key', in: 'path', required: true, schema: str() }],
      }),
    },
    '/api/quota/holds': {
      get: op(
        'options',
        'Open quota holds of every node (QuotaAllowanceEnabled): what each has taken, spent and still holds',
        envelope(arr(ref('QuotaHold'))),
        { role: admin },
      ),
    },
    '/api/audit': {
      get: op('audit', 'The audit log of administrative writes, newest first', page('AuditEntry'), {
        role: admin,
        params: [
          ...pagingParams,
          q('p', int('alias of page')),
          q('actor', str('username (system for system writes) or user id')),
          q('target_type', str('user, key, channel, price, group_ratio, option, plugin, marketplace, redemption, task')),
          q('target_id', str()),
          q('action', str('exact, or <type>.* for every action on a type')),
          q('from', int(), 'unix ms (or s), or ISO 8601'),
          q('to', int(), 'unix ms (or s), or ISO 8601'),
        ],
      }),
    },
    '/api/user/self/alerts': {
      get: op('alerts', 'Your low-balance alert settings', envelope(ref('AlertSettings'))),
      put: op(
        'alerts',
        'Set your low-balance threshold, e-mail and webhook (fields not given are kept); a generated webhook secret is in the answer once',
        envelope(ref('AlertSettings')),
        { body: ref('AlertSettingsInput') },
      ),
    },
    '/api/alert': {
      get: op('alerts', 'The alert outbox: every delivery with its status and attempts, newest first', page('Alert'), {
        role: admin,
        params: [
          ...pagingParams,
          q('status', str(undefined, { enum: ['pending', 'delivered', 'failed'] })),
          q('kind', str()),
          q('target', str('operator or user:<id>')),
          q('transport', str(undefined, { enum: ['webhook', 'email'] })),
        ],
      }),
    },
    '/api/alert/test': {
      post: op('alerts', 'Queue a test operator alert (400 when no operator destination is set)', envelope({ type: 'object' }), {
        role: root,
      }),
    },
    '/api/log': {
      get: op('logs', 'Query logs with totals for the filter (newest first, keyset pages)', envelope(ref('LogPage')), {
        role: admin,
        params: [...pagingParams, logCursor, ...logFilters(false)],
      }),
    },
    '/api/log/self': {
      get: op(
        'logs',
        'Your own logs (same filters except user and channel; no channel or upstream model in the rows)',
        envelope(ref('LogPage')),
        { params: [...pagingParams, logCursor, ...logFilters(true)] },
      ),
    },
    '/api/log/export': {
      get: op(
        'logs',
        'The logs of a filter as CSV (newest first), streamed: Content-Disposition attachment',
        str('CSV with a header row, CRLF line ends'),
        { role: admin, params: logFilters(false), contentType: 'text/csv' },
      ),
    },
    '/api/log/self/export': {
      get: op('logs', 'Your own logs as CSV (streamed)', str('CSV with a header row, CRLF line ends'), {
        params: logFilters(true),
        contentType: 'text/csv',
      }),
    },
    '/api/task': {
      get: op('tasks', 'List tasks (admins: tasks of users and their own; root: all)', page('AdminTask'), {
        role: admin,
        params: [
          ...pagingParams,
          q('status', str()),
          q('plugin', str()),
          q('model', str()),
          q('user_id', int()),
          q('username', str()),
          q('channel_id', int()),
          q('flagged', bool()),
          q('billing_status', str()),
          q('task_id', str('public id')),
          q('start', int(), 'created at or after: unix ms (or s), or ISO 8601'),
          q('end', int()),
        ],
      }),
    },
    '/api/task/self': {
      get: op('tasks', 'Your own tasks (no upstream ids, no channels)', page('OwnTask'), {
        params: [
          ...pagingParams,
          q('status', str()),
          q('plugin', str()),
          q('model', str()),
          q('task_id', str()),
          q('start', int()),
          q('end', int()),
        ],
      }),
    },
    '/api/task/self/{id}': {
      get: op('tasks', 'One of your own tasks with its callback deliveries', envelope(ref('OwnTaskDetail')), {
        params: [{ name: 'id', in: 'path', required: true, schema: str('public id task_…') }],
      }),
    },
    '/api/task/{id}': {
      get: op('tasks', 'One task with its ledger movements', envelope(ref('AdminTaskDetail')), {
        role: admin,
        params: [{ name: 'id', in: 'path', required: true, schema: str('public id task_…') }],
      }),
    },
    '/api/task/{id}/resolve': {
      post: op(
        'tasks',
        'Resolve a flagged task (409 when not flagged or resolved differently; a repeat of the same resolution changes nothing)',
        envelope(ref('AdminTaskDetail')),
        {
          role: admin,
          params: [{ name: 'id', in: 'path', required: true, schema: str('public id task_…') }],
          body: ref('TaskResolve'),
        },
      ),
    },
    '/api/plugin/task': {
      get: op('plugins', 'Installed task plugins with their runtime state', envelope(arr(ref('PluginSummary'))), { role: root }),
      post: op(
        'plugins',
        'Upload a plugin version (validated; a 400 names the field in `field` and at the start of the message); PUT does the same',
        envelope(ref('PluginUploaded')),
        { role: root, body: ref('PluginUpload') },
      ),
      put: op('plugins', 'Upload a plugin version (same as POST)', envelope(ref('PluginUploaded')), {
        role: root,
        body: ref('PluginUpload'),
      }),
    },
    '/api/plugin/task/runtime/status': {
      get: op('plugins', 'The plugin runtime of this node: generation, last rebuild, errors, pools', envelope(ref('PluginRuntimeStatus')), {
        role: root,
      }),
    },
    '/api/plugin/task/marketplace/sources': {
      get: op('plugins', 'Market sources', envelope(arr(ref('MarketSource'))), { role: root }),
      put: op('plugins', 'Replace the market sources', envelope(arr(ref('MarketSource'))), { role: root, body: arr(ref('MarketSource')) }),
    },
    '/api/plugin/task/marketplace/index': {
      get: op(
        'plugins',
        'Fetch a market index (by source name or URL)',
        envelope(obj({ index_url: str(), index: ref('MarketIndex') }, ['index_url', 'index'])),
        { role: root, params: [q('source', str('a source name')), q('index_url', str('or an index URL'))] },
      ),
    },
    '/api/plugin/task/marketplace/install': {
      post: op('plugins', 'Install a plugin version from a market index (checked against its sha256)', envelope(ref('PluginUploaded')), {
        role: root,
        body: obj({ key: str(), version: str('default: latest'), source: str(), index_url: str(), enabled: bool(), force: bool() }, [
          'key',
        ]),
      }),
    },
    '/api/plugin/task/{key}': {
      get: op('plugins', 'One plugin: a version (default the active one) with its source and manifests', envelope(ref('PluginDetail')), {
        role: root,
        params: [keyParam, q('version', str())],
      }),
    },
    '/api/plugin/task/{key}/icon': {
      get: {
        tags: ['plugins'],
        summary: "The plugin's icon (root)",
        parameters: [keyParam, q('version', str())],
        security: [{ session: [] }, { accessToken: [] }],
        responses: {
          200: { description: 'the icon bytes', content: { 'image/*': { schema: str(undefined, { format: 'binary' }) } } },
          ...adminErrors,
        },
      },
    },
    '/api/plugin/task/{key}/versions': {
      get: op('plugins', 'Stored versions, newest first', envelope(arr(ref('PluginVersion'))), { role: root, params: [keyParam] }),
    },
    '/api/plugin/task/{key}/versions/{version}': {
      delete: op(
        'plugins',
        'Delete a stored version (the active one of an enabled plugin in use needs ?force=true)',
        envelope(
          obj({ plugin: str(), deleted_version: str(), disabled_channels: arr(int()), unbound_channels: arr(int()) }, [
            'plugin',
            'deleted_version',
            'disabled_channels',
            'unbound_channels',
          ]),
        ),
        {
          role: root,
          params: [keyParam, { name: 'version', in: 'path', required: true, schema: str() }, flagParam('force', 'also when in use')],
          extra: conflict(ref('PluginInUse'), 'in use: bound channels and tasks in flight'),
        },
      ),
    },
    '/api/plugin/task/{key}/activate': {
      post: op(
        'plugins',
        'Make a stored version the active one',
        envelope(obj({ plugin: str(), active_version: str(), generation: int() }, ['plugin', 'active_version', 'generation'])),
        {
          role: root,
          params: [keyParam, flagParam('force', 'activate even when it conflicts')],
          body: obj({ version: str(), force: bool() }, ['version']),
          extra: conflict(ref('AdminError'), 'conflicts with the running plugins'),
        },
      ),
    },
    '/api/plugin/guardrail': {
      get: op(
        'plugins',
        'Installed guardrail plugins with their runtime state (docs/guardrails.md)',
        envelope(
          arr(
            obj(
              {
                key: str(),
                meta: { type: 'object', additionalProperties: true },
                enabled: bool(),
                active_version: nullable(str()),
                serving_version: nullable(str()),
                source_hash: str(),
                remark: str(),
                runtime_status: str('registered, disabled, compile_failed or not_registered'),
                runtime_error: str(),
              },
              ['key', 'meta', 'enabled', 'active_version', 'serving_version', 'runtime_status'],
            ),
          ),
        ),
        { role: root },
      ),
      post: op(
        'plugins',
        'Install a guardrail plugin version (validated like task plugins); PUT does the same',
        envelope(ref('PluginUploaded')),
        {
          role: root,
          body: ref('PluginUpload'),
        },
      ),
      put: op('plugins', 'Install a guardrail plugin version (same as POST)', envelope(ref('PluginUploaded')), {
        role: root,
        body: ref('PluginUpload'),
      }),
    },
    '/api/plugin/guardrail/stats': {
      get: op(
        'plugins',
        "This node's guardrail verdicts since it started, by plugin and action",
        envelope({ type: 'object', additionalProperties: { type: 'object', additionalProperties: int() } }),
        { role: root },
      ),
    },
    '/api/plugin/guardrail/{key}/test': {
      post: op(
        'plugins',
        "Run an enabled guardrail's check on a sample text: the verdict and the texts as a mask leaves them",
        envelope(
          obj(
            {
              verdict: nullable({ type: 'object', additionalProperties: true, description: '{action, reason?, spans?, tags?}' }),
              texts: arr(str()),
              error: str('the failure of the plugin, when it failed'),
              kind: str('thrown, timeout, memory, invalid_result'),
            },
            ['verdict', 'texts'],
          ),
        ),
        {
          role: root,
          params: [keyParam],
          body: obj({ stage: str('input or output', { enum: ['input', 'output'] }), text: str(), texts: arr(str()), model: str() }),
        },
      ),
    },
    '/api/plugin/guardrail/{key}/status': {
      post: op('plugins', 'Enable or disable a guardrail plugin', envelope(ref('PluginStatusChange')), {
        role: root,
        params: [keyParam],
        body: obj({ enabled: bool() }, ['enabled']),
      }),
    },
    '/api/plugin/mcp_tool': {
      get: op(
        'plugins',
        'Installed MCP tool plugins with their runtime state (docs/mcp.md#tool-plugins); meta.tools names their tools',
        envelope(
          arr(
            obj(
              {
                key: str(),
                meta: { type: 'object', additionalProperties: true },
                enabled: bool(),
                active_version: nullable(str()),
                serving_version: nullable(str()),
                source_hash: str(),
                remark: str(),
                runtime_status: str('registered, disabled, compile_failed or not_registered'),
                runtime_error: str(),
              },
              ['key', 'meta', 'enabled', 'active_version', 'serving_version', 'runtime_status'],
            ),
          ),
        ),
        { role: root },
      ),
      post: op(
        'plugins',
        'Install an MCP tool plugin version (validated like task plugins); PUT does the same',
        envelope(ref('PluginUploaded')),
        { role: root, body: ref('PluginUpload') },
      ),
      put: op('plugins', 'Install an MCP tool plugin version (same as POST)', envelope(ref('PluginUploaded')), {
        role: root,
        body: ref('PluginUpload'),
      }),
    },
    '/api/plugin/mcp_tool/{key}/status': {
      post: op('plugins', 'Enable or disable an MCP tool plugin', envelope(ref('PluginStatusChange')), {
        role: root,
        params: [keyParam],
        body: obj({ enabled: bool() }, ['enabled']),
      }),
    },
    '/api/plugin/task/{key}/status': {
      post: op(
        'plugins',
        'Enable or disable a plugin (disabling one in use needs ?cascade=true for bound channels and ?force=true for tasks in flight)',
        envelope(ref('PluginStatusChange')),
        {
          role: root,
          params: [
            keyParam,
            flagParam('cascade', 'disable or unbind the channels bound to it'),
            flagParam('force', 'also with tasks in flight'),
          ],
          body: obj({ enabled: bool() }, ['enabled']),
          extra: conflict(ref('PluginInUse'), 'in use: bound channels and tasks in flight'),
        },
      ),
    },
    '/api/plugin/task/{key}/dryrun': {
      post: op(
        'plugins',
        'Call a hook of the active version in a fresh isolate',
        envelope(obj({ plugin: str(), version: str(), hook: str(), output: {} }, ['plugin', 'version', 'hook', 'output'])),
        {
          role: root,
          params: [keyParam],
          body: obj({ hook: str('e.g. task.submit'), member: str(), args: arr({}) }, ['hook']),
        },
      ),
    },
    '/v1/chat/completions': {
      post: op('model calls', 'Chat completion (stream: true gives text/event-stream)', ref('ChatCompletion'), {
        security: 'key',
        body: ref('ChatCompletionRequest'),
        extra: limited,
      }),
    },
    '/v1/completions': {
      post: op('model calls', 'Text completion', ref('Completion'), { security: 'key', body: ref('CompletionRequest'), extra: limited }),
    },
    '/v1/embeddings': {
      post: op('model calls', 'Embeddings', ref('EmbeddingList'), { security: 'key', body: ref('EmbeddingRequest'), extra: limited }),
    },
    '/v1/models': { get: op('model calls', 'Models this key may use', ref('ModelList'), { security: 'key' }) },
    '/v1/tasks/{id}': {
      post: op(
        'tasks',
        "Submit a task to the plugin {id} (JSON or multipart); X-Callback-URL (or the key's callback_url) gets the task view POSTed when it ends",
        obj({ id: str(), task_id: str(), status: str(), model: str(), created_at: int() }),
        {
          security: 'key',
          body: obj({ model: str() }, ['model']),
          params: [
            { name: 'id', in: 'path', required: true, schema: str('POST: the plugin key; GET: the public task id task_…') },
            {
              name: 'X-Callback-URL',
              in: 'header',
              schema: str(
                'http(s) URL resolving to a public address (unless CONTENT_ALLOW_PRIVATE_ADDRESSES); the key needs a callback secret',
              ),
              description:
                'task completion callback; also accepted on /v1/videos, /v1/images/*, /v1/responses and plugin native submit routes',
            },
          ],
        },
      ),
      get: op('tasks', 'One of your tasks ({id} is the public task id), with its callback delivery when it has one', ref('TaskView'), {
        security: 'key',
        params: [{ name: 'id', in: 'path', required: true, schema: str() }],
      }),
    },
    '/v1/models/{model}': {
      get: op('model calls', 'One model (404 model_not_found when absent)', ref('Model'), {
        security: 'key',
        params: [{ name: 'model', in: 'path', required: true, schema: str() }],
      }),
    },
    '/pg/chat/completions': {
      post: op('model calls', 'Playground chat completion with the login session; billed to the user', ref('ChatCompletion'), {
        body: ref('ChatCompletionRequest'),
      }),
    },
    '/v1/messages': {
      post: op(
        'model calls',
        'Messages-style API (key in x-api-key or Bearer; requires model, max_tokens, messages)',
        { type: 'object' },
        {
          security: 'key',
          body: obj({ model: str(), max_tokens: int(), messages: arr({ type: 'object' }) }, ['model', 'max_tokens', 'messages']),
        },
      ),
    },
    '/v1/messages/count_tokens': {
      post: op('model calls', 'Prompt tokens counted locally ({input_tokens}); no charge', obj({ input_tokens: int() }), {
        security: 'key',
        body: obj({ model: str(), messages: arr({ type: 'object' }) }, ['model', 'messages']),
      }),
    },
    '/v1beta/models/{model}:{action}': {
      post: op(
        'model calls',
        'Gemini-native action: generateContent, streamGenerateContent (?alt=sse), countTokens, embedContent, batchEmbedContents (key in ?key= or x-goog-api-key); also under /v1/models',
        { type: 'object' },
        {
          security: 'key',
          params: [
            { name: 'model', in: 'path', required: true, schema: str() },
            { name: 'action', in: 'path', required: true, schema: str() },
          ],
          body: { type: 'object' },
        },
      ),
    },
    '/v1beta/models': {
      get: op(
        'model calls',
        'Gemini-style model list ({models, nextPageToken}; pageSize, pageToken)',
        { type: 'object' },
        { security: 'key', params: [q('pageSize', int()), q('pageToken', str())] },
      ),
    },
    '/v1beta/openai/models': { get: op('model calls', 'OpenAI-style model list', ref('ModelList'), { security: 'key' }) },
    '/healthz': {
      get: {
        tags: ['health'],
        summary: 'Liveness: the process answers (no I/O)',
        security: [],
        responses: { 200: { description: 'alive', content: { 'application/json': { schema: obj({ ok: { const: true } }, ['ok']) } } } },
      },
    },
    '/readyz': {
      get: {
        tags: ['health'],
        summary: 'Readiness: database reachable, Redis when configured, plugin runtime built, not shutting down',
        security: [],
        responses: {
          200: { description: 'ready', content: { 'application/json': { schema: ref('Readiness') } } },
          503: { description: 'not ready; checks and errors say why', content: { 'application/json': { schema: ref('Readiness') } } },
        },
      },
    },
  };
  Object.assign(paths, topupPaths(admin));
  Object.assign(paths, planPaths(admin));
  Object.assign(paths, signupPaths());
  Object.assign(paths, ssoPaths(admin));
  Object.assign(paths, mcpPaths(admin));
  Object.assign(paths, twoFactorPaths(admin));
  Object.assign(paths, channelChorePaths(admin));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gatehouse API',
      version: '1',
      description:
        'Admin API (envelope {success, message, data}; lists put {items, total, page, page_size} in data) and the OpenAI-style model-call endpoints.',
    },
    servers: [{ url: serverUrl }],
    tags: [
      'account',
      'usage',
      'users',
      'keys',
      'channels',
      'prices',
      'options',
      'audit',
      'alerts',
      'logs',
      'tasks',
      'plugins',
      'model calls',
      'health',
      'redemption',
      'top-up',
      'plans',
      'sso',
    ].map((name) => ({ name })),
    paths,
    components: {
      schemas: withRequiredFields(schemas),
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'gatehouse_session' },
        accessToken: { type: 'http', scheme: 'bearer', description: 'personal access token from POST /api/user/token' },
        apiKey: { type: 'http', scheme: 'bearer', description: 'instance API key sk-…' },
      },
    },
  };
}
