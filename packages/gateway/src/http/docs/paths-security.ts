/**
 * The operations of the MCP gateway, single sign-on, second factors and channel chores.
 * Routes take these through http/route-docs.ts; @fastify/swagger builds the document from the routes.
 */
import { type Schema, arr, envelope, idParam, int, obj, op, q, ref, str } from './kit.ts';

export function mcpPaths(admin: string): Record<string, Record<string, Schema>> {
  void admin;
  return {
    '/mcp': {
      post: op(
        'mcp',
        'MCP endpoint (streamable HTTP, stateless): tools/list and tools/call of the tools the key allows',
        obj({}, [], { additionalProperties: true }),
        {
          security: 'key',
          body: obj({ jsonrpc: str(), id: { anyOf: [str(), int()] }, method: str(), params: obj({}, [], { additionalProperties: true }) }, [
            'jsonrpc',
            'method',
          ]),
        },
      ),
    },
  };
}

export function ssoPaths(admin: string): Record<string, Record<string, Schema>> {
  const sid = { name: 'id', in: 'path', required: true, schema: str('provider id') };
  const redirect = (description: string) => ({ 302: { description } });
  return {
    '/api/sso/providers': {
      get: op('sso', 'Single sign-on providers', envelope(arr(ref('SsoProvider'))), { role: admin }),
      post: op('sso', 'Add a provider (409 when the id exists)', envelope(ref('SsoProvider')), {
        role: admin,
        body: ref('SsoProviderInput'),
      }),
    },
    '/api/sso/providers/public': {
      get: op('sso', "Enabled providers for the login page's buttons", envelope(arr(ref('SsoPublicProvider'))), { security: 'none' }),
    },
    '/api/sso/providers/{id}': {
      get: op('sso', 'One provider', envelope(ref('SsoProvider')), { role: admin, params: [sid] }),
      put: op('sso', 'Change a provider (fields not given are kept; client_secret only when given)', envelope(ref('SsoProvider')), {
        role: admin,
        params: [sid],
        body: ref('SsoProviderInput'),
      }),
      delete: op('sso', 'Delete a provider and its sign-in links (the accounts stay)', envelope({ type: 'null' }), {
        role: admin,
        params: [sid],
      }),
    },
    '/api/user/sso': {
      get: op('sso', 'The enabled providers, each with its link to your account (null: not linked)', envelope(arr(ref('SsoLink')))),
    },
    '/api/user/sso/{id}/link': {
      post: op(
        'sso',
        "Link a provider to your account: confirmed with your password and your second factor (Reauth); the answer's url is the provider's page to send the browser to (a flow cookie is set), whose callback links the sign-in and returns to /profile?sso_linked={id}",
        envelope(obj({ url: str() }, ['url'])),
        { params: [sid], body: ref('Reauth') },
      ),
    },
    '/api/user/sso/{id}': {
      delete: op('sso', 'Unlink a provider from your account (confirmed, Reauth)', envelope({ type: 'null' }), {
        params: [sid],
        body: ref('Reauth'),
      }),
    },
    '/api/sso/{id}/start': {
      get: op('sso', 'Begin a login: redirects to the provider (sets a short-lived flow cookie)', envelope({ type: 'null' }), {
        security: 'none',
        params: [sid, q('next', str('console path to return to after the login (same origin; default /)'))],
        extra: redirect("to the provider's authorization page"),
      }),
    },
    '/api/sso/{id}/callback': {
      get: op(
        'sso',
        "The provider's redirect: checks state, nonce and PKCE, signs in (session cookie) and redirects to the console (the next of the start, default /); a browser is sent to /login?sso_error=<code> when refused",
        envelope({ type: 'null' }),
        {
          security: 'none',
          params: [sid, q('code', str()), q('state', str())],
          extra: redirect('to the console (/) with a session cookie'),
        },
      ),
    },
  };
}

