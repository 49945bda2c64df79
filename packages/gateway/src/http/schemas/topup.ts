/**
 * The schemas of the money-in routes (http/topup-routes.ts): redemption codes and their batches, a
 * redeemed code, the online top-up settings, a started checkout and a payment. The bodies the
 * services read with platform/validate.ts's Reader accept what it accepts (a number may come as its
 * text, an optional field as null); the Reader gives the precise refusals.
 */
import { Type, type TSchema } from 'typebox';
import { PAGING } from './common.ts';

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
/** A number of a body read by the Reader: a JSON number, or its text. */
const Num = (description?: string, extra: Record<string, unknown> = {}) =>
  Type.Union([Type.Number(extra), Type.String()], description ? { description } : {});
/** An optional number of such a body: absent and null are the same. */
const OptNum = (description: string, extra: Record<string, unknown> = {}) =>
  Type.Optional(Type.Union([Type.Number(extra), Type.String(), Type.Null()], { description }));
/** An optional field of such a body: absent and null are the same. */
const Opt = <T extends TSchema>(s: T, description: string) => Type.Optional(Type.Union([s, Type.Null()], { description }));

const CODE_STATUSES = ['enabled', 'disabled', 'used', 'expired'] as const;

export const RedemptionCode = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    note: Type.String(),
    code: Type.String({ description: 'the code in full (32 hex characters)' }),
    quota: Type.Integer({ description: 'quota units credited' }),
    quota_usd: Type.Number(),
    status: Type.String({ enum: [...CODE_STATUSES] }),
    created_by: Nullable(Type.Integer()),
    created_at: Type.Integer({ description: 'unix ms' }),
    expires_at: Type.Integer({ description: 'unix ms; 0 = never' }),
    used_user_id: Nullable(Type.Integer()),
    redeemed_at: Nullable(Type.Integer({ description: 'unix ms' })),
    plan_id: Nullable(Type.Integer({ description: 'the plan the code grants' })),
  },
  { $id: 'RedemptionCode' },
);

export const RedemptionBatch = Type.Object(
  {
    name: Type.String({ description: 'at most 128 characters' }),
    quota: OptNum('quota units per code (or quota_usd)', { minimum: 1 }),
    quota_usd: OptNum('USD per code'),
    count: OptNum('codes to create (default 1)', { minimum: 1, maximum: 1000 }),
    expired_time: OptNum('unix seconds (New API); 0 = never'),
    expires_at: OptNum('unix ms; 0 = never'),
    note: Opt(Type.String(), 'at most 500 characters'),
    plan_id: Opt(Type.Union([Type.Integer(), Type.String()]), 'a plan (id or name) each code grants instead of quota'),
  },
  { $id: 'RedemptionBatch', additionalProperties: false },
);

export const CodeStatusChange = Type.Object(
  {
    id: Num("the code's id", { minimum: 1 }),
    status: Type.Unsafe<1 | 2 | 'enabled' | 'disabled'>({
      enum: [1, 2, 'enabled', 'disabled'],
      description: 'enabled (1) or disabled (2)',
    }),
  },
  { additionalProperties: false },
);

export const CodeFilters = {
  status: Type.Optional(Type.String({ enum: [...CODE_STATUSES] })),
  keyword: Type.Optional(Type.String({ description: 'part of the name, or a whole code (at most 128 characters)' })),
};
export const CodeListQuery = Type.Object({ ...PAGING, ...CodeFilters });
export const CodeExportQuery = Type.Object(CodeFilters);

export const RedeemBody = Type.Object({ key: Type.String({ description: 'the code' }) }, { additionalProperties: false });

export const Redeemed = Type.Object(
  {
    quota: Type.Integer(),
    quota_usd: Type.Number(),
    balance: Type.Integer({ description: 'the balance after the credit' }),
    plan_id: Type.Optional(Type.Integer({ description: 'the plan granted, for a plan code' })),
  },
  { $id: 'Redeemed' },
);

export const TopupInfo = Type.Object(
  {
    currency: Type.String({ description: 'ISO code, lower case' }),
    quotaPerUnit: Type.Number({ description: 'quota units per unit of the currency' }),
    minAmount: Type.Number(),
    maxAmount: Type.Number(),
    providers: Type.Array(Type.String(), { description: 'configured providers, e.g. stripe' }),
  },
  { $id: 'TopupInfo' },
);

export const PayBody = Type.Object(
  {
    amount: Num('in units of the currency (e.g. 5 or 5.50)'),
    payment_method: Type.Optional(Type.Unknown({ description: 'ignored (New API compatibility)' })),
  },
  { additionalProperties: false },
);

export const Checkout = Type.Object(
  {
    trade_no: Type.String(),
    url: Type.String({ description: 'where to pay' }),
    pay_link: Type.String({ description: 'the same as url' }),
    currency: Type.String(),
    amount: Type.Number(),
    quota: Type.Integer(),
  },
  { $id: 'Checkout' },
);

export const Payment = Type.Object(
  {
    id: Type.Integer(),
    trade_no: Type.String(),
    provider: Type.String(),
    currency: Type.String(),
    amount: Type.Number({ description: 'in units of the currency' }),
    quota: Type.Integer(),
    quota_usd: Type.Number(),
    status: Type.String({ enum: ['pending', 'paid', 'expired'] }),
    created_at: Type.Integer(),
    paid_at: Nullable(Type.Integer()),
  },
  { $id: 'Payment' },
);

export const TradeNoParams = Type.Object({ trade_no: Type.String() });
export const PagingQuery = Type.Object(PAGING);

/** What a provider's webhook is sent: any bytes, verified by their signature (not validated here). */
export const WebhookHeaders = Type.Object({
  'stripe-signature': Type.String({ description: "the provider's signature over the raw body" }),
});

export const TOPUP_SCHEMAS: TSchema[] = [RedemptionCode, RedemptionBatch, Redeemed, TopupInfo, Checkout, Payment];
