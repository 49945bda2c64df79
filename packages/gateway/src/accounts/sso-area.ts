/**
 * The single sign-on area: SSO providers and logins (accounts/sso.ts) with their routes. Built after
 * admin: the configuration file's `sso:` section is applied here, and admin writes are audited.
 */
import type { Area } from '../areas.ts';
import { ssoRoutes } from '../http/sso-routes.ts';
import { loadConfigFile } from '../config-file/load.ts';
import { applySsoProviders } from '../config-file/apply.ts';
import { Sso } from './sso.ts';

export interface SsoService {
  sso: Sso;
}

declare module '../services.ts' {
  interface Services {
    sso: SsoService;
  }
}

export const ssoArea: Area = {
  name: 'sso',
  async init(core, services) {
    const sso = new Sso(core, services.accounts.users);
    services.sso = { sso };
    // Addresses confirmed through sign-up's mailed links vouch for their accounts too.
    sso.addVerifiedEmailLookup(async (email) => {
      const r = await core.h.db.selectFrom('user_emails').select('user_id')
        .where('email', '=', email.toLowerCase()).where('verified_at', 'is not', null).executeTakeFirst();
      return r ? Number(r.user_id) : null;
    });
    const file = core.config.configFile;
    if (file) {
      const doc = loadConfigFile(file, core.config);
      if (doc.sso.length) {
        const sum = await applySsoProviders(sso, doc, file);
        core.log.info({ file, ...sum }, 'configuration file: sso providers applied');
      }
    }
  },
  routes: ssoRoutes,
};
