/**
 * The schemas of the admin routes (http/admin-routes.ts): users, their ledger, API keys, the audit
 * log, quota holds, log rows and pages, usage reports, and the query strings of their lists. The
 * bodies of users and keys are read by the services (admin/users.ts, admin/keys.ts), which give the
 * error messages: their components describe them, the routes accept what the services accept.
 */
import { Type, type TSchema } from 'typebox';
import { PAGING, ref } from './common.ts';

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
const Period = Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')]);
const RoleName = Type.Union([Type.Literal('user'), Type.Literal('admin'), Type.Literal('root')]);
const Enabled = Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]);
/** A time in a query string: unix ms (or s), or ISO 8601. */
const Time = (description = 'unix ms (or s), or ISO 8601') => Type.Union([Type.Integer(), Type.String()], { description });

/** The limit fields of a key and a user (docs/limits.md) as shown. */
const limitView = () => ({
  rpm: Nullable(Type.Integer({ description: 'requests per minute; null = no limit' })),
  tpm: Nullable(Type.Integer({ description: 'tokens (input + output) per minute; null = no limit' })),
  max_concurrency: Nullable(Type.Integer({ description: 'calls in flight at once; null = no limit' })),
  budget: Nullable(Type.Integer({ description: 'what may be spent per budget_period, in quota units; null = no budget' })),
  budget_usd: Nullable(Type.Number()),
  budget_period: Nullable(Period),
  budget_spent: Nullable(Type.Integer({ description: 'spent in the current period (reserves in flight included)' })),
  budget_spent_usd: Nullable(Type.Number()),
  budget_resets_at: Nullable(Type.Integer({ description: 'unix ms: when the current period ends' })),
});
/** The limit fields of a key and a user as set (null or 0 = none). */
const limitInput = () => ({
  rpm: Type.Optional(Nullable(Type.Integer({ minimum: 0, description: 'requests per minute; null or 0 = no limit' }))),
  tpm: Type.Optional(Nullable(Type.Integer({ minimum: 0, description: 'tokens per minute; null or 0 = no limit' }))),
  max_concurrency: Type.Optional(Nullable(Type.Integer({ minimum: 0, description: 'calls in flight at once; null or 0 = no limit' }))),
  budget: Type.Optional(Nullable(Type.Integer({ minimum: 0, description: 'quota units per budget_period; null = no budget' }))),
  budget_usd: Type.Optional(Nullable(Type.Number({ description: 'USD per budget_period (or budget)' }))),
  budget_period: Type.Optional(
    Nullable(Type.Union(Period.anyOf, { description: "the budget's period (UTC calendar, see BudgetUtcOffsetMinutes)" })),
  ),
});

export const User = Type.Object(
  {
    ...limitView(),
    id: Type.Integer(),
    username: Type.String(),
    display_name: Type.String(),
    role: RoleName,
    group: Type.String(),
    quota: Type.Integer({ description: 'remaining balance in quota units (QUOTA_PER_USD per USD)' }),
    quota_usd: Type.Number(),
    used_quota: Type.Integer(),
    request_count: Type.Integer(),
    status: Enabled,
    created_at: Type.Integer({ description: 'unix ms' }),
    updated_at: Type.Integer({ description: 'unix ms' }),
  },
  { $id: 'User' },
);

export const UserCreate = Type.Object(
  {
    username: Type.String({ description: '1-64 of letters, digits, _ . @ -' }),
    password: Type.String({ description: '8-256 characters' }),
    display_name: Type.Optional(Type.String()),
    role: Type.Optional(RoleName),
    group: Type.Optional(Type.String({ default: 'default' })),
    quota: Type.Optional(Type.Integer({ description: 'starting balance in quota units' })),
    quota_usd: Type.Optional(Type.Number({ description: 'starting balance in USD' })),
    status: Type.Optional(Enabled),
    ...limitInput(),
  },
  { $id: 'UserCreate', additionalProperties: false },
);

export const UserUpdate = Type.Object(
  {
    username: Type.Optional(Type.String()),
    password: Type.Optional(Type.String({ description: "8-256 characters; ends the user's sessions" })),
    display_name: Type.Optional(Type.String()),
    role: Type.Optional(RoleName),
    group: Type.Optional(Type.String()),
    status: Type.Optional(Enabled),
    ...limitInput(),
  },
  { $id: 'UserUpdate', additionalProperties: false },
);

