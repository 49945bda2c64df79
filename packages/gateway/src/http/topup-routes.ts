/**
 * Money in, at New API's paths: redemption codes for admins (/api/redemption: create a batch, list,
 * search, enable/disable, delete, export as CSV), a user redeeming a code (POST /api/user/topup),
 * online top-up (GET /api/user/topup/info, POST /api/user/stripe/pay, the user's payments) and the
 * providers' webhooks (POST /api/<provider>/webhook, e.g. /api/stripe/webhook). Envelope
 * {success, message, data}. Thin: decode, call services.topup, encode.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { refused, requireUser } from './auth.ts';
import { GatewayError, fail } from '../platform/errors.ts';
import { LoginThrottle } from '../accounts/throttle.ts';
import { Reader, fieldError, paging, parseId, type Obj } from '../platform/validate.ts';
import { CODE_STATUSES } from '../billing/redemption.ts';
import { ok } from './envelope.ts';

/**
 * Redeeming a code, guarded against guessing: guesses of codes that do not exist are counted per user
 * and per client address (RedemptionAttemptLimit per RedemptionAttemptWindowSeconds), and past the
 * limit every redemption waits (429 `too_many_attempts`). Shared by every route that redeems a code.
 */
export function redeemGuard(deps: AppDeps) {
  const options = () => deps.services.admin.options;
  const guesses = new LoginThrottle(
    deps.core,
    () => ({
      limit: options().getNumber('RedemptionAttemptLimit', 10),
      windowMs: options().getNumber('RedemptionAttemptWindowSeconds', 600) * 1000,
    }),
    'redeem-failures',
  );
  return async <T>(req: FastifyRequest, reply: FastifyReply, redeem: () => Promise<T>): Promise<T> => {
    const keys = [`u:${req.user!.id}`, `ip:${req.ip}`];
    let wait = 0;
    for (const k of keys) wait = Math.max(wait, await guesses.blockedFor(k));
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      throw fail('too_many_attempts', `too many redemptions of unknown codes: try again in ${wait} s`);
    }
    try {
      return await redeem();
    } catch (e) {
      if (e instanceof GatewayError && e.code === 'invalid_code') for (const k of keys) await guesses.failed(k);
      throw e;
    }
  };
}

/**
 * Starts a checkout with `provider` for the signed-in user — of team `teamId`'s wallet when given (the
 * caller checked the user may) — answering where to pay (`pay_link` as New API names it; `url` too).
 */
export async function startCheckout(
  deps: AppDeps,
  provider: string,
  req: FastifyRequest,
  reply: FastifyReply,
  amount: number,
  teamId: number | null,
) {
  const base = deps.services.admin.options.publicUrl() || `${req.protocol}://${req.host}`;
  try {
    const started = await deps.services.topup.payments.start(provider, req.user!.id, amount, base, teamId);
    return { ...started, pay_link: started.url };
  } catch (e) {
    throw refused(e, reply);
  }
}

/** Largest webhook body read (Stripe's events are a few KB). */
const WEBHOOK_BODY_LIMIT = 512 * 1024;

export async function topupRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { codes, payments } = deps.services.topup;
  const adminOnly = { onRequest: requireUser(deps, 'admin'), bodyLimit: 256 * 1024 };
  const anyUser = { onRequest: requireUser(deps, 'user'), bodyLimit: 64 * 1024 };
  const q = (req: FastifyRequest) => (req.query ?? {}) as Obj;
  const guarded = redeemGuard(deps);
  const filter = (req: FastifyRequest) => {
    const r = new Reader(q(req));
    return { status: r.oneOf('status', CODE_STATUSES), keyword: r.str('keyword', { max: 128 }) || undefined };
  };

  await app.register(async (api) => {
    api.setErrorHandler(familyErrorHandler('admin'));

    // ---- redemption codes (admins) ----
    api.post('/api/redemption', adminOnly, async (req) => {
      const made = await codes.create(codes.parseBatch(req.body), req.user);
      // As New API: the codes themselves in data.
      return ok(
        made.map((c) => c.code),
        `${made.length} code(s) created`,
      );
    });
    api.get('/api/redemption', adminOnly, async (req) => ok(await codes.list({ ...paging(q(req)), ...filter(req) })));
    api.get('/api/redemption/search', adminOnly, async (req) => ok(await codes.list({ ...paging(q(req)), ...filter(req) })));
    api.get('/api/redemption/export', adminOnly, async (req, reply) =>
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="redemption-codes-${new Date().toISOString().slice(0, 10)}.csv"`)
        .header('cache-control', 'no-store')
        .send(codes.exportCsv(filter(req))),
    );
    api.get('/api/redemption/:id', adminOnly, async (req) => ok(await codes.get(parseId((req.params as { id: string }).id))));
    api.put('/api/redemption', adminOnly, async (req) => {
      const r = Reader.of(req.body).only(['id', 'status']);
      const id = r.num('id', { required: true, int: true, min: 1 })!;
      const raw = r.obj.status;
      const status = raw === 1 || raw === 'enabled' ? 'enabled' : raw === 2 || raw === 'disabled' ? 'disabled' : null;
      if (!status) throw fieldError('status', 'must be enabled (1) or disabled (2)');
      return ok(await codes.setStatus(id, status, req.user));
    });
    api.delete('/api/redemption/:id', adminOnly, async (req) => {
      await codes.remove(parseId((req.params as { id: string }).id), req.user);
      return ok(null, 'code deleted');
    });

    // ---- a user redeems a code (session or personal access token) ----
    api.post('/api/user/topup', anyUser, async (req, reply) => {
      const key = Reader.of(req.body).only(['key']).str('key', { required: true, max: 128 })!;
      return ok(await guarded(req, reply, () => codes.redeem(req.user!.id, key)), 'code redeemed');
    });

    // ---- online top-up ----
    api.get('/api/user/topup/info', anyUser, async () => ok(payments.info()));
    const pay = (provider: string) => async (req: FastifyRequest, reply: FastifyReply) => {
      const r = Reader.of(req.body).only(['amount', 'payment_method']);
      const amount = r.num('amount', { required: true, min: 0 })!;
      return ok(await startCheckout(deps, provider, req, reply, amount, null), 'pay at the returned URL');
    };
    for (const name of payments.providers.keys()) api.post(`/api/user/${name}/pay`, anyUser, pay(name));
    api.get('/api/user/payments', anyUser, async (req) => ok(await payments.history(req.user!.id, paging(q(req)))));
    api.get('/api/user/payments/:trade_no', anyUser, async (req) =>
      ok(await payments.get(req.user!.id, (req.params as { trade_no: string }).trade_no)),
    );
  });

  // ---- providers' webhooks: the raw body (the signature is over its bytes), no credentials ----
  await app.register(async (hooks) => {
    hooks.setErrorHandler(familyErrorHandler('admin'));
    hooks.removeAllContentTypeParsers();
    hooks.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_req, body, done) => done(null, body));
    const hook = (name: string) => async (req: FastifyRequest, reply: FastifyReply) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const outcome = await payments.webhook(name, raw, req.headers);
      return reply.send({ success: true, message: outcome, data: null });
    };
    for (const name of payments.providers.keys()) hooks.post(`/api/${name}/webhook`, { bodyLimit: WEBHOOK_BODY_LIMIT }, hook(name));
  });
}
