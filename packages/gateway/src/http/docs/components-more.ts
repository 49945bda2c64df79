/**
 * The shared schemas of the API's bodies, part two: logs, audit, options, alerts, plugins, redemption and payments.
 * Routes take these through http/route-docs.ts; @fastify/swagger builds the document from the routes.
 */
import { schemas } from './components-core.ts';
import { arr, bool, int, nullable, num, obj, ref, str } from './kit.ts';

Object.assign(schemas, {
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
});

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