/** Second factors of console logins (docs/two-factor.md). */
export function twoFactorPaths(admin: string): Record<string, Record<string, Schema>> {
  const code = obj({ code: str('6-digit code of the authenticator app, or a recovery code') }, ['code']);
  const webauthn = {
    type: 'object',
    description: 'WebAuthn options for @simplewebauthn/browser (startRegistration / startAuthentication)',
    additionalProperties: true,
  } as Schema;
  const sessionOrSetup = envelope(ref('LoginUser'));
  return {
    '/api/user/login/2fa': {
      post: op(
        'account',
        'Complete a pending login (its cookie) with a code or a passkey assertion; sets the session cookie. Wrong codes count as failed logins of the address',
        sessionOrSetup,
        {
          body: obj({
            code: str('authenticator app or recovery code'),
            assertion: { type: 'object', description: 'startAuthentication() result', additionalProperties: true },
          }),
          security: 'none',
        },
      ),
    },
    '/api/user/login/2fa/passkey-options': {
      post: op('account', 'WebAuthn options to complete a pending login with a passkey', envelope(webauthn), { security: 'none' }),
    },
    '/api/user/passkey/login/options': {
      post: op(
        'account',
        'WebAuthn options of a login without a password (any passkey of this site, with user verification)',
        envelope(webauthn),
        { security: 'none' },
      ),
    },
    '/api/user/passkey/login': {
      post: op('account', 'Log in with a passkey (no password); sets the session cookie', sessionOrSetup, {
        body: obj({ assertion: { type: 'object', additionalProperties: true } }, ['assertion']),
        security: 'none',
      }),
    },
    '/api/user/2fa/status': {
      get: op('account', 'Your second factors, and whether AdminRequireTwoFactor applies to you', envelope(ref('TwoFactorStatus'))),
    },
    '/api/user/2fa/setup': {
      post: op(
        'account',
        'Start enrolling an authenticator app: a new secret and its otpauth:// URI (shown once); 409 while TOTP is on',
        envelope(ref('TotpSetup')),
      ),
    },
    '/api/user/2fa/enable': {
      post: op(
        'account',
        'Confirm the enrolment with a current code: TOTP is on; recovery codes in the answer (shown once)',
        envelope(ref('RecoveryCodes')),
        { body: code },
      ),
    },
    '/api/user/2fa/disable': {
      post: op(
        'account',
        'Turn the authenticator app off (needs a current or recovery code, and the password of an account that has one)',
        envelope({ type: 'null' }),
        {
          body: obj({ code: str('6-digit code of the authenticator app, or a recovery code'), password: str('the current password') }, [
            'code',
          ]),
        },
      ),
    },
    '/api/user/2fa/backup_codes': {
      post: op('account', 'New recovery codes, replacing the old ones (needs a current or recovery code)', envelope(ref('RecoveryCodes')), {
        body: code,
      }),
    },
    '/api/user/passkey': { get: op('account', 'Your passkeys', envelope(arr(ref('Passkey')))) },
    '/api/user/passkey/register/options': {
      post: op('account', 'WebAuthn options to register a passkey (needs PUBLIC_URL: 503 otherwise)', envelope(webauthn)),
    },
    '/api/user/passkey/register': {
      post: op(
        'account',
        'Register a passkey from the startRegistration() result; the first second factor also brings recovery codes (shown once)',
        envelope(obj({ passkey: ref('Passkey'), recovery_codes: arr(str()) }, ['passkey', 'recovery_codes'])),
        {
          body: obj({ response: { type: 'object', additionalProperties: true }, name: str() }, ['response']),
        },
      ),
    },
    '/api/user/passkey/{id}': {
      delete: op('account', 'Remove one of your passkeys (confirmed like every sensitive change)', envelope({ type: 'null' }), {
        params: [idParam],
        body: ref('Reauth'),
      }),
    },
    '/api/user/reauth/passkey-options': {
      post: op(
        'account',
        'WebAuthn options of a passkey assertion that confirms a sensitive change (accounts without a password)',
        envelope(webauthn),
      ),
    },
    '/api/user/{id}/2fa': {
      delete: op('users', 'Remove every second factor of a user (a lost device)', envelope({ type: 'null' }), {
        role: admin,
        params: [idParam],
      }),
    },
  };
}

/** Channel chores at New API's paths (http/channel-chore-routes.ts) and the public pricing list. */
