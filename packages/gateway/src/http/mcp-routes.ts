/**
 * The MCP gateway (docs/mcp.md): `/mcp`, streamable HTTP of the current MCP specification served by
 * the official SDK's transport in stateless mode (a POST per JSON-RPC message; GET and DELETE answer
 * 405), authenticated with an API key; and its administration under /api/mcp/servers (admins).
 * Thin: decode, call services.mcp, encode.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireKey, requireUser } from './auth.ts';
import { parseMcpServer } from '../mcp/servers.ts';
import { ok } from './envelope.ts';

/** A JSON-RPC message to /mcp is at most this large. */
const MCP_BODY_LIMIT = 4 * 1024 * 1024;

export async function mcpRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { servers, gateway } = deps.services.mcp;
  const audit = () => deps.services.admin.audit;
  const adminOnly = { onRequest: requireUser(deps, 'admin') };
  const nameOf = (req: FastifyRequest) => (req.params as { name: string }).name;

  await app.register(async (api) => {
    api.setErrorHandler(familyErrorHandler('mcp'));
    api.post('/mcp', { onRequest: requireKey(deps), bodyLimit: MCP_BODY_LIMIT }, async (req, reply) => {
      const server = gateway.serverFor(req.principal!);
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

  await app.register(async (api) => {
    api.setErrorHandler(familyErrorHandler('admin'));
    api.get('/api/mcp/servers', adminOnly, async () => ok(await servers.list()));
    api.get('/api/mcp/servers/:name', adminOnly, async (req) => ok(await servers.get(nameOf(req))));
    api.get('/api/mcp/servers/:name/tools', adminOnly, async (req) => {
      const view = await servers.get(nameOf(req));
      return ok(await gateway.serverTools(view.name));
    });
    api.post('/api/mcp/servers', { ...adminOnly, bodyLimit: 64 * 1024 }, async (req) => {
      const view = await servers.create(parseMcpServer(req.body, 'create'));
      await audit().record(req.user!, 'mcp_server.create', { type: 'mcp_server', id: view.name }, null, view);
      return ok(view);
    });
    api.put('/api/mcp/servers/:name', { ...adminOnly, bodyLimit: 64 * 1024 }, async (req) => {
      const before = await servers.get(nameOf(req));
      const { view, changed } = await servers.update(before.name, parseMcpServer(req.body, 'update'));
      if (changed) await audit().record(req.user!, 'mcp_server.update', { type: 'mcp_server', id: view.name }, before, view);
      return ok(view);
    });
    api.delete('/api/mcp/servers/:name', adminOnly, async (req) => {
      const view = await servers.delete(nameOf(req));
      await audit().record(req.user!, 'mcp_server.delete', { type: 'mcp_server', id: view.name }, view, null);
      return ok(null, 'deleted');
    });
  });
}
