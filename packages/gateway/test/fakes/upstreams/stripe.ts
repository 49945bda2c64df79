/**
 * A loopback Stripe API for tests: `POST /v1/checkout/sessions` answers as Stripe does (form-encoded
 * parameters in, a Checkout Session object out) and records each request; the session's `url` is a
 * page on this server that sends the buyer straight back to the session's success_url, as a
 * completed Stripe Checkout does. Webhook events are signed with the Stripe SDK's test-header helper.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

export interface FakeStripe {
  url: string;
  server: Server;
  created: Array<{ auth: string | undefined; params: URLSearchParams; id: string }>;
  /** When set, checkout sessions are refused with this Stripe error (status 400). */
  refuse: string | null;
  close(): Promise<void>;
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const created: FakeStripe['created'] = [];
  let base = '';
  const fake: FakeStripe = {
    url: '',
    server: null as unknown as Server,
    created,
    refuse: null,
    close: () => new Promise<void>((r) => fake.server.close(() => r())),
  };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const page = /^\/c\/pay\/([\w-]+)$/.exec(req.url ?? '');
      if (req.method === 'GET' && page) {
        const s = created.find((c) => c.id === page[1]);
        res.writeHead(s ? 303 : 404, s ? { location: s.params.get('success_url')! } : {});
        res.end();
        return;
      }
      if (req.method !== 'POST' || req.url !== '/v1/checkout/sessions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${req.url})` } }),
        );
        return;
      }
      if (fake.refuse) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'invalid_request_error', code: 'amount_too_small', message: fake.refuse } }));
        return;
      }
      const params = new URLSearchParams(body);
      const id = `cs_test_${created.length + 1}_${Math.random().toString(36).slice(2, 10)}`;
      created.push({ auth: req.headers.authorization, params, id });
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${created.length}` });
      res.end(
        JSON.stringify({
          id,
          object: 'checkout.session',
          mode: 'payment',
          status: 'open',
          payment_status: 'unpaid',
          amount_total: Number(params.get('line_items[0][price_data][unit_amount]')),
          currency: params.get('line_items[0][price_data][currency]'),
          client_reference_id: params.get('client_reference_id'),
          metadata: { trade_no: params.get('metadata[trade_no]') },
          url: `${base}/c/pay/${id}`,
        }),
      );
    });
  });
  fake.server = server;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.url = base;
  return fake;
}

const signer = new Stripe('sk_test_signer');

/** A Stripe event about a Checkout Session, as JSON text. */
export function sessionEvent(type: string, session: Record<string, unknown>): string {
  return JSON.stringify({
    id: `evt_${Math.random().toString(36).slice(2)}`,
    object: 'event',
    type,
    api_version: '2025-01-01',
    created: Math.floor(Date.now() / 1000),
    data: { object: { object: 'checkout.session', ...session } },
  });
}

/** The Stripe-Signature header of `payload` under `secret`. */
export function signature(payload: string, secret: string): string {
  return signer.webhooks.generateTestHeaderString({ payload, secret });
}

/** Posts `payload` to the gateway's Stripe webhook, signed with `secret` (or with the header `sig`). */
export async function deliverStripe(
  gatewayUrl: string,
  payload: string,
  secret: string,
  sig?: string,
): Promise<{ status: number; body: { success: boolean; message: string } }> {
  const res = await fetch(`${gatewayUrl}/api/stripe/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': sig ?? signature(payload, secret) },
    body: payload,
  });
  return { status: res.status, body: (await res.json()) as { success: boolean; message: string } };
}
