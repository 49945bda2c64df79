/**
 * Online top-up: a user starts a checkout with a provider for an amount of money, the provider's
 * webhook says it was paid, and the quota it buys is credited exactly once.
 *
 * Each checkout is a `payments` row (pending) written before the provider is asked, with the quota
 * fixed at that moment from the options (TopupCurrency, TopupQuotaPerUnit, TopupMinAmount,
 * TopupMaxAmount). A verified `paid` event credits through Ledger.creditPayment: the row changes to
 * paid under a condition and the `topup` row (ref: the provider's id of the checkout) is written in
 * the same transaction, so however often and however concurrently the event is delivered, to any
 * node, it credits once. The event's amount and currency must match the row.
 */
import type { Selectable } from 'kysely';
import type { Core } from '../../core.ts';
import type { Ledger } from '../ledger.ts';
import type { PaymentRow } from '../../store/schema-core.ts';
import { fail } from '../../platform/errors.ts';
import { WindowCounter } from '../../platform/window-counter.ts';
import { randomId } from '../../platform/ids.ts';
import { insertLogs, topupLog } from '../../logs/writer.ts';
import { quotaToUsd, type Page } from '../../platform/validate.ts';
import { AuditLog } from '../../logs/audit.ts';
import { minorFactor, type PaymentEvent, type PaymentProvider } from './provider.ts';
import { StripeProvider } from './stripe.ts';

export type { PaymentProvider } from './provider.ts';

/** The settings of online top-up, from the options. */
export interface TopupSettings {
  currency: string;
  /** Quota units per unit of the currency. */
  quotaPerUnit: number;
  minAmount: number;
  maxAmount: number;
}

export interface TopupInfo extends TopupSettings {
  /** Providers the operator configured. */
  providers: string[];
}

export interface PaymentView {
  id: number;
  trade_no: string;
  provider: string;
  currency: string;
  /** The price in units of the currency (dollars, not cents). */
  amount: number;
  quota: number;
  quota_usd: number;
  status: 'pending' | 'paid' | 'expired';
  created_at: number;
  paid_at: number | null;
}

export interface StartedCheckout {
  trade_no: string;
  url: string;
  currency: string;
  amount: number;
  quota: number;
}

/** What a webhook delivery did (for the provider's answer and the log). */
export type WebhookOutcome =
  'credited' | 'already_credited' | 'expired' | 'ignored' | 'unknown_payment' | 'mismatch' | 'granted' | 'already_granted';

/** What payments need of the plans (billing/plans.ts): a plan's price and name, and a paid period granted once. */
export interface PlanSales {
  priceOf(planId: number): Promise<{ name: string; priceQuota: number; durationDays: number } | null>;
  /** Grants a paid period once per `ref`; false when it was already. */
  grantPaid(userId: number, planId: number, ref: string, subscription: string | null): Promise<boolean>;
}

/** Checkouts one user may start per window (TopupCheckoutLimit, TopupCheckoutWindowSeconds); limit 0: no limit. */
export interface CheckoutLimit {
  limit: number;
  windowMs: number;
}

export class Payments {
  readonly providers = new Map<string, PaymentProvider>();
  /** Checkouts started per user (shared by every node with Redis). */
  private readonly checkouts: WindowCounter;

  constructor(
    private readonly core: Core,
    private readonly ledger: () => Ledger,
    private readonly settings: () => TopupSettings,
    private readonly checkoutLimit: () => CheckoutLimit = () => ({ limit: 0, windowMs: 0 }),
  ) {
    for (const p of [new StripeProvider(core.config)]) this.providers.set(p.name, p);
    this.checkouts = new WindowCounter(core, 'checkouts');
  }

  private get db() {
    return this.core.h.db;
  }

  /** The plans a checkout may buy (set by the composition root). */
  plans: PlanSales | null = null;

  /** A plan's price in the checkout currency's smallest unit, at today's rate. */
  private planMinor(priceQuota: number): number {
    const s = this.settings();
    return s.quotaPerUnit > 0 ? Math.round((priceQuota / s.quotaPerUnit) * minorFactor(s.currency)) : 0;
  }

