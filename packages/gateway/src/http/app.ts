/**
 * The Fastify app: request ids, the gateway's own time header, body parsers, and one route module per
 * API family. Route modules stay thin: decode, call a service, encode.
 */
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import { requestId } from '../platform/ids.ts';
import { familyErrorHandler, sendError } from './errors.ts';
import { echo, fail } from '../platform/errors.ts';
import { safeEqual } from '../platform/crypto.ts';
import { checkJsonDepth } from '../platform/json-depth.ts';
import type { AppDeps, RouteModule } from './deps.ts';
import { healthRoutes } from './health-routes.ts';
import { buildRouteSerializer, buildRouteValidator, describeRoutes } from './route-docs.ts';
import { registerConsoleRoutes, serveConsoleFallback } from './console-routes.ts';
import { contextWith, extractContext, SpanKind, spanError, startSpan, tracer, withContext, type Span } from '../platform/tracing.ts';
import type { Context, Tracer } from '@opentelemetry/api';

declare module 'fastify' {
  interface FastifyRequest {
    requestId: string;
    startedAt: bigint;
    /** The request's server span and its context, when tracing is on (platform/tracing.ts). */
    otelSpan?: Span;
    otelContext?: Context;
  }
  interface FastifyInstance {
    /** Every route as registered (method, URL pattern): the OpenAPI document is checked against it. */
    routeTable: Array<{ method: string; url: string }>;
    /** A graceful stop is under way (gateway.ts `shutdown`): `/readyz` answers 503, new connections are refused. */
    draining: boolean;
  }
}

/** Serves the console for a request no route took (GET of a client route, a top-level build file). */
export function consoleFallback(deps: AppDeps, req: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply): boolean {
  return serveConsoleFallback(deps.console, req, reply, (path) => deps.services.protocols?.native.ownsPrefix(path) ?? false);
}

/** TRUST_PROXY as Fastify takes it: a hop count `n` believes the last `n` hops (Fastify's own number option trusts none). */
function trustProxyOption(tp: false | number | string[]): boolean | string[] | ((addr: string, hop: number) => boolean) {
  return typeof tp === 'number' ? (_addr, hop) => hop < tp : tp;
}

export async function buildApp(deps: AppDeps, modules: RouteModule[]): Promise<FastifyInstance> {
  const app = Fastify({
    ...receiveTimeouts(deps.core.config.requestTimeoutMs),
    logger: false,
    bodyLimit: 64 * 1024 * 1024,
    trustProxy: trustProxyOption(deps.core.config.trustProxy),
    return503OnClosing: true,
    forceCloseConnections: true,
    routerOptions: { maxParamLength: 500, ignoreTrailingSlash: true },
    // Route schemas (http/route-docs.ts) check input: a body as sent, an unknown field refused.
    schemaController: {
      compilersFactory: { buildValidator: buildRouteValidator as never, buildSerializer: buildRouteSerializer as never },
    },
  });
  const routeTable: Array<{ method: string; url: string }> = [];
  app.decorate('routeTable', routeTable);
  app.decorate('draining', false);
  app.addHook('onRoute', (r) => {
    for (const m of [r.method].flat()) routeTable.push({ method: m, url: r.url });
  });
  app.decorate('gatehouseLog', deps.core.log);
  await app.register(cookie);
  app.decorateRequest('requestId', '');
  app.decorateRequest('principal', null);
  app.decorateRequest('user', null);
  app.decorateRequest('startedAt', 0n);
  // Callback style: no promise per request; one hook for every request (each hook costs a turn of Fastify's runner).
  app.addHook('onRequest', (req, reply, done) => {
    req.startedAt = process.hrtime.bigint();
    req.requestId = requestId();
    reply.header('x-request-id', req.requestId);
    apiHeaders(req, reply);
    done();
  });
  if (tracer) traceRequests(app, tracer);
  // Every 500 is logged with its exception by sendError (http/errors.ts), thrown or sent.
  app.addHook('onSend', closeUnreadOnSend);
  app.addHook('onResponse', closeUnread);
  app.setErrorHandler(familyErrorHandler('openai'));
  jsonBodies(app);
  app.setNotFoundHandler((req, reply) => {
    if (consoleFallback(deps, req, reply)) return reply;
    const fam = req.url.startsWith('/api/') ? 'admin' : req.url.startsWith('/v1beta/') ? 'gemini' : 'openai';
    return sendError(reply, fam, fail('not_found', `no route for ${req.method} ${echo(req.url.split('?')[0])}`));
  });
  await describeRoutes(app);
  healthRoutes(app, deps);
  const metricsToken = deps.core.config.metricsToken;
  if (metricsToken) {
    // Prometheus scrape of this node (platform/metrics.ts), with METRICS_TOKEN as a bearer token.
    app.get('/metrics', async (req, reply) => {
      const auth = req.headers.authorization ?? '';
      if (!safeEqual(auth.replace(/^Bearer\s+/i, ''), metricsToken)) {
        return sendError(reply, 'openai', fail('unauthorized', 'send Authorization: Bearer <METRICS_TOKEN>'));
      }
      return reply.type('text/plain; version=0.0.4; charset=utf-8').send(deps.core.metrics.render());
    });
  }
  if (deps.console) registerConsoleRoutes(app, deps.console);
  for (const m of modules) await m(app, deps);
  return app;
}

