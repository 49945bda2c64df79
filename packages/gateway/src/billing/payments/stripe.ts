/**
 * Stripe as a payment provider: a Checkout Session (mode `payment`, one line item priced in the
 * configured currency) per top-up, and webhook events verified with the SDK
 * (`stripe.webhooks.constructEvent`) against STRIPE_WEBHOOK_SECRET. `checkout.session.completed`
 * with payment_status `paid` and `checkout.session.async_payment_succeeded` are payments;
 * `checkout.session.expired` ends a pending one. A plan's checkout (metadata `plan_id`) is mode
 * `payment` once or mode `subscription` (a price recurring every so many days, the metadata copied
 * onto the subscription); its completed session and each renewal's `invoice.paid`
 * (`billing_reason` `subscription_cycle`) are plan events. STRIPE_API_BASE points the SDK at another API
 * address (a proxy, or a test server).
 */
import type Stripe from 'stripe';
import type { Config } from '../../platform/config.ts';
import { fail } from '../../platform/errors.ts';
import type { Checkout, CheckoutRequest, PaymentEvent, PaymentProvider } from './provider.ts';

export class StripeProvider implements PaymentProvider {
  readonly name = 'stripe';
  private client: Promise<{ client: Stripe; StripeError: typeof Stripe.errors.StripeError }> | null = null;

  constructor(private readonly config: Pick<Config, 'stripeSecretKey' | 'stripeWebhookSecret' | 'stripeApiBase'>) {}

  configured(): boolean {
    return Boolean(this.config.stripeSecretKey && this.config.stripeWebhookSecret);
  }

  /** The SDK is loaded on the first payment or webhook (a node that takes none never loads it). */
  private stripe(): Promise<{ client: Stripe; StripeError: typeof Stripe.errors.StripeError }> {
    this.client ??= import('stripe').then(({ default: StripeSdk }) => {
      const opts: Stripe.StripeConfig = { maxNetworkRetries: 1, timeout: 30_000 };
      if (this.config.stripeApiBase) {
        const u = new URL(this.config.stripeApiBase);
        opts.protocol = u.protocol === 'http:' ? 'http' : 'https';
        opts.host = u.hostname;
        opts.port = Number(u.port || (u.protocol === 'http:' ? 80 : 443));
      }
      return { client: new StripeSdk(this.config.stripeSecretKey ?? '', opts), StripeError: StripeSdk.errors.StripeError };
    });
    return this.client;
  }

  async createCheckout(req: CheckoutRequest): Promise<Checkout> {
    let s: Stripe.Checkout.Session;
    const { client, StripeError } = await this.stripe();
    const metadata: Record<string, string> = { trade_no: req.tradeNo, user_id: String(req.userId) };
    if (req.plan) metadata.plan_id = String(req.plan.planId);
    const every = req.plan?.everyDays ?? null;
    try {
      s = await client.checkout.sessions.create(
        {
          mode: every ? 'subscription' : 'payment',
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: req.currency,
                unit_amount: req.amountMinor,
                product_data: { name: req.description },
                ...(every ? { recurring: { interval: 'day' as const, interval_count: every } } : {}),
              },
            },
          ],
          client_reference_id: req.tradeNo,
          metadata,
          ...(every ? { subscription_data: { metadata } } : {}),
          success_url: req.successUrl,
          cancel_url: req.cancelUrl,
        },
        { idempotencyKey: req.tradeNo },
      );
    } catch (e) {
      // Stripe's message may be shown; the request (with the key) is not.
      const msg = e instanceof StripeError ? e.message : 'no answer';
      throw fail('payment_provider_error', `Stripe refused to start the checkout: ${msg.slice(0, 200)}`);
    }
    if (!s.url) throw fail('payment_provider_error', 'Stripe returned a checkout session without a URL');
    return { providerRef: s.id, url: s.url };
  }

  async parseWebhook(raw: Buffer, headers: Record<string, string | string[] | undefined>): Promise<PaymentEvent> {
    const sig = headers['stripe-signature'];
    if (typeof sig !== 'string' || !sig) throw fail('invalid_signature', 'the Stripe-Signature header is missing');
    let event: Stripe.Event;
    const { client } = await this.stripe();
    try {
      event = client.webhooks.constructEvent(raw, sig, this.config.stripeWebhookSecret ?? '');
    } catch {
      throw fail('invalid_signature');
    }
    if (event.type === 'checkout.session.completed' || event.type === 'checkout.session.async_payment_succeeded') {
      const s = event.data.object;
      if (s.payment_status !== 'paid') return { kind: 'ignored', type: `${event.type} (${s.payment_status})` };
      if (s.metadata?.plan_id) {
        const sub = s.subscription;
        return planEvent(s.id, s.metadata, typeof sub === 'string' ? sub : (sub?.id ?? null), s.currency, s.amount_total);
      }
      return {
        kind: 'paid',
        providerRef: s.id,
        tradeNo: s.client_reference_id ?? null,
        currency: (s.currency ?? '').toLowerCase(),
        amountMinor: Number(s.amount_total ?? -1),
      };
    }
    if (event.type === 'checkout.session.expired') {
      const s = event.data.object;
      return { kind: 'expired', providerRef: s.id, tradeNo: s.client_reference_id ?? null };
    }
    if (event.type === 'invoice.paid') {
      // A subscription's renewal (its first invoice is the checkout's). The subscription's metadata is
      // on the invoice (`parent.subscription_details`, or `subscription_details` in older API versions).
      const inv = event.data.object as unknown as InvoiceLike;
      if (inv.billing_reason !== 'subscription_cycle') return { kind: 'ignored', type: `${event.type} (${inv.billing_reason})` };
      const details = inv.parent?.subscription_details ?? inv.subscription_details ?? null;
      const sub = details?.subscription ?? inv.subscription ?? null;
      if (!details?.metadata?.plan_id) return { kind: 'ignored', type: `${event.type} (no plan)` };
      return planEvent(inv.id, details.metadata, typeof sub === 'string' ? sub : (sub?.id ?? null), inv.currency, inv.amount_paid);
    }
    return { kind: 'ignored', type: event.type };
  }
}

/** The fields of an invoice a renewal reads (they moved between Stripe API versions). */
interface InvoiceLike {
  id: string;
  billing_reason?: string | null;
  currency?: string | null;
  amount_paid?: number | null;
  subscription?: string | { id: string } | null;
  subscription_details?: { metadata?: Record<string, string> | null; subscription?: string | { id: string } | null } | null;
  parent?: {
    subscription_details?: { metadata?: Record<string, string> | null; subscription?: string | { id: string } | null } | null;
  } | null;
}

function planEvent(
  ref: string,
  metadata: Record<string, string>,
  subscription: string | null,
  currency: string | null | undefined,
  amount: number | null | undefined,
): PaymentEvent {
  const userId = Number(metadata.user_id);
  const planId = Number(metadata.plan_id);
  if (!Number.isInteger(userId) || !Number.isInteger(planId)) return { kind: 'ignored', type: 'plan event without user or plan' };
  return {
    kind: 'plan',
    providerRef: ref,
    userId,
    planId,
    subscription,
    currency: (currency ?? '').toLowerCase(),
    amountMinor: Number(amount ?? -1),
  };
}
