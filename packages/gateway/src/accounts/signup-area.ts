/**
 * The sign-up area: self-registration, e-mail verification and password reset by mailed link
 * (accounts/signup.ts). Built after billing (the ledger credits the starting balance).
 */
import type { Core } from '../core.ts';
import type { Options } from '../options/options.ts';
import type { Ledger } from '../billing/ledger.ts';
import { Signup } from './signup.ts';

export const signupArea = {
  name: 'signup',
  init(core: Core, deps: { options: Options; ledger: Ledger }): Signup {
    const signup = new Signup(core, deps.options, () => deps.ledger);
    const t = setInterval(() => {
      signup.purgeExpired().catch(() => {});
    }, 3600_000);
    t.unref();
    core.onClose(() => clearInterval(t));
    return signup;
  },
};
