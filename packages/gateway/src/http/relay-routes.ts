/**
 * OpenAI-format model-call endpoints (docs/relay.md): chat completions, completions, embeddings, the web
 * playground chat, model list and model detail (in the caller's family). Thin: decode, call the relay,
 * let it answer. The messages-style and Gemini-native endpoints are in relay-family-routes.ts.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { echo, fail } from '../platform/errors.ts';
import { callerVendorHeaders, OPENAI_CALLER_HEADERS, type RelayKind } from '../relay/providers/endpoint.ts';
import type { AppDeps } from './deps.ts';
import { admitRequest, requireKey, requireUser } from './auth.ts';
import { budgetsOf } from '../accounts/keys.ts';
import { sendError } from './errors.ts';
import { objectBody, prepareRelayScope } from './relay-scope.ts';
import { listFamily, modelDetail, modelList } from './model-lists.ts';
import { relayFamilyRoutes } from './relay-family-routes.ts';
import { relayPassthroughRoutes } from './relay-passthrough-routes.ts';

export async function relayRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  await app.register(async (scope) => {
    prepareRelayScope(scope, 'openai');
    const auth = requireKey(deps);
    const relay = () => deps.services.relay.relay;

    const call = (kind: RelayKind, endpoint: string) => async (req: FastifyRequest, reply: FastifyReply) => {
      const body = objectBody(req);
      const params = req.params as { model?: string };
      await relay().handle({
        kind,
        endpoint,
        principal: req.principal!,
        body,
        raw: req.rawBody ?? Buffer.from(JSON.stringify(body)),
        scan: req.bodyScan,
        requestId: req.requestId,
        startedAt: req.startedAt,
        modelFromPath: params.model,
        client: { res: reply.raw, hijack: () => reply.hijack() },
        vendorHeaders: callerVendorHeaders(req.headers, OPENAI_CALLER_HEADERS),
        headers: req.headers,
      });
    };

    scope.post('/v1/chat/completions', { onRequest: auth }, call('chat', '/v1/chat/completions'));
    scope.post('/v1/completions', { onRequest: auth }, call('completions', '/v1/completions'));
    scope.post('/v1/embeddings', { onRequest: auth }, call('embeddings', '/v1/embeddings'));
    scope.post('/v1/engines/:model/embeddings', { onRequest: auth }, call('embeddings', '/v1/engines/{model}/embeddings'));

    // Web playground: the login session instead of a key; the user's group; billed to the user (no key).
    scope.post('/pg/chat/completions', { onRequest: requireUser(deps) }, async (req, reply) => {
      const u = req.user!;
      await admitRequest(deps, reply, u.id, u.group);
      let body = objectBody(req);
      let raw = req.rawBody ?? Buffer.from(JSON.stringify(body));
      if (body.group !== undefined) {
        if (body.group !== u.group) throw fail('group_not_allowed', `the playground uses your group "${u.group}"`);
        const { group: _g, ...rest } = body;
        body = rest;
        raw = Buffer.from(JSON.stringify(body));
      }
      const policy = deps.services.accounts.keys.userPolicy(u.id);
      await relay().handle({
        kind: 'chat',
        endpoint: '/pg/chat/completions',
        body,
        raw,
        requestId: req.requestId,
        startedAt: req.startedAt,
        principal: {
          keyId: null,
          keyName: null,
          userId: u.id,
          username: u.username,
          userRole: u.role,
          group: u.group,
          unlimitedQuota: true,
          models: null,
          keyLimits: null,
          userLimits: policy.limits,
          budgets: budgetsOf(null, policy.budget),
        },
        client: { res: reply.raw, hijack: () => reply.hijack() },
      });
    });

    // The model list answers in the family the request looks like (docs/relay.md).
    const listErrors = (err: unknown, req: FastifyRequest, reply: FastifyReply) => sendError(reply, listFamily(req), err);
    scope.get('/v1/models', { onRequest: auth, errorHandler: listErrors }, async (req) => {
      const models = relay().listModels(req.principal!);
      return modelList(listFamily(req), models, req.query as Record<string, unknown>);
    });
    scope.get('/v1/models/:model', { onRequest: auth, errorHandler: listErrors }, async (req) => {
      const { model } = req.params as { model: string };
      const id = model.replace(/^models\//, '');
      if (!relay().listModels(req.principal!).includes(id)) {
        throw fail('model_not_found', { model: echo(model) });
      }
      return modelDetail(listFamily(req), id);
    });
  });
  await relayFamilyRoutes(app, deps);
  await relayPassthroughRoutes(app, deps);
}
