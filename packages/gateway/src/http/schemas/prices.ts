/**
 * The schemas of the price routes (http/price-routes.ts): model prices with their rules beyond flat
 * rates (billing/price-rules.ts), group ratios, the list-price catalog and the price editor's preview.
 */
import { Type, type TSchema } from 'typebox';
import { PAGING, ref } from './common.ts';

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
const usd = (description: string) => Nullable(Type.Number({ description }));

const EXPRESSION_TEXT =
  'a task price (`<plugin>::<model>`): USD per task over its usage facts; a model call: USD per 1M tokens over u("p"), u("c"), u("cr") …, param(), header(), hour()';

const Tier = Type.Object(
  {
    above_input_tokens: Type.Integer(),
    input: Type.Number(),
    output: Type.Number(),
    cached_input: Type.Optional(Nullable(Type.Number())),
    cache_write_5m: Type.Optional(Nullable(Type.Number())),
    cache_write_1h: Type.Optional(Nullable(Type.Number())),
  },
  { additionalProperties: false },
);

/** The rules of a model-call price beyond flat rates; each is there only when set. */
const PRICE_RULES = {
  tiers: Type.Optional(
    Type.Array(Tier, { description: 'context tiers: the whole call at the rates of the highest tier its input exceeds' }),
  ),
  audio_input: Type.Optional(Type.Number({ description: 'USD per 1M audio input tokens (default: input)' })),
  audio_output: Type.Optional(Type.Number({ description: 'USD per 1M audio output tokens (default: output)' })),
  image_input: Type.Optional(Type.Number({ description: 'USD per 1M image input tokens (default: input)' })),
  image_output: Type.Optional(Type.Number({ description: 'USD per 1M image output tokens (default: output)' })),
  reasoning: Type.Optional(Type.Number({ description: 'USD per 1M reasoning tokens (default: output)' })),
  web_search: Type.Optional(Type.Number({ description: 'USD per 1,000 web searches the upstream reports' })),
  server_tools: Type.Optional(Type.Record(Type.String(), Type.Number(), { description: 'USD per 1,000 calls, by server tool' })),
  service_tiers: Type.Optional(
    Type.Record(Type.String(), Type.Number(), { description: 'multiplier of the token cost by the service tier the upstream reports' }),
  ),
};

const RATES = {
  input: usd('USD per 1M input tokens'),
  output: usd('USD per 1M output tokens'),
  cached_input: usd('USD per 1M cached input tokens'),
  cache_write_5m: usd('USD per 1M prompt-cache write tokens kept 5 minutes (null: 1.25 × input)'),
  cache_write_1h: usd('USD per 1M prompt-cache write tokens kept 1 hour (null: 2 × input)'),
  per_request: usd('USD per request'),
  expression: Nullable(Type.String({ description: EXPRESSION_TEXT })),
};

/** A price as shown: the rates (null when not set) and the rules that are set. */
export const Price = Type.Object({ model: Type.String(), ...RATES, ...PRICE_RULES, updated_at: Type.Integer() }, { $id: 'Price' });

/** A whole price as set; the price service checks it in full (admin/prices.ts). */
export const PriceInput = Type.Object(
  {
    model: Type.String(),
    input: Type.Optional(RATES.input),
    output: Type.Optional(RATES.output),
    cached_input: Type.Optional(RATES.cached_input),
    cache_write_5m: Type.Optional(RATES.cache_write_5m),
    cache_write_1h: Type.Optional(RATES.cache_write_1h),
    per_request: Type.Optional(RATES.per_request),
    expression: Type.Optional(RATES.expression),
    ...PRICE_RULES,
  },
  {
    $id: 'PriceInput',
    additionalProperties: false,
    description: 'a whole price: fields not given are cleared; at least one of input/output, per_request, expression or a rule',
  },
);

