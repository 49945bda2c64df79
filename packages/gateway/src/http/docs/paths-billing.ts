/**
 * The operations of plans, top-ups and sign-up.
 * Routes take these through http/route-docs.ts; @fastify/swagger builds the document from the routes.
 */
import {
  type Schema,
  arr,
  bool,
  conflict,
  envelope,
  idParam,
  int,
  nullable,
  num,
  obj,
  op,
  page,
  pagingParams,
  q,
  ref,
  str,
} from './kit.ts';

export function topupPaths(admin: string): Record<string, Record<string, Schema>> {
  const codeFilters = [
    q('status', str(undefined, { enum: ['enabled', 'disabled', 'used', 'expired'] })),
    q('keyword', str('part of the name, or a whole code')),
  ];
  return {
    '/api/redemption': {
      get: op('redemption', 'Redemption codes, newest first, with the codes in full', page('RedemptionCode'), {
        role: admin,
        params: [...pagingParams, ...codeFilters],
      }),
      post: op('redemption', 'Create a batch of codes; data is the list of codes', envelope(arr(str())), {
        role: admin,
        body: ref('RedemptionBatch'),
      }),
      put: op('redemption', 'Enable (status 1) or disable (status 2) an unused code', envelope(ref('RedemptionCode')), {
        role: admin,
        body: obj({ id: int(), status: { anyOf: [int(undefined, { enum: [1, 2] }), str(undefined, { enum: ['enabled', 'disabled'] })] } }, [
          'id',
          'status',
        ]),
        extra: conflict(ref('AdminError'), 'the code was already used'),
      }),
    },
    '/api/redemption/search': {
      get: op('redemption', 'The same list, by keyword (New API path)', page('RedemptionCode'), {
        role: admin,
        params: [...pagingParams, ...codeFilters],
      }),
    },
    '/api/redemption/export': {
      get: op(
        'redemption',
        'Codes of a filter as CSV (with the codes): Content-Disposition attachment',
        str('CSV with a header row, CRLF line ends'),
        { role: admin, params: codeFilters, contentType: 'text/csv' },
      ),
    },
    '/api/redemption/{id}': {
      get: op('redemption', 'One code', envelope(ref('RedemptionCode')), { role: admin, params: [idParam] }),
      delete: op('redemption', 'Delete a code (the ledger row of a used one stays)', envelope({ type: 'null' }), {
        role: admin,
        params: [idParam],
      }),
    },
    '/api/user/topup': {
      post: op(
        'top-up',
        'Redeem a code: credited once. 400 invalid_code / code_used / code_disabled / code_expired; 429 after too many unknown codes',
        envelope(ref('Redeemed')),
        {
          body: obj({ key: str('the code') }, ['key'], { additionalProperties: false }),
          extra: {
            429: {
              description: 'too many unknown codes from this user or address (Retry-After)',
              content: { 'application/json': { schema: ref('AdminError') } },
            },
          },
        },
      ),
    },
    '/api/user/topup/info': {
      get: op('top-up', 'Online top-up settings: currency, rate, limits, configured providers', envelope(ref('TopupInfo'))),
    },
    '/api/user/stripe/pay': {
      post: op('top-up', 'Start a Stripe Checkout for an amount of the top-up currency; pay at data.url', envelope(ref('Checkout')), {
        body: obj(
          { amount: num('in units of the currency (e.g. 5 or 5.50)'), payment_method: str('ignored (New API compatibility)') },
          ['amount'],
          { additionalProperties: false },
        ),
      }),
    },
    '/api/user/payments': { get: op('top-up', 'Your payments, newest first', page('Payment'), { params: pagingParams }) },
    '/api/user/payments/{trade_no}': {
      get: op('top-up', 'One of your payments', envelope(ref('Payment')), {
        params: [{ name: 'trade_no', in: 'path', required: true, schema: str() }],
      }),
    },
    '/api/stripe/webhook': {
      post: {
        tags: ['top-up'],
        summary:
          'Stripe webhook (checkout.session.completed, async_payment_succeeded, expired); verified by the Stripe-Signature header over the raw body',
        security: [],
        parameters: [{ name: 'stripe-signature', in: 'header', required: true, schema: str() }],
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
        responses: {
          200: {
            description:
              'applied (message: credited, already_credited, granted, already_granted, expired, ignored, unknown_payment, mismatch)',
            content: { 'application/json': { schema: envelope({ type: 'null' }) } },
          },
          400: {
            description: 'the signature does not verify: nothing applied',
            content: { 'application/json': { schema: ref('AdminError') } },
          },
          404: { description: 'Stripe is not configured', content: { 'application/json': { schema: ref('AdminError') } } },
        },
      },
    },
  };
}

