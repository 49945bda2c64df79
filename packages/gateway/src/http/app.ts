/**
 * The Fastify app: request ids, the gateway's own time header, body parsers, and one route module per
 * API family. Route modules stay thin: decode, call a service, encode.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import type { Core } from '../core.ts';
import { requestId } from '../platform/ids.ts';
import { familyErrorHandler, sendError } from './errors.ts';
import { GatewayError } from '../platform/errors.ts';
import { safeEqual } from '../platform/crypto.ts';
import type { Services } from '../services.ts';
import { registerConsoleRoutes, serveConsoleFallback, type ConsoleSite } from './console-routes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    requestId: string;
    startedAt: bigint;
  }
  interface FastifyInstance {
    /** Every route as registered (method, URL pattern): the OpenAPI document is checked against it. */
    routeTable: Array<{ method: string; url: string }>;
  }
}

export interface AppDeps {
  core: Core;
  services: Services;
  /** The web console's build (http/console-routes.ts); null or absent: no console. */
  console?: ConsoleSite | null;
}

/** Serves the console for a request no route took (GET of a client route, a top-level build file). */
export function consoleFallback(deps: AppDeps, req: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply): boolean {
  return serveConsoleFallback(deps.console, req, reply, (path) => deps.services.protocols?.native.ownsPrefix(path) ?? false);
}

export type RouteModule = (app: FastifyInstance, deps: AppDeps) => Promise<void> | void;

export async function buildApp(deps: AppDeps, modules: RouteModule[]): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    bodyLimit: 64 * 1024 * 1024,
    trustProxy: deps.core.config.trustProxy,
    return503OnClosing: true,
    forceCloseConnections: true,
    routerOptions: { maxParamLength: 500, ignoreTrailingSlash: true },
  });
  const routeTable: Array<{ method: string; url: string }> = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (r) => {
    for (const m of [r.method].flat()) routeTable.push({ method: m, url: r.url });
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
  app.setErrorHandler(familyErrorHandler('openai'));
  app.setNotFoundHandler((req, reply) => {
    if (consoleFallback(deps, req, reply)) return reply;
    const fam = req.url.startsWith('/api/') ? 'admin' : req.url.startsWith('/v1beta/') ? 'gemini' : 'openai';
    return sendError(reply, fam, new GatewayError(404, 'not_found', `no route for ${req.method} ${req.url.split('?')[0]}`));
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
  if (deps.console) registerConsoleRoutes(app, deps.console);
  for (const m of modules) await m(app, deps);
  return app;
}
