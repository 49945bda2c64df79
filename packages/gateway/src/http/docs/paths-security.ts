/**
 * The operations of the MCP gateway (single sign-on and second factors declare their schemas in their routes).
 * Routes take these through http/route-docs.ts; @fastify/swagger builds the document from the routes.
 */
import { type Schema, int, obj, op, str } from './kit.ts';

export function mcpPaths(admin: string): Record<string, Record<string, Schema>> {
  void admin;
  return {
    '/mcp': {
      post: op(
        'mcp',
        'MCP endpoint (streamable HTTP, stateless): tools/list and tools/call of the tools the key allows',
        obj({}, [], { additionalProperties: true }),
        {
          security: 'key',
          body: obj({ jsonrpc: str(), id: { anyOf: [str(), int()] }, method: str(), params: obj({}, [], { additionalProperties: true }) }, [
            'jsonrpc',
            'method',
          ]),
        },
      ),
    },
  };
}

/** Channel chores at New API's paths (http/channel-chore-routes.ts) and the public pricing list. */
