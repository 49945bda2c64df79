/**
 * The billing area: the quota ledger (and the price book, added by the relay's billing work).
 */
import type { Area } from '../areas.ts';
import { Ledger } from './ledger.ts';

export interface Billing {
  ledger: Ledger;
}

declare module '../services.ts' {
  interface Services {
    billing: Billing;
  }
}

export const billingArea: Area = {
  name: 'billing',
  init(core, services) {
    services.billing = { ledger: new Ledger(core) };
  },
};
