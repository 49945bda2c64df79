/**
 * What a payment provider does for online top-up: start a hosted checkout for an amount, and turn a
 * webhook delivery into a verified event. Everything else (the payments table, the rate from money
 * to quota, crediting exactly once through the ledger) is the same for every provider
 * (billing/payments/index.ts). Adding a provider (EPay, Creem, …) is one more module implementing
 * this interface and one line in index.ts.
 */

export interface CheckoutRequest {
  /** Our id of the payment, sent to the provider and echoed back in its events. */
  tradeNo: string;
  userId: number;
  /** ISO currency code, lower case. */
  currency: string;
  /** The price in the currency's smallest unit. */
  amountMinor: number;
  /** What the checkout page shows the buyer. */
  description: string;
  successUrl: string;
  cancelUrl: string;
  /**
   * A plan bought with this checkout (billing/plans.ts) instead of a top-up: once, or renewed by the
   * provider every `everyDays` days (a subscription) when that is set.
   */
  plan?: { planId: number; everyDays: number | null };
}

export interface Checkout {
  /** The provider's id of the checkout: the ledger ref of its credit. */
  providerRef: string;
  /** Where the buyer pays. */
  url: string;
}

/** A verified webhook event, as far as top-up cares. */
export type PaymentEvent =
  | { kind: 'paid'; providerRef: string; tradeNo: string | null; currency: string; amountMinor: number }
  | { kind: 'expired'; providerRef: string; tradeNo: string | null }
  /**
   * A plan's period paid (a plan checkout, or a subscription's renewal): `providerRef` is unique per
   * payment (the checkout or the invoice), `subscription` the provider's subscription, if any.
   */
  | {
      kind: 'plan';
      providerRef: string;
      userId: number;
      planId: number;
      subscription: string | null;
      currency: string;
      amountMinor: number;
    }
  | { kind: 'ignored'; type: string };

export interface PaymentProvider {
  /** Lower-case name: the path of its webhook is /api/<name>/webhook. */
  readonly name: string;
  /** Whether the operator configured it (keys set). */
  configured(): boolean;
  createCheckout(req: CheckoutRequest): Promise<Checkout>;
  /**
   * Verifies a webhook delivery by the provider's signature over the raw body and reads its event.
   * Throws GatewayError 400 `invalid_signature` when the signature does not verify.
   */
  parseWebhook(raw: Buffer, headers: Record<string, string | string[] | undefined>): PaymentEvent | Promise<PaymentEvent>;
}

/** Currencies whose smallest unit is the unit itself (Stripe's zero-decimal list). */
const ZERO_DECIMAL = new Set([
  'bif',
  'clp',
  'djf',
  'gnf',
  'jpy',
  'kmf',
  'krw',
  'mga',
  'pyg',
  'rwf',
  'ugx',
  'vnd',
  'vuv',
  'xaf',
  'xof',
  'xpf',
]);

/** Smallest units per unit of `currency` (100 for USD, 1 for JPY). */
export function minorFactor(currency: string): number {
  return ZERO_DECIMAL.has(currency.toLowerCase()) ? 1 : 100;
}
