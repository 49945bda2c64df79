/**
 * Delivery of the alert outbox, on the one node holding the `alerts` lease (store/leases.ts), every
 * AlertDeliveryIntervalSeconds: the low-balance check of every watched user, then each due row.
 *
 * - Webhooks: POST of the event as JSON with `X-Gatehouse-Signature: sha256=<hex HMAC-SHA256 of the
 *   body>` (operator: option AlertWebhookSecret; a user: their webhook's secret), `X-Idempotency-Id`
 *   (the row's id, the same on every attempt) and `X-Gatehouse-Event` (the kind). A 2xx answer is a
 *   delivery; anything else is retried. A user's webhook goes through the content client (public
 *   addresses only, platform/ssrf.ts); the operator's through the plain agent.
 * - E-mail: through the shared mailer (platform/mail.ts: SMTP_URL, from MAIL_FROM) to the operator
 *   (AlertEmailTo) or the user (their address).
 * - Retries: at least once. After a failure the next attempt waits AlertRetryBaseSeconds × 2^(n−1)
 *   (at most an hour); after AlertMaxAttempts the row is `failed`. A row is claimed by moving its
 *   next attempt ahead before sending, so a node that takes over the lease never sends it at the same time.
 */
import { request, type Dispatcher } from 'undici';
import type { Core } from '../core.ts';
import type { Options } from '../options/options.ts';
import { signBody } from '../platform/crypto.ts';
import { mailer } from '../platform/mail.ts';
import { releaseLease, takeLease } from '../store/leases.ts';
import type { AlertRow } from '../store/schema-audit.ts';
import type { Alerts, AlertEvent } from './service.ts';

export const ALERTS_LEASE = 'alerts';
const BATCH = 50;
const SEND_TIMEOUT_MS = 10_000;
const MAX_BACKOFF_MS = 3_600_000;

export class AlertDelivery {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private running: Promise<void> | null = null;
  private readonly holder: string;
  holdsLease = false;
  rounds = 0;

  constructor(
    private readonly core: Core,
    private readonly alerts: Alerts,
    private readonly options: Options,
    holder: string,
  ) {
    this.holder = holder;
  }

  private intervalMs(): number {
    return Math.max(1, this.options.getNumber('AlertDeliveryIntervalSeconds', 5) ?? 5) * 1000;
  }

  start(): void {
    const tick = () => {
      this.running = this.round()
        .then(
          () => undefined,
          (e) => this.core.log.warn({ err: (e as Error).message }, 'alert delivery round failed'),
        )
        .finally(() => {
          this.running = null;
          if (this.stopped) return;
          this.timer = setTimeout(tick, this.intervalMs());
          this.timer.unref();
        });
    };
    this.timer = setTimeout(tick, Math.min(1000, this.intervalMs()));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    if (this.holdsLease) await releaseLease(this.core.h.db, ALERTS_LEASE, this.holder).catch(() => {});
    this.holdsLease = false;
  }

  /** One round, on the lease holder only. Returns the rows attempted. */
  async round(now = Date.now()): Promise<number> {
    this.holdsLease = await takeLease(this.core.h.db, ALERTS_LEASE, this.holder, Math.max(30_000, 3 * this.intervalMs()), now);
    if (!this.holdsLease || this.stopped) return 0;
    this.rounds++;
    await this.alerts.checkBalances();
    const due = await this.alerts.due(now, BATCH);
    for (const row of due) {
      if (this.stopped) break;
      await this.attempt(row);
    }
    return due.length;
  }

  private async attempt(row: AlertRow): Promise<void> {
    const attempts = Number(row.attempts) + 1;
    const o = this.options;
    const base = Math.max(0, o?.getNumber('AlertRetryBaseSeconds', 30) ?? 30) * 1000;
    const max = Math.max(1, o?.getNumber('AlertMaxAttempts', 8) ?? 8);
    const backoff = Math.min(MAX_BACKOFF_MS, base * 2 ** (attempts - 1));
    // Claim: the attempt is counted and the next one scheduled before sending.
    if (!(await this.alerts.claimAttempt(row.id, Number(row.attempts), Date.now() + Math.max(backoff, SEND_TIMEOUT_MS)))) return;
    let error: string | null = null;
    try {
      if (row.transport === 'webhook') await this.sendWebhook(row);
      else await this.sendEmail(row);
    } catch (e) {
      error = ((e as Error).message || 'failed').slice(0, 500);
    }
    if (error === null) {
      await this.alerts.markDelivered(row.id);
      return;
    }
    const failed = attempts >= max;
    await this.alerts.markAttemptFailed(row.id, failed, error, Date.now() + backoff);
    this.core.log.warn(
      { alert: row.id, kind: row.kind, transport: row.transport, attempts, err: error, gaveUp: failed },
      'alert delivery failed',
    );
  }

  private async sendWebhook(row: AlertRow): Promise<void> {
    let dest: { url: string; secret: string; dispatcher: Dispatcher } | null = null;
    if (row.target === 'operator') {
      const o = this.options;
      const url = o?.get('AlertWebhookUrl') ?? '';
      if (url) dest = { url, secret: o?.get('AlertWebhookSecret') ?? '', dispatcher: this.core.outbound.agent };
    } else {
      const w = await this.alerts.userWebhook(Number(row.target.slice('user:'.length)));
      if (w) dest = { ...w, dispatcher: this.core.outbound.content };
    }
    if (!dest) throw new Error('no webhook is configured for this alert any more');
    const body = row.payload;
    const res = await request(dest.url, {
      method: 'POST',
      dispatcher: dest.dispatcher,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Gatehouse-Alerts',
        'x-gatehouse-event': row.kind,
        'x-idempotency-id': row.id,
        ...(dest.secret ? { 'x-gatehouse-signature': signBody(dest.secret, body) } : {}),
      },
      body,
      headersTimeout: SEND_TIMEOUT_MS,
      bodyTimeout: SEND_TIMEOUT_MS,
    });
    await res.body.dump().catch(() => {});
    if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`webhook answered HTTP ${res.statusCode}`);
  }

  private async sendEmail(row: AlertRow): Promise<void> {
    const mail = mailer(this.core);
    if (!mail.configured) throw new Error('SMTP_URL is not set');
    const to =
      row.target === 'operator'
        ? (this.options.getList('AlertEmailTo') ?? []).join(', ')
        : await this.alerts.userEmail(Number(row.target.slice('user:'.length)));
    if (!to) throw new Error('no e-mail address is configured for this alert any more');
    const ev = JSON.parse(row.payload) as AlertEvent;
    const lines = Object.entries(ev.data).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
    await mail.send({
      to,
      subject: `[Gatehouse] ${ev.summary}`,
      text: `${ev.summary}\n\n${lines.join('\n')}\n\nevent: ${ev.kind}\nid: ${ev.id}\ntime: ${new Date(ev.created_at).toISOString()}\n`,
      headers: { 'X-Idempotency-Id': row.id, 'X-Gatehouse-Event': ev.kind },
    });
  }
}
