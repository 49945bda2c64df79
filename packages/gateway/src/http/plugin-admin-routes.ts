/**
 * /api/plugin: plugin administration for root (docs/plugins.md, docs/guardrails.md, docs/mcp.md):
 * task plugins (/api/plugin/task: upload, versions, activation, status, dry runs, the runtime status
 * and the market), guardrail plugins (/api/plugin/guardrail) and MCP tool plugins
 * (/api/plugin/mcp_tool). Envelope {success, message, data}; a status change or version deletion
 * refused because the plugin is in use is a 409 whose data names what uses it. Each route declares
 * its schemas (http/schemas/plugins.ts): Fastify checks requests and writes answers with them.
 * Thin: decode, call the plugin admin service, encode.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from 'typebox';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import { InUseError } from '../plugins/admin/service.ts';
import { testGuardrail } from '../plugins/admin/guardrail-test.ts';
import { AdminError, Envelope, adminErrors, loggedIn, ref } from './schemas/common.ts';
import {
  ActivateBody,
  Activated,
  DryRun,
  DryRunBody,
  EnabledBody,
  ForceQuery,
  GuardrailStats,
  GuardrailTest,
  GuardrailTestBody,
  IndexQuery,
  InstallBody,
  KeyParams,
  KeyVersionParams,
  MarketIndexAnswer,
  MarketSource,
  PLUGIN_SCHEMAS,
  PluginDetail,
  PluginInUse,
  PluginRuntimeStatus,
  PluginStatusChange,
  PluginSummary,
  PluginUpload,
  PluginUploaded,
  PluginVersion,
  ServingPlugin,
  SourcesBody,
  StatusQuery,
  VersionDeleted,
  VersionQuery,
} from './schemas/plugins.ts';
import { ok } from './envelope.ts';

/** A 409: in use (data names what uses it), or another conflict (the plain error body). */
const inUse = (description: string) => ({
  409: Type.Union([ref(PluginInUse), ref(AdminError)], { description }),
});

/** A plugins operation: root only, its answer in the envelope and the error answers. */
const op = <M extends object = object>(summary: string, data: TSchema, more?: M, extra: Record<number, TSchema> = {}) => ({
  tags: ['plugins'],
  summary: `${summary} (root)`,
  security: loggedIn,
  ...(more as M),
  response: { 200: Envelope(data), ...adminErrors, ...extra },
});

const flag = (q: { force?: string; cascade?: string }, name: 'force' | 'cascade') => q[name] === 'true' || q[name] === '1';

