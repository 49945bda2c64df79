/**
 * The single sign-on area: SSO providers and logins (accounts/sso.ts). Built after admin; the
 * composition root (areas.ts) applies the configuration file's `sso:` section to it.
 */
import type { Core } from '../core.ts';
import { Sso } from './sso.ts';
import { UserStore } from './user-store.ts';
import type { Users } from './users.ts';

export interface SsoService {
  sso: Sso;
}

export const ssoArea = {
  name: 'sso',
  init(core: Core, users: Users): SsoService {
    const sso = new Sso(core, users);
    // Addresses confirmed through sign-up's mailed links vouch for their accounts too.
    sso.addVerifiedEmailLookup((email) => new UserStore(core.h).verifiedEmailOwner(email.toLowerCase()));
    return { sso };
  },
};
