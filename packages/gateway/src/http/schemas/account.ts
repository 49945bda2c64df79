/**
 * The schemas of the account routes (http/account-routes.ts, http/two-factor-routes.ts,
 * http/signup-routes.ts): who logged in, the second step of a login, the caller's own account, its
 * second factors and passkeys, the models of its group, and the confirmation of a sensitive change.
 * Request bodies stay permissive (unknown fields and types are refused by the routes' own checks,
 * with the messages they always had); the answers list every field the services return.
 */
import { Type, type TSchema } from 'typebox';
import { AdminError, ref } from './common.ts';

export const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
const Role = Type.Union([Type.Literal('user'), Type.Literal('admin'), Type.Literal('root')]);

/**
 * A JSON body described by `props`, as the route reads it: every field optional, other fields and a
 * missing body left to the route's own checks (platform/validate.ts), which say what is wrong.
 */
export const LooseBody = (props: Record<string, TSchema>, description?: string) =>
  Type.Union([
    Type.Object(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, Type.Optional(v)])), description ? { description } : {}),
    Type.Null(),
  ]);

/** A WebAuthn object (options for the browser, or its result), passed through as it is. */
export const WebAuthn = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const LoginUser = Type.Object(
  {
    id: Type.Integer(),
    username: Type.String(),
    role: Role,
    group: Type.String(),
    require_2fa_setup: Type.Optional(
      Type.Literal(true, { description: 'an admin without a second factor where AdminRequireTwoFactor is on: set one up first' }),
    ),
  },
  { $id: 'LoginUser' },
);

export const LoginSecondFactor = Type.Object(
  {
    require_2fa: Type.Literal(true),
    methods: Type.Array(Type.Union([Type.Literal('totp'), Type.Literal('passkey'), Type.Literal('recovery_code')])),
  },
  { $id: 'LoginSecondFactor' },
);

const nullInt = (description: string) => Nullable(Type.Integer({ description }));
const nullNum = () => Nullable(Type.Number());