export const QuotaChange = Type.Object(
  {
    mode: Type.Optional(
      Type.Union([Type.Literal('add'), Type.Literal('set')], { description: 'add (default; negative amounts deduct) or set' }),
    ),
    amount: Type.Optional(Type.Integer({ description: 'quota units' })),
    amount_usd: Type.Optional(Type.Number({ description: 'USD' })),
    reason: Type.Optional(Type.String({ description: "why (up to 500 characters); shown in the ledger history and the user's logs" })),
  },
  { $id: 'QuotaChange' },
);

export const LedgerEntry = Type.Object(
  {
    id: Type.Integer(),
    ref: Type.String({ description: 'request id, task id or top-up id' }),
    kind: Type.String({ description: 'reserve | extend:<n> | settle | refund | topup | adjust | charge | spend' }),
    key_id: Nullable(Type.Integer()),
    change: Type.Integer({ description: 'signed change of the balance in quota units' }),
    change_usd: Type.Number(),
    note: Nullable(Type.String({ description: 'the reason given with a top-up or adjustment' })),
    created_at: Type.Integer({ description: 'unix ms' }),
  },
  { $id: 'LedgerEntry' },
);

export const Key = Type.Object(
  {
    ...limitView(),
    id: Type.Integer(),
    user_id: Type.Integer(),
    team_id: Nullable(Type.Integer({ description: "the team that pays for the key's calls; null: its user" })),
    username: Type.Optional(Type.String()),
    name: Type.String(),
    hint: Type.String({ description: 'sk-ab…wxyz' }),
    status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled'), Type.Literal('expired'), Type.Literal('exhausted')]),
    expires_at: Nullable(Type.Integer({ description: 'unix ms' })),
    unlimited_quota: Type.Boolean(),
    remain_quota: Type.Integer(),
    remain_quota_usd: Type.Number(),
    used_quota: Type.Integer(),
    max_spend_usd: Nullable(Type.Number({ description: 'lifetime spending ceiling in USD (spent plus remaining); null = none' })),
    models: Nullable(Type.Array(Type.String())),
    allowed_ips: Nullable(Type.Array(Type.String())),
    group: Nullable(Type.String()),
    callback_url: Nullable(Type.String({ description: "default task callback URL of the key's submissions" })),
    callback_secret_set: Type.Boolean({ description: 'whether the key has a callback signing secret (shown once, when made)' }),
    mcp_tools: Nullable(
      Type.Array(Type.String({ description: 'server/tool or server/*' }), {
        description: 'MCP tools the key may use through /mcp; null = none',
      }),
    ),
    created_at: Type.Integer(),
    accessed_at: Nullable(Type.Integer()),
  },
  { $id: 'Key' },
);

/** A key as made: the full key is in `key`, shown once. */
export const NewKey = Type.Intersect([ref(Key), Type.Object({ key: Type.String() })]);

const ExpiresInput = Nullable(Type.Union([Type.Integer({ description: 'unix ms or s' }), Type.String({ description: 'ISO 8601' })]));

export const KeyInput = Type.Object(
  {
    user_id: Type.Optional(Type.Integer({ description: 'owner (admins only; default: yourself)' })),
    name: Type.Optional(Type.String()),
    key: Type.Optional(Type.String({ description: 'fixed key value sk-… (admins only)' })),
    status: Type.Optional(Enabled),
    expires_at: Type.Optional(ExpiresInput),
    quota: Type.Optional(Nullable(Type.Integer({ description: 'own cap in quota units; null = unlimited' }))),
    quota_usd: Type.Optional(Nullable(Type.Number())),
    max_spend_usd: Type.Optional(
      Nullable(Type.Number({ description: 'lifetime spending ceiling in USD: remaining = ceiling - spent; not with quota; null = none' })),
    ),
    unlimited_quota: Type.Optional(Type.Boolean()),
    models: Type.Optional(Nullable(Type.Array(Type.String()))),
    allowed_ips: Type.Optional(Nullable(Type.Array(Type.String({ description: 'IP or CIDR' })))),
    group: Type.Optional(Nullable(Type.String())),
    mcp_tools: Type.Optional(
      Nullable(
        Type.Array(Type.String({ description: 'server/tool or server/*' }), {
          description: 'MCP tools through /mcp (admins only); null = none',
        }),
      ),
    ),
    callback_url: Type.Optional(
      Nullable(
        Type.String({ description: 'default task callback URL (http or https; null = none); its address is checked at each submission' }),
      ),
    ),
    ...limitInput(),
  },
  { $id: 'KeyInput', additionalProperties: false },
);

