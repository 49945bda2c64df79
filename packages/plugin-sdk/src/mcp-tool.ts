/**
 * The MCP-tool-plugin contract, version 1 (docs/mcp.md#tool-plugins): a single-file plugin with
 * `meta.kind: 'mcp_tool'`, an exported `tools` list and one hook, `call(ctx, {name, arguments})`,
 * answering an MCP tool result (or a string or JSON value the host wraps as text).
 */
import type { JsonObject } from './index.ts';

/** The manifest of an MCP tool plugin: `export const meta = {...}`. Its key names the MCP server. */
export interface McpToolManifest {
  apiVersion: 1;
  kind: 'mcp_tool';
  /** `^[a-z0-9][a-z0-9-]*$`, at most 30 characters: the tools are served as `<key>__<tool>`. */
  key: string;
  name: string;
  version: string;
  author: { name: string; url?: string };
  description?: string;
  /** Default settings, handed to every call as `ctx.config`. */
  config?: JsonObject;
}

/** One tool: `export const tools = [...]`. */
export interface McpToolDefinition {
  /** `^[A-Za-z0-9_-]{1,64}$`, unique in the plugin. */
  name: string;
  title?: string;
  description?: string;
  /** A JSON Schema of type `object`. */
  inputSchema: JsonObject & { type: 'object' };
  annotations?: JsonObject;
}

/** What `call` is told about the caller (ids and names only). */
export interface McpToolContext {
  config: JsonObject;
  caller: { user_id: number; username: string; key_name: string; group: string };
}

export interface McpToolCallInput {
  name: string;
  arguments: JsonObject;
}

/** An MCP tool result; `isError: true` reports a tool error (still charged: the tool answered). */
export interface McpToolResult {
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
}

export type McpToolHook = (ctx: McpToolContext, input: McpToolCallInput) => McpToolResult | string | JsonObject | unknown[];
