/**
 * Host protocol endpoints (docs/protocols.md): images, videos and Responses served by task plugins.
 * Models no plugin claims go to the ordinary relay when it serves the path, else 503. Thin: decode
 * the body (files kept by the host, plugins get references), call the protocol host, encode.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { echo, GatewayError, fail } from '../platform/errors.ts';
import type { ProtocolRequest } from '../protocols/host.ts';
import { requestModel } from '../protocols/host.ts';
import type { AppDeps } from './deps.ts';
import { requireKey } from './auth.ts';
import { familyErrorHandler } from './errors.ts';
import { decodeRequestBody, registerUploadParsers } from './uploads.ts';
import { callerVendorHeaders, OPENAI_CALLER_HEADERS } from '../relay/providers/endpoint.ts';
import type { PassKind } from '../relay/pass-kinds.ts';
import { servePassCall } from '../relay/responses-route.ts';

export function queryOf(req: FastifyRequest): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const i = req.url.indexOf('?');
  if (i >= 0) for (const [k, v] of new URLSearchParams(req.url.slice(i + 1))) (out[k] ??= []).push(v);
  return out;
}

export function requestHeadersOf(req: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  const ct = req.headers['content-type'];
  const ac = req.headers.accept;
  if (typeof ct === 'string') out['Content-Type'] = ct;
  if (typeof ac === 'string') out.Accept = ac;
  return out;
}

export const pathOf = (req: FastifyRequest): string => req.url.split('?')[0];

/** The `X-Callback-URL` header of a task submission (never passed to plugins); undefined when absent. */
export function callbackUrlOf(req: FastifyRequest): string | undefined {
  const v = req.headers['x-callback-url'];
  return typeof v === 'string' ? v : Array.isArray(v) ? v[0] : undefined;
}

/** An AbortSignal that fires when the client goes away before the answer is sent. */
export function clientGone(req: FastifyRequest, reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) ac.abort();
  });
  req.raw.on('aborted', () => ac.abort());
  return ac.signal;
}

