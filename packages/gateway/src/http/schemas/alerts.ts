/**
 * The schemas of the alert routes (http/alert-routes.ts): a user's low-balance alert settings as shown
 * and as set, every delivery of the outbox with its status and attempts, and the event a test alert
 * queues (alerts/service.ts).
 */
import { Type } from 'typebox';
import { PAGING } from './common.ts';

const Nullable = <T extends import('typebox').TSchema>(s: T) => Type.Union([s, Type.Null()]);
const STATUSES = ['pending', 'delivered', 'failed'] as const;
const TRANSPORTS = ['webhook', 'email'] as const;

export const Alert = Type.Object(
  {
    id: Type.String({ description: 'the idempotency id of every attempt' }),
    kind: Type.String(),
    target: Type.String({ description: 'operator or user:<id>' }),
    transport: Type.String({ enum: [...TRANSPORTS] }),
    status: Type.String({ enum: [...STATUSES] }),
    attempts: Type.Integer(),
    next_attempt_at: Type.Integer(),
    delivered_at: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    created_at: Type.Integer(),
    payload: Type.Unknown({ description: 'what the webhook receives (AlertEvent)' }),
  },
  { $id: 'Alert' },
);

/** An alert event as queued: what a webhook receives and an e-mail describes. */
export const AlertEvent = Type.Object(
  {
    id: Type.String(),
    kind: Type.String(),
    created_at: Type.Integer({ description: 'unix ms' }),
    target: Type.String({ description: 'operator or user:<id>' }),
    summary: Type.String(),
    data: Type.Object({}, { additionalProperties: true }),
  },
  { $id: 'AlertEvent' },
);

/** A user's low-balance alert settings as shown (alerts/service.ts `settings`). */
export const AlertSettings = Type.Object(
  {
    low_balance_threshold: Type.Integer({ description: 'quota units; 0 = off' }),
    low_balance_threshold_usd: Type.Number(),
    email: Nullable(Type.String()),
    webhook_url: Nullable(Type.String()),
    webhook_secret_set: Type.Boolean(),
    low_balance_alerted: Type.Boolean({ description: 'the balance is below the threshold and the alert was sent' }),
    webhook_secret: Type.Optional(Type.String({ description: 'the webhook signing secret: only in the answer that generated it' })),
  },
  { $id: 'AlertSettings' },
);

/** An optional number the settings' reader takes as JSON or as its text; null is the same as absent. */
const OptNum = (description: string) =>
  Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.String(), Type.Null()], { description }));

/** The settings as set (alerts/service.ts `parseSettings` checks them): fields not given are kept; null or '' clears a text field. */
export const AlertSettingsInput = Type.Object(
  {
    low_balance_threshold: OptNum('quota units; 0 = off'),
    low_balance_threshold_usd: OptNum('alternative to low_balance_threshold'),
    email: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'needs SMTP_URL on the gateway' })),
    webhook_url: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'http(s) URL on a public address' })),
    webhook_secret: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'at least 16 characters; generated (and shown once) when a webhook has none',
      }),
    ),
  },
  { $id: 'AlertSettingsInput', additionalProperties: false },
);

export const ALERT_SCHEMAS = [Alert, AlertEvent, AlertSettings, AlertSettingsInput];

export const AlertListQuery = Type.Object({
  // No defaults: `p` stands for `page` only when `page` is not given.
  page: Type.Optional(Type.Integer({ minimum: 1, description: '1-based page' })),
  page_size: PAGING.page_size,
  p: Type.Optional(Type.Integer({ minimum: 1, description: 'alias of page' })),
  status: Type.Optional(Type.String({ enum: [...STATUSES] })),
  kind: Type.Optional(Type.String()),
  target: Type.Optional(Type.String({ description: 'operator or user:<id>' })),
  transport: Type.Optional(Type.String({ enum: [...TRANSPORTS] })),
});