export const GroupRatio = Type.Object({ group: Type.String(), ratio: Type.Number() }, { $id: 'GroupRatio' });
/** A group ratio as set (admin/prices.ts checks the group's name and the ratio's range). */
export const GroupRatioInput = Type.Object({ group: Type.String(), ratio: Type.Number() }, { additionalProperties: false });

export const CatalogEntry = Type.Object(
  {
    model: Type.String(),
    vendor: Type.String({ description: 'the channel type or preset whose vendor lists the price' }),
    input: Type.Number(),
    output: Type.Number(),
    cached_input: Type.Optional(Type.Number()),
    cache_write_5m: Type.Optional(Type.Number()),
    cache_write_1h: Type.Optional(Type.Number()),
    rules: Type.Optional(
      Type.Object(PRICE_RULES, { description: 'tiers, modality prices, web_search, service_tiers (the fields of a price)' }),
    ),
    source: Type.String({ description: "the vendor's price page" }),
    as_of: Type.String({ description: 'the day the page gave these prices (YYYY-MM-DD)' }),
    note: Type.Optional(Type.String()),
    priced: Type.Boolean({ description: 'the price book has a price for the model' }),
  },
  { $id: 'CatalogEntry' },
);

export const CatalogImport = Type.Object(
  { imported: Type.Array(Type.String()), kept: Type.Array(Type.String({ description: 'already priced, kept (no overwrite)' })) },
  { $id: 'CatalogImport' },
);
/** No body: every catalog entry, prices already set kept. */
export const CatalogImportInput = Type.Union([
  Type.Object(
    {
      models: Type.Optional(Type.Union([Type.Array(Type.String()), Type.String()], { description: 'a list, or comma-separated' })),
      overwrite: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  Type.Null(),
]);

export const PricePreviewInput = Type.Object(
  {
    model: Type.Optional(Type.String({ description: 'a saved price (when `price` is not given)' })),
    price: Type.Optional(ref(PriceInput)),
    usage: Type.Optional(
      Type.Object(
        {
          input_tokens: Type.Optional(Type.Integer()),
          output_tokens: Type.Optional(Type.Integer()),
          cached_input_tokens: Type.Optional(Type.Integer()),
          cache_write_tokens: Type.Optional(Type.Integer()),
          cache_write_1h_tokens: Type.Optional(Type.Integer()),
          reasoning_tokens: Type.Optional(Type.Integer()),
          audio_input_tokens: Type.Optional(Type.Integer()),
          audio_output_tokens: Type.Optional(Type.Integer()),
          image_input_tokens: Type.Optional(Type.Integer()),
          image_output_tokens: Type.Optional(Type.Integer()),
          server_tools: Type.Optional(Type.Record(Type.String(), Type.Integer())),
          service_tier: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    params: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'request parameters an expression reads' })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    hour: Type.Optional(Type.Integer({ description: 'UTC hour 0–23 (default: now)' })),
    group: Type.Optional(Type.String({ description: 'group whose ratio applies (default: default)' })),
  },
  { $id: 'PricePreviewInput', additionalProperties: false },
);

export const PricePreview = Type.Object(
  {
    quota: Type.Integer({ description: 'what the call would be charged (quota units)' }),
    usd: Type.Number(),
    bound_quota: Type.Integer({ description: 'the reserve a call of these token counts holds' }),
    tier: Nullable(Type.Integer({ description: 'above_input_tokens of the context tier reached' })),
    group_ratio: Type.Number(),
  },
  { $id: 'PricePreview' },
);

export const PRICE_SCHEMAS = [Price, PriceInput, GroupRatio, CatalogEntry, CatalogImport, PricePreviewInput, PricePreview];

export const ModelParams = Type.Object({ '*': Type.String({ description: 'the model (may contain /)' }) });
export const GroupParams = Type.Object({ group: Type.String() });
export const PriceListQuery = Type.Object({ ...PAGING, keyword: Type.Optional(Type.String()) });
