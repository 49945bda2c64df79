/** Tables of the audit log and the alerts (migration 021). */
import type { Generated } from 'kysely';

export interface AuditLogRow {
  id: Generated<number>;
  created_at: number;
  /** null for system writes (configuration file). */
  actor_id: number | null;
  actor_name: string;
  actor_role: string;
  /** `<target type>.<verb>`, e.g. `user.update`. */
  action: string;
  target_type: string;
  target_id: string;
  /** JSON `{field: {before?, after?}}`, secrets replaced by `[redacted]`. */
  diff: string;
}

export interface AlertRow {
  /** The idempotency id, sent with every attempt. */
  id: string;
  kind: string;
  /** `operator` or `user:<id>`. */
  target: string;
  transport: 'webhook' | 'email';
  /** JSON: the event as sent. */
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: number;
  delivered_at: number | null;
  last_error: string | null;
  created_at: number;
}

export interface UserAlertSettingsRow {
  user_id: number;
  /** Quota units; 0 = no low-balance alert. */
  low_balance_threshold: number;
  email: string | null;
  webhook_url: string | null;
  webhook_secret_sealed: string | null;
  /** 1: the next crossing below the threshold alerts; 0: alerted, waiting for the balance to recover. */
  low_balance_armed: number;
  updated_at: number;
}

export interface AuditTables {
  audit_log: AuditLogRow;
  alerts: AlertRow;
  user_alert_settings: UserAlertSettingsRow;
}
