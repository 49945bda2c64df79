/**
 * What every kind of model call shares (relay.ts, passthrough.ts, realtime.ts, accounting.ts): the
 * caller's connection, who pays, and the services a relay is built from.
 */
import type { ServerResponse } from 'node:http';
import type { Core } from '../core.ts';
import type { KeyPrincipal } from '../accounts/types.ts';
import type { RateLimiter } from '../accounts/rate-limits.ts';
import type { Budgets } from '../billing/budgets.ts';
import type { Ledger } from '../billing/ledger.ts';
import type { QuotaAllowances } from '../billing/allowance.ts';
import type { PriceBook } from '../billing/prices.ts';
import type { LogWriter } from '../logs/writer.ts';
import type { ChannelIndex } from './channels.ts';
import type { RelayPolicy } from './policy.ts';
import type { UpstreamPools } from './upstream.ts';
import type { Affinity } from './affinity.ts';
import type { Guardrails } from './guardrails.ts';
import type { Routing } from './routing.ts';

/** The caller's connection. `hijack` hands the raw response to the relay (called once, before the first byte). */
export interface ClientConn {
  res: ServerResponse;
  hijack(): void;
}

/**
 * Who pays for a call: an API key, or a logged-in user without a key (the playground: keyId and keyName
 * null, no key cap, every model the group serves).
 */
export type RelayPrincipal = Omit<KeyPrincipal, 'keyId' | 'keyName'> & { keyId: number | null; keyName: string | null };

export interface RelayDeps {
  core: Core;
  channels: ChannelIndex;
  prices: PriceBook;
  ledger: Ledger;
  allowances: QuotaAllowances;
  logs: LogWriter;
  pools: UpstreamPools;
  policy: RelayPolicy;
  /** Session affinity (relay/affinity.ts); null when RELAY_AFFINITY_TTL_SECONDS is 0. */
  affinity: Affinity | null;
  /** Balancing strategies, fallbacks across models, channel caps (relay/routing.ts). */
  routing: Routing;
  /** Rate limits per key, user and model (accounts/rate-limits.ts). */
  rateLimits: RateLimiter;
  /** Period budgets: they make a call's payer (billing/budgets.ts). */
  budgets: Budgets;
  /** Guardrail plugins bound to calls (relay/guardrails.ts). */
  guardrails: Guardrails;
}
