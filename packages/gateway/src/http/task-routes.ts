/**
 * The generic task interface (docs/tasks.md): submit, query, artifact list and artifact content. Thin:
 * decode, call services.tasks, encode. Errors use the task family's OpenAI-style envelope.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from './deps.ts';
import { requireKey } from './auth.ts';
import { familyErrorHandler } from './errors.ts';
import { fail } from '../platform/errors.ts';
import type { Generation } from '../plugins/runtime/generation.ts';
import { verifyArtifact } from '../tasks/artifacts/links.ts';
import { decodeRequestBody, registerUploadParsers } from './uploads.ts';
import { callbackUrlOf } from './protocol-routes.ts';

function flatQuery(q: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries((q ?? {}) as Record<string, unknown>)) {
    if (k === 'key' || k === 'access') continue;
    out[k] = Array.isArray(v) ? v.map(String) : [String(v)];
  }
  return out;
}

export async function taskRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.server.once('listening', () => {
    const u = listeningUrl(app.server.address());
    if (u) deps.services.tasks.setListeningUrl(u);
  });
  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('task'));
    const limits = { totalBytes: deps.core.config.maxUploadBytes };
    await registerUploadParsers(scope, limits);
    const auth = requireKey(deps);
    const tasks = deps.services.tasks;

    // The key, then the plugin, before any of the body is read: nothing is buffered for a bad key or an
    // unknown plugin. The request keeps the plugin generation it was checked against.
    const pinned = new WeakMap<FastifyRequest, Generation>();
    const pluginExists = (req: FastifyRequest<{ Params: { id: string } }>, _reply: FastifyReply, done: (err?: Error) => void) => {
      try {
        const gen = tasks.service.generation();
        tasks.service.plugin(req.params.id, gen);
        pinned.set(req, gen);
        done();
      } catch (e) {
        done(e as Error);
      }
    };

    scope.post<{ Params: { id: string } }>('/v1/tasks/:id', { onRequest: [auth, pluginExists] }, async (req, reply) => {
      const principal = req.principal!;
      const { body, files } = await decodeRequestBody(req, limits);
      let requestBody: Record<string, unknown>;
      if (body.kind === 'json' && body.value && typeof body.value === 'object' && !Array.isArray(body.value)) {
        requestBody = body.value as Record<string, unknown>;
      } else if (body.kind === 'multipart' || body.kind === 'form') {
        requestBody = {};
        for (const [k, v] of Object.entries(body.fields)) requestBody[k] = v.length === 1 ? v[0] : v;
      } else {
        throw fail('invalid_request', 'the body must be a JSON object with "model"');
      }
      const model = (requestBody as Record<string, unknown>).model;
      if (typeof model !== 'string' || !model) throw fail('model_required');
      const ctype = req.headers['content-type'];
      const requestHeaders: Record<string, string> = {};
      if (typeof ctype === 'string') requestHeaders['Content-Type'] = ctype;
      if (typeof req.headers.accept === 'string') requestHeaders.Accept = req.headers.accept;
      const { task } = await tasks.submit({
        principal,
        pluginKey: req.params.id,
        model,
        requestBody,
        body,
        files,
        generation: pinned.get(req),
        path: req.url.split('?')[0],
        method: 'POST',
        params: { pluginKey: req.params.id },
        query: flatQuery(req.query),
        requestHeaders,
        ...(callbackUrlOf(req) !== undefined ? { callbackUrl: callbackUrlOf(req) } : {}),
        limitHeaders: reply.raw,
      });
      return reply.send({ id: task.task_id, task_id: task.task_id, status: 'queued', model: task.model, created_at: task.created_at });
    });

    scope.get<{ Params: { id: string } }>('/v1/tasks/:id', { onRequest: auth }, async (req) => {
      return tasks.get(req.principal!.userId, req.params.id);
    });

    scope.get<{ Params: { id: string } }>('/v1/tasks/:id/artifacts', { onRequest: auth }, async (req, reply) => {
      const out = await tasks.artifacts.list(req.principal!.userId, req.params.id);
      return reply.header('cache-control', 'private, no-store').send(out);
    });

    const content = async (
      req: FastifyRequest<{ Params: { id: string; key: string }; Querystring: { access?: string; download?: string } }>,
      reply: FastifyReply,
    ) => {
      const { id, key } = req.params;
      let userId: number | null;
      const access = req.query.access;
      if (access !== undefined) {
        if (!verifyArtifact(deps.core.config.cryptoSecret, id, key, access)) throw fail('artifact_not_found');
        userId = null;
      } else {
        await auth(req);
        userId = req.principal!.userId;
      }
      const res = await tasks.artifacts.content(userId, id, key, req.method === 'HEAD' ? 'HEAD' : 'GET', req.headers);
      reply.code(res.status).headers(res.headers);
      if (req.query.download === '1') reply.header('content-disposition', `attachment; filename="${key.replace(/["\\]/g, '_')}"`);
      return reply.send(res.body ?? undefined);
    };
    scope.route({
      method: ['GET', 'HEAD'],
      url: '/v1/tasks/:id/artifacts/:key/content',
      exposeHeadRoute: false,
      handler: content as never,
    });
  });
}

/** Records the address the server listens on (used for links when no public address is set). */
export function listeningUrl(addr: AddressInfo | string | null): string | null {
  if (!addr || typeof addr === 'string') return null;
  const host = addr.address === '0.0.0.0' || addr.address === '::' ? '127.0.0.1' : addr.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
}
