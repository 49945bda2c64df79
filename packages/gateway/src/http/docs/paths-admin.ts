/**
 * The operations of accounts, users, keys, channels, prices, options, usage and logs.
 * Routes take these through http/route-docs.ts; @fastify/swagger builds the document from the routes.
 */
import { type Schema, envelope, int, obj, op, ref, str } from './kit.ts';

export function mainPathsA(admin: string, root: string): Record<string, Record<string, Schema>> {
  void root;
  return {
    '/api/user/login': {
      post: op(
        'account',
        'Log in; sets a session cookie and answers who logged in (GET /api/user/self has the whole account), or — for a user with a second factor — a pending-login cookie and {require_2fa, methods} (POST /api/user/login/2fa completes it)',
        envelope({ anyOf: [ref('LoginUser'), ref('LoginSecondFactor')] }),
        { body: obj({ username: str(), password: str() }, ['username', 'password']), security: 'none' },
      ),
    },
    '/api/user/logout': { post: op('account', 'Log out', envelope({ type: 'null' })) },
    '/api/user/self': {
      get: op(
        'account',
        'The logged-in user with balance (quota, quota_usd), used_quota and request_count; the public address (PUBLIC_URL) and quota units per USD; how it confirms a sensitive change',
        envelope(ref('SelfUser')),
      ),
    },
    '/api/user/self/password': {
      put: op(
        'account',
        'Change your password (the current one is checked; an account without one confirms with a second factor); your other sessions and your personal access token are revoked, this session stays. A wrong old_password is a 400, and counts as a failed login of the address',
        envelope({ type: 'null' }),
        { body: ref('PasswordChange') },
      ),
    },
    '/api/user/models': {
      get: op('account', 'The models your group may call, with the prices you pay (group ratio applied)', envelope(ref('GroupModels'))),
    },
    '/api/user/cli-session': {
      post: op(
        'account',
        'Open a command-line session: a bearer token (ghs-…, shown once, 90 days) that other logins do not end; POST /api/user/logout with it ends it',
        envelope(obj({ token: str(), expires_at: int('unix ms') }, ['token', 'expires_at'])),
      ),
    },
    '/api/user/token': {
      post: op(
        'account',
        'Issue a personal access token (shown once) for scripts and the CLI, replacing the old one; confirmed (Reauth)',
        envelope(obj({ access_token: str() })),
        { body: ref('Reauth') },
      ),
    },
  };
}
