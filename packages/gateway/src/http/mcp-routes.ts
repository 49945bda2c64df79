/**
 * The MCP gateway (docs/mcp.md): `/mcp`, streamable HTTP of the current MCP specification served by
 * the official SDK's transport in stateless mode (a POST per JSON-RPC message; GET and DELETE answer
 * 405), authenticated with an API key (the SDK loads on the first such POST); and its administration
 * under /api/mcp/servers (admins), whose routes declare their schemas (http/schemas/mcp.ts).
 * Thin: decode, call services.mcp, encode.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireKey, requireUser } from './auth.ts';
import { parseMcpServer } from '../mcp/servers.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from 'typebox';
import { Envelope, adminErrors, loggedIn, ref } from './schemas/common.ts';
import { MCP_SCHEMAS, McpServer, McpServerInput, McpTool, NameParams } from './schemas/mcp.ts';
import { ok } from './envelope.ts';

/** A JSON-RPC message to /mcp is at most this large. */
const MCP_BODY_LIMIT = 4 * 1024 * 1024;

/** An MCP administration operation: tagged, behind a login, its answer and error answers. */
const op = <M extends object = object>(summary: string, answer: TSchema, more?: M) => ({
  tags: ['mcp'],
  summary,
  security: loggedIn,
  ...(more as M),
  response: { 200: answer, ...adminErrors },
});

export async function mcpRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { servers, gateway } = deps.services.mcp;
  const audit = () => deps.services.admin.audit;
  const adminOnly = { onRequest: requireUser(deps, 'admin') };

  await app.register(async (api) => {
    api.setErrorHandler(familyErrorHandler('mcp'));
    api.post('/mcp', { onRequest: requireKey(deps), bodyLimit: MCP_BODY_LIMIT }, async (req, reply) => {
      const server = await gateway.serverFor(req.principal!);
      const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, req.body);
    });
    const notAllowed = async (_req: FastifyRequest, reply: import('fastify').FastifyReply) =>
      reply
        .code(405)
        .header('allow', 'POST')
        .send({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; POST messages' },
          id: null,
        });
    api.get('/mcp', { onRequest: requireKey(deps) }, notAllowed);
    api.delete('/mcp', { onRequest: requireKey(deps) }, notAllowed);
  });

  for (const x of MCP_SCHEMAS) app.addSchema(x);
  const server = Envelope(ref(McpServer));
  const byName = { params: NameParams };
  const admin = { ...adminOnly, bodyLimit: 64 * 1024 };

  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('admin'));
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();
    api.get(
      '/api/mcp/servers',
      { ...admin, schema: op('Registered MCP servers (admin)', Envelope(Type.Array(ref(McpServer)))) },
      async () => ok(await servers.list()),
    );
    api.get('/api/mcp/servers/:name', { ...admin, schema: op('One MCP server (admin)', server, byName) }, async (req) =>
      ok(await servers.get(req.params.name)),
    );
    api.get(
      '/api/mcp/servers/:name/tools',
      { ...admin, schema: op("The server's tools (502 when it cannot be reached) (admin)", Envelope(Type.Array(ref(McpTool))), byName) },
      async (req) => {
        const view = await servers.get(req.params.name);
        return ok(await gateway.serverTools(view.name));
      },
    );
    api.post(
      '/api/mcp/servers',
      { ...admin, schema: op('Register an MCP server (409 when the name exists) (admin)', server, { body: ref(McpServerInput) }) },
      async (req) => {
        const view = await servers.create(parseMcpServer(req.body, 'create'));
        await audit().record(req.user!, 'mcp_server.create', { type: 'mcp_server', id: view.name }, null, view);
        return ok(view);
      },
    );
    api.put(
      '/api/mcp/servers/:name',
      {
        ...admin,
        schema: op('Change an MCP server (headers and oauth replace the stored ones) (admin)', server, {
          ...byName,
          body: ref(McpServerInput),
        }),
      },
      async (req) => {
        const before = await servers.get(req.params.name);
        const { view, changed } = await servers.update(before.name, parseMcpServer(req.body, 'update'));
        if (changed) await audit().record(req.user!, 'mcp_server.update', { type: 'mcp_server', id: view.name }, before, view);
        return ok(view);
      },
    );
    api.delete(
      '/api/mcp/servers/:name',
      { ...admin, schema: op('Delete an MCP server (admin)', Envelope(Type.Null()), byName) },
      async (req) => {
        const view = await servers.delete(req.params.name);
        await audit().record(req.user!, 'mcp_server.delete', { type: 'mcp_server', id: view.name }, view, null);
        return ok(null, 'deleted');
      },
    );
  });
}
