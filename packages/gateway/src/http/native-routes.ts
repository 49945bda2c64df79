/**
 * Plugin native routes (SPEC §4.5). One catch-all route: the current generation's route index
 * decides by method and normalised path shape; anything unmatched is the web console's client route
 * (http/console-routes.ts) or the app's 404.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../platform/errors.ts';
import { consoleFallback, type AppDeps } from './app.ts';
import { admitRequest, extractApiKey } from './auth.ts';
import { sendError } from './errors.ts';
import { decodeRequestBody, pathOf, queryOf, registerTaskBodyParsers, requestHeadersOf } from './protocol-routes.ts';

export async function nativeRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  await app.register(async (scope) => {
    await registerTaskBodyParsers(scope);
    scope.setErrorHandler((err, req, reply) => sendError(reply, req.url.startsWith('/api/') ? 'admin' : 'openai', err));
    const handler = async (req: FastifyRequest, reply: FastifyReply) => {
      const native = deps.services.protocols.native;
      const path = pathOf(req);
      const hit = native.match(req.method, path);
      if (!hit) {
        if (consoleFallback(deps, req, reply)) return reply;
        const fam = req.url.startsWith('/api/') ? 'admin' : req.url.startsWith('/v1beta/') ? 'gemini' : 'openai';
        return sendError(reply, fam, new GatewayError(404, 'not_found', `no route for ${req.method} ${path}`));
      }
      const principal = deps.services.accounts.keys.authenticate(extractApiKey(req), req.ip);
      if (req.method !== 'GET') await admitRequest(deps, reply, principal.userId, principal.group);
      const { body, files } = await decodeRequestBody(req);
      const out = await native.serve(hit.gen, hit.m, {
        principal, method: req.method, path, query: queryOf(req), body, files, requestHeaders: requestHeadersOf(req), requestId: req.requestId,
      });
      return reply.code(out.status).type('application/json').send(JSON.stringify(out.body ?? null));
    };
    scope.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], url: '/*', handler });
  });
}
