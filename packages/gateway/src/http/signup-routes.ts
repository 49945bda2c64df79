/**
 * Sign-up and e-mail links (accounts/signup.ts, docs/signup.md): the public sign-up settings,
 * registration (New API's path and body), following a verification link, asking for and following a
 * password reset link, and the caller's own address. Anyone may call all but the last two: small body
 * limits, and every sign-up or mail asked for counts against the client address (SignupAttemptLimit).
 * Each route declares its schemas; bodies are still read by the routes' own checks, which name the field.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from 'typebox';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import { fail } from '../platform/errors.ts';
import { LoginThrottle } from '../accounts/throttle.ts';
import { Reader } from '../platform/validate.ts';
import { REAUTH_FIELDS } from '../accounts/reauth.ts';
import { confirm } from './reauth.ts';
import { Envelope, adminErrors, loggedIn } from './schemas/common.ts';
import { LooseBody, Nullable, conflictAnswer, errorWith, noMail, signupThrottled } from './schemas/account.ts';

const SMALL = { bodyLimit: 64 * 1024 };

/** A sign-up operation: tagged, open to anyone unless `security` says otherwise. */
const op = <M extends object>(summary: string, data: TSchema, more?: M, extra: object = {}) => ({
  tags: ['sign-up'],
  summary,
  security: [],
  ...(more as M),
  response: { 200: Envelope(data), ...adminErrors, ...extra },
});
const badLink = { 400: errorWith('invalid_link: the link is unknown, used or expired (or a field is invalid)') };
const Address = Type.Object({ email: Type.String(), verified: Type.Boolean() });

