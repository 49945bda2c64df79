/**
 * /api/plugin/task: plugin administration for root (docs/plugins.md), envelope
 * {success, message, data}. Thin: decode, call the plugin admin service, encode.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import { InUseError } from '../plugins/admin/service.ts';
import { testGuardrail } from '../plugins/admin/guardrail-test.ts';
import { ok } from './envelope.ts';

type KeyParams = { key: string };

export async function pluginAdminRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const host = deps.services.plugins;
  const { admin, market } = host;
  await app.register(async (api) => {
    api.setErrorHandler((err, req, reply: FastifyReply) => {
      if (err instanceof InUseError) return reply.code(409).send({ success: false, message: err.message, data: err.data });
      return familyErrorHandler('admin')(err, req, reply);
    });
    api.addHook('onRequest', requireUser(deps, 'root'));
    const P = '/api/plugin/task';
    const flag = (q: unknown, name: string) => {
      const v = (q as Record<string, unknown> | undefined)?.[name];
      return v === 'true' || v === '1' || v === true;
    };

    api.get(P, async () => ok(await admin.list()));
    const upload = async (req: import('fastify').FastifyRequest) =>
      ok(await admin.upload((req.body ?? {}) as Record<string, unknown>, req.user));
    api.post(P, upload);
    api.put(P, upload);
    api.get(`${P}/runtime/status`, async () => ok(await host.runtimeStatus()));
    api.get(`${P}/marketplace/sources`, async () => ok(await market.sources()));
    api.put(`${P}/marketplace/sources`, async (req) => ok(await market.setSources(req.body, req.user)));
    api.get(`${P}/marketplace/index`, async (req) => {
      const { url, index } = await market.fetchIndex((req.query ?? {}) as Record<string, unknown>);
      return ok({ index_url: url.href, index });
    });
    api.post(`${P}/marketplace/install`, async (req) => ok(await market.install((req.body ?? {}) as Record<string, unknown>, req.user)));
    api.get<{ Params: KeyParams; Querystring: { version?: string } }>(`${P}/:key`, async (req) =>
      ok(await admin.detail(req.params.key, req.query.version)),
    );
    api.get<{ Params: KeyParams; Querystring: { version?: string } }>(`${P}/:key/icon`, async (req, reply) => {
      const icon = await admin.icon(req.params.key, req.query.version);
      if (!icon) return reply.code(404).send({ success: false, message: 'no icon', data: null });
      return reply
        .header('content-type', icon.type)
        .header('cache-control', 'private, max-age=3600')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
        .send(icon.bytes);
    });
    api.get<{ Params: KeyParams }>(`${P}/:key/versions`, async (req) => ok(await admin.versions(req.params.key)));
    api.post<{ Params: KeyParams }>(`${P}/:key/activate`, async (req) => {
      const b = (req.body ?? {}) as { version?: unknown; force?: unknown };
      return ok(await admin.activate(req.params.key, b.version, b.force === true || flag(req.query, 'force'), req.user));
    });
    api.post<{ Params: KeyParams }>(`${P}/:key/status`, async (req) => {
      const b = (req.body ?? {}) as { enabled?: unknown };
      return ok(
        await admin.setStatus(
          req.params.key,
          b.enabled,
          { cascade: flag(req.query, 'cascade'), force: flag(req.query, 'force') },
          req.user,
        ),
      );
    });
    api.post<{ Params: KeyParams }>(`${P}/:key/dryrun`, async (req) =>
      ok(await admin.dryRun(req.params.key, (req.body ?? {}) as Record<string, unknown>)),
    );
    // Guardrail plugins (docs/guardrails.md): same table and sandbox, their own listing and test.
    const G = '/api/plugin/guardrail';
    api.get(G, async () => ok(await admin.listGuardrails()));
    const uploadGuardrail = async (req: import('fastify').FastifyRequest) =>
      ok(await admin.upload((req.body ?? {}) as Record<string, unknown>, req.user, 'guardrail'));
    api.post(G, uploadGuardrail);
    api.put(G, uploadGuardrail);
    api.get(`${G}/stats`, async () => ok(Object.fromEntries(deps.services.relay.guardrails.counts)));
    api.post<{ Params: KeyParams }>(`${G}/:key/test`, async (req) =>
      ok(await testGuardrail(host, req.params.key, (req.body ?? {}) as Record<string, unknown>)),
    );
    api.post<{ Params: KeyParams }>(`${G}/:key/status`, async (req) =>
      ok(await admin.setStatus(req.params.key, ((req.body ?? {}) as { enabled?: unknown }).enabled, {}, req.user)),
    );
    // MCP tool plugins (docs/mcp.md): served at /mcp as a server named by the plugin key.
    const T = '/api/plugin/mcp_tool';
    api.get(T, async () => ok(await admin.listGuardrails('mcp_tool')));
    const uploadTool = async (req: import('fastify').FastifyRequest) =>
      ok(await admin.upload((req.body ?? {}) as Record<string, unknown>, req.user, 'mcp_tool'));
    api.post(T, uploadTool);
    api.put(T, uploadTool);
    api.post<{ Params: KeyParams }>(`${T}/:key/status`, async (req) =>
      ok(await admin.setStatus(req.params.key, ((req.body ?? {}) as { enabled?: unknown }).enabled, {}, req.user)),
    );
    api.delete<{ Params: KeyParams & { version: string } }>(`${P}/:key/versions/:version`, async (req) =>
      ok(await admin.deleteVersion(req.params.key, req.params.version, flag(req.query, 'force'), req.user)),
    );
  });
}