export const ChildKeyInput = Type.Object(
  {
    name: Type.String(),
    max_spend_usd: Type.Number({ description: "the child key's lifetime ceiling in USD, taken out of the parent's remaining ceiling" }),
    expires_at: Type.Optional(ExpiresInput),
    models: Type.Optional(Type.Array(Type.String(), { description: "a subset of the parent's models (default: the parent's)" })),
  },
  { $id: 'ChildKeyInput', additionalProperties: false },
);

export const CallbackSecret = Type.Object(
  {
    callback_secret: Type.String({
      description: 'whsec_…: signs task callbacks (X-Signature: sha256=<hex HMAC-SHA256 of the body>); shown only here',
    }),
  },
  { $id: 'CallbackSecret' },
);

export const QuotaHold = Type.Object(
  {
    ref: Type.String(),
    user_id: Type.Integer(),
    key_id: Nullable(Type.Integer()),
    amount: Type.Integer(),
    spent: Type.Integer(),
    held: Type.Integer(),
    node: Type.String(),
    expires_at: Type.Integer(),
    created_at: Type.Integer(),
  },
  { $id: 'QuotaHold' },
);

export const AuditEntry = Type.Object(
  {
    id: Type.Integer(),
    created_at: Type.Integer({ description: 'unix ms' }),
    actor_id: Nullable(Type.Integer({ description: 'null for system writes (configuration file)' })),
    actor: Type.String({ description: 'username, or system' }),
    actor_role: Type.String(),
    action: Type.String({ description: '<target type>.<verb>, e.g. user.update, channel.key_disable, option.set' }),
    target_type: Type.String(),
    target_id: Type.String(),
    target_name: Nullable(
      Type.String({ description: "the user's, key's or channel's name as it is now (null when gone or for another type)" }),
    ),
    diff: Type.Record(Type.String(), Type.Object({ before: Type.Optional(Type.Unknown()), after: Type.Optional(Type.Unknown()) }), {
      description: 'changed fields: {field: {before?, after?}}; secrets are [redacted]',
    }),
  },
  { $id: 'AuditEntry' },
);

/** The query string of the user list. */
export const UserListQuery = Type.Object({
  ...PAGING,
  keyword: Type.Optional(Type.String({ maxLength: 64 })),
  role: Type.Optional(Type.String({ description: 'user, admin or root' })),
  status: Type.Optional(Type.String({ description: 'enabled or disabled' })),
  group: Type.Optional(Type.String({ maxLength: 64 })),
});

/** The query string of the key list. */
export const KeyListQuery = Type.Object({
  ...PAGING,
  keyword: Type.Optional(Type.String({ maxLength: 128 })),
  user_id: Type.Optional(Type.Integer({ minimum: 1, description: "admins: another user's keys" })),
  all: Type.Optional(Type.Boolean({ description: "admins: every user's keys" })),
});

/** The query string of the audit log. */
export const AuditQuery = Type.Object({
  // No defaults: `p` stands for a page not given.
  page: Type.Optional(Type.Integer({ minimum: 1, description: '1-based page (default 1)' })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'rows per page (default 20)' })),
  p: Type.Optional(Type.Integer({ description: 'alias of page' })),
  actor: Type.Optional(Type.String({ description: 'username (system for system writes) or user id' })),
  target_type: Type.Optional(
    Type.String({ description: 'user, key, channel, price, group_ratio, option, plugin, marketplace, redemption, task' }),
  ),
  target_id: Type.Optional(Type.String()),
  action: Type.Optional(Type.String({ description: 'exact, or <type>.* for every action on a type' })),
  from: Type.Optional(Time()),
  to: Type.Optional(Time()),
});

export const ADMIN_SCHEMAS: TSchema[] = [
  User,
  UserCreate,
  UserUpdate,
  QuotaChange,
  LedgerEntry,
  Key,
  KeyInput,
  ChildKeyInput,
  CallbackSecret,
  QuotaHold,
  AuditEntry,
];
