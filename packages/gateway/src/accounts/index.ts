/**
 * The accounts area: users, sessions, access tokens and the API key cache.
 */
import type { Core } from '../core.ts';
import type { Options } from '../options/options.ts';
import { KeyCache, KEYS_REVISION } from './keys.ts';
import { Users } from './users.ts';
import { TwoFactor } from './two-factor.ts';
import { Passkeys } from './passkeys.ts';
import { RateLimiter } from './rate-limits.ts';

export interface Accounts {
  keys: KeyCache;
  users: Users;
  /** TOTP, recovery codes and pending logins (docs/two-factor.md). */
  twoFactor: TwoFactor;
  passkeys: Passkeys;
  /** Requests, tokens and calls in flight per key, user and model, and requests per user (accounts/rate-limits.ts). */
  rateLimits: RateLimiter;
}

export const accountsArea = {
  name: 'accounts',
  async init(core: Core, options: Options): Promise<Accounts> {
    const users = new Users(core);
    const keys = new KeyCache(core);
    const twoFactor = new TwoFactor(core);
    const rateLimits = new RateLimiter(core, options);
    core.onClose(() => rateLimits.close());
    const accounts: Accounts = {
      users,
      keys,
      twoFactor,
      passkeys: new Passkeys(core, twoFactor),
      rateLimits,
    };
    const root = await users.ensureRoot();
    if (root.created) {
      core.log.info('root account created');
      if (root.password) {
        // Shown once, on the terminal only; never written to the log.
        process.stdout.write(
          `\nCreated the root account. Log in with  username: root  password: ${root.password}\n(set GATEHOUSE_ROOT_PASSWORD to choose it; change it after logging in)\n\n`,
        );
      } else {
        process.stdout.write('\nCreated the root account: username root, password from GATEHOUSE_ROOT_PASSWORD.\n\n');
      }
    }
    await core.cache.register(KEYS_REVISION, () => keys.load());
    const t = setInterval(() => {
      users.purgeExpiredSessions().catch(() => {});
      twoFactor.purgeExpired().catch(() => {});
    }, 3600_000);
    t.unref();
    core.onClose(() => clearInterval(t));
    return accounts;
  },
};
