/**
 * Alerts: operator alerts (a channel or one of its keys auto-disabled or enabled again, a channel's
 * upstream balance low, a task that ended in an unknown outcome) and each user's low-balance alert, written to the `alerts` outbox —
 * one row per delivery (webhook, e-mail), whose id is the idempotency id every attempt carries.
 * Delivery is alerts/delivery.ts, on the one node holding the lease.
 *
 * Low balance: a user sets a threshold (quota units) with an e-mail address and/or a webhook. After a
 * ledger movement of a user with a threshold (and in every delivery round), the balance is read —
 * never changed — and a crossing below the threshold is recorded once by a conditional update of
 * `low_balance_armed` (1 → 0, whichever node gets there first); the balance back at or above the
 * threshold arms it again.
 */
import type { Core } from '../core.ts';
import type { Options } from '../options/options.ts';
import { fail } from '../platform/errors.ts';
import { randomId } from '../platform/ids.ts';
import { randomToken } from '../platform/crypto.ts';
import { Reader, checkUrl, emailAddress, fieldError, paging, quotaToUsd, usdToQuota, type Obj, type Page } from '../platform/validate.ts';
import type { AlertRow } from '../store/schema-audit.ts';
import { UserStore } from '../accounts/user-store.ts';

export type AlertKind =
  | 'channel.key_auto_disabled'
  | 'channel.auto_disabled'
  | 'channel.key_enabled'
  | 'channel.enabled'
  | 'channel.low_balance'
  | 'task.unknown_outcome'
  | 'user.low_balance'
  | 'test';

/** What a webhook receives (the JSON body) and an e-mail describes. */
export interface AlertEvent {
  /** The event's id; each delivery's idempotency id is this id (webhook) or `<id>:email`. */
  id: string;
  kind: AlertKind;
  /** Unix ms. */
  created_at: number;
  /** `operator` or `user:<id>`. */
  target: string;
  summary: string;
  data: Record<string, unknown>;
}

export interface AlertSettingsView {
  /** Quota units; 0 = off. */
  low_balance_threshold: number;
  low_balance_threshold_usd: number;
  email: string | null;
  webhook_url: string | null;
  /** Whether a webhook signing secret is stored (it is shown once, when set or generated). */
  webhook_secret_set: boolean;
  /** True while the balance is below the threshold and the alert was sent (re-armed at or above it). */
  low_balance_alerted: boolean;
}

export interface AlertView {
  id: string;
  kind: string;
  target: string;
  transport: string;
  status: string;
  attempts: number;
  next_attempt_at: number;
  delivered_at: number | null;
  last_error: string | null;
  created_at: number;
  payload: unknown;
}

export interface SettingsInput {
  threshold?: number;
  email?: string | null;
  webhookUrl?: string | null;
  webhookSecret?: string | null;
}

export const ALERT_STATUSES = ['pending', 'delivered', 'failed'] as const;

export class Alerts {
  /** Users with a threshold, as this node last read them (cheap check after each ledger movement). */
  private watched = new Set<number>();
  private watchedLoadedAt = 0;
  private checking = new Map<number, Promise<void>>();

  constructor(
    private readonly core: Core,
    private readonly options: Options,
  ) {}

  private get db() {
    return this.core.h.db;
  }

  // ---------------------------------------------------------------------------------------------
  // Delivery records (the delivery worker, alerts/delivery.ts)
  // ---------------------------------------------------------------------------------------------

  /** Pending rows whose next attempt is due at `now`, the most overdue first. */
  async due(now: number, limit: number): Promise<AlertRow[]> {
    return this.db
      .selectFrom('alerts')
      .selectAll()
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .orderBy('next_attempt_at')
      .limit(limit)
      .execute();
  }

  /**
   * Claims the next attempt of a pending row: counts it and moves its next attempt to `nextAt`, a
   * compare-and-swap on the attempt count `seenAttempts`. Returns whether this call won.
   */
  async claimAttempt(id: AlertRow['id'], seenAttempts: number, nextAt: number): Promise<boolean> {
    const claim = await this.db
      .updateTable('alerts')
      .set({ attempts: seenAttempts + 1, next_attempt_at: nextAt })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('attempts', '=', seenAttempts)
      .executeTakeFirst();
    return Number(claim.numUpdatedRows) === 1;
  }

