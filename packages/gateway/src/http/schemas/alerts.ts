/**
 * The schemas of the alert outbox routes (http/alert-routes.ts): every delivery with its status and
 * attempts, and the event a test alert queues (alerts/service.ts).
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

export const ALERT_SCHEMAS = [Alert, AlertEvent];

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
