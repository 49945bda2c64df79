/**
 * The billing area: the quota ledger, the price book, plans with usage windows, and the recovery of relay reserves stranded by
 * a node that died (billing/recovery.ts).
 */
import type { Core } from '../core.ts';
import type { Options } from '../options/options.ts';
import { Ledger } from './ledger.ts';
import { PriceBook, PRICES_REVISION } from './prices.ts';
import { ReserveRecovery } from './recovery.ts';
import { Budgets } from './budgets.ts';
import { Plans, PLANS_REVISION } from './plans.ts';

export interface Billing {
  ledger: Ledger;
  prices: PriceBook;
  recovery: ReserveRecovery;
  /** Period budgets of keys and users (billing/budgets.ts). */
  budgets: Budgets;
  /** Plans with usage windows (billing/plans.ts). */
  plans: Plans;
}

export const billingArea = {
  name: 'billing',
  async init(core: Core, options: Options): Promise<Billing> {
    const prices = new PriceBook(core);
    const ledger = new Ledger(core);
    const recovery = new ReserveRecovery(core, ledger, prices);
    const plans = new Plans(core, ledger);
    const budgets = new Budgets(options, ledger);
    budgets.planOf = (userId, model, teamId) => (teamId ? plans.chargeOfTeam(teamId, model) : plans.chargeOf(userId, model));
    const billing: Billing = { ledger, prices, recovery, budgets, plans };
    await core.cache.register(PRICES_REVISION, () => prices.load());
    await core.cache.register(PLANS_REVISION, () => plans.load());
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