  /**
   * Starts a checkout of plan `planId` for `userId`: one period, or with `recurring` a subscription the
   * provider renews every period (each renewal's payment grants one more, billing/plans.ts).
   */
  async startPlan(providerName: string, userId: number, planId: number, recurring: boolean, returnBase: string) {
    const provider = this.provider(providerName);
    const plan = this.plans ? await this.plans.priceOf(planId) : null;
    if (!plan) throw fail('plan_not_found', { id: planId });
    const minor = this.planMinor(plan.priceQuota);
    if (minor < 1) throw fail('invalid_request', 'this plan costs nothing: buy it from the balance');
    if (recurring && (plan.durationDays < 1 || plan.durationDays > 365 || !Number.isInteger(plan.durationDays)))
      throw fail('invalid_request', 'a recurring plan must last a whole number of days (1 to 365)');
    await this.countCheckout(userId);
    const s = this.settings();
    const tradeNo = `plan_${randomId(24)}`;
    const back = returnBase.replace(/\/+$/, '');
    const checkout = await provider.createCheckout({
      tradeNo,
      userId,
      currency: s.currency,
      amountMinor: minor,
      description: `Plan: ${plan.name}`,
      successUrl: `${back}/plan?payment=${encodeURIComponent(tradeNo)}`,
      cancelUrl: `${back}/plan?payment=cancelled`,
      plan: { planId, everyDays: recurring ? plan.durationDays : null },
    });
    return { trade_no: tradeNo, url: checkout.url, currency: s.currency, amount: minor / minorFactor(s.currency), recurring };
  }

  /** A plan's paid period: checked against the plan's price, then granted once per payment. */
  private async planPaid(provider: PaymentProvider, ev: Extract<PaymentEvent, { kind: 'plan' }>): Promise<WebhookOutcome> {
    const plan = this.plans ? await this.plans.priceOf(ev.planId) : null;
    const s = this.settings();
    const expected = plan ? this.planMinor(plan.priceQuota) : -1;
    if (!plan || ev.currency !== s.currency || ev.amountMinor !== expected) {
      this.core.log.error(
        { provider: provider.name, ref: ev.providerRef, plan: ev.planId, paid: ev.amountMinor, currency: ev.currency, expected },
        'plan payment differs from the plan: not granted',
      );
      return 'mismatch';
    }
    return (await this.plans!.grantPaid(ev.userId, ev.planId, `${provider.name}:${ev.providerRef}`, ev.subscription))
      ? 'granted'
      : 'already_granted';
  }

  info(): TopupInfo {
    return { ...this.settings(), providers: [...this.providers.values()].filter((p) => p.configured()).map((p) => p.name) };
  }

  provider(name: string): PaymentProvider {
    const p = this.providers.get(name);
    if (!p || !p.configured()) throw fail('payments_disabled', { name });
    return p;
  }

  view(r: Selectable<PaymentRow>): PaymentView {
    const f = minorFactor(r.currency);
    return {
      id: Number(r.id),
      trade_no: r.trade_no,
      provider: r.provider,
      currency: r.currency,
      amount: Number(r.amount_minor) / f,
      quota: Number(r.quota),
      quota_usd: quotaToUsd(Number(r.quota), this.core.config.quotaPerUsd),
      status: r.status,
      created_at: Number(r.created_at),
      paid_at: r.paid_at === null ? null : Number(r.paid_at),
    };
  }

  /**
   * Counts a checkout of `userId` (each one is a payment row and a call to the provider); 429
   * `too_many_attempts` with `retryAfter` seconds past the limit of the window.
   */
  private async countCheckout(userId: number): Promise<void> {
    const { limit, windowMs } = this.checkoutLimit();
    if (limit <= 0) return;
    const c = await this.checkouts.add(String(userId), windowMs);
    if (c.n <= limit) return;
    const retryAfter = Math.max(1, Math.ceil(c.leftMs / 1000));
    throw Object.assign(fail('too_many_attempts', `too many checkouts started: try again in ${retryAfter} s`), { retryAfter });
  }