  async markDelivered(id: AlertRow['id']): Promise<void> {
    await this.db
      .updateTable('alerts')
      .set({ status: 'delivered', delivered_at: Date.now(), last_error: null })
      .where('id', '=', id)
      .execute();
  }

  /** Records a failed attempt: `failed` gives up (status `failed`), else the next attempt is at `nextAt`. */
  async markAttemptFailed(id: AlertRow['id'], failed: boolean, error: string, nextAt: number): Promise<void> {
    await this.db
      .updateTable('alerts')
      .set({ status: failed ? 'failed' : 'pending', last_error: error, next_attempt_at: nextAt })
      .where('id', '=', id)
      .execute();
  }

  /** SMTP is configured (SMTP_URL). */
  get mailEnabled(): boolean {
    return !!this.core.config.smtpUrl;
  }

  // ---------------------------------------------------------------------------------------------
  // Enqueue
  // ---------------------------------------------------------------------------------------------

  /**
   * Writes one outbox row per transport of `target` that is configured now (none: nothing is
   * written). Returns the event, or null when no transport was configured.
   */
  async enqueue(target: string, kind: AlertKind, summary: string, data: Record<string, unknown>): Promise<AlertEvent | null> {
    const transports = await this.transportsOf(target);
    if (transports.length === 0) return null;
    const now = Date.now();
    const ev: AlertEvent = { id: `alr_${randomId(24)}`, kind, created_at: now, target, summary, data };
    const payload = JSON.stringify(ev);
    await this.db
      .insertInto('alerts')
      .values(
        transports.map((t) => ({
          id: t === 'webhook' ? ev.id : `${ev.id}:email`,
          kind,
          target,
          transport: t,
          payload,
          status: 'pending' as const,
          attempts: 0,
          next_attempt_at: now,
          delivered_at: null,
          last_error: null,
          created_at: now,
        })),
      )
      .execute();
    return ev;
  }

  /** An operator alert; failures are logged (the event that caused it has happened). */
  operator(kind: AlertKind, summary: string, data: Record<string, unknown>): void {
    void this.enqueue('operator', kind, summary, data).catch((e) =>
      this.core.log.error({ kind, err: (e as Error).message }, 'operator alert could not be queued'),
    );
  }

