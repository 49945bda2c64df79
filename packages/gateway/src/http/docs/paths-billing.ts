/**
 * The operations of sign-up.
 * Routes take these through http/route-docs.ts; @fastify/swagger builds the document from the routes.
 */
import { type Schema, bool, conflict, envelope, int, nullable, obj, op, ref, str } from './kit.ts';

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
