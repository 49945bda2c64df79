/**
 * The schemas of the channel routes (http/channel-routes.ts, http/channel-chore-routes.ts): channels
 * as administrators see them (admin/channels.ts; key values are never returned), a channel as
 * created or changed, tests, upstream balances and model lists, tag actions, and the public models
 * and prices list.
 */
import { Type, type TSchema } from 'typebox';
import { PAGING, ref } from './common.ts';

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
const Anything = (description?: string) => Type.Object({}, { additionalProperties: true, ...(description ? { description } : {}) });
const STATUS = { enum: ['enabled', 'disabled', 'auto_disabled'] };
/** A list of names: a JSON list, or one comma-separated text. */
const Names = (description?: string) => Type.Union([Type.Array(Type.String()), Type.String()], description ? { description } : {});

export const ChannelKey = Type.Object(
  {
    index: Type.Integer(),
    hint: Type.String(),
    status: Type.String(STATUS),
    reason: Nullable(Type.String()),
    at: Nullable(Type.Integer()),
  },
  { $id: 'ChannelKey' },
);

export const ChannelTestAll = Type.Object(
  {
    at: Type.Integer(),
    results: Type.Array(
      Type.Object({
        model: Type.String(),
        ok: Type.Boolean(),
        status: Type.Integer({ description: 'upstream HTTP status; 0: no answer' }),
        time_ms: Type.Integer(),
        message: Type.String(),
      }),
    ),
  },
  { $id: 'ChannelTestAll' },
);

export const Channel = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    type: Type.Integer({ description: '1 openai, 3 azure, 14 anthropic, 24 gemini, 33 bedrock, 41 vertex, 60 gateway, 61 task_plugin' }),
    type_name: Type.String(),
    base_url: Type.String(),
    key_count: Type.Integer(),
    keys: Type.Array(ref(ChannelKey), { description: 'hints and state only; key values are never returned' }),
    keys_error: Type.Optional(
      Type.String({ description: 'the stored keys cannot be decrypted (CRYPTO_SECRET differs from the one that sealed them)' }),
    ),
    key_mode: Type.String({ enum: ['random', 'round_robin'] }),
    models: Type.Array(Type.String()),
    groups: Type.Array(Type.String()),
    priority: Type.Integer(),
    weight: Type.Integer(),
    model_mapping: Anything(),
    header_override: Anything(),
    param_override: Anything(),
    status: Type.String(STATUS),
    status_reason: Nullable(Type.String()),
    settings: Anything(
      'openai: preset; azure: api_version; vertex: region, project_id; bedrock: region (of Bedrock API keys); task_plugin: plugin; gateway: plugins',
    ),
    test_model: Nullable(Type.String()),
    cost_ratio: Type.Number({ description: 'what the operator pays the vendor relative to list prices (the upstream cost of its calls)' }),
    max_concurrency: Type.Integer({ description: 'calls in flight above which the relay skips the channel (0: no cap)' }),
    max_input_tokens: Type.Integer({ description: 'estimated prompt tokens above which the relay skips the channel (0: no cap)' }),
    response_time_ms: Nullable(Type.Integer()),
    tested_at: Nullable(Type.Integer()),
    created_at: Type.Integer(),
    updated_at: Type.Integer(),
    tag: Nullable(Type.String({ description: 'a free label that bulk actions select by' })),
    balance: Nullable(
      Type.Number({ description: "the upstream's balance as its vendor last reported it (USD, or CNY for Chinese vendors)" }),
    ),
    balance_updated_at: Nullable(Type.Integer()),
    last_test: Nullable(ref(ChannelTestAll)),
  },
  { $id: 'Channel' },
);

/** The fields a channel is created or changed with (admin/channels.ts checks them in full). */
const INPUT_FIELDS = {
  name: Type.Optional(Type.String()),
  type: Type.Optional(
    Type.Union([Type.Integer(), Type.String()], {
      description: 'a number or openai, azure, anthropic, gemini, bedrock, vertex, gateway, task_plugin',
    }),
  ),
  base_url: Type.Optional(Type.String()),
  keys: Type.Optional(
    Type.Union([Type.Array(Type.String()), Type.String()], {
      description: 'a list, or newline-separated text; absent on update = keep the stored keys',
    }),
  ),
  key_mode: Type.Optional(Type.String({ description: 'random or round_robin' })),
  models: Type.Optional(Names()),
  groups: Type.Optional(Names()),
  priority: Type.Optional(Type.Integer()),
  weight: Type.Optional(Type.Integer()),
  model_mapping: Type.Optional(Anything('model → upstream model')),
  header_override: Type.Optional(Anything()),
  param_override: Type.Optional(Anything()),
  status: Type.Optional(Type.Union([Type.String(), Type.Integer()], { description: 'enabled, disabled or auto_disabled (or 1, 2, 3)' })),
  status_reason: Type.Optional(Nullable(Type.String())),
  settings: Type.Optional(Anything()),
  test_model: Type.Optional(Nullable(Type.String())),
  cost_ratio: Type.Optional(
    Type.Number({ description: 'what the operator pays the vendor relative to list prices (0.8: a fifth off); 1 when not given' }),
  ),
  max_concurrency: Type.Optional(Type.Integer()),
  max_input_tokens: Type.Optional(Type.Integer()),
  tag: Type.Optional(Nullable(Type.String())),
};
export const ChannelInput = Type.Object(INPUT_FIELDS, { $id: 'ChannelInput', additionalProperties: false });