  private async transportsOf(target: string): Promise<Array<'webhook' | 'email'>> {
    const out: Array<'webhook' | 'email'> = [];
    if (target === 'operator') {
      const o = this.options;
      if (o?.get('AlertWebhookUrl')) out.push('webhook');
      if (this.mailEnabled && o?.getList('AlertEmailTo').length) out.push('email');
      return out;
    }
    const userId = Number(target.slice('user:'.length));
    const s = await this.db.selectFrom('user_alert_settings').selectAll().where('user_id', '=', userId).executeTakeFirst();
    if (s?.webhook_url) out.push('webhook');
    if (this.mailEnabled && s?.email) out.push('email');
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // Low balance
  // ---------------------------------------------------------------------------------------------

  /** After a ledger movement (a read-only observer): checks the user when they have a threshold. */
  balanceMoved(userId: number): void {
    if (Date.now() - this.watchedLoadedAt > 30_000) void this.loadWatched().catch(() => {});
    if (!this.watched.has(userId) || this.checking.has(userId)) return;
    const p = this.checkUser(userId)
      .catch((e) => this.core.log.warn({ userId, err: (e as Error).message }, 'low-balance check failed'))
      .finally(() => this.checking.delete(userId));
    this.checking.set(userId, p);
  }

  async loadWatched(): Promise<void> {
    const rows = await this.db.selectFrom('user_alert_settings').select('user_id').where('low_balance_threshold', '>', 0).execute();
    this.watched = new Set(rows.map((r) => Number(r.user_id)));
    this.watchedLoadedAt = Date.now();
  }

  /** Checks one user, or (no id) every user whose state is due a change; returns the alerts queued. */
  async checkBalances(userId?: number): Promise<number> {
    let q = this.db
      .selectFrom('user_alert_settings as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .select(['s.user_id', 's.low_balance_threshold', 's.low_balance_armed', 'u.quota', 'u.username'])
      .where('s.low_balance_threshold', '>', 0)
      .where((eb) =>
        eb.or([
          eb.and([eb('s.low_balance_armed', '=', 1), eb('u.quota', '<', eb.ref('s.low_balance_threshold'))]),
          eb.and([eb('s.low_balance_armed', '=', 0), eb('u.quota', '>=', eb.ref('s.low_balance_threshold'))]),
        ]),
      );
    if (userId !== undefined) q = q.where('s.user_id', '=', userId);
    const rows = await q.limit(500).execute();
    let queued = 0;
    for (const r of rows) {
      const id = Number(r.user_id);
      const threshold = Number(r.low_balance_threshold);
      const balance = Number(r.quota);
      if (Number(r.low_balance_armed) === 1) {
        // Once per crossing: only the update that disarms sends.
        const won = await this.db
          .updateTable('user_alert_settings')
          .set({ low_balance_armed: 0 })
          .where('user_id', '=', id)
          .where('low_balance_armed', '=', 1)
          .executeTakeFirst();
        if (Number(won.numUpdatedRows) !== 1) continue;
        const perUsd = this.core.config.quotaPerUsd;
        const ev = await this.enqueue(`user:${id}`, 'user.low_balance', `The balance of ${r.username} is below the alert threshold`, {
          user_id: id,
          username: r.username,
          balance,
          balance_usd: quotaToUsd(balance, perUsd),
          threshold,
          threshold_usd: quotaToUsd(threshold, perUsd),
        });
        if (ev) queued++;
      } else {
        await this.db
          .updateTable('user_alert_settings')
          .set({ low_balance_armed: 1 })
          .where('user_id', '=', id)
          .where('low_balance_armed', '=', 0)
          .execute();
      }
    }
    return queued;
  }

  private async checkUser(userId: number): Promise<void> {
    await this.checkBalances(userId);
  }

  // ---------------------------------------------------------------------------------------------
  // A user's settings
  // ---------------------------------------------------------------------------------------------

  parseSettings(raw: unknown): SettingsInput {
    const r = Reader.of(raw).only(['low_balance_threshold', 'low_balance_threshold_usd', 'email', 'webhook_url', 'webhook_secret']);
    const out: SettingsInput = {};
    const units = r.num('low_balance_threshold', { int: true, min: 0, max: 1e15 });
    const usd = r.num('low_balance_threshold_usd', { min: 0, max: 1e9 });
    if (units !== undefined) out.threshold = units;
    else if (usd !== undefined) out.threshold = usdToQuota(usd, this.core.config.quotaPerUsd);
    if (r.has('email') || r.obj.email === null) {
      const e = r.nullableStr('email', { max: 254 });
      out.email = e ? emailAddress(e) : null;
    }
    if (r.has('webhook_url') || r.obj.webhook_url === null) {
      const u = r.nullableStr('webhook_url', { max: 1000 });
      out.webhookUrl = u ? checkUrl(u, 'webhook_url') : null;
    }
    if (r.has('webhook_secret') || r.obj.webhook_secret === null) {
      const s = r.nullableStr('webhook_secret', { max: 256 });
      if (s && s.length < 16) throw fieldError('webhook_secret', 'must be at least 16 characters');
      out.webhookSecret = s || null;
    }
    return out;
  }

  async settings(userId: number): Promise<AlertSettingsView> {
    const s = await this.db.selectFrom('user_alert_settings').selectAll().where('user_id', '=', userId).executeTakeFirst();
    const threshold = Number(s?.low_balance_threshold ?? 0);
    return {
      low_balance_threshold: threshold,
      low_balance_threshold_usd: quotaToUsd(threshold, this.core.config.quotaPerUsd),
      email: s?.email ?? null,
      webhook_url: s?.webhook_url ?? null,
      webhook_secret_set: !!s?.webhook_secret_sealed,
      low_balance_alerted: !!s && threshold > 0 && Number(s.low_balance_armed) === 0,
    };
  }

  /**
   * Stores the fields given. A webhook without a signing secret gets a generated one, returned here
   * once (`webhook_secret`); a given secret is never shown again.
   */
  async saveSettings(userId: number, input: SettingsInput): Promise<AlertSettingsView & { webhook_secret?: string }> {
    const user = await new UserStore(this.core.h).byId(userId);
    if (!user) throw fail('user_not_found', { id: userId });
    const cur = await this.db.selectFrom('user_alert_settings').selectAll().where('user_id', '=', userId).executeTakeFirst();
    const url = input.webhookUrl !== undefined ? input.webhookUrl : (cur?.webhook_url ?? null);
    let sealed =
      input.webhookSecret !== undefined
        ? input.webhookSecret
          ? this.core.secrets.seal(input.webhookSecret)
          : null
        : (cur?.webhook_secret_sealed ?? null);
    let generated: string | undefined;
    if (url && !sealed) {
      generated = `whsec_${randomToken(24)}`;
      sealed = this.core.secrets.seal(generated);
    }
    const row = {
      low_balance_threshold: input.threshold ?? Number(cur?.low_balance_threshold ?? 0),
      email: input.email !== undefined ? input.email : (cur?.email ?? null),
      webhook_url: url,
      webhook_secret_sealed: sealed,
      updated_at: Date.now(),
    };
    if (cur) {
      // A new threshold is a new watch: armed again, the next check decides.
      const rearm = row.low_balance_threshold !== Number(cur.low_balance_threshold) ? { low_balance_armed: 1 } : {};
      await this.db
        .updateTable('user_alert_settings')
        .set({ ...row, ...rearm })
        .where('user_id', '=', userId)
        .execute();
    } else {
      await this.db
        .insertInto('user_alert_settings')
        .values({ user_id: userId, ...row, low_balance_armed: 1 })
        .execute();
    }
    if (row.low_balance_threshold > 0) this.watched.add(userId);
    else this.watched.delete(userId);
    await this.checkBalances(userId);
    const view = await this.settings(userId);
    return generated ? { ...view, webhook_secret: generated } : view;
  }

  /** The signing secret of a user's webhook (delivery only). */
  async userWebhook(userId: number): Promise<{ url: string; secret: string } | null> {
    const s = await this.db
      .selectFrom('user_alert_settings')
      .select(['webhook_url', 'webhook_secret_sealed'])
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!s?.webhook_url || !s.webhook_secret_sealed) return null;
    return { url: s.webhook_url, secret: this.core.secrets.open(s.webhook_secret_sealed) };
  }

  async userEmail(userId: number): Promise<string | null> {
    const s = await this.db.selectFrom('user_alert_settings').select('email').where('user_id', '=', userId).executeTakeFirst();
    return s?.email ?? null;
  }

  // ---------------------------------------------------------------------------------------------
  // The outbox (admins)
  // ---------------------------------------------------------------------------------------------

  parseQuery(q: Obj): {
    status?: (typeof ALERT_STATUSES)[number];
    kind?: string;
    target?: string;
    transport?: 'webhook' | 'email';
    page: number;
    pageSize: number;
    offset: number;
  } {
    const r = new Reader(q);
    return {
      status: r.oneOf('status', ALERT_STATUSES),
      kind: r.str('kind', { max: 64 }) || undefined,
      target: r.str('target', { max: 64 }) || undefined,
      transport: r.oneOf('transport', ['webhook', 'email'] as const),
      ...paging(q.p !== undefined && q.page === undefined ? { ...q, page: q.p } : q),
    };
  }

  async list(q: ReturnType<Alerts['parseQuery']>): Promise<Page<AlertView>> {
    let base = this.db.selectFrom('alerts');
    if (q.status) base = base.where('status', '=', q.status);
    if (q.kind) base = base.where('kind', '=', q.kind);
    if (q.target) base = base.where('target', '=', q.target);
    if (q.transport) base = base.where('transport', '=', q.transport);
    const [rows, total] = await Promise.all([
      base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.pageSize).offset(q.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
    ]);
    return { items: rows.map(alertView), total: Number(total?.n ?? 0), page: q.page, page_size: q.pageSize };
  }

  /** Queues a `test` operator alert (to check the webhook and e-mail settings). */
  async test(by: string): Promise<AlertEvent> {
    const ev = await this.enqueue('operator', 'test', `Test alert sent by ${by}`, { by });
    if (!ev) throw fail('alerts_not_configured');
    return ev;
  }
}

export function alertView(r: AlertRow): AlertView {
  let payload: unknown = null;
  try {
    payload = JSON.parse(r.payload);
  } catch {
    payload = null;
  }
  return {
    id: r.id,
    kind: r.kind,
    target: r.target,
    transport: r.transport,
    status: r.status,
    attempts: Number(r.attempts),
    next_attempt_at: Number(r.next_attempt_at),
    delivered_at: r.delivered_at === null ? null : Number(r.delivered_at),
    last_error: r.last_error,
    created_at: Number(r.created_at),
    payload,
  };
}
