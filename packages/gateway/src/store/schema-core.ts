import type { Generated } from 'kysely';

export interface UserRow {
  id: Generated<number>;
  username: string;
  password_hash: string;
  display_name: string;
  role: 'user' | 'admin' | 'root';
  group_name: string;
  /** Remaining balance in quota units. */
  quota: number;
  used_quota: number;
  request_count: number;
  /** 1 enabled, 2 disabled. */
  status: number;
  /** SHA-256 of the personal access token for /api/* scripts. */
  access_token_hash: string | null;
  /** Requests and tokens per minute and calls at once (accounts/rate-limits.ts); 0 = no limit. */
  rpm: Generated<number>;
  tpm: Generated<number>;
  max_concurrency: Generated<number>;
  /** Spending budget per `budget_period` (day | week | month) in quota units (billing/budgets.ts); null = none. */
  budget_quota: Generated<number | null>;
  budget_period: Generated<string | null>;
  created_at: number;
  updated_at: number;
}

export interface SessionRow {
  id_hash: string;
  user_id: number;
  expires_at: number;
  created_at: number;
}

export interface ApiKeyRow {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** SHA-256 hex of the full key. */
  key_hash: string;
  /** Shown in lists: `sk-ab…wxyz`. */
  key_hint: string;
  /** 1 enabled, 2 disabled. Expiry and exhaustion are derived, not stored. */
  status: number;
  /** Unix ms, null = never. */
  expires_at: number | null;
  unlimited_quota: number;
  /** Remaining own cap in quota units (ignored when unlimited). */
  remain_quota: number;
  used_quota: number;
  /** JSON string[] or null = every model. */
  models: string | null;
  /** JSON string[] of IPs/CIDRs or null = anywhere. */
  allowed_ips: string | null;
  /** Group override, null = the user's group. */
  group_name: string | null;
  /** Requests and tokens per minute and calls at once (accounts/rate-limits.ts); 0 = no limit. */
  rpm: Generated<number>;
  tpm: Generated<number>;
  max_concurrency: Generated<number>;
  /** Spending budget per `budget_period` (day | week | month) in quota units (billing/budgets.ts); null = none. */
  budget_quota: Generated<number | null>;
  budget_period: Generated<string | null>;
  created_at: number;
  accessed_at: number | null;
  /** Default task callback URL of the key's submissions (migration 020). */
  callback_url: string | null;
  /** The secret that signs task callbacks, sealed like channel keys (null: none yet). */
  callback_secret: string | null;
  /** JSON list of MCP tools the key may use (`server/tool`, `server/*`); null = none (migration 030). */
  mcp_tools: string | null;
  /** The team whose wallet pays for the key's calls (migration 035); null = its user. */
  team_id: Generated<number | null>;
}

export interface ChannelRow {
  id: Generated<number>;
  name: string;
  /** Numeric channel type, see channels/types.ts (1 OpenAI, 3 Azure, 14 Anthropic, 24 Gemini, 60 peer gateway, 61 task plugin). */
  type: number;
  base_url: string;
  /** SecretBox-sealed JSON string[] of keys. */
  keys_sealed: string;
  /** 'random' | 'round_robin'. */
  key_mode: string;
  /** JSON: { [index]: { status: 'auto_disabled' | 'disabled', reason, at } } */
  key_state: string;
  /** JSON string[]. */
  models: string;
  /** JSON string[]. */
  groups: string;
  priority: number;
  weight: number;
  /** JSON {from: to}. */
  model_mapping: string;
  /** JSON {header: value}. */
  header_override: string;
  /** JSON {param: value}. */
  param_override: string;
  /** 1 enabled, 2 disabled by hand, 3 auto-disabled. */
  status: number;
  status_reason: string | null;
  /** JSON object of type-specific settings (azure api_version, plugin key(s), preset, ...). */
  settings: string;
  /** What the operator pays the vendor relative to list prices (1 = list price). */
  cost_ratio?: number;
  test_model: string | null;
  /** Calls in flight above which the relay skips the channel (0: no cap). */
  max_concurrency: Generated<number>;
  /** Estimated prompt tokens above which the relay skips the channel (0: no cap). */
  max_input_tokens: Generated<number>;
  response_time_ms: number | null;
  tested_at: number | null;
  created_at: number;
  updated_at: number;
  /** A free label bulk actions select by (`/api/channel/tag/*`). */
  tag: string | null;
  /** The upstream's balance as its vendor last reported it (the vendor's currency). */
  balance: number | null;
  balance_updated_at: number | null;
  /** JSON: the last "test all models" `{at, results: [{model, ok, status, time_ms, message}]}`. */
  last_test: string | null;
  /** JSON: the recovery probe's back-off `{<key index>: {failures, next_at}}` (relay/recovery.ts). */
  recovery: string | null;
}

