/**
 * The schemas of the MCP server administration (http/mcp-routes.ts): registered MCP servers
 * (mcp/servers.ts, secrets never shown), a server as registered or changed, and a server's tools.
 */
import { Type, type TSchema } from 'typebox';

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
/** A list of names: a JSON list, or one comma- or newline-separated text. */
const Names = (description: string) => Nullable(Type.Union([Type.Array(Type.String()), Type.String()], { description }));

export const McpServer = Type.Object(
  {
    name: Type.String({ description: "the tools' namespace: <name>__<tool>" }),
    url: Type.String(),
    header_names: Type.Array(Type.String(), { description: 'names of the headers sent upstream (their values are never returned)' }),
    oauth: Nullable(
      Type.Object({
        client_id: Type.String(),
        scope: Nullable(Type.String()),
        issuer: Nullable(Type.String()),
        client_secret_set: Type.Boolean(),
      }),
    ),
    tools: Nullable(Type.Array(Type.String(), { description: 'upstream tools served; null = every tool' })),
    groups: Nullable(Type.Array(Type.String(), { description: 'user groups whose keys may reach the server; null = every group' })),
    description: Nullable(Type.String()),
    enabled: Type.Boolean(),
    created_at: Type.Integer(),
    updated_at: Type.Integer(),
  },
  { $id: 'McpServer' },
);

/** A server as registered (name and url required) or changed (fields not given are kept); mcp/servers.ts checks it in full. */
export const McpServerInput = Type.Object(
  {
    name: Type.Optional(Type.String({ description: 'create only: a-z, 0-9, -' })),
    url: Type.Optional(Type.String()),
    headers: Type.Optional(Nullable(Type.Record(Type.String(), Type.String(), { description: 'sent upstream; never shown again' }))),
    oauth: Type.Optional(
      Nullable(
        Type.Object(
          {
            client_id: Type.String(),
            client_secret: Type.String({ description: 'write only' }),
            scope: Type.Optional(Type.String()),
            issuer: Type.Optional(Type.String()),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    tools: Type.Optional(Names('upstream tools served; null = every tool')),
    groups: Type.Optional(Names('user groups whose keys may reach the server; null = every group')),
    description: Type.Optional(Nullable(Type.String())),
    enabled: Type.Optional(Type.Boolean()),
  },
  { $id: 'McpServerInput', additionalProperties: false },
);

/** A tool as the MCP server lists it (its other MCP fields, e.g. annotations, are passed on). */
export const McpTool = Type.Object(
  {
    name: Type.String(),
    title: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    inputSchema: Type.Object({}, { additionalProperties: true }),
  },
  { $id: 'McpTool', additionalProperties: true },
);

export const MCP_SCHEMAS = [McpServer, McpServerInput, McpTool];

export const NameParams = Type.Object({ name: Type.String({ description: 'server name' }) });
