/**
 * The shared schemas of the API's bodies (components.schemas of the document), part one: accounts, keys, tasks, channels, prices, usage.
 * Routes take these through http/route-docs.ts; @fastify/swagger builds the document from the routes.
 */
import { type Schema, arr, bool, int, nullable, num, obj, ref, str } from './kit.ts';

export const schemas: Record<string, Schema> = {
  LoginSecondFactor: obj({ require_2fa: { const: true }, methods: arr(str(undefined, { enum: ['totp', 'passkey', 'recovery_code'] })) }, [
    'require_2fa',
    'methods',
  ]),
  TwoFactorStatus: obj(
    {
      enabled: bool('a login needs a second factor'),
      totp_enabled: bool(),
      totp_pending: bool('an enrolment waits for its first code'),
      passkeys: int(),
      recovery_codes_left: int(),
      required: bool('AdminRequireTwoFactor applies to you'),
      passkeys_available: bool('PUBLIC_URL is set'),
    },
    ['enabled', 'totp_enabled', 'totp_pending', 'passkeys', 'recovery_codes_left', 'required', 'passkeys_available'],
  ),
  TotpSetup: obj({ secret: str('base32'), otpauth_uri: str() }, ['secret', 'otpauth_uri']),
  RecoveryCodes: obj({ recovery_codes: arr(str(), 'shown once; empty when unused ones remain') }, ['recovery_codes']),
  Passkey: obj({ id: int(), name: str(), created_at: int('unix ms'), last_used_at: nullable(int('unix ms')) }, [
    'id',
    'name',
    'created_at',
    'last_used_at',
  ]),
  OpenAIError: obj({ error: obj({ message: str(), type: str(), param: nullable(str()), code: nullable(str()) }) }),
  LoginUser: obj(
    {
      id: int(),
      username: str(),
      role: str(undefined, { enum: ['user', 'admin', 'root'] }),
      group: str(),
      require_2fa_setup: {
        const: true,
        description: 'an admin without a second factor where AdminRequireTwoFactor is on: set one up first',
      },
    },
    ['id', 'username', 'role', 'group'],
  ),
  SelfUser: {
    allOf: [
      ref('User'),
      obj(
        {
          public_url: nullable(
            str(
              'the public address, PUBLIC_URL (or its older names): where callers reach the gateway; null: not set, callers use the address they reached the console at',
            ),
          ),
          quota_per_usd: int('quota units per USD (QUOTA_PER_USD)'),
          reauth: {
            type: 'string',
            enum: ['password', 'second_factor', 'recent_sign_in'],
            description:
              'how a sensitive change is confirmed: the current password; a second-factor code or passkey (no password); a sign-in within 10 minutes (neither)',
          },
        },
        ['public_url', 'quota_per_usd', 'reauth'],
      ),
    ],
  },
  TaskCallback: obj(
    {
      url: str(),
      delivery_id: str('dlv_…: the same on every attempt (X-Delivery-Id)'),
      status: str(
        'waiting: the task is not finished; pending: due or retrying; delivered; failed: given up; skipped: the result was not kept',
        { enum: ['waiting', 'pending', 'delivered', 'failed', 'skipped'] },
      ),
      attempts: int(),
      last_status: nullable(int('HTTP status of the last answer')),
      last_error: nullable(str()),
      last_attempt_at: nullable(int()),
      next_attempt_at: nullable(int()),
      delivered_at: nullable(int()),
      history: arr(
        obj({ at: int(), status: nullable(int()), error: nullable(str()), duration_ms: int() }, ['at', 'status', 'error', 'duration_ms']),
        'the latest attempts (up to 20)',
      ),
    },
    [],
    { description: "a task's completion callback; times are unix seconds in GET /v1/tasks/{taskId} and unix ms in /api/task" },
  ),
  TaskView: obj(
    {
      task_id: str(),
      platform: str('plugin key'),
      status: str(undefined, { enum: ['NOT_START', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS', 'FAILURE', 'UNKNOWN'] }),
      progress: str(),
      fail_reason: str(),
      model: str(),
      created_at: int('unix s'),
      started_at: nullable(int()),
      finished_at: nullable(int()),
      updated_at: int(),
      callback: ref('TaskCallback'),
    },
    ['task_id', 'platform', 'status', 'progress', 'fail_reason', 'model', 'created_at', 'started_at', 'finished_at', 'updated_at'],
  ),
  PasswordChange: obj(
    {
      old_password: str('the current password (an account without one confirms with code or assertion instead)'),
      new_password: str('8-256 characters, not the current one'),
      code: str('an account without a password: a code of its authenticator app, or a recovery code'),
      assertion: { type: 'object', additionalProperties: true, description: 'an account without a password: a passkey assertion' },
    },
    ['new_password'],
    { additionalProperties: false },
  ),
  Reauth: obj(
    {
      password: str('the current password (accounts that have one)'),
      code: str('accounts without a password: a code of the authenticator app, or a recovery code'),
      assertion: {
        type: 'object',
        additionalProperties: true,
        description: 'accounts without a password: a passkey assertion (options from POST /api/user/reauth/passkey-options)',
      },
    },
    [],
    {
      description:
        'Confirms a sensitive change (docs/two-factor.md#confirming-sensitive-changes): 403 reauth_required without it, 400 when it is wrong (counted as a failed login)',
    },
  ),
  GroupModelPrice: obj(
    {
      model: str(),
      priced: bool('false: the price book has no price for it'),
      input: nullable(num('USD per 1M input tokens, group ratio applied')),
      output: nullable(num('USD per 1M output tokens, group ratio applied')),
      cached_input: nullable(num('USD per 1M cached input tokens, group ratio applied')),
      per_request: nullable(num('USD per call, group ratio applied')),
      cache_write_5m: nullable(num('USD per 1M prompt-cache write tokens kept 5 minutes, group ratio applied')),
      cache_write_1h: nullable(num('USD per 1M prompt-cache write tokens kept 1 hour, group ratio applied')),
    },
    ['model', 'priced', 'input', 'output', 'cached_input', 'cache_write_5m', 'cache_write_1h', 'per_request'],
  ),
  GroupModels: obj({ group: str(), group_ratio: num(), items: arr(ref('GroupModelPrice')) }, ['group', 'group_ratio', 'items']),
};
