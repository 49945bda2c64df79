/**
 * OpenAI-format model-call endpoints (SPEC §4.6): chat completions, completions, embeddings, model
 * list and model detail. Thin: decode, call the relay, let it answer.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../platform/errors.ts';
import type { RelayKind } from '../relay/providers.ts';
import type { AppDeps } from './app.ts';
import { requireKey } from './auth.ts';
import { familyErrorHandler } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: Buffer;
  }
}

export async function relayRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('openai'));
    // Keep the body bytes: an unchanged request is sent upstream as received.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (req, body, done) => {
      const buf = body as Buffer;
      (req as FastifyRequest).rawBody = buf;
      if (buf.length === 0) return done(new GatewayError(400, 'invalid_json', 'request body is empty; a JSON body is required'));
      try {
        done(null, JSON.parse(buf.toString('utf8')));
      } catch (e) {
        done(new GatewayError(400, 'invalid_json', `invalid JSON body: ${(e as Error).message}`));
      }
    });
    // Answers the relay did not write itself (errors, model lists) carry the gateway's time too.
    scope.addHook('onSend', async (req, reply, payload) => {
      if (!reply.hasHeader('x-gatehouse-time-ms')) reply.header('x-gatehouse-time-ms', (Number(process.hrtime.bigint() - req.startedAt) / 1e6).toFixed(2));
      return payload;
    });
    const auth = requireKey(deps);
    const relay = () => deps.services.relay.relay;

    const call = (kind: RelayKind, endpoint: string) => async (req: FastifyRequest, reply: FastifyReply) => {
      const body = req.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new GatewayError(400, 'invalid_json', 'the request body must be a JSON object');
      }
      const params = req.params as { model?: string };
      await relay().handle({
        kind, endpoint, principal: req.principal!, body: body as Record<string, unknown>, raw: req.rawBody ?? Buffer.from(JSON.stringify(body)),
        requestId: req.requestId, startedAt: req.startedAt, modelFromPath: params.model,
        client: { res: reply.raw, hijack: () => reply.hijack() },
      });
    };

    scope.post('/v1/chat/completions', { preHandler: auth }, call('chat', '/v1/chat/completions'));
    scope.post('/v1/completions', { preHandler: auth }, call('completions', '/v1/completions'));
    scope.post('/v1/embeddings', { preHandler: auth }, call('embeddings', '/v1/embeddings'));
    scope.post('/v1/engines/:model/embeddings', { preHandler: auth }, call('embeddings', '/v1/engines/{model}/embeddings'));

    scope.get('/v1/models', { preHandler: auth }, async (req) => {
      const models = relay().listModels(req.principal!);
      return { object: 'list', data: models.map(modelObject) };
    });
    scope.get('/v1/models/:model', { preHandler: auth }, async (req) => {
      const { model } = req.params as { model: string };
      if (!relay().listModels(req.principal!).includes(model)) {
        throw new GatewayError(404, 'model_not_found', `the model "${model}" does not exist or this key may not use it`);
      }
      return modelObject(model);
    });
  });
}

function modelObject(id: string) {
  return { id, object: 'model', created: 0, owned_by: 'gatehouse' };
}