/** A tag's channels changed together: the fields every channel of the tag gets (admin/channel-bulk.ts). */
export const TagEdit = Type.Object(
  {
    tag: Type.String(),
    new_tag: Type.Optional(Nullable(Type.String())),
    priority: INPUT_FIELDS.priority,
    weight: INPUT_FIELDS.weight,
    models: INPUT_FIELDS.models,
    groups: INPUT_FIELDS.groups,
    model_mapping: INPUT_FIELDS.model_mapping,
    header_override: INPUT_FIELDS.header_override,
    param_override: INPUT_FIELDS.param_override,
    test_model: INPUT_FIELDS.test_model,
    key_mode: INPUT_FIELDS.key_mode,
  },
  { additionalProperties: false },
);
export const TagBody = Type.Object({ tag: Type.String() }, { additionalProperties: false });

export const PublicPricing = Type.Object(
  {
    groups: Type.Array(Type.Object({ group: Type.String(), ratio: Type.Number() })),
    models: Type.Array(
      Type.Object({
        model: Type.String(),
        groups: Type.Array(Type.String()),
        prices: Type.Record(
          Type.String(),
          Type.Object({
            input: Nullable(Type.Number()),
            output: Nullable(Type.Number()),
            cached_input: Nullable(Type.Number()),
            per_request: Nullable(Type.Number()),
          }),
          { description: 'group → price in that group (USD per 1M tokens, or per call), the group ratio applied' },
        ),
      }),
    ),
  },
  { $id: 'PublicPricing' },
);

export const CHANNEL_SCHEMAS = [ChannelKey, ChannelTestAll, Channel, ChannelInput];

export const ChannelListQuery = Type.Object({
  ...PAGING,
  keyword: Type.Optional(Type.String()),
  type: Type.Optional(Type.String({ description: 'channel type name or number' })),
  status: Type.Optional(Type.String({ description: 'enabled, disabled or auto_disabled' })),
  group: Type.Optional(Type.String()),
  tag: Type.Optional(Type.String()),
});
export const KeyIndexParams = Type.Object({ id: Type.Integer({ minimum: 1 }), index: Type.Integer() });
export const KeyStateBody = Type.Object({ enabled: Type.Boolean(), reason: Type.Optional(Type.String()) }, { additionalProperties: false });
export const TestBody = Type.Union([Type.Object({ model: Type.Optional(Type.String()) }, { additionalProperties: false }), Type.Null()]);
export const ModelQuery = Type.Object({
  model: Type.Optional(Type.String({ description: 'the model to test (when the body names none)' })),
});
export const UpstreamUrlBody = Type.Object(
  {
    type: Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: 'channel type name or number' })),
    base_url: Type.Optional(Type.String({ description: 'empty: the preset or the type default' })),
    settings: Type.Optional(Anything()),
    model: Type.Optional(Type.String({ description: 'default MODEL' })),
  },
  { additionalProperties: false },
);
export const CopyQuery = Type.Object({
  suffix: Type.Optional(Type.String({ description: 'default _copy' })),
  reset_balance: Type.Optional(Type.String({ description: 'true (default) or false' })),
});
export const IdsBody = Type.Object({ ids: Type.Array(Type.Integer()) }, { additionalProperties: false });

export const ChannelTest = Type.Object({
  time_ms: Type.Integer(),
  status: Nullable(Type.Integer({ description: 'upstream HTTP status' })),
  model: Type.String(),
});
export const Balance = Type.Object({ balance: Type.Number(), balance_updated_at: Type.Integer() });
export const Balances = Type.Array(
  Type.Object({ id: Type.Integer(), name: Type.String(), balance: Nullable(Type.Number()), error: Nullable(Type.String()) }),
);