export interface PriceRow {
  model: string;
  /** USD per 1M tokens. */
  input: number | null;
  output: number | null;
  cached_input: number | null;
  /** USD per 1M prompt-cache write tokens (5-minute and 1-hour); null: 1.25× and 2× input. */
  cache_write_5m: number | null;
  cache_write_1h: number | null;
  /** USD per call. */
  per_request: number | null;
  /** Task billing expression over usage facts, yielding USD; for a model call, its price expression (billing/price-rules.ts). */
  expression: string | null;
  /** JSON of the rules beyond flat rates: tiers, modalities, server tools, service tiers (billing/price-rules.ts). */
  rules?: string | null;
  updated_at: number;
}

export interface GroupRatioRow {
  group_name: string;
  ratio: number;
}

export interface OptionRow {
  key: string;
  value: string;
}

/** Every balance movement, unique per (ref, kind): a movement can happen once only. */
export interface LedgerRow {
  id: Generated<number>;
  user_id: number;
  key_id: number | null;
  /** What caused it: a request id, a task id, a top-up id. */
  ref: string;
  /** reserve | extend:<n> | settle | refund | close | topup | adjust | spend | charge */
  kind: string;
  /** Signed quota units taken from the user (positive) or given back (negative). */
  amount: number;
  created_at: number;
  /** The team whose wallet moved (migration 035); null: the user's balance. */
  team_id: Generated<number | null>;
}

/** A part of a payer's balance held by one node for its requests (billing/allowance.ts). */
export interface QuotaHoldRow {
  /** Also the ledger ref of the hold's movements. */
  ref: string;
  user_id: number;
  key_id: number | null;
  /** 1 when the key's own cap was taken as well. */
  key_capped: number;
  /** Quota units taken from the balance when the hold was made. */
  amount: number;
  /** Units spent by requests, as flushed so far. */
  spent: number;
  node: string;
  /** Unix ms; renewed by the node's flushes. An open hold past it is closed by any node. */
  expires_at: number;
  closed: number;
  created_at: number;
}

export interface LogRow {
  id: Generated<number>;
  created_at: number;
  /** consume | error | task | system | topup | mcp (an MCP tool call) */
  type: string;
  request_id: string;
  user_id: number | null;
  username: string | null;
  key_id: number | null;
  key_name: string | null;
  group_name: string | null;
  model: string | null;
  upstream_model: string | null;
  channel_id: number | null;
  endpoint: string | null;
  status_code: number | null;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  /** Prompt-cache write tokens (part of prompt_tokens, like cached_tokens). */
  cache_write_tokens: Generated<number>;
  /** What the cache writes cost, and what the cache reads saved against the input price (quota units, prices of the call). */
  cache_write_quota: Generated<number>;
  cache_saving_quota: Generated<number>;
  quota: number;
  latency_ms: number;
  first_byte_ms: number | null;
  is_stream: number;
  attempts: number;
  content: string | null;
  /** JSON with anything else worth keeping (attempt list, conversion notes). */
  other: string | null;
  /** What the call cost the operator upstream: list price × the channel's cost ratio (quota units). */
  upstream_cost?: number;
}

/** A Responses id created through the relay: the channel and key that hold it upstream. */
/** A Responses conversation served by conversion (relay/conversations.ts). */
export interface RelayConversationRow {
  response_id: string;
  user_id: number;
  model: string;
  /** Canonical messages (JSON): the input and the answer. */
  messages: string;
  created_at: number;
}

export interface RelayResponseRow {
  response_id: string;
  user_id: number;
  channel_id: number;
  key_index: number;
  model: string;
  created_at: number;
}

/** Change counters: a node that sees a higher value than it loaded rebuilds that cache. */
export interface RevisionRow {
  name: string;
  value: number;
}

