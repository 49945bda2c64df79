/** Tables of the task lifecycle (filled by migration 003_tasks). */
import type { Generated } from 'kysely';

/**
 * One submitted task. The upstream id never leaves the gateway; clients see `public_id` only.
 * Status changes are compare-and-swap on the previous status; only the winner of a terminal
 * transition settles or refunds (and the ledger refuses a second movement anyway).
 */
export interface TaskRow {
  id: Generated<number>;
  /** `task_` + 32 random characters. */
  public_id: string;
  plugin_key: string;
  /** Version of the plugin that submitted (polling may use a newer one). */
  plugin_version: string;
  user_id: number;
  key_id: number | null;
  /** 1 when the key has no own cap (ledger payer). */
  key_unlimited: number;
  /** The team whose wallet pays for the task (migration 035); null: the user's balance. */
  team_id: Generated<number | null>;
  channel_id: number | null;
  /** Which of the channel's keys the task was submitted with (polls use the same one). */
  channel_key_index: number;
  group_name: string;
  model: string;
  upstream_model: string;
  action: string;
  /** NOT_START | SUBMITTED | QUEUED | IN_PROGRESS | SUCCESS | FAILURE | UNKNOWN */
  status: string;
  /** e.g. `30%`. */
  progress: string;
  fail_reason: string | null;
  /** Private: never exposed. */
  upstream_task_id: string | null;
  /** JSON snapshot of the task data (null when not retained). */
  data: string | null;
  /** JSON plugin state kept across polls. */
  state: string | null;
  /** 0 when the result is not stored (retainResult false); reads then answer 404. */
  retain: number;
  /** Quota units taken at submit. */
  quota_reserved: number;
  /** Final cost decided with the terminal transition (null until then). */
  quota_final: number | null;
  /** none | reserving | reserved | settled | refunded */
  billing_status: string;
  /** JSON { mode: 'expr'|'per_call', expression?, perCall?, groupRatio, facts, priceKey }. */
  billing: string | null;
  poll_failures: number;
  next_poll_at: number | null;
  lease_owner: string | null;
  lease_until: number | null;
  submitted_at: number | null;
  started_at: number | null;
  finished_at: number | null;
  created_at: number;
  updated_at: number;
  /** 1 when an administrator must look at it (unknown submit outcome). */
  flagged: number;
  flag_reason: string | null;
  /** JSON facts of the host protocol that created the task (e.g. `{ "background": true }`); null otherwise. */
  protocol: string | null;
}

/**
 * The completion callback of a task (migration 020): the caller's task view is POSTed to `url` once
 * the task is terminal, retried with back-off; every attempt carries the same `delivery_id`.
 */
export interface TaskCallbackRow {
  id: Generated<number>;
  /** tasks.id; one callback per task. */
  task_id: number;
  public_task_id: string;
  /** The submitting key (its secret signs the body). */
  key_id: number | null;
  url: string;
  /** `dlv_` + 32 random characters, the same on every attempt (`X-Delivery-Id`). */
  delivery_id: string;
  /** waiting (task not terminal) | pending | delivered | failed (gave up) | skipped (result not retained) */
  status: string;
  attempts: number;
  next_attempt_at: number | null;
  lease_owner: string | null;
  lease_until: number | null;
  first_attempt_at: number | null;
  last_attempt_at: number | null;
  /** HTTP status of the last answer (null: no answer). */
  last_status: number | null;
  last_error: string | null;
  /** JSON list of the latest attempts: `[{ at, status, error, ms }]`. */
  history: string | null;
  /** The body sent, fixed at the first attempt so that every attempt sends (and signs) the same bytes. */
  payload: string | null;
  delivered_at: number | null;
  created_at: number;
}

export interface TaskTables {
  tasks: TaskRow;
  task_callbacks: TaskCallbackRow;
}
