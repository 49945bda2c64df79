/**
 * The Fastify app: request ids, the gateway's own time header, body parsers, and one route module per
 * API family. Route modules stay thin: decode, call a service, encode.
 */
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import type { Core } from '../core.ts';
import { requestId } from '../platform/ids.ts';
import { familyErrorHandler, sendError } from './errors.ts';
import { echo, GatewayError } from '../platform/errors.ts';
import { safeEqual } from '../platform/crypto.ts';
import type { Services } from '../services.ts';

declare module 'fastify' {
  interface FastifyRequest {
    requestId: string;
    startedAt: bigint;
  }
}

export interface AppDeps {
  core: Core;
  services: Services;
}

export type RouteModule = (app: FastifyInstance, deps: AppDeps) => Promise<void> | void;

export async function buildApp(deps: AppDeps, modules: RouteModule[]): Promise<FastifyInstance> {
  const app = Fastify({
    ...receiveTimeouts(deps.core.config.requestTimeoutMs),
    logger: false,
    bodyLimit: 64 * 1024 * 1024,
    trustProxy: deps.core.config.trustProxy,
    return503OnClosing: true,
    forceCloseConnections: true,
    routerOptions: { maxParamLength: 500, ignoreTrailingSlash: true },
  });
  await app.register(cookie);
  app.decorateRequest('requestId', '');
  app.decorateRequest('principal', null);
  app.decorateRequest('user', null);
  app.decorateRequest('startedAt', 0n);
  // Callback style: no promise per request.
  app.addHook('onRequest', (req, reply, done) => {
    req.startedAt = process.hrtime.bigint();
    req.requestId = requestId();
    reply.header('x-request-id', req.requestId);
    done();
  });
  app.addHook('onRequest', apiHeaders);
  app.addHook('onSend', closeUnreadOnSend);
  app.addHook('onResponse', closeUnread);
  app.setErrorHandler(familyErrorHandler('openai'));
  app.setNotFoundHandler((req, reply) => {
    const fam = req.url.startsWith('/api/') ? 'admin' : req.url.startsWith('/v1beta/') ? 'gemini' : 'openai';
    return sendError(reply, fam, new GatewayError(404, 'not_found', `no route for ${req.method} ${echo(req.url.split('?')[0])}`));
  });
  app.get('/healthz', async () => ({ ok: true }));
  const metricsToken = deps.core.config.metricsToken;
  if (metricsToken) {
    // Prometheus scrape of this node (platform/metrics.ts), with METRICS_TOKEN as a bearer token.
    app.get('/metrics', async (req, reply) => {
      const auth = req.headers.authorization ?? '';
      if (!safeEqual(auth.replace(/^Bearer\s+/i, ''), metricsToken)) {
        return sendError(reply, 'openai', new GatewayError(401, 'unauthorized', 'send Authorization: Bearer <METRICS_TOKEN>'));
      }
      return reply.type('text/plain; version=0.0.4; charset=utf-8').send(deps.core.metrics.render());
    });
  }
  for (const m of modules) await m(app, deps);
  return app;
}

/**
 * A client has `ms` to send a whole request, headers and body (REQUEST_TIMEOUT_SECONDS); a slower one
 * gets 408 and the connection is closed. Answers (streams) are not limited by it. Node checks open
 * connections every `connectionsCheckingInterval`, so the check runs at least four times per limit.
 */
function receiveTimeouts(ms: number) {
  if (ms <= 0) return { requestTimeout: 0 };
  return {
    requestTimeout: ms,
    http: { requestTimeout: ms, headersTimeout: Math.min(60_000, ms), connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(ms / 4))) },
  };
}

/** Every /api answer (errors included) is not to be sniffed or cached. */
function apiHeaders(req: FastifyRequest, reply: FastifyReply, done: () => void): void {
  if (req.url.startsWith('/api/') || req.url === '/api') reply.header('x-content-type-options', 'nosniff').header('cache-control', 'no-store');
  done();
}

/** How long the rest of an unread body is drained (and dropped) after the answer, at most. */
const LINGER_MS = 2000;
const lingering = new WeakSet<Socket>();

/**
 * Answered before the body was read (a bad credential, an unknown plugin, an upload over the limit):
 * the connection is closed rather than the rest of the body read. The close lingers — our side ends,
 * incoming bytes are dropped for up to LINGER_MS, then the socket is destroyed — because closing with
 * unread bytes resets the connection, and a reset can reach the client before it read the answer.
 * Node's own close (for clients that sent `Connection: close`) is made to linger the same way.
 */
function linger(req: FastifyRequest): void {
  const socket = req.raw.socket;
  if (!socket || socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  socket.end();
  req.raw.resume();
  const t = setTimeout(() => socket.destroy(), LINGER_MS);
  t.unref();
  socket.once('close', () => clearTimeout(t));
}

function closeUnreadOnSend(req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, p: unknown) => void): void {
  const socket = req.raw.socket;
  if (!req.raw.complete && socket) {
    // Node closes after this answer (destroySoon), lingering instead of resetting.
    reply.header('connection', 'close');
    socket.destroySoon = () => linger(req);
  }
  done(null, payload);
}

function closeUnread(req: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  if (!req.raw.complete) linger(req);
  done();
}