  /**
   * Starts a checkout of `amount` (units of the configured currency) for `userId` — of team `teamId`'s
   * wallet when given (the route checks the user may) — and returns where to pay.
   */
  async start(
    providerName: string,
    userId: number,
    amount: number,
    returnBase: string,
    teamId: number | null = null,
  ): Promise<StartedCheckout> {
    const provider = this.provider(providerName);
    const s = this.settings();
    const f = minorFactor(s.currency);
    const minor = Math.round(amount * f);
    if (!Number.isFinite(amount) || Math.abs(amount * f - minor) > 1e-6) {
      throw fail(
        'invalid_field',
        `amount: must be a whole number of ${f === 1 ? s.currency.toUpperCase() : `cents of ${s.currency.toUpperCase()}`}`,
        { details: { field: 'amount' } },
      );
    }
    if (amount < s.minAmount || amount > s.maxAmount) {
      throw fail('invalid_field', `amount: must be between ${s.minAmount} and ${s.maxAmount} ${s.currency.toUpperCase()}`, {
        details: { field: 'amount' },
      });
    }
    const quota = Math.round((minor / f) * s.quotaPerUnit);
    if (quota < 1) throw fail('invalid_field', 'amount: buys less than one quota unit', { details: { field: 'amount' } });
    await this.countCheckout(userId);
    const tradeNo = `pay_${randomId(24)}`;
    const now = Date.now();
    await this.db
      .insertInto('payments')
      .values({
        trade_no: tradeNo,
        user_id: userId,
        provider: provider.name,
        provider_ref: null,
        currency: s.currency,
        amount_minor: minor,
        quota,
        status: 'pending',
        created_at: now,
        updated_at: now,
        paid_at: null,
        team_id: teamId,
      })
      .execute();
    const back = returnBase.replace(/\/+$/, '');
    const page = teamId === null ? '/wallet' : `/team/${teamId}`;
    let checkout;
    try {
      checkout = await provider.createCheckout({
        tradeNo,
        userId,
        currency: s.currency,
        amountMinor: minor,
        description: `Top-up: ${quotaToUsd(quota, this.core.config.quotaPerUsd)} USD of quota`,
        successUrl: `${back}${page}?payment=${encodeURIComponent(tradeNo)}`,
        cancelUrl: `${back}${page}?payment=cancelled`,
      });
    } catch (e) {
      // No checkout exists: the row goes, so the history shows no payment that can never happen.
      await this.db.deleteFrom('payments').where('trade_no', '=', tradeNo).where('status', '=', 'pending').execute();
      throw e;
    }
    await this.db
      .updateTable('payments')
      .set({ provider_ref: checkout.providerRef, updated_at: Date.now() })
      .where('trade_no', '=', tradeNo)
      .execute();
    return { trade_no: tradeNo, url: checkout.url, currency: s.currency, amount: minor / f, quota };
  }

  /** A webhook delivery to provider `name` (raw body and headers): verified, then applied once. */
  async webhook(name: string, raw: Buffer, headers: Record<string, string | string[] | undefined>): Promise<WebhookOutcome> {
    const provider = this.providers.get(name);
    if (!provider || !provider.configured()) throw fail('payment_provider_not_found', { name });
    const event = await provider.parseWebhook(raw, headers);
    return this.apply(provider, event);
  }

