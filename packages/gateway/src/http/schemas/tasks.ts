/**
 * The schemas of task administration (http/task-admin-routes.ts): tasks as administrators and as
 * their owners see them (tasks/lifecycle/admin.ts), with their callback delivery and ledger
 * movements, the list filters and a resolution of a flagged task.
 */
import { Type, type TSchema } from 'typebox';
import { PAGING } from './common.ts';

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
const TASK_STATUSES = ['NOT_START', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS', 'FAILURE', 'UNKNOWN'];
const BILLING = ['none', 'reserving', 'reserved', 'settled', 'refunded'];

/** A task's completion callback, times in unix ms (tasks/callbacks/service.ts). */
const Callback = Nullable(
  Type.Object(
    {
      url: Type.String(),
      delivery_id: Type.String({ description: 'dlv_…: the same on every attempt (X-Delivery-Id)' }),
      status: Type.String({
        description:
          'waiting: the task is not finished; pending: due or retrying; delivered; failed: given up; skipped: the result was not kept',
        enum: ['waiting', 'pending', 'delivered', 'failed', 'skipped'],
      }),
      attempts: Type.Integer(),
      last_status: Nullable(Type.Integer({ description: 'HTTP status of the last answer' })),
      last_error: Nullable(Type.String()),
      last_attempt_at: Nullable(Type.Integer()),
      next_attempt_at: Nullable(Type.Integer()),
      delivered_at: Nullable(Type.Integer()),
      history: Type.Array(
        Type.Object({ at: Type.Integer(), status: Nullable(Type.Integer()), error: Nullable(Type.String()), duration_ms: Type.Integer() }),
        { description: 'the latest attempts (up to 20)' },
      ),
    },
    { description: "the task's completion callback (null: none asked)" },
  ),
);

const OWN_FIELDS = {
  task_id: Type.String({ description: 'public id task_…' }),
  plugin: Type.String(),
  action: Type.String(),
  status: Type.String({ enum: TASK_STATUSES }),
  progress: Type.String({ description: 'e.g. 30%' }),
  fail_reason: Nullable(Type.String()),
  model: Type.String(),
  billing_status: Type.String({ enum: BILLING }),
  quota_reserved: Type.Integer(),
  quota_final: Nullable(Type.Integer()),
  flagged: Type.Boolean({ description: 'an administrator must decide (submit outcome unknown)' }),
  created_at: Type.Integer({ description: 'unix ms' }),
  started_at: Nullable(Type.Integer()),
  finished_at: Nullable(Type.Integer()),
  updated_at: Type.Integer(),
};

const ADMIN_FIELDS = {
  ...OWN_FIELDS,
  plugin_version: Type.String(),
  user_id: Type.Integer(),
  username: Nullable(Type.String()),
  key_id: Nullable(Type.Integer()),
  group: Type.String(),
  channel_id: Nullable(Type.Integer()),
  upstream_model: Type.String(),
  upstream_task_id: Nullable(Type.String({ description: "the vendor's id; administrators only" })),
  poll_failures: Type.Integer(),
  next_poll_at: Nullable(Type.Integer({ description: 'unix ms' })),
  flag_reason: Nullable(Type.String({ description: 'why it was flagged, or "resolved: <action> by <admin>"' })),
  retained: Type.Boolean(),
  submitted_at: Nullable(Type.Integer()),
};

export const AdminTask = Type.Object(ADMIN_FIELDS, { $id: 'AdminTask' });
export const AdminTaskDetail = Type.Object(
  {
    ...ADMIN_FIELDS,
    ledger: Type.Record(Type.String(), Type.Integer(), {
      description: 'ledger movements of task:<id> by kind (reserve, close, settle | refund)',
    }),
    callback: Callback,
  },
  { $id: 'AdminTaskDetail' },
);
export const OwnTask = Type.Object(OWN_FIELDS, { $id: 'OwnTask', description: 'no upstream ids, no channels' });
export const OwnTaskDetail = Type.Object({ ...OWN_FIELDS, callback: Callback }, { $id: 'OwnTaskDetail' });

export const TaskResolve = Type.Object(
  {
    action: Type.String({
      description: 'refund | fail: FAILURE and refund; charge: settle at the reserved amount; poll: resume polling with upstream_task_id',
      enum: ['refund', 'fail', 'charge', 'poll'],
    }),
    upstream_task_id: Type.Optional(Type.String({ description: 'poll: required; charge: optional' })),
    status: Type.Optional(Type.String({ description: 'charge only: how the task ends (default SUCCESS)', enum: ['SUCCESS', 'FAILURE'] })),
    reason: Type.Optional(Type.String({ description: 'kept in the flag reason and, for failures, as fail_reason' })),
  },
  { $id: 'TaskResolve', additionalProperties: false },
);

export const TASK_SCHEMAS = [AdminTask, AdminTaskDetail, OwnTask, OwnTaskDetail, TaskResolve];

const time = (description: string) => Type.Optional(Type.Union([Type.Integer(), Type.String()], { description }));
const OWN_FILTERS = {
  ...PAGING,
  status: Type.Optional(Type.String({ description: TASK_STATUSES.join(', ') })),
  plugin: Type.Optional(Type.String()),
  model: Type.Optional(Type.String()),
  task_id: Type.Optional(Type.String({ description: 'public id' })),
  start: time('created at or after: unix ms (or s), or ISO 8601'),
  end: time('created at or before: unix ms (or s), or ISO 8601'),
};
export const OwnTaskQuery = Type.Object(OWN_FILTERS);
export const AdminTaskQuery = Type.Object({
  ...OWN_FILTERS,
  user_id: Type.Optional(Type.Integer({ minimum: 1 })),
  username: Type.Optional(Type.String()),
  channel_id: Type.Optional(Type.Integer({ minimum: 1 })),
  flagged: Type.Optional(Type.Union([Type.Boolean(), Type.String()], { description: 'true or false' })),
  billing_status: Type.Optional(Type.String({ description: BILLING.join(', ') })),
});
export const TaskIdParams = Type.Object({ id: Type.String({ description: 'public id task_…' }) });
