/**
 * MCP tool plugins (docs/mcp.md): a single-file plugin of kind `mcp_tool` exporting `meta`, a
 * `tools` list (name, description, inputSchema as JSON Schema) and one hook,
 * `call(ctx, {name, arguments})`, run in the same sandbox as task plugins. This file validates such
 * a file and calls its hook, turning its answer into an MCP tool result.
 */
import { isObj } from '../../platform/validate.ts';
import { PluginSandbox, type Describe, type SandboxOptions } from './sandbox.ts';
import { PluginCallError, PluginLoadError } from './errors.ts';
import { openSandbox, type LoadOptions } from './loader.ts';
import { validateGuardrailManifest } from './guardrail.ts';

/** A tool as MCP lists it. */
export interface McpToolDef {
  name: string;
  description?: string;
  inputSchema: { type: 'object'; [k: string]: unknown };
}

/** An MCP tool result (the text content the plugins answer). */
export type McpToolResult = {
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
};

export interface McpToolManifest {
  apiVersion: 1;
  kind: 'mcp_tool';
  key: string;
  name: string;
  version: string;
  author: { name: string; url?: string };
  description?: string;
  config: Record<string, unknown>;
}

/** What a tool call's hook sees of its caller. */
export interface McpToolContext {
  config?: Record<string, unknown>;
  caller?: { user_id: number; username: string; key_name: string; group: string };
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_TOOLS = 64;

/** Whether a plugin's `meta` declares the MCP tool kind. */
export function isMcpToolMeta(meta: unknown): boolean {
  return isObj(meta) && meta.kind === 'mcp_tool';
}

/** The manifest rules of guardrails, with kind `mcp_tool` and a key that may name an MCP server (no `_`). */
export function validateMcpToolManifest(raw: unknown): McpToolManifest {
  if (!isObj(raw)) throw new PluginLoadError('meta must be an object', 'meta');
  if (raw.kind !== 'mcp_tool') throw new PluginLoadError('meta.kind: must be "mcp_tool"', 'kind');
  const g = validateGuardrailManifest({ ...raw, kind: 'guardrail' });
  if (!/^[a-z0-9][a-z0-9-]*$/.test(g.key))
    throw new PluginLoadError('meta.key: must match ^[a-z0-9][a-z0-9-]*$ (it names the MCP server; no "_")', 'key');
  return { ...g, kind: 'mcp_tool' };
}

/** Checks the exported `tools` list. */
export function validateTools(raw: unknown): McpToolDef[] {
  const err = (msg: string): never => {
    throw new PluginLoadError(`tools${msg}`, 'tools');
  };
  if (!Array.isArray(raw) || raw.length === 0) err(': an MCP tool plugin exports a non-empty tools array');
  const list = raw as unknown[];
  if (list.length > MAX_TOOLS) err(`: at most ${MAX_TOOLS} tools`);
  const seen = new Set<string>();
  return list.map((t, i) => {
    if (!isObj(t)) return err(`[${i}]: must be {name, description, inputSchema}`);
    for (const k of Object.keys(t))
      if (!['name', 'title', 'description', 'inputSchema', 'annotations'].includes(k)) err(`[${i}].${k}: is not a field of a tool`);
    if (typeof t.name !== 'string' || !TOOL_NAME.test(t.name)) err(`[${i}].name: must match ${TOOL_NAME.source}`);
    const name = t.name as string;
    if (seen.has(name)) err(`[${i}].name: "${name}" is listed twice`);
    seen.add(name);
    if (t.description !== undefined && (typeof t.description !== 'string' || t.description.length > 2000))
      err(`[${i}].description: must be a string of at most 2000 characters`);
    const s = t.inputSchema;
    if (!isObj(s) || s.type !== 'object') err(`[${i}].inputSchema: must be a JSON Schema of type "object"`);
    return { ...(t as object), name, inputSchema: s as McpToolDef['inputSchema'] } as McpToolDef;
  });
}

function validateExports(d: Describe): void {
  for (const [k, t] of Object.entries(d.exports)) {
    if (t === 'undefined' || k === 'meta' || k === 'tools') continue;
    if (k !== 'call') throw new PluginLoadError(`export ${k}: an MCP tool plugin exports only meta, tools and call`, k);
  }
  if (d.exports.call !== 'function') throw new PluginLoadError('export call: is required (a function)', 'call');
}

/** A hook's answer as an MCP tool result: a result as it is, a string as text, anything else as JSON text. */
export function toToolResult(v: unknown): McpToolResult | string {
  if (typeof v === 'string') return { content: [{ type: 'text', text: v }] };
  if (isObj(v) && Array.isArray(v.content)) {
    const content = v.content as unknown[];
    for (const [i, c] of content.entries())
      if (!isObj(c) || c.type !== 'text' || typeof c.text !== 'string') return `content[${i}] must be {type: "text", text}`;
    if (v.isError !== undefined && typeof v.isError !== 'boolean') return 'isError must be a boolean';
    return { content: content as McpToolResult['content'], ...(v.isError === true ? { isError: true } : {}) };
  }
  if (v === undefined || v === null) return 'the hook answered nothing';
  return { content: [{ type: 'text', text: JSON.stringify(v) }] };
}

/** One validated MCP tool plugin version: manifest, tools and `call()` into its isolate pool. */
export class LoadedMcpTool {
  constructor(
    readonly manifest: McpToolManifest,
    readonly tools: McpToolDef[],
    readonly sha256: string,
    readonly source: string,
    private readonly sandbox: PluginSandbox,
  ) {}