/** Self-service sign-up and mailed links (docs/signup.md). */
export function signupPaths(): Record<string, Record<string, Schema>> {
  const err = (description: string) => ({ description, content: { 'application/json': { schema: ref('AdminError') } } });
  const throttled = { 429: err('too many sign-ups or mails asked for from this address (Retry-After)') };
  const noMail = { 503: err('email_not_configured: SMTP_URL or ServerAddress is not set') };
  const badLink = { 400: err('invalid_link: the link is unknown, used or expired (or a field is invalid)') };
  return {
    '/api/user/signup': {
      get: op(
        'sign-up',
        'Sign-up settings for the console: whether sign-up is on, needs an invitation code or an e-mail address, and whether mail can be sent',
        envelope(
          obj(
            {
              enabled: bool(),
              invitation_required: bool(),
              email_required: bool(),
              email_configured: bool(),
            },
            ['enabled', 'invitation_required', 'email_required', 'email_configured'],
          ),
        ),
        { security: 'none' },
      ),
    },
    '/api/user/register': {
      post: op(
        'sign-up',
        'Create your own account (New API path). 403 signup_disabled when sign-up is off; 403 on a missing or wrong invitation_code; 409 for a taken username or e-mail address',
        envelope(
          obj(
            {
              id: int(),
              username: str(),
              email: nullable(str()),
              verification_sent: bool('a verification link was mailed'),
              credited: int('starting balance credited now (quota units)'),
            },
            ['id', 'username', 'email', 'verification_sent', 'credited'],
          ),
        ),
        {
          security: 'none',
          body: obj(
            {
              username: str(),
              password: str('8-256 characters'),
              email: str('required when SignupEmailVerification is on'),
              invitation_code: str('required when SignupInvitationCode is set'),
              verification_code: str('ignored (New API compatibility)'),
              aff_code: str('ignored (New API compatibility)'),
            },
            ['username', 'password'],
            { additionalProperties: false },
          ),
          extra: { ...conflict(ref('AdminError'), 'the username or e-mail address is taken'), ...throttled, ...noMail },
        },
      ),
    },
    '/api/user/email/verify': {
      post: op(
        'sign-up',
        'Follow a verification link: verifies the address (and credits a starting balance waiting for it); a link works once',
        envelope(obj({ email: str(), credited: int() }, ['email', 'credited'])),
        {
          security: 'none',
          body: obj({ token: str('the token of the link') }, ['token'], { additionalProperties: false }),
          extra: badLink,
        },
      ),
    },
    '/api/user/password/forgot': {
      post: op(
        'sign-up',
        'Ask for a password reset link; the same answer whether or not an account has the address',
        envelope({ type: 'null' }),
        {
          security: 'none',
          body: obj({ email: str() }, ['email'], { additionalProperties: false }),
          extra: { ...throttled, ...noMail },
        },
      ),
    },
    '/api/user/password/reset': {
      post: op(
        'sign-up',
        'Follow a reset link with a new password: every session and the personal access token end; the link works once',
        envelope({ type: 'null' }),
        {
          security: 'none',
          body: obj({ token: str(), password: str('8-256 characters') }, ['token', 'password'], { additionalProperties: false }),
          extra: badLink,
        },
      ),
    },
    '/api/user/self/email': {
      get: op(
        'sign-up',
        'Your e-mail address and whether it is verified (null: none)',
        envelope(nullable(obj({ email: str(), verified: bool() }, ['email', 'verified']))),
      ),
      post: op(
        'sign-up',
        'Set your e-mail address (or keep it when omitted) and mail a verification link to it',
        envelope(obj({ email: str(), verified: bool() }, ['email', 'verified'])),
        {
          body: obj(
            {
              email: str('a bare address (name@example.com); kept in lower case'),
              password: str('confirms a new address (Reauth); not needed to mail the link again to the same one'),
              code: str(),
              assertion: { type: 'object', additionalProperties: true },
            },
            [],
            { additionalProperties: false },
          ),
          extra: {
            ...conflict(ref('AdminError'), 'the address is already verified, or belongs to another account'),
            ...throttled,
            ...noMail,
          },
        },
      ),
    },
  };
}