/**
 * Every JSON body of every route (the model-call scopes have their own parser, http/relay-scope.ts):
 * Fastify's parser (which refuses `__proto__` and `constructor.prototype` keys), then the depth
 * check, so no route and nothing it calls walks a body nested deeper than MAX_JSON_DEPTH.
 */
function jsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    parse(req, body as string, (err, value) => {
      if (err) return done(err);
      try {
        checkJsonDepth(value);
      } catch (e) {
        return done(e as Error);
      }
      done(null, value);
    });
  });
}

/**
 * A server span per request (the caller's `traceparent` as its parent), ended when the answer is sent
 * or the client goes away; every route handler runs with it active, so the relay's, the ledger's and
 * the task host's spans are its children. Registered only when tracing is on.
 */
function traceRequests(app: FastifyInstance, t: Tracer): void {
  app.addHook('onRoute', (r) => {
    const h = r.handler;
    r.handler = function traced(this: FastifyInstance, req: FastifyRequest, reply: FastifyReply) {
      const c = req.otelContext;
      return c ? withContext(c, () => h.call(this, req, reply)) : h.call(this, req, reply);
    } as typeof h;
  });
  app.addHook('onRequest', (req, _reply, done) => {
    const route = req.routeOptions.url;
    const parent = extractContext(req.headers);
    const span = startSpan(
      t,
      route ? `${req.method} ${route}` : req.method,
      SpanKind.SERVER,
      {
        'http.request.method': req.method,
        'url.path': req.url.split('?')[0],
        ...(route ? { 'http.route': route } : {}),
        'gatehouse.request_id': req.requestId,
      },
      parent,
    );
    req.otelSpan = span;
    req.otelContext = contextWith(parent, span);
    done();
  });
  const end = (req: FastifyRequest, status: number | null): void => {
    const s = req.otelSpan;
    if (!s) return;
    req.otelSpan = undefined;
    if (status === null) spanError(s, 'the client went away');
    else {
      s.setAttribute('http.response.status_code', status);
      if (status >= 500) spanError(s, `HTTP ${status}`);
    }
    s.end();
  };
  app.addHook('onResponse', (req, reply, done) => {
    end(req, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (req, done) => {
    end(req, null);
    done();
  });
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
    http: {
      requestTimeout: ms,
      headersTimeout: Math.min(60_000, ms),
      connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(ms / 4))),
    },
  };
}

/** Every /api answer (errors included) is not to be sniffed or cached. */
function apiHeaders(req: FastifyRequest, reply: FastifyReply): void {
  if (req.url.startsWith('/api/') || req.url === '/api')
    reply.header('x-content-type-options', 'nosniff').header('cache-control', 'no-store');
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
