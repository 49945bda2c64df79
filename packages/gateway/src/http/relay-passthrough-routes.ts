/**
 * The OpenAI-format endpoints relayed as they are (relay/passthrough.ts): audio, rerank, moderations,
 * alpha search, Responses compaction and the reads of relay-created Responses ids, plus the realtime
 * WebSocket and Responses over a WebSocket (realtime-routes.ts). Images and `POST /v1/responses` arrive through the task protocol routes (plugins first).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fail } from '../platform/errors.ts';
import type { PassKind } from '../relay/pass-kinds.ts';
import type { AppDeps } from './deps.ts';
import { requireKey } from './auth.ts';
import { familyErrorHandler } from './errors.ts';
import { decodeRequestBody, registerUploadParsers } from './uploads.ts';
import { objectBody, prepareRelayScope } from './relay-scope.ts';
import { realtimeRoutes } from './realtime-routes.ts';

export const DEFAULT_MODERATION_MODEL = 'omni-moderation-latest';

export async function relayPassthroughRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const relay = () => deps.services.relay.relay;
  const auth = requireKey(deps);
  const client = (reply: FastifyReply) => ({ res: reply.raw, hijack: () => reply.hijack() });
  const timeHeader = (scope: FastifyInstance) =>
    scope.addHook('onSend', async (req, reply, payload) => {
      if (!reply.hasHeader('x-gatehouse-time-ms'))
        reply.header('x-gatehouse-time-ms', (Number(process.hrtime.bigint() - req.startedAt) / 1e6).toFixed(2));
      return payload;
    });

  // JSON bodies (kept as received).
  await app.register(async (scope) => {
    prepareRelayScope(scope, 'openai');
    const json = (kind: PassKind, endpoint: string) => async (req: FastifyRequest, reply: FastifyReply) => {
      let body = objectBody(req);
      let raw = req.rawBody ?? Buffer.from(JSON.stringify(body));
      if (kind === 'moderations' && (typeof body.model !== 'string' || !body.model)) {
        const def = deps.services.admin?.options.get('DefaultModerationModel') || DEFAULT_MODERATION_MODEL;
        body = { ...body, model: def };
        raw = Buffer.from(JSON.stringify(body));
      }
      await relay().pass.handle({
        kind,
        endpoint,
        principal: req.principal!,
        body,
        raw,
        headers: req.headers,
        scan: req.bodyScan,
        requestId: req.requestId,
        startedAt: req.startedAt,
        client: client(reply),
      });
    };
    scope.post('/v1/audio/speech', { onRequest: auth }, json('audio_speech', '/v1/audio/speech'));
    scope.post('/v1/rerank', { onRequest: auth }, json('rerank', '/v1/rerank'));
    scope.post('/v1/moderations', { onRequest: auth }, json('moderations', '/v1/moderations'));
    scope.post('/v1/alpha/search', { onRequest: auth }, json('alpha_search', '/v1/alpha/search'));
    scope.post('/v1/responses/compact', { onRequest: auth }, json('responses_compact', '/v1/responses/compact'));
  });

  // Multipart audio uploads (files held within the host's limits, re-encoded for the upstream).
  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('openai'));
    const limits = { totalBytes: deps.core.config.maxUploadBytes };
    await registerUploadParsers(scope, limits);
    timeHeader(scope);
    const audio = (kind: PassKind, endpoint: string) => async (req: FastifyRequest, reply: FastifyReply) => {
      const { body: decoded, files } = await decodeRequestBody(req, limits);
      if (decoded.kind !== 'multipart') throw fail('invalid_request', 'the request must be multipart/form-data with a "file" part');
      if (!files.some((f) => f.field === 'file')) throw fail('invalid_request', '"file" is required (an audio file part)');
      const body: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(decoded.fields)) if (v.length) body[k] = v[0];
      await relay().pass.handle({
        kind,
        endpoint,
        principal: req.principal!,
        body,
        raw: Buffer.alloc(0),
        requestId: req.requestId,
        startedAt: req.startedAt,
        client: client(reply),
        multipart: {
          fields: decoded.fields,
          files: files.map((f) => ({ field: f.field, filename: f.filename, mimeType: f.mimeType, data: f.data })),
        },
      });
    };
    scope.post('/v1/audio/transcriptions', { onRequest: auth }, audio('audio_transcriptions', '/v1/audio/transcriptions'));
    scope.post('/v1/audio/translations', { onRequest: auth }, audio('audio_translations', '/v1/audio/translations'));
  });

  // Reads of relay-created Responses (GET /v1/responses/{id} itself is in the protocol routes: plugins first).
  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('openai'));
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, _body, done) => done(null, null));
    timeHeader(scope);
    const op = (kind: 'delete' | 'cancel' | 'input_items', endpoint: string) => async (req: FastifyRequest, reply: FastifyReply) => {
      const { id } = req.params as { id: string };
      const i = req.url.indexOf('?');
      const served = await relay().pass.responseOp({
        principal: req.principal!,
        id,
        op: kind,
        query: i >= 0 ? req.url.slice(i + 1) : '',
        endpoint,
        requestId: req.requestId,
        startedAt: req.startedAt,
        client: client(reply),
      });
      if (!served) throw fail('not_found', `No response found with id '${id.slice(0, 80)}'.`, { type: 'invalid_request_error' });
      return reply;
    };
    scope.delete('/v1/responses/:id', { onRequest: auth }, op('delete', '/v1/responses/{id}'));
    scope.post('/v1/responses/:id/cancel', { onRequest: auth }, op('cancel', '/v1/responses/{id}/cancel'));
    scope.get('/v1/responses/:id/input_items', { onRequest: auth }, op('input_items', '/v1/responses/{id}/input_items'));
  });

  await realtimeRoutes(app, deps);
}
