/**
 * The sign-up area: self-registration, e-mail verification and password reset by mailed link
 * (accounts/signup.ts). Built after admin (its options) and billing (the ledger credits the starting
 * balance).
 */
import type { Area } from '../areas.ts';
import { signupRoutes } from '../http/signup-routes.ts';
import { Signup } from './signup.ts';

declare module '../services.ts' {
  interface Services {
    signup: Signup;
  }
}

export const signupArea: Area = {
  name: 'signup',
  init(core, services) {
    const signup = new Signup(core, () => services.admin.options, () => services.billing.ledger);
    services.signup = signup;
    const t = setInterval(() => { signup.purgeExpired().catch(() => {}); }, 3600_000);
    t.unref();
    core.onClose(() => clearInterval(t));
  },
  routes: signupRoutes,
};
