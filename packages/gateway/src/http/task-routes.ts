/**
 * The generic task interface (SPEC §4.1): submit, query, artifact list and artifact content. Thin:
 * decode, call services.tasks, encode. Errors use the task family's OpenAI-style envelope.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { AppDeps } from './app.ts';
import { requireKey } from './auth.ts';
import { familyErrorHandler } from './errors.ts';
import { GatewayError } from '../platform/errors.ts';
import type { DecodedBody, UploadedFile } from '../tasks/lifecycle/service.ts';
import { fileRefOf } from '../tasks/outbound/request.ts';
import { verifyArtifact } from '../tasks/artifacts/links.ts';
import { listeningUrl } from '../tasks/index.ts';

const MAX_FILE_BYTES = 64 * 1024 * 1024;

async function decodeMultipart(req: FastifyRequest): Promise<{ body: DecodedBody; requestBody: Record<string, unknown>; files: UploadedFile[] }> {
  const fields: Record<string, string[]> = {};
  const files: UploadedFile[] = [];
  const perField = new Map<string, number>();
  for await (const part of req.parts({ limits: { files: 32, fields: 256, parts: 256, fileSize: MAX_FILE_BYTES, fieldSize: 1024 * 1024 } })) {
    if (part.type === 'file') {
      const data = await part.toBuffer();
      const i = perField.get(part.fieldname) ?? 0;
      perField.set(part.fieldname, i + 1);
      files.push({
        ref: i === 0 ? `request_file:${part.fieldname}` : `request_file:${part.fieldname}#${i}`,
        field: part.fieldname, filename: part.filename, mimeType: part.mimetype || 'application/octet-stream', size: data.length, data,
      });
    } else {
      (fields[part.fieldname] ??= []).push(String(part.value));
    }
  }
  const requestBody: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) requestBody[k] = v.length === 1 ? v[0] : v;
  return { body: { kind: 'multipart', fields, files: files.map(fileRefOf) }, requestBody, files };
}

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
    await scope.register(multipart, { limits: { fileSize: MAX_FILE_BYTES } });
    const auth = requireKey(deps);
    const tasks = deps.services.tasks;

    scope.post<{ Params: { id: string } }>('/v1/tasks/:id', { preHandler: auth }, async (req, reply) => {
      const principal = req.principal!;
      let body: DecodedBody;
      let requestBody: unknown;
      let files: UploadedFile[] = [];
      if (req.isMultipart()) {
        ({ body, requestBody, files } = await decodeMultipart(req));
      } else {
        if (!req.body || typeof req.body !== 'object' || Array.isArray(req.body)) throw new GatewayError(400, 'invalid_request', 'the body must be a JSON object with "model"');
        requestBody = req.body;
        body = { kind: 'json', value: req.body };
      }
      const model = (requestBody as Record<string, unknown>).model;
      if (typeof model !== 'string' || !model) throw new GatewayError(400, 'model_required', 'the request needs a "model" string');
      const ctype = req.headers['content-type'];
      const requestHeaders: Record<string, string> = {};
      if (typeof ctype === 'string') requestHeaders['Content-Type'] = ctype;
      if (typeof req.headers.accept === 'string') requestHeaders.Accept = req.headers.accept;
      const { task } = await tasks.submit({
        principal, pluginKey: req.params.id, model, requestBody, body, files,
        path: req.url.split('?')[0], method: 'POST', params: { pluginKey: req.params.id }, query: flatQuery(req.query), requestHeaders,
      });
      return reply.send({ id: task.task_id, task_id: task.task_id, status: 'queued', model: task.model, created_at: task.created_at });
    });

    scope.get<{ Params: { id: string } }>('/v1/tasks/:id', { preHandler: auth }, async (req) => {
      return tasks.get(req.principal!.userId, req.params.id);
    });

    scope.get<{ Params: { id: string } }>('/v1/tasks/:id/artifacts', { preHandler: auth }, async (req, reply) => {
      const out = await tasks.artifacts.list(req.principal!.userId, req.params.id);
      return reply.header('cache-control', 'private, no-store').send(out);
    });

    const content = async (req: FastifyRequest<{ Params: { id: string; key: string }; Querystring: { access?: string; download?: string } }>, reply: FastifyReply) => {
      const { id, key } = req.params;
      let userId: number | null;
      const access = req.query.access;
      if (access !== undefined) {
        if (!verifyArtifact(deps.core.config.cryptoSecret, id, key, access)) throw new GatewayError(404, 'artifact_not_found', 'artifact not found');
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
    scope.route({ method: ['GET', 'HEAD'], url: '/v1/tasks/:id/artifacts/:key/content', exposeHeadRoute: false, handler: content as never });
  });
}