export async function protocolRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const host = () => deps.services.protocols.host;
  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('openai'));
    const limits = { totalBytes: deps.core.config.maxUploadBytes };
    await registerUploadParsers(scope, limits);
    const auth = requireKey(deps);

    const build = async (req: FastifyRequest, reply: FastifyReply, params: Record<string, string> = {}): Promise<ProtocolRequest> => {
      const { body, files } = await decodeRequestBody(req, limits);
      return {
        principal: req.principal!,
        path: pathOf(req),
        method: req.method,
        params,
        query: queryOf(req),
        body,
        files,
        requestHeaders: requestHeadersOf(req),
        requestId: req.requestId,
        signal: clientGone(req, reply),
        limitHeaders: reply.raw,
        ...(callbackUrlOf(req) !== undefined ? { callbackUrl: callbackUrlOf(req) } : {}),
      };
    };

    /** No plugin claims the model: the ordinary relay when it serves the path, else 503. */
    const toRelay = async (kind: PassKind, endpoint: string, pr: ProtocolRequest, req: FastifyRequest, reply: FastifyReply) => {
      const relay = deps.services.relay.relay;
      const model = requestModel(pr.body) ?? '';
      if (relay.handles(endpoint)) {
        const common = {
          kind,
          endpoint,
          principal: pr.principal,
          requestId: req.requestId,
          startedAt: req.startedAt,
          client: { res: reply.raw, hijack: () => reply.hijack() },
          vendorHeaders: callerVendorHeaders(req.headers, OPENAI_CALLER_HEADERS),
        };
        if (pr.body.kind === 'json' && pr.body.value && typeof pr.body.value === 'object' && !Array.isArray(pr.body.value)) {
          await servePassCall(deps.services.relay, {
            ...common,
            body: pr.body.value as Record<string, unknown>,
            raw: Buffer.from(JSON.stringify(pr.body.value)),
          });
          return reply;
        }
        if (pr.body.kind === 'multipart' || pr.body.kind === 'form') {
          // Multipart (or form) fields and held files; the relay re-encodes them for the upstream.
          const fields = pr.body.fields;
          const body: Record<string, unknown> = {};
          for (const [k, v] of Object.entries(fields)) if (v.length) body[k] = v[0];
          const files = (pr.files ?? []).map((f) => ({ field: f.field, filename: f.filename, mimeType: f.mimeType, data: f.data }));
          await servePassCall(deps.services.relay, { ...common, body, raw: Buffer.alloc(0), multipart: { fields, files } });
          return reply;
        }
        throw fail('invalid_json', 'the request body must be a JSON object or multipart/form-data');
      }
      throw fail('model_not_found', `no channel or task plugin serves model "${echo(model)}" on ${endpoint}`);
    };

    const image = (operation: 'generate' | 'edit', endpoint: string) => async (req: FastifyRequest, reply: FastifyReply) => {
      const pr = await build(req, reply);
      const out = await host().image(pr, operation);
      if (!out) return toRelay(operation === 'edit' ? 'image_edits' : 'images', endpoint, pr, req, reply);
      return out;
    };
    scope.post('/v1/images/generations', { onRequest: auth }, image('generate', '/v1/images/generations'));
    scope.post('/v1/images/edits', { onRequest: auth }, image('edit', '/v1/images/edits'));
    scope.post('/v1/edits', { onRequest: auth }, image('edit', '/v1/edits'));

    scope.post('/v1/videos', { onRequest: auth }, async (req, reply) => {
      const pr = await build(req, reply);
      const out = await host().videoCreate(pr);
      if (!out) throw fail('model_not_found', `no task plugin serves video model "${echo(requestModel(pr.body) ?? '')}"`);
      return out;
    });
    scope.get('/v1/videos/:id', { onRequest: auth }, async (req) => {
      const { id } = req.params as { id: string };
      return host().videoGet(req.principal!, id, { path: pathOf(req), query: queryOf(req) });
    });
    const content = async (req: FastifyRequest, reply: FastifyReply) => {
      const { id } = req.params as { id: string };
      const headers: Record<string, string> = {};
      for (const h of ['range', 'if-range', 'if-none-match', 'if-modified-since']) {
        const v = req.headers[h];
        if (typeof v === 'string') headers[h] = v;
      }
      const r = await host().videoContent(req.principal!, id, req.method, headers);
      reply.code(r.status);
      for (const [k, v] of Object.entries(r.headers)) reply.header(k, v);
      reply.header('cache-control', 'private, no-store');
      if (req.method === 'HEAD' || !r.body) return reply.send();
      return reply.send(r.body);
    };
    scope.get('/v1/videos/:id/content', { onRequest: auth, exposeHeadRoute: false }, content);
    scope.head('/v1/videos/:id/content', { onRequest: auth }, content);

    scope.post('/v1/responses', { onRequest: auth }, async (req, reply) => {
      const pr = await build(req, reply);
      const out = await host().responsesCreate(pr);
      if (!out) return toRelay('responses', '/v1/responses', pr, req, reply);
      if (out.kind === 'json') return out.body;
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-request-id': req.requestId,
      });
      let closed = false;
      res.on('close', () => {
        closed = true;
      });
      await out
        .run({
          write: (s) => {
            if (!closed) res.write(s);
          },
          closed: () => closed,
          end: () => {
            if (!closed) res.end();
          },
        })
        .catch((e: unknown) => {
          deps.core.log.warn({ err: (e as Error).message, requestId: req.requestId }, 'responses stream ended with an error');
          if (!closed) res.end();
        });
      return reply;
    });
    scope.get('/v1/responses/:id', { onRequest: auth }, async (req, reply) => {
      const { id } = req.params as { id: string };
      try {
        return await host().responsesGet(req.principal!, id, { path: pathOf(req), query: queryOf(req) });
      } catch (e) {
        // Not a plugin-created response: one the relay created is read from the channel that made it.
        const pass = deps.services.relay.relay.pass;
        if (!(e instanceof GatewayError) || e.status !== 404) throw e;
        const i = req.url.indexOf('?');
        const served = await pass.responseOp({
          principal: req.principal!,
          id,
          op: 'get',
          query: i >= 0 ? req.url.slice(i + 1) : '',
          endpoint: '/v1/responses/{id}',
          requestId: req.requestId,
          startedAt: req.startedAt,
          client: { res: reply.raw, hijack: () => reply.hijack() },
        });
        if (!served) throw e;
        return reply;
      }
    });
  });
}
