/**
 * The operations of plans, top-ups and sign-up.
 * Routes take these through http/route-docs.ts; @fastify/swagger builds the document from the routes.
 */
import { type Schema, arr, conflict, envelope, idParam, int, num, obj, op, page, pagingParams, q, ref, str } from './kit.ts';

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
