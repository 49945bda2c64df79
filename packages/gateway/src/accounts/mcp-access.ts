/**
 * Which MCP tools an API key may see and call (docs/mcp.md#allow-lists): the key's `mcp_tools`, a
 * list of `server/tool` names and `server/*` wildcards. A key without one sees no tool.
 */
import { fieldError } from '../platform/validate.ts';

/** A server's name: the namespace of its tools, so it holds no `_` (the separator is `__`). */
export const MCP_SERVER_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;
/** An upstream tool name, as MCP allows them. */
export const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Checks an allow-list (`server/tool` or `server/*`); gives it back without repeats. */
export function parseMcpAllowList(list: string[], at: string): string[] {
  for (const e of list) {
    const i = e.indexOf('/');
    const server = i > 0 ? e.slice(0, i) : '';
    const tool = i > 0 ? e.slice(i + 1) : '';
    if (!MCP_SERVER_NAME.test(server) || (tool !== '*' && !MCP_TOOL_NAME.test(tool)))
      throw fieldError(at, `"${e.slice(0, 200)}" must be server/tool or server/* (server: a-z, 0-9, -; tool: A-Z, a-z, 0-9, _ . -)`);
  }
  return [...new Set(list)];
}

/** The compiled allow-list of a key: whole servers and single tools. */
export interface McpAllow {
  servers: ReadonlySet<string>;
  tools: ReadonlySet<string>;
}

export function compileMcpAllow(list: readonly string[] | null): McpAllow | null {
  if (!list || !list.length) return null;
  const servers = new Set<string>();
  const tools = new Set<string>();
  for (const e of list) {
    if (e.endsWith('/*')) servers.add(e.slice(0, -2));
    else tools.add(e);
  }
  return Object.freeze({ servers, tools });
}

/** Whether `allow` lets its key use `tool` of `server`. */
export function mcpAllowed(allow: McpAllow | null | undefined, server: string, tool: string): boolean {
  if (!allow) return false;
  return allow.servers.has(server) || allow.tools.has(`${server}/${tool}`);
}

/** Whether `allow` lets its key use any tool of `server`. */
export function mcpServerAllowed(allow: McpAllow | null | undefined, server: string): boolean {
  if (!allow) return false;
  if (allow.servers.has(server)) return true;
  for (const t of allow.tools) if (t.startsWith(`${server}/`)) return true;
  return false;
}
