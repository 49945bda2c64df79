/**
 * Sign-up and e-mail links (accounts/signup.ts, docs/signup.md): the public sign-up settings,
 * registration (New API's path and body), following a verification link, asking for and following a
 * password reset link, and the caller's own address. Anyone may call all but the last two: small body
 * limits, and every sign-up or mail asked for counts against the client address (SignupAttemptLimit).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import { fail } from '../platform/errors.ts';
import { LoginThrottle } from '../accounts/throttle.ts';
import { Reader } from '../platform/validate.ts';
import { REAUTH_FIELDS } from '../accounts/reauth.ts';
import { confirm } from './reauth.ts';

const SMALL = { bodyLimit: 64 * 1024 };

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

  await app.register(async (api) => {
    api.setErrorHandler(familyErrorHandler('admin'));

    api.get('/api/user/signup', async () => ({ success: true, message: '', data: signup.settings() }));

    // New API's path and body; its `verification_code` and `aff_code` are accepted and ignored.
    api.post('/api/user/register', SMALL, async (req, reply) => {
      const b = Reader.of(req.body).only(['username', 'password', 'email', 'invitation_code', 'verification_code', 'aff_code']).obj;
      signup.assertOpen();
      await attempt(req, reply);
      const made = await signup.register({ username: b.username, password: b.password, email: b.email, invitationCode: b.invitation_code });
      const message = made.verification_sent
        ? 'account created: a verification link was sent to your e-mail address'
        : 'account created: you can log in now';
      return { success: true, message, data: made };
    });

    api.post('/api/user/email/verify', SMALL, async (req) => {
      const { token } = Reader.of(req.body).only(['token']).obj;
      const done = await signup.verify(token);
      return { success: true, message: 'e-mail address verified', data: { email: done.email, credited: done.credited } };
    });

    api.post('/api/user/password/forgot', SMALL, async (req, reply) => {
      const { email } = Reader.of(req.body).only(['email']).obj;
      signup.assertMail();
      await attempt(req, reply);
      await signup.requestReset(email);
      return { success: true, message: 'if an account has this address, a password reset link was sent to it', data: null };
    });

    api.post('/api/user/password/reset', SMALL, async (req) => {
      const { token, password } = Reader.of(req.body).only(['token', 'password']).obj;
      await signup.reset(token, password);
      return { success: true, message: 'password changed: log in with the new one', data: null };
    });

    api.get('/api/user/self/email', { onRequest: requireUser(deps) }, async (req) => ({
      success: true,
      message: '',
      data: await signup.emailOf(req.user!.id),
    }));

    // A new address is confirmed with the password (resets go there); sending the link again to the same one is not.
    api.post('/api/user/self/email', { ...SMALL, onRequest: requireUser(deps) }, async (req, reply) => {
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