/** A named lease between nodes (store/leases.ts). */
export interface NodeLeaseRow {
  name: string;
  holder: string;
  expires_at: number;
}

/** A relay reserve not yet settled or refunded, and the node process holding it (billing/recovery.ts). */
export interface OpenReserveRow {
  /** The request id: the ledger ref of the reserve. */
  ref: string;
  user_id: number;
  key_id: number | null;
  /** 1 when the key's own cap was taken as well. */
  key_capped: number;
  /** The node process (`Ledger.node`); its lease is `node_leases` row `node:<node>`. */
  node: string;
  created_at: number;
  /** The team whose wallet the reserve was taken from (migration 035); null: the user's. */
  team_id: Generated<number | null>;
}

/**
 * Hourly usage roll-ups kept by the log writer (logs/rollup.ts). `dim` '' rows carry the full key;
 * 'all' | 'model' | 'user' | 'key' | 'channel' rows sum over the other dimensions (their other key
 * columns are 0 / ''). `lat_00`…`lat_19` are the latency histogram of model calls.
 */
export interface UsageHourlyRow {
  dim: string;
  /** Unix ms of the start of the UTC hour. */
  hour: number;
  user_id: number;
  key_id: number;
  model: string;
  channel_id: number;
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  quota: number;
  /** Sum of the calls' upstream cost (quota units). */
  upstream_cost?: number;
  /** Sum of model-call latencies (ms). */
  latency_ms: number;
  /** Prompt-cache reads and writes (tokens), the writes' cost and the reads' saving (quota units, prices of each call). */
  cached_tokens: number;
  cache_write_tokens: number;
  cache_write_quota: number;
  cache_saving_quota: number;
  [lat: `lat_${string}`]: number;
}

/** What an owner (`k:<key id>`, `u:<user id>`) spent in one budget period (billing/budgets.ts). */
export interface BudgetSpendRow {
  owner: string;
  /** Unix ms of the period's start (UTC). */
  period_start: number;
  /** Quota units: reserves in flight and settled charges. */
  spent: number;
}

/** The budget period rows a ledger ref's reserve was taken against (until it settles or is refunded). */
export interface BudgetReserveRow {
  ref: string;
  owner: string;
  period_start: number;
}

export interface CoreTables {
  users: UserRow;
  sessions: SessionRow;
  api_keys: ApiKeyRow;
  channels: ChannelRow;
  prices: PriceRow;
  group_ratios: GroupRatioRow;
  options: OptionRow;
  ledger: LedgerRow;
  quota_holds: QuotaHoldRow;
  logs: LogRow;
  relay_responses: RelayResponseRow;
  relay_conversations: RelayConversationRow;
  revisions: RevisionRow;
  node_leases: NodeLeaseRow;
  open_reserves: OpenReserveRow;
  usage_hourly: UsageHourlyRow;
  redemptions: RedemptionRow;
  payments: PaymentRow;
  budget_spend: BudgetSpendRow;
  budget_reserves: BudgetReserveRow;
}

/** A redemption code (billing/redemption.ts). status 1 enabled, 2 disabled, 3 used. */
export interface RedemptionRow {
  id: Generated<number>;
  name: string;
  note: string;
  /** SHA-256 (hex) of the code: how a redeemed code is found. */
  code_hash: string;
  /** The code sealed with core.secrets, for admins' lists and exports. */
  code_sealed: string;
  quota: number;
  status: number;
  created_by: number | null;
  created_at: number;
  /** 0 = never. */
  expires_at: number;
  used_user_id: number | null;
  /** A code that grants this plan (billing/plans.ts) instead of crediting `quota`; null: a credit. */
  plan_id: number | null;
  redeemed_at: number | null;
}

/** A checkout started with a payment provider (billing/payments/). */
export interface PaymentRow {
  id: Generated<number>;
  trade_no: string;
  user_id: number;
  provider: string;
  provider_ref: string | null;
  currency: string;
  /** The price in the currency's smallest unit (cents). */
  amount_minor: number;
  quota: number;
  status: 'pending' | 'paid' | 'expired';
  created_at: number;
  updated_at: number;
  paid_at: number | null;
  /** A top-up of this team's wallet (null: of the user's own balance). */
  team_id: Generated<number | null>;
}