  private async apply(provider: PaymentProvider, ev: PaymentEvent): Promise<WebhookOutcome> {
    if (ev.kind === 'ignored') return 'ignored';
    if (ev.kind === 'plan') return this.planPaid(provider, ev);
    let row = await this.db
      .selectFrom('payments')
      .selectAll()
      .where('provider', '=', provider.name)
      .where('provider_ref', '=', ev.providerRef)
      .executeTakeFirst();
    if (!row && ev.tradeNo) {
      // The event came before the checkout's id was stored with the row.
      row = await this.db
        .selectFrom('payments')
        .selectAll()
        .where('trade_no', '=', ev.tradeNo)
        .where('provider', '=', provider.name)
        .executeTakeFirst();
      if (row && row.provider_ref === null) {
        await this.db
          .updateTable('payments')
          .set({ provider_ref: ev.providerRef })
          .where('id', '=', row.id)
          .where('provider_ref', 'is', null)
          .execute();
      } else if (row && row.provider_ref !== ev.providerRef) row = undefined;
    }
    if (!row) {
      this.core.log.warn({ provider: provider.name, ref: ev.providerRef }, 'payment webhook for an unknown checkout');
      return 'unknown_payment';
    }
    const now = Date.now();
    if (ev.kind === 'expired') {
      await this.db
        .updateTable('payments')
        .set({ status: 'expired', updated_at: now })
        .where('id', '=', row.id)
        .where('status', '=', 'pending')
        .execute();
      return 'expired';
    }
    if (ev.currency !== row.currency || ev.amountMinor !== Number(row.amount_minor)) {
      this.core.log.error(
        { provider: provider.name, ref: ev.providerRef, paid: ev.amountMinor, currency: ev.currency, expected: Number(row.amount_minor) },
        'payment amount differs from the checkout: not credited',
      );
      return 'mismatch';
    }
    const teamId = row.team_id === null || row.team_id === undefined ? null : Number(row.team_id);
    const credited =
      teamId === null
        ? await this.ledger().creditPayment(Number(row.user_id), Number(row.id), ev.providerRef, Number(row.quota), now)
        : await this.ledger().creditTeamPayment(teamId, Number(row.user_id), Number(row.id), ev.providerRef, Number(row.quota), now);
    if (!credited) return 'already_credited';
    if (teamId !== null) {
      // The team's wallet, not the user's balance: no top-up in the user's logs; the audit names the team.
      await new AuditLog(this.core).record(
        null,
        'payment.credit',
        { type: 'payment', id: row.trade_no },
        { status: 'pending' },
        { status: 'paid', user_id: Number(row.user_id), team_id: teamId, quota: Number(row.quota), provider: provider.name },
      );
      return 'credited';
    }
    const user = await this.ledger().creditedUser(Number(row.user_id));
    await insertLogs(this.core.h, [
      topupLog({
        at: now,
        ref: ev.providerRef,
        userId: Number(row.user_id),
        username: user?.username ?? null,
        group: user?.group_name ?? null,
        quota: Number(row.quota),
        content: `online top-up (${provider.name}) of ${Number(row.amount_minor) / minorFactor(row.currency)} ${row.currency.toUpperCase()}`,
        other: { trade_no: row.trade_no },
      }),
    ]);
    // A top-up by the payment provider's verified event: a system write in the audit log.
    await new AuditLog(this.core).record(
      null,
      'payment.credit',
      { type: 'payment', id: row.trade_no },
      { status: 'pending' },
      {
        status: 'paid',
        user_id: Number(row.user_id),
        quota: Number(row.quota),
        amount: Number(row.amount_minor) / minorFactor(row.currency),
        currency: row.currency,
        provider: provider.name,
      },
    );
    return 'credited';
  }

  /** A user's payments, newest first. */
  async history(userId: number, q: { page: number; pageSize: number; offset: number }): Promise<Page<PaymentView>> {
    const base = this.db.selectFrom('payments').where('user_id', '=', userId);
    const [rows, total] = await Promise.all([
      base.selectAll().orderBy('id', 'desc').limit(q.pageSize).offset(q.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map((r) => this.view(r)), total: Number(total.n), page: q.page, page_size: q.pageSize };
  }

  /** One payment of `userId` (404 for another user's). */
  async get(userId: number, tradeNo: string): Promise<PaymentView> {
    const r = await this.db
      .selectFrom('payments')
      .selectAll()
      .where('trade_no', '=', tradeNo)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!r) throw fail('payment_not_found');
    return this.view(r);
  }
}
