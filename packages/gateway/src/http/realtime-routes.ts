/**
 * `GET /v1/realtime` (WebSocket). The key comes as a Bearer token or through the
 * `openai-insecure-api-key.<key>` subprotocol, the model from `?model=`. Access, channels, price and
 * the reservation are checked before the upgrade, so refusals are ordinary HTTP errors. The scope's
 * WebSocket server also serves `GET /v1/responses` upgraded (responses-socket-routes.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import websocket from '@fastify/websocket';
import type { AppDeps } from './deps.ts';
import { admitRequest, extractApiKey } from './auth.ts';
import { familyErrorHandler } from './errors.ts';
import { responsesSocketRoute } from './responses-socket-routes.ts';

const KEY_PROTOCOL = 'openai-insecure-api-key.';
const SESSION = Symbol('gatehouse.realtime');

type Prepared = Awaited<ReturnType<AppDeps['services']['relay']['realtime']['prepare']>>;
type RawWithSession = IncomingMessage & { [SESSION]?: Prepared; gatehouseRequestId?: string; gatehouseHeaders?: string[] };

function protocolsOf(req: IncomingMessage | FastifyRequest): string[] {
  const h = req.headers['sec-websocket-protocol'];
  return typeof h === 'string'
    ? h
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
}

export async function realtimeRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('openai'));
    await scope.register(websocket, {
      options: {
        // A message is at most what an HTTP JSON body may be (a Responses turn carries its input).
        maxPayload: 64 * 1024 * 1024,
        // Never echo the key protocol: answer `realtime` (or another non-key protocol) when offered.
        handleProtocols: (offered: Set<string>) => {
          if (offered.has('realtime')) return 'realtime';
          for (const p of offered) if (!p.startsWith(KEY_PROTOCOL)) return p;
          return false;
        },
      },
    });
    scope.websocketServer.on('headers', (headers: string[], req: RawWithSession) => {
      if (req.gatehouseRequestId) headers.push(`x-request-id: ${req.gatehouseRequestId}`);
      if (req.gatehouseHeaders) headers.push(...req.gatehouseHeaders);
      headers.push('x-gatehouse-time-ms: 0.00');
    });
    // The WebSocket server above takes every upgrade of the app: Responses over a WebSocket is served here too.
    responsesSocketRoute(scope, deps);
    const keys = deps.services.accounts.keys;
    const realtime = () => deps.services.relay.realtime;

    scope.get(
      '/v1/realtime',
      {
        websocket: true,
        preHandler: async (req, reply) => {
          let key = extractApiKey(req);
          if (!key) {
            const p = protocolsOf(req).find((x) => x.startsWith(KEY_PROTOCOL));
            if (p) key = p.slice(KEY_PROTOCOL.length);
          }
          req.principal = keys.authenticate(key, req.ip);
          await admitRequest(deps, reply, req.principal.userId, req.principal.group);
          const q = req.query as Record<string, unknown>;
          const passHeaders: Record<string, string> = {};
          const beta = req.headers['openai-beta'];
          if (typeof beta === 'string') passHeaders['openai-beta'] = beta;
          else if (protocolsOf(req).includes('openai-beta.realtime-v1')) passHeaders['openai-beta'] = 'realtime=v1';
          const raw = req.raw as RawWithSession;
          // Rate-limit headers: on the refusal (an HTTP answer), else on the switch to the WebSocket.
          const limitHeaders: string[] = [];
          raw[SESSION] = await realtime().prepare(
            {
              requestId: req.requestId,
              model: typeof q.model === 'string' ? q.model : '',
              principal: req.principal,
              passHeaders,
            },
            req.startedAt,
            {
              setHeader: (name, value) => {
                reply.raw.setHeader(name, value);
                limitHeaders.push(`${name}: ${value}`);
              },
            },
          );
          raw.gatehouseRequestId = req.requestId;
          raw.gatehouseHeaders = limitHeaders;
          // Released if the upgrade never completes.
          req.raw.socket.once('close', () => {
            const s = raw[SESSION];
            if (s) realtime().abandon(s);
          });
        },
      },
      (socket, req) => {
        const raw = req.raw as RawWithSession;
        const s = raw[SESSION];
        raw[SESSION] = undefined;
        if (!s) {
          socket.close(1011, 'session not prepared');
          return;
        }
        realtime().run(s, socket);
      },
    );
  });
}