/** The caller's account (admin/users.ts UserView) with how it confirms changes and where to send calls. */
export const SelfUser = Type.Object(
  {
    id: Type.Integer(),
    username: Type.String(),
    display_name: Type.String(),
    role: Role,
    group: Type.String(),
    quota: Type.Integer({ description: 'remaining balance in quota units (QUOTA_PER_USD per USD)' }),
    quota_usd: Type.Number(),
    used_quota: Type.Integer(),
    request_count: Type.Integer(),
    status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
    rpm: nullInt('requests per minute; null = no limit'),
    tpm: nullInt('tokens (input + output) per minute; null = no limit'),
    max_concurrency: nullInt('calls in flight at once; null = no limit'),
    budget: nullInt('what may be spent per budget_period, in quota units; null = no budget'),
    budget_usd: nullNum(),
    budget_period: Nullable(Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')])),
    budget_spent: nullInt('spent in the current period (reserves in flight included)'),
    budget_spent_usd: nullNum(),
    budget_resets_at: nullInt('unix ms: when the current period ends'),
    created_at: Type.Integer({ description: 'unix ms' }),
    updated_at: Type.Integer({ description: 'unix ms' }),
    public_url: Nullable(
      Type.String({
        description:
          'the public address, PUBLIC_URL (or its older names): where callers reach the gateway; null: not set, callers use the address they reached the console at',
      }),
    ),
    quota_per_usd: Type.Integer({ description: 'quota units per USD (QUOTA_PER_USD)' }),
    reauth: Type.Union([Type.Literal('password'), Type.Literal('second_factor'), Type.Literal('recent_sign_in')], {
      description:
        'how a sensitive change is confirmed: the current password; a second-factor code or passkey (no password); a sign-in within 10 minutes (neither)',
    }),
  },
  { $id: 'SelfUser' },
);

const assertion = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const PasswordChange = Type.Object(
  {
    old_password: Type.Optional(
      Type.String({ description: 'the current password (an account without one confirms with code or assertion instead)' }),
    ),
    new_password: Type.Optional(Type.String({ description: '8-256 characters, not the current one (required)' })),
    code: Type.Optional(Type.String({ description: 'an account without a password: a code of its authenticator app, or a recovery code' })),
    assertion: Type.Optional(assertion('an account without a password: a passkey assertion')),
  },
  { $id: 'PasswordChange' },
);

export const Reauth = Type.Object(
  {
    password: Type.Optional(Type.String({ description: 'the current password (accounts that have one)' })),
    code: Type.Optional(Type.String({ description: 'accounts without a password: a code of the authenticator app, or a recovery code' })),
    assertion: Type.Optional(
      assertion('accounts without a password: a passkey assertion (options from POST /api/user/reauth/passkey-options)'),
    ),
  },
  {
    $id: 'Reauth',
    description:
      'Confirms a sensitive change (docs/two-factor.md#confirming-sensitive-changes): 403 reauth_required without it, 400 when it is wrong (counted as a failed login)',
  },
);

/** A body that only confirms a change (Reauth), or none. */
export const ReauthBody = Type.Union([ref(Reauth), Type.Null()]);

const usd = (description: string) => Nullable(Type.Number({ description }));
export const GroupModelPrice = Type.Object(
  {
    model: Type.String(),
    priced: Type.Boolean({ description: 'false: the price book has no price for it' }),
    input: usd('USD per 1M input tokens, group ratio applied'),
    output: usd('USD per 1M output tokens, group ratio applied'),
    cached_input: usd('USD per 1M cached input tokens, group ratio applied'),
    per_request: usd('USD per call, group ratio applied'),
    cache_write_5m: usd('USD per 1M prompt-cache write tokens kept 5 minutes, group ratio applied'),
    cache_write_1h: usd('USD per 1M prompt-cache write tokens kept 1 hour, group ratio applied'),
  },
  { $id: 'GroupModelPrice' },
);

export const GroupModels = Type.Object(
  { group: Type.String(), group_ratio: Type.Number(), items: Type.Array(ref(GroupModelPrice)) },
  { $id: 'GroupModels' },
);

export const TwoFactorStatus = Type.Object(
  {
    enabled: Type.Boolean({ description: 'a login needs a second factor' }),
    totp_enabled: Type.Boolean(),
    totp_pending: Type.Boolean({ description: 'an enrolment waits for its first code' }),
    passkeys: Type.Integer(),
    recovery_codes_left: Type.Integer(),
    required: Type.Boolean({ description: 'AdminRequireTwoFactor applies to you' }),
    passkeys_available: Type.Boolean({ description: 'PUBLIC_URL is set' }),
  },
  { $id: 'TwoFactorStatus' },
);

export const TotpSetup = Type.Object({ secret: Type.String({ description: 'base32' }), otpauth_uri: Type.String() }, { $id: 'TotpSetup' });

export const RecoveryCodes = Type.Object(
  { recovery_codes: Type.Array(Type.String(), { description: 'shown once; empty when unused ones remain' }) },
  { $id: 'RecoveryCodes' },
);

export const Passkey = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    created_at: Type.Integer({ description: 'unix ms' }),
    last_used_at: Nullable(Type.Integer({ description: 'unix ms' })),
  },
  { $id: 'Passkey' },
);

const errorAnswer = (description: string) => ({ ...ref(AdminError), description });

/** 429 of the failed-login counter of the client address (Retry-After). */
export const loginThrottled = {
  429: errorAnswer('too_many_attempts: too many failed logins from this address (Retry-After: seconds)'),
};

/** 429 of the sign-up and mail counter of the client address (Retry-After). */
export const signupThrottled = {
  429: errorAnswer('too_many_attempts: too many sign-ups or mails asked for from this address (Retry-After: seconds)'),
};

export const noMail = { 503: errorAnswer('email_not_configured: SMTP_URL or ServerAddress is not set') };

export const conflictAnswer = (description: string) => ({ 409: errorAnswer(description) });

export const errorWith = errorAnswer;

export const ACCOUNT_SCHEMAS: TSchema[] = [
  LoginUser,
  LoginSecondFactor,
  SelfUser,
  PasswordChange,
  Reauth,
  GroupModelPrice,
  GroupModels,
  TwoFactorStatus,
  TotpSetup,
  RecoveryCodes,
  Passkey,
];
