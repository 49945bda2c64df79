/**
 * The top-up area: money in besides an admin's top-up — redemption codes (billing/redemption.ts) and
 * online payments (billing/payments/). Built after admin, whose options set the limits and rates.
 */
import type { Area } from '../areas.ts';
import { topupRoutes } from '../http/topup-routes.ts';
import { RedemptionCodes } from './redemption.ts';
import { Payments } from './payments/index.ts';

export interface Topup {
  codes: RedemptionCodes;
  payments: Payments;
}

declare module '../services.ts' {
  interface Services {
    topup: Topup;
  }
}

export const topupArea: Area = {
  name: 'topup',
  init(core, services) {
    const ledger = () => services.billing.ledger;
    const o = () => services.admin.options;
    services.topup = {
      codes: new RedemptionCodes(core, ledger),
      payments: new Payments(core, ledger, () => {
        const cur = (o().get('TopupCurrency') ?? '').trim().toLowerCase();
        return {
          currency: /^[a-z]{3}$/.test(cur) ? cur : 'usd',
          quotaPerUnit: Math.max(0, o().getNumber('TopupQuotaPerUnit', core.config.quotaPerUsd)),
          minAmount: Math.max(0, o().getNumber('TopupMinAmount', 1)),
          maxAmount: Math.max(0, o().getNumber('TopupMaxAmount', 10000)),
        };
      }),
    };
  },
  routes: topupRoutes,
};
