/**
 * Plugin native routes (docs/protocols.md). One catch-all route: the current generation's route index
 * decides by method and normalised path shape; anything unmatched is the web console's client route
 * (http/console-routes.ts) or the app's 404.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { echo, fail } from '../platform/errors.ts';
import type { KeyPrincipal } from '../accounts/types.ts';
import { consoleFallback } from './app.ts';
import type { AppDeps } from './deps.ts';
import { admitRequest, extractApiKey } from './auth.ts';
import { sendError } from './errors.ts';
import { callbackUrlOf, pathOf, queryOf, requestHeadersOf } from './protocol-routes.ts';
import { decodeRequestBody, registerUploadParsers } from './uploads.ts';

export async function nativeRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  await app.register(async (scope) => {
    const limits = { totalBytes: deps.core.config.maxUploadBytes };
    await registerUploadParsers(scope, limits);
    scope.setErrorHandler((err, req, reply) => sendError(reply, req.url.startsWith('/api/') ? 'admin' : 'openai', err));
    // Matched and authenticated before the body is read: nothing is buffered for an unknown route or a bad key.
    const matched = new WeakMap<
      FastifyRequest,
      { hit: NonNullable<ReturnType<typeof deps.services.protocols.native.match>>; principal: KeyPrincipal }
    >();
    const admit = async (req: FastifyRequest, reply: FastifyReply) => {
      const path = pathOf(req);
      const hit = deps.services.protocols.native.match(req.method, path);
      if (!hit) {
        if (consoleFallback(deps, req, reply)) return reply;
        const fam = req.url.startsWith('/api/') ? 'admin' : req.url.startsWith('/v1beta/') ? 'gemini' : 'openai';
        return sendError(reply, fam, fail('not_found', `no route for ${req.method} ${echo(path)}`));
      }
      const principal = deps.services.accounts.keys.authenticate(extractApiKey(req), req.ip);
      if (req.method !== 'GET') await admitRequest(deps, reply, principal.userId, principal.group);
      matched.set(req, { hit, principal });
    };
    const handler = async (req: FastifyRequest, reply: FastifyReply) => {
      const { hit, principal } = matched.get(req)!;
      const { body, files } = await decodeRequestBody(req, limits);
      const out = await deps.services.protocols.native.serve(hit.gen, hit.m, {
        principal,
        method: req.method,
        path: pathOf(req),
        query: queryOf(req),
        body,
        files,
        requestHeaders: requestHeadersOf(req),
        requestId: req.requestId,
        limitHeaders: reply.raw,
        ...(callbackUrlOf(req) !== undefined ? { callbackUrl: callbackUrlOf(req) } : {}),
      });
      return reply
        .code(out.status)
        .type('application/json')
        .send(JSON.stringify(out.body ?? null));
    };
    scope.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], url: '/*', onRequest: admit, handler });
  });
}
