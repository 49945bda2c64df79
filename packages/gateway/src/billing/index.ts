/**
 * The billing area: the quota ledger, the price book, and the recovery of relay reserves stranded by
 * a node that died (billing/recovery.ts).
 */
import type { Core } from '../core.ts';
import type { Options } from '../options/options.ts';
import { Ledger } from './ledger.ts';
import { PriceBook, PRICES_REVISION } from './prices.ts';
import { ReserveRecovery } from './recovery.ts';
import { Budgets } from './budgets.ts';

export interface Billing {
  ledger: Ledger;
  prices: PriceBook;
  recovery: ReserveRecovery;
  /** Period budgets of keys and users (billing/budgets.ts). */
  budgets: Budgets;
}

export const billingArea = {
  name: 'billing',
  async init(core: Core, options: Options): Promise<Billing> {
    const prices = new PriceBook(core);
    const ledger = new Ledger(core);
    const recovery = new ReserveRecovery(core, ledger, prices);
    const billing: Billing = { ledger, prices, recovery, budgets: new Budgets(options, ledger) };
    await core.cache.register(PRICES_REVISION, () => prices.load());
    // The node's lease exists before any reserve names it. Closed after the areas built later (their
    // closers run first: the relay drains its calls), so this process's reserves are settled by then.
    await recovery.startHeartbeat();
    core.onClose(() => recovery.release());
    return billing;
  },
  start(core: Core, billing: Billing) {
    billing.recovery.startRounds();
    core.onClose(() => billing.recovery.stopRounds());
  },
};
