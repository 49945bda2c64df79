/**
 * The top-up area: money in besides an admin's top-up — redemption codes (billing/redemption.ts) and
 * online payments (billing/payments/). The run-time options (options/options.ts) set the limits and rates.
 */
import type { Core } from '../core.ts';
import type { Options } from '../options/options.ts';
import type { Ledger } from './ledger.ts';
import { RedemptionCodes, type MayCredit } from './redemption.ts';
import { Payments } from './payments/index.ts';

export interface Topup {
  codes: RedemptionCodes;
  payments: Payments;
}

export const topupArea = {
  name: 'topup',
  /** `mayCredit`: the administration's rule of who may top up whom, which redemption codes follow. */
  init(core: Core, deps: { options: Options; ledger: Ledger; mayCredit: MayCredit }): Topup {
    const ledger = () => deps.ledger;
    const o = () => deps.options;
    return {
      codes: new RedemptionCodes(core, ledger, deps.mayCredit),
      payments: new Payments(
        core,
        ledger,
        () => {
          const cur = (o().get('TopupCurrency') ?? '').trim().toLowerCase();
          return {
            currency: /^[a-z]{3}$/.test(cur) ? cur : 'usd',
            quotaPerUnit: Math.max(0, o().getNumber('TopupQuotaPerUnit', core.config.quotaPerUsd)),
            minAmount: Math.max(0, o().getNumber('TopupMinAmount', 1)),
            maxAmount: Math.max(0, o().getNumber('TopupMaxAmount', 10000)),
          };
        },
        () => ({
          limit: Math.max(0, o().getNumber('TopupCheckoutLimit', 10)),
          windowMs: Math.max(1, o().getNumber('TopupCheckoutWindowSeconds', 3600)) * 1000,
        }),
      ),
    };
  },
};