  get rawManifest(): Record<string, unknown> {
    return { ...this.manifest, tools: this.tools.map((t) => t.name) };
  }
  get key(): string {
    return this.manifest.key;
  }
  get version(): string {
    return this.manifest.version;
  }

  /** Calls the hook for tool `name`; rejects with PluginCallError (timeout, memory, thrown, invalid result). */
  async callTool(ctx: McpToolContext, name: string, args: Record<string, unknown>): Promise<McpToolResult> {
    const config = ctx.config ? { ...this.manifest.config, ...ctx.config } : this.manifest.config;
    const out = await this.sandbox.call(
      'call',
      JSON.stringify([
        { ...ctx, config },
        { name, arguments: args },
      ]),
    );
    if (out === undefined) throw new PluginCallError(this.key, 'call', 'not_found', 'the plugin does not export call');
    const r = toToolResult(JSON.parse(out));
    if (typeof r === 'string') throw new PluginCallError(this.key, 'call', 'invalid_result', `invalid tool result: ${r}`);
    return r;
  }

  /** `call` as fixtures name it: `call('call', ctx, {name, arguments})`. */
  async call(hook: string, ...args: unknown[]): Promise<unknown> {
    if (hook !== 'call') throw new PluginCallError(this.key, hook, 'not_found', 'an MCP tool plugin exports only call');
    const ctx = (isObj(args[0]) ? args[0] : {}) as McpToolContext;
    const input = isObj(args[1]) ? args[1] : {};
    const a = isObj(input.arguments) ? input.arguments : {};
    return this.callTool(ctx, String(input.name ?? ''), a);
  }

  get poolStats() {
    return this.sandbox.stats;
  }
  retire(): void {
    this.sandbox.retire();
  }
  dispose(): void {
    this.sandbox.dispose();
  }
}

/** Validates and loads an MCP tool plugin source. Throws PluginLoadError with a readable message. */
export async function loadMcpTool(source: string, opts: LoadOptions): Promise<LoadedMcpTool> {
  const { sandbox, describe, sha } = await openSandbox(source, opts, 'mcp-tool');
  try {
    if (describe.metaError) throw new PluginLoadError(`meta must be JSON: ${describe.metaError}`, 'meta');
    const manifest = validateMcpToolManifest(describe.meta);
    validateExports(describe);
    const tools = validateTools(describe.tools);
    Object.assign((sandbox as unknown as { opts: SandboxOptions }).opts, {
      label: `${manifest.key}@${manifest.version}`,
      key: manifest.key,
    });
    return new LoadedMcpTool(manifest, tools, sha, source, sandbox);
  } catch (e) {
    sandbox.dispose();
    throw e;
  }
}