export async function signupRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const signup = deps.services.signup;
  const throttle = new LoginThrottle(
    deps.core,
    () => {
      const o = deps.services.admin.options;
      return { limit: o.getNumber('SignupAttemptLimit', 10), windowMs: o.getNumber('SignupAttemptWindowSeconds', 3600) * 1000 };
    },
    'signup-attempts',
  );
  /** Counts an attempt of the client address; 429 once it has made too many. */
  const attempt = async (req: FastifyRequest, reply: FastifyReply) => {
    const wait = await throttle.blockedFor(req.ip);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      throw fail('too_many_attempts', `too many sign-ups or mails asked for from this address: try again in ${wait} s`);
    }
    await throttle.failed(req.ip);
  };

  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('admin'));
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();

    const settingsSchema = op(
      'Sign-up settings for the console: whether sign-up is on, needs an invitation code or an e-mail address, and whether mail can be sent',
      Type.Object({
        enabled: Type.Boolean(),
        invitation_required: Type.Boolean(),
        email_required: Type.Boolean(),
        email_configured: Type.Boolean(),
      }),
    );
    api.get('/api/user/signup', { schema: settingsSchema }, async () => ({ success: true, message: '', data: signup.settings() }));

    // New API's path and body; its `verification_code` and `aff_code` are accepted and ignored.
    const registerSchema = op(
      'Create your own account (New API path). 403 signup_disabled when sign-up is off; 403 on a missing or wrong invitation_code; 409 for a taken username or e-mail address',
      Type.Object({
        id: Type.Integer(),
        username: Type.String(),
        email: Nullable(Type.String()),
        verification_sent: Type.Boolean({ description: 'a verification link was mailed' }),
        credited: Type.Integer({ description: 'starting balance credited now (quota units)' }),
      }),
      {
        body: LooseBody(
          {
            username: Type.String({ description: 'required' }),
            password: Type.String({ description: '8-256 characters (required)' }),
            email: Type.String({ description: 'required when SignupEmailVerification is on' }),
            invitation_code: Type.String({ description: 'required when SignupInvitationCode is set' }),
            verification_code: Type.String({ description: 'ignored (New API compatibility)' }),
            aff_code: Type.String({ description: 'ignored (New API compatibility)' }),
          },
          'other fields are refused (400)',
        ),
      },
      { ...conflictAnswer('the username or e-mail address is taken'), ...signupThrottled, ...noMail },
    );
    api.post('/api/user/register', { ...SMALL, schema: registerSchema }, async (req, reply) => {
      const b = Reader.of(req.body).only(['username', 'password', 'email', 'invitation_code', 'verification_code', 'aff_code']).obj;
      signup.assertOpen();
      await attempt(req, reply);
      const made = await signup.register({ username: b.username, password: b.password, email: b.email, invitationCode: b.invitation_code });
      const message = made.verification_sent
        ? 'account created: a verification link was sent to your e-mail address'
        : 'account created: you can log in now';
      return { success: true, message, data: made };
    });

    const verifySchema = op(
      'Follow a verification link: verifies the address (and credits a starting balance waiting for it); a link works once',
      Type.Object({ email: Type.String(), credited: Type.Integer() }),
      { body: LooseBody({ token: Type.String({ description: 'the token of the link (required)' }) }) },
      badLink,
    );
    api.post('/api/user/email/verify', { ...SMALL, schema: verifySchema }, async (req) => {
      const { token } = Reader.of(req.body).only(['token']).obj;
      const done = await signup.verify(token);
      return { success: true, message: 'e-mail address verified', data: { email: done.email, credited: done.credited } };
    });

    const forgotSchema = op(
      'Ask for a password reset link; the same answer whether or not an account has the address',
      Type.Null(),
      { body: LooseBody({ email: Type.String({ description: 'required' }) }) },
      { ...signupThrottled, ...noMail },
    );
    api.post('/api/user/password/forgot', { ...SMALL, schema: forgotSchema }, async (req, reply) => {
      const { email } = Reader.of(req.body).only(['email']).obj;
      signup.assertMail();
      await attempt(req, reply);
      await signup.requestReset(email);
      return { success: true, message: 'if an account has this address, a password reset link was sent to it', data: null };
    });

    const resetSchema = op(
      'Follow a reset link with a new password: every session and the personal access token end; the link works once',
      Type.Null(),
      {
        body: LooseBody({
          token: Type.String({ description: 'required' }),
          password: Type.String({ description: '8-256 characters (required)' }),
        }),
      },
      badLink,
    );
    api.post('/api/user/password/reset', { ...SMALL, schema: resetSchema }, async (req) => {
      const { token, password } = Reader.of(req.body).only(['token', 'password']).obj;
      await signup.reset(token, password);
      return { success: true, message: 'password changed: log in with the new one', data: null };
    });

    const emailSchema = op('Your e-mail address and whether it is verified (null: none)', Nullable(Address), { security: loggedIn });
    api.get('/api/user/self/email', { onRequest: requireUser(deps), schema: emailSchema }, async (req) => ({
      success: true,
      message: '',
      data: await signup.emailOf(req.user!.id),
    }));

    // A new address is confirmed with the password (resets go there); sending the link again to the same one is not.
    const setEmailSchema = op(
      'Set your e-mail address (or keep it when omitted) and mail a verification link to it',
      Address,
      {
        security: loggedIn,
        body: LooseBody({
          email: Type.String({ description: 'a bare address (name@example.com); kept in lower case' }),
          password: Type.String({ description: 'confirms a new address (Reauth); not needed to mail the link again to the same one' }),
          code: Type.String(),
          assertion: Type.Object({}, { additionalProperties: true }),
        }),
      },
      {
        ...conflictAnswer('the address is already verified, or belongs to another account'),
        ...signupThrottled,
        ...noMail,
      },
    );
    api.post('/api/user/self/email', { ...SMALL, onRequest: requireUser(deps), schema: setEmailSchema }, async (req, reply) => {
      const b = Reader.of(req.body ?? {}).only(['email', ...REAUTH_FIELDS]).obj;
      signup.assertMail();
      await attempt(req, reply);
      if (await signup.changesAddress(req.user!.id, b.email)) await confirm(deps, req, reply, b);
      const done = await signup.requestVerification(req.user!.id, b.email);
      return {
        success: true,
        message: 'a verification link was sent to your e-mail address',
        data: { email: done.email, verified: false },
      };
    });
  });
}
