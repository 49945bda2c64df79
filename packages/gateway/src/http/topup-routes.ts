/**
 * Money in, at New API's paths: redemption codes for admins (/api/redemption: create a batch, list,
 * search, enable/disable, delete, export as CSV), a user redeeming a code (POST /api/user/topup),
 * online top-up (GET /api/user/topup/info, POST /api/user/stripe/pay, the user's payments) and the
 * providers' webhooks (POST /api/<provider>/webhook, e.g. /api/stripe/webhook). Envelope
 * {success, message, data}. Thin: decode, call services.topup, encode. Each route declares its schemas
 * (http/schemas/topup.ts); a webhook's only describe its request, whose raw bytes carry the signature.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from 'typebox';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { refused, requireUser } from './auth.ts';
import { GatewayError, fail } from '../platform/errors.ts';
import { LoginThrottle } from '../accounts/throttle.ts';
import { Reader, fieldError, paging, type Obj } from '../platform/validate.ts';
import { CODE_STATUSES } from '../billing/redemption.ts';
import { ok } from './envelope.ts';
import { AdminError, Envelope, IdParams, Paged, adminErrors, loggedIn, ref } from './schemas/common.ts';
import {
  Checkout,
  CodeExportQuery,
  CodeListQuery,
  CodeStatusChange,
  PagingQuery,
  PayBody,
  Payment,
  RedeemBody,
  Redeemed,
  RedemptionBatch,
  RedemptionCode,
  TOPUP_SCHEMAS,
  TopupInfo,
  TradeNoParams,
  WebhookHeaders,
} from './schemas/topup.ts';

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

/** An operation of `tag`, behind a login (`role` named in the summary), with its answers and error answers. */
const op = <M extends object>(tag: string, summary: string, data: TSchema, more?: M, errors: Record<number, unknown> = {}) => ({
  tags: [tag],
  summary,
  security: loggedIn,
  ...(more as M),
  response: { 200: Envelope(data), ...adminErrors, ...errors },
});
const errorAnswer = (description: string) => ({ ...ref(AdminError), description });
const REDEEM_LIMITED = { 429: errorAnswer('too many unknown codes from this user or address (Retry-After)') };
const CHECKOUT_ERRORS = {
  429: errorAnswer('too many checkouts started by this user (TopupCheckoutLimit; Retry-After)'),
  502: errorAnswer('payment_provider_error: the provider refused to start the checkout'),
};

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
  for (const s of TOPUP_SCHEMAS) app.addSchema(s);
  const code = ref(RedemptionCode);
  const byId = { params: IdParams };

  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('admin'));
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();

    // ---- redemption codes (admins) ----
    api.post(
      '/api/redemption',
      {
        ...adminOnly,
        schema: op('redemption', 'Create a batch of codes; data is the list of codes (admin)', Type.Array(Type.String()), {
          body: ref(RedemptionBatch),
        }),
      },
      async (req) => {
        const made = await codes.create(codes.parseBatch(req.body), req.user);
        // As New API: the codes themselves in data.
        return ok(
          made.map((c) => c.code),
          `${made.length} code(s) created`,
        );
      },
    );
    const list = (summary: string) =>
      ({
        ...adminOnly,
        schema: {
          tags: ['redemption'],
          summary,
          security: loggedIn,
          querystring: CodeListQuery,
          response: { 200: Paged(code), ...adminErrors },
        },
      }) as const;
    api.get('/api/redemption', list('Redemption codes, newest first, with the codes in full (admin)'), async (req) =>
      ok(await codes.list({ ...paging(q(req)), ...filter(req) })),
    );
    api.get('/api/redemption/search', list('The same list, by keyword (New API path) (admin)'), async (req) =>
      ok(await codes.list({ ...paging(q(req)), ...filter(req) })),
    );
    api.get(
      '/api/redemption/export',
      {
        ...adminOnly,
        schema: {
          tags: ['redemption'],
          summary: 'Codes of a filter as CSV (with the codes): Content-Disposition attachment (admin)',
          security: loggedIn,
          querystring: CodeExportQuery,
          response: {
            200: {
              description: 'OK',
              content: { 'text/csv': { schema: Type.String({ description: 'CSV with a header row, CRLF line ends' }) } },
            },
            ...adminErrors,
          },
        },
      },
      async (req, reply) =>
        reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="redemption-codes-${new Date().toISOString().slice(0, 10)}.csv"`)
          .header('cache-control', 'no-store')
          .send(codes.exportCsv(filter(req)) as never),
    );
    api.get('/api/redemption/:id', { ...adminOnly, schema: op('redemption', 'One code (admin)', code, byId) }, async (req) =>
      ok(await codes.get(req.params.id)),
    );
    api.put(
      '/api/redemption',
      {
        ...adminOnly,
        schema: op(
          'redemption',
          'Enable (status 1) or disable (status 2) an unused code (admin)',
          code,
          { body: CodeStatusChange },
          { 409: errorAnswer('the code was already used') },
        ),
      },
      async (req) => {
        const r = Reader.of(req.body).only(['id', 'status']);
        const id = r.num('id', { required: true, int: true, min: 1 })!;
        const raw = r.obj.status;
        const status = raw === 1 || raw === 'enabled' ? 'enabled' : raw === 2 || raw === 'disabled' ? 'disabled' : null;
        if (!status) throw fieldError('status', 'must be enabled (1) or disabled (2)');
        return ok(await codes.setStatus(id, status, req.user));
      },
    );
    api.delete(
      '/api/redemption/:id',
      { ...adminOnly, schema: op('redemption', 'Delete a code (the ledger row of a used one stays) (admin)', Type.Null(), byId) },
      async (req) => {
        await codes.remove(req.params.id, req.user);
        return ok(null, 'code deleted');
      },
    );

    // ---- a user redeems a code (session or personal access token) ----
    api.post(
      '/api/user/topup',
      {
        ...anyUser,
        schema: op(
          'top-up',
          'Redeem a code: credited once. 400 invalid_code / code_used / code_disabled / code_expired; 429 after too many unknown codes',
          ref(Redeemed),
          { body: RedeemBody },
          REDEEM_LIMITED,
        ),
      },
      async (req, reply) => {
        const key = Reader.of(req.body).only(['key']).str('key', { required: true, max: 128 })!;
        return ok(await guarded(req, reply, () => codes.redeem(req.user!.id, key)), 'code redeemed');
      },
    );

    // ---- online top-up ----
    api.get(
      '/api/user/topup/info',
      { ...anyUser, schema: op('top-up', 'Online top-up settings: currency, rate, limits, configured providers', ref(TopupInfo)) },
      async () => ok(payments.info()),
    );
    for (const name of payments.providers.keys())
      api.post(
        `/api/user/${name}/pay`,
        {
          ...anyUser,
          schema: op(
            'top-up',
            `Start a ${name === 'stripe' ? 'Stripe Checkout' : `${name} checkout`} for an amount of the top-up currency; pay at data.url`,
            ref(Checkout),
            { body: PayBody },
            CHECKOUT_ERRORS,
          ),
        },
        async (req, reply) => {
          const r = Reader.of(req.body).only(['amount', 'payment_method']);
          const amount = r.num('amount', { required: true, min: 0 })!;
          return ok(await startCheckout(deps, name, req, reply, amount, null), 'pay at the returned URL');
        },
      );
    api.get(
      '/api/user/payments',
      {
        ...anyUser,
        schema: {
          tags: ['top-up'],
          summary: 'Your payments, newest first',
          security: loggedIn,
          querystring: PagingQuery,
          response: { 200: Paged(ref(Payment)), ...adminErrors },
        },
      },
      async (req) => ok(await payments.history(req.user!.id, paging(q(req)))),
    );
    api.get(
      '/api/user/payments/:trade_no',
      { ...anyUser, schema: op('top-up', 'One of your payments', ref(Payment), { params: TradeNoParams }) },
      async (req) => ok(await payments.get(req.user!.id, req.params.trade_no)),
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
    for (const name of payments.providers.keys())
      hooks.post(
        `/api/${name}/webhook`,
        {
          bodyLimit: WEBHOOK_BODY_LIMIT,
          schema: {
            tags: ['top-up'],
            summary:
              name === 'stripe'
                ? 'Stripe webhook (checkout.session.completed, async_payment_succeeded, expired); verified by the Stripe-Signature header over the raw body'
                : `${name} webhook; verified by its signature over the raw body`,
            security: [],
            ...(name === 'stripe' ? { headers: WebhookHeaders } : {}),
            body: Type.Object({}, { additionalProperties: true, description: "the provider's event, as it sent it" }),
            response: {
              200: Envelope(
                Type.Null(),
                'applied (message: credited, already_credited, granted, already_granted, expired, ignored, unknown_payment, mismatch)',
              ),
              400: errorAnswer('the signature does not verify: nothing applied'),
              404: errorAnswer(`${name === 'stripe' ? 'Stripe' : name} is not configured`),
            },
          },
          // The signature is checked over the raw bytes by the provider (billing/payments): the schema only describes the request.
          validatorCompiler: () => () => true,
        },
        hook(name),
      );
  });
}
