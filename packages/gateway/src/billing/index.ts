/**
 * The billing area: the quota ledger and the price book.
 */
import type { Area } from '../areas.ts';
import { Ledger } from './ledger.ts';
import { PriceBook, PRICES_REVISION } from './prices.ts';

export interface Billing {
  ledger: Ledger;
  prices: PriceBook;
}

declare module '../services.ts' {
  interface Services {
    billing: Billing;
  }
}

export const billingArea: Area = {
  name: 'billing',
  async init(core, services) {
    const prices = new PriceBook(core);
    services.billing = { ledger: new Ledger(core), prices };
    await core.cache.register(PRICES_REVISION, () => prices.load());
  },
};
