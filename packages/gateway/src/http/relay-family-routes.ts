/**
 * The messages-style API (`/v1/messages`, `/v1/messages/count_tokens`) and the Gemini-native model
 * actions (`/v1beta/models/{model}:{action}`, `/v1/models/{model}:{action}`) plus the Gemini-style
 * model list. Both go through the one relay (routing, conversion, retries, billing, logs); errors use
 * each family's envelope.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { echo, fail } from '../platform/errors.ts';
import type { GeminiEmbedAction } from '../relay/providers/gemini/embed.ts';
import { ANTHROPIC_CALLER_HEADERS, callerVendorHeaders } from '../relay/providers/endpoint.ts';
import type { AppDeps } from './deps.ts';
import { requireKey } from './auth.ts';
import { geminiModel, geminiModelList } from '../relay/providers/gemini/models.ts';
import { openaiModelList } from '../relay/providers/openai/models.ts';
import { objectBody, prepareRelayScope } from './relay-scope.ts';

const GEMINI_ACTIONS = new Set(['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'batchEmbedContents']);

/** `{model}:{action}` from the rest of a path (`gemini-2.0-flash:generateContent`). */
export function parseModelAction(rest: string): { model: string; action: string | null } {
  let s = rest;
  try {
    s = decodeURIComponent(rest);
  } catch {
    /* keep as is */
  }
  s = s.replace(/^models\//, '');
  const i = s.lastIndexOf(':');
  return i < 0 ? { model: s, action: null } : { model: s.slice(0, i), action: s.slice(i + 1) };
}

export async function relayFamilyRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const relay = () => deps.services.relay.relay;
  const auth = requireKey(deps);
  const client = (reply: FastifyReply) => ({ res: reply.raw, hijack: () => reply.hijack() });

  // ---------- messages-style ----------
  await app.register(async (scope) => {
    prepareRelayScope(scope, 'anthropic');
    scope.post('/v1/messages', { onRequest: auth }, async (req, reply) => {
      const body = objectBody(req);
      if (!Array.isArray(body.messages)) throw fail('invalid_request', 'messages: Field required (a list of {role, content})');
      await relay().handle({
        kind: 'chat',
        inbound: 'anthropic',
        endpoint: '/v1/messages',
        principal: req.principal!,
        body,
        raw: req.rawBody ?? Buffer.from(JSON.stringify(body)),
        scan: req.bodyScan,
        requestId: req.requestId,
        startedAt: req.startedAt,
        client: client(reply),
        vendorHeaders: callerVendorHeaders(req.headers, ANTHROPIC_CALLER_HEADERS),
        headers: req.headers,
      });
    });
    scope.post('/v1/messages/count_tokens', { onRequest: auth }, async (req) => {
      const body = objectBody(req);
      if (typeof body.model !== 'string' || !body.model) throw fail('invalid_request', 'model: Field required');
      if (!Array.isArray(body.messages)) throw fail('invalid_request', 'messages: Field required (a list of {role, content})');
      const n = await relay().countPromptTokens(req.principal!, 'anthropic', body.model, { ...body, max_tokens: 1 });
      return { input_tokens: n };
    });
  });

  // ---------- Gemini-native ----------
  await app.register(async (scope) => {
    prepareRelayScope(scope, 'gemini');
    const action = (prefix: string) => async (req: FastifyRequest, reply: FastifyReply) => {
      const { model, action: act } = parseModelAction((req.params as Record<string, string>)['*'] ?? '');
      if (!model || !act || !GEMINI_ACTIONS.has(act)) {
        throw fail('not_found', `unknown model action "${echo(act ?? '')}" (one of ${[...GEMINI_ACTIONS].join(', ')})`);
      }
      const body = objectBody(req);
      if (act === 'countTokens') {
        const inner = body.generateContentRequest && typeof body.generateContentRequest === 'object' ? body.generateContentRequest : body;
        const n = await relay().countPromptTokens(req.principal!, 'gemini', model, inner as Record<string, unknown>);
        return { totalTokens: n };
      }
      const embed = act === 'embedContent' || act === 'batchEmbedContents';
      const stream = act === 'streamGenerateContent';
      if (!embed && !Array.isArray(body.contents)) throw fail('invalid_request', '"contents" is required and must be a list');
      const alt = (req.query as Record<string, unknown>).alt;
      await relay().handle({
        kind: embed ? 'embeddings' : 'chat',
        inbound: 'gemini',
        endpoint: `${prefix}/models/{model}:${act}`,
        principal: req.principal!,
        body,
        headers: req.headers,
        raw: req.rawBody ?? Buffer.from(JSON.stringify(body)),
        scan: req.bodyScan,
        requestId: req.requestId,
        startedAt: req.startedAt,
        client: client(reply),
        modelFromPath: model,
        stream,
        jsonArrayStream: stream && alt !== 'sse',
        geminiAction: embed ? (act as GeminiEmbedAction) : undefined,
      });
    };
    scope.post('/v1beta/models/*', { onRequest: auth }, action('/v1beta'));
    scope.post('/v1/models/*', { onRequest: auth }, action('/v1'));

    scope.get('/v1beta/models', { onRequest: auth }, async (req) =>
      geminiModelList(relay().listModels(req.principal!), req.query as Record<string, unknown>),
    );
    scope.get('/v1beta/models/*', { onRequest: auth }, async (req) => {
      const { model } = parseModelAction((req.params as Record<string, string>)['*'] ?? '');
      if (!relay().listModels(req.principal!).includes(model)) {
        throw fail('model_not_found', `models/${echo(model)} is not found or this key may not use it`);
      }
      return geminiModel(model);
    });
  });

  // OpenAI-style list under the Gemini-compatible namespace.
  await app.register(async (scope) => {
    prepareRelayScope(scope, 'openai');
    scope.get('/v1beta/openai/models', { onRequest: auth }, async (req) => openaiModelList(relay().listModels(req.principal!)));
  });
}
