/**
 * `GET /v1/responses`: upgraded to a WebSocket, Responses over the socket (relay/responses-socket.ts),
 * on the same port and with the same key as HTTPS (a header: `Authorization: Bearer`, `x-api-key`).
 * The key is checked before the upgrade, so a refusal is an ordinary HTTP answer (401, 403, 429, 503).
 * A turn for a model a task plugin claims goes to the task protocols first, as `POST /v1/responses`
 * does. Without an upgrade the path lists nothing (404). Registered in the realtime routes' scope, whose
 * WebSocket server takes every upgrade of the app.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { KeyPrincipal } from '../accounts/types.ts';
import { fail } from '../platform/errors.ts';
import type { PassCall } from '../relay/pass-kinds.ts';
import { servePassCall } from '../relay/responses-route.ts';
import { OPENAI_CALLER_HEADERS, callerVendorHeaders } from '../relay/providers/endpoint.ts';
import type { AppDeps } from './deps.ts';
import { admitRequest, extractApiKey, requireKey } from './auth.ts';

/** The `openai-beta` value that asks for the socket transport: the upstream is called over HTTPS, without it. */
const SOCKET_BETA = /^responses_websockets=/i;

/** The caller's OpenAI headers for the upstream, less the beta that named this transport. */
function upstreamHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out = callerVendorHeaders(headers, OPENAI_CALLER_HEADERS) ?? {};
  const beta = out['openai-beta'];
  if (beta !== undefined) {
    const rest = beta
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s && !SOCKET_BETA.test(s));
    if (rest.length) out['openai-beta'] = rest.join(',');
    else delete out['openai-beta'];
  }
  return out;
}

/**
 * One turn as `POST /v1/responses` serves it: a task plugin that claims the model (its Response, or its
 * host-managed event stream, written to the turn's socket), else the relay.
 */
function serveTurn(deps: AppDeps) {
  return async (call: PassCall): Promise<void> => {
    const res = call.client.res;
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const out = await deps.services.protocols.host.responsesCreate({
      principal: call.principal as KeyPrincipal,
      path: '/v1/responses',
      method: 'POST',
      params: {},
      query: {},
      body: { kind: 'json', value: call.body },
      files: [],
      requestHeaders: { 'Content-Type': 'application/json' },
      requestId: call.requestId,
      signal: gone.signal,
      limitHeaders: res,
    });
    if (!out) return servePassCall(deps.services.relay, call);
    if (out.kind === 'json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out.body));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const closed = () => gone.signal.aborted || res.writableEnded;
    await out
      .run({
        write: (s) => {
          if (!closed()) res.write(s);
        },
        closed,
        end: () => {
          if (!closed()) res.end();
        },
      })
      .catch((e: unknown) => {
        deps.core.log.warn({ err: (e as Error).message, requestId: call.requestId }, 'responses stream ended with an error');
      });
    if (!closed()) res.end();
  };
}

export function responsesSocketRoute(scope: FastifyInstance, deps: AppDeps): void {
  const keys = deps.services.accounts.keys;
  const sockets = () => deps.services.relay.sockets;
  const serve = serveTurn(deps);
  scope.route({
    method: 'GET',
    url: '/v1/responses',
    onRequest: requireKey(deps),
    preHandler: async (req, reply) => {
      if (!req.ws) return;
      if (sockets().stopping) throw fail('shutting_down');
      // The connection counts as one request towards the user's limit; each turn counts again.
      await admitRequest(deps, reply, req.principal!.userId, req.principal!.group);
      // The switch to the WebSocket carries the connection's request id (the scope's `headers` hook).
      (req.raw as IncomingMessage & { gatehouseRequestId?: string }).gatehouseRequestId = req.requestId;
    },
    handler: async () => {
      throw fail('not_found', 'list the Responses of a conversation with GET /v1/responses/{id}', { type: 'invalid_request_error' });
    },
    wsHandler: (socket, req) => {
      const key = extractApiKey(req);
      const ip = req.ip;
      sockets().accept(socket, {
        principal: () => keys.authenticate(key, ip),
        vendorHeaders: upstreamHeaders(req.headers),
        requestId: req.requestId,
        serve,
      });
    },
  });
}