export async function pluginAdminRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const host = deps.services.plugins;
  const { admin, market } = host;
  for (const s of PLUGIN_SCHEMAS) app.addSchema(s);
  const byKey = { params: KeyParams };
  const uploaded = ref(PluginUploaded);
  const upload = { body: ref(PluginUpload) };

  await app.register(async (scope) => {
    scope.setErrorHandler((err, req, reply: FastifyReply) => {
      if (err instanceof InUseError) return reply.code(409).send({ success: false, message: err.message, data: err.data });
      return familyErrorHandler('admin')(err, req, reply);
    });
    scope.addHook('onRequest', requireUser(deps, 'root'));
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();

    // ---- task plugins ----
    const P = '/api/plugin/task';
    api.get(P, { schema: op('Installed task plugins with their runtime state', Type.Array(ref(PluginSummary))) }, async () =>
      ok(await admin.list()),
    );
    for (const [method, summary] of [
      ['POST', 'Upload a plugin version (validated; a 400 names the field in `field` and at the start of the message); PUT does the same'],
      ['PUT', 'Upload a plugin version (same as POST)'],
    ] as const) {
      api.route({
        method,
        url: P,
        schema: op(summary, uploaded, upload),
        handler: async (req) => ok(await admin.upload(req.body, req.user)),
      });
    }
    api.get(
      `${P}/runtime/status`,
      { schema: op('The plugin runtime of this node: generation, last rebuild, errors, pools', ref(PluginRuntimeStatus)) },
      async () => ok(await host.runtimeStatus()),
    );
    api.get(`${P}/marketplace/sources`, { schema: op('Market sources', Type.Array(ref(MarketSource))) }, async () =>
      ok(await market.sources()),
    );
    api.put(
      `${P}/marketplace/sources`,
      { schema: op('Replace the market sources', Type.Array(ref(MarketSource)), { body: SourcesBody }) },
      async (req) => ok(await market.setSources(req.body, req.user)),
    );
    api.get(
      `${P}/marketplace/index`,
      { schema: op('Fetch a market index (by source name or URL)', MarketIndexAnswer, { querystring: IndexQuery }) },
      async (req) => {
        const { url, index } = await market.fetchIndex(req.query);
        return ok({ index_url: url.href, index });
      },
    );
    api.post(
      `${P}/marketplace/install`,
      { schema: op('Install a plugin version from a market index (checked against its sha256)', uploaded, { body: InstallBody }) },
      async (req) => ok(await market.install(req.body, req.user)),
    );
    api.get(
      `${P}/:key`,
      {
        schema: op('One plugin: a version (default the active one) with its source and manifests', ref(PluginDetail), {
          ...byKey,
          querystring: VersionQuery,
        }),
      },
      async (req) => ok(await admin.detail(req.params.key, req.query.version)),
    );
    api.get(
      `${P}/:key/icon`,
      {
        schema: {
          tags: ['plugins'],
          summary: "The plugin's icon (root)",
          security: loggedIn,
          params: KeyParams,
          querystring: VersionQuery,
          response: {
            200: { description: 'the icon bytes', content: { 'image/*': { schema: { type: 'string', format: 'binary' } } } },
            ...adminErrors,
          },
        },
      },
      async (req, reply) => {
        const icon = await admin.icon(req.params.key, req.query.version);
        if (!icon) return reply.code(404).send({ success: false, message: 'no icon', data: null });
        return reply
          .header('content-type', icon.type)
          .header('cache-control', 'private, max-age=3600')
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
          .send(icon.bytes as never);
      },
    );
    api.get(`${P}/:key/versions`, { schema: op('Stored versions, newest first', Type.Array(ref(PluginVersion)), byKey) }, async (req) =>
      ok(await admin.versions(req.params.key)),
    );
    api.post(
      `${P}/:key/activate`,
      {
        schema: op(
          'Make a stored version the active one',
          Activated,
          { ...byKey, querystring: ForceQuery, body: ActivateBody },
          { 409: ref(AdminError) },
        ),
      },
      async (req) =>
        ok(await admin.activate(req.params.key, req.body.version, req.body.force === true || flag(req.query, 'force'), req.user)),
    );
    api.post(
      `${P}/:key/status`,
      {
        schema: op(
          'Enable or disable a plugin (disabling one in use needs ?cascade=true for bound channels and ?force=true for tasks in flight)',
          ref(PluginStatusChange),
          { ...byKey, querystring: StatusQuery, body: EnabledBody },
          inUse('in use (bound channels, tasks in flight), or conflicting with the running plugins'),
        ),
      },
      async (req) =>
        ok(
          await admin.setStatus(
            req.params.key,
            req.body.enabled,
            { cascade: flag(req.query, 'cascade'), force: flag(req.query, 'force') },
            req.user,
          ),
        ),
    );
    api.post(
      `${P}/:key/dryrun`,
      { schema: op('Call a hook of the active version in a fresh isolate', DryRun, { ...byKey, body: DryRunBody }) },
      async (req) => ok(await admin.dryRun(req.params.key, req.body)),
    );
    api.delete(
      `${P}/:key/versions/:version`,
      {
        schema: op(
          'Delete a stored version (the active one of an enabled plugin in use needs ?force=true)',
          VersionDeleted,
          { params: KeyVersionParams, querystring: ForceQuery },
          inUse('in use: bound channels and tasks in flight'),
        ),
      },
      async (req) => ok(await admin.deleteVersion(req.params.key, req.params.version, flag(req.query, 'force'), req.user)),
    );

    // ---- guardrail plugins (docs/guardrails.md): same table and sandbox, their own listing and test ----
    const G = '/api/plugin/guardrail';
    api.get(
      G,
      { schema: op('Installed guardrail plugins with their runtime state (docs/guardrails.md)', Type.Array(ref(ServingPlugin))) },
      async () => ok(await admin.listGuardrails()),
    );
    for (const [method, summary] of [
      ['POST', 'Install a guardrail plugin version (validated like task plugins); PUT does the same'],
      ['PUT', 'Install a guardrail plugin version (same as POST)'],
    ] as const) {
      api.route({
        method,
        url: G,
        schema: op(summary, uploaded, upload),
        handler: async (req) => ok(await admin.upload(req.body, req.user, 'guardrail')),
      });
    }
    api.get(
      `${G}/stats`,
      { schema: op("This node's guardrail verdicts since it started, by plugin and action", GuardrailStats) },
      async () => ok(Object.fromEntries(deps.services.relay.guardrails.counts)),
    );
    api.post(
      `${G}/:key/test`,
      {
        schema: op("Run an enabled guardrail's check on a sample text: the verdict and the texts as a mask leaves them", GuardrailTest, {
          ...byKey,
          body: GuardrailTestBody,
        }),
      },
      async (req) => ok(await testGuardrail(host, req.params.key, req.body)),
    );
    api.post(
      `${G}/:key/status`,
      { schema: op('Enable or disable a guardrail plugin', ref(PluginStatusChange), { ...byKey, body: EnabledBody }) },
      async (req) => ok(await admin.setStatus(req.params.key, req.body.enabled, {}, req.user)),
    );

    // ---- MCP tool plugins (docs/mcp.md): served at /mcp as a server named by the plugin key ----
    const T = '/api/plugin/mcp_tool';
    api.get(
      T,
      {
        schema: op(
          'Installed MCP tool plugins with their runtime state (docs/mcp.md#tool-plugins); meta.tools names their tools',
          Type.Array(ref(ServingPlugin)),
        ),
      },
      async () => ok(await admin.listGuardrails('mcp_tool')),
    );
    for (const [method, summary] of [
      ['POST', 'Install an MCP tool plugin version (validated like task plugins); PUT does the same'],
      ['PUT', 'Install an MCP tool plugin version (same as POST)'],
    ] as const) {
      api.route({
        method,
        url: T,
        schema: op(summary, uploaded, upload),
        handler: async (req) => ok(await admin.upload(req.body, req.user, 'mcp_tool')),
      });
    }
    api.post(
      `${T}/:key/status`,
      { schema: op('Enable or disable an MCP tool plugin', ref(PluginStatusChange), { ...byKey, body: EnabledBody }) },
      async (req) => ok(await admin.setStatus(req.params.key, req.body.enabled, {}, req.user)),
    );
  });
}
