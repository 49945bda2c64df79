/**
 * The MCP gateway's calls (docs/mcp.md): for one authenticated key, an MCP server of the official SDK
 * whose tools are the registered servers' tools that the key's allow-list names, each under
 * `<server>__<tool>`. A tool call is admitted by the rate limits (model name `mcp:<server>/<tool>`),
 * priced by the price book (`mcp:<server>/<tool>`, else `mcp:<server>/*`), reserved and settled once
 * through the ledger (refunded when the upstream failed), and logged (type `mcp`, or `error`).
 * Installed MCP tool plugins are served the same way, each as a server named by its plugin key.
 * The SDK (with zod, its schemas and its HTTP server) is loaded by the first request to /mcp, not at start.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Core } from '../core.ts';
import type { KeyPrincipal } from '../accounts/types.ts';
import { mcpAllowed, mcpServerAllowed } from '../accounts/mcp-access.ts';
import type { RateLimiter } from '../accounts/rate-limits.ts';
import type { Billing } from '../billing/index.ts';
import type { ModelPrice } from '../billing/prices.ts';
import { GatewayError, fail } from '../platform/errors.ts';
import { requestId } from '../platform/ids.ts';
import { redactSecrets } from '../platform/redact.ts';
import type { LogWriter, NewLog } from '../logs/writer.ts';
import type { McpServers, McpServerSpec } from './servers.ts';
import type { McpUpstreams } from './upstream.ts';

/** Between a server's name and its tool's in the names clients see. Server names hold no `_`. */
export const TOOL_SEPARATOR = '__';
/** JSON-RPC error code of a call the gateway refused (balance, rate limit, price). */
export const REFUSED_CODE = -32001;

/** An enabled MCP tool plugin as the gateway uses it (plugins/runtime/mcp-tool.ts). */
export interface McpToolPlugin {
  key: string;
  tools: Tool[];
  callTool(
    ctx: { caller: { user_id: number; username: string; key_name: string; group: string } },
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ content: Array<{ type: 'text'; text: string }>; isError?: boolean }>;
}

/** The plugin host's view of the enabled MCP tool plugins; set once the plugin area is up. */
export interface McpToolPlugins {
  mcpTool(key: string): McpToolPlugin | undefined;
  mcpTools(): McpToolPlugin[];
}

export interface McpGatewayDeps {
  servers: McpServers;
  upstreams: McpUpstreams;
  billing: Billing;
  rateLimits: RateLimiter;
  logs: LogWriter;
}

/** The price book's name of a tool. */
export const priceName = (server: string, tool: string) => `mcp:${server}/${tool}`;

export class McpGateway {
  private specs = new Map<string, McpServerSpec>();
  /** The MCP tool plugins (a registered remote server of the same name takes precedence). */
  plugins: McpToolPlugins | null = null;

  private plugin(server: string): McpToolPlugin | undefined {
    return this.specs.has(server) ? undefined : this.plugins?.mcpTool(server);
  }

  constructor(
    private readonly core: Core,
    private readonly d: McpGatewayDeps,
  ) {}

  /** Reloads the enabled servers (the `mcp_servers` revision). */
  async load(): Promise<void> {
    const next = new Map<string, McpServerSpec>();
    for (const row of await this.d.servers.rows()) if (Number(row.enabled) === 1) next.set(row.name, this.d.servers.specOf(row));
    this.specs = next;
    this.d.upstreams.prune(next);
  }

  /** Writes the queued log rows of tool calls now. */
  flushLogs(): Promise<void> {
    return this.d.logs.flush();
  }

  /** The tools of the enabled server `name` (admins' view; every tool its row serves). */
  async serverTools(name: string): Promise<Tool[]> {
    const spec = this.specs.get(name);
    if (!spec) throw fail('mcp_server_not_found', { name: name.slice(0, 64) });
    try {
      return await this.d.upstreams.tools(spec);
    } catch (e) {
      throw fail('mcp_server_unreachable', { name, reason: reasonOf(e, spec) });
    }
  }

  /** The tools `p` may use, namespaced; a server that cannot be reached is left out (and logged). */
  async listFor(p: KeyPrincipal): Promise<Tool[]> {
    const specs = [...this.specs.values()].filter((s) => mcpServerAllowed(p.mcpTools, s.name) && (!s.groups || s.groups.has(p.group)));
    const lists = await Promise.all(
      specs.map(async (s) => {
        try {
          const tools = await this.d.upstreams.tools(s);
          return tools
            .filter((t) => mcpAllowed(p.mcpTools, s.name, t.name))
            .map((t) => ({ ...t, name: `${s.name}${TOOL_SEPARATOR}${t.name}` }));
        } catch (e) {
          this.core.log.warn({ server: s.name, err: reasonOf(e, s) }, 'mcp server unreachable; its tools are left out');
          return [];
        }
      }),
    );
    for (const pl of this.plugins?.mcpTools() ?? []) {
      if (this.specs.has(pl.key) || !mcpServerAllowed(p.mcpTools, pl.key)) continue;
      lists.push(
        pl.tools.filter((t) => mcpAllowed(p.mcpTools, pl.key, t.name)).map((t) => ({ ...t, name: `${pl.key}${TOOL_SEPARATOR}${t.name}` })),
      );
    }
    return lists.flat();
  }

  /** An MCP server (of the SDK) for one request of `p`. */
  async serverFor(p: KeyPrincipal): Promise<Server> {
    const [{ Server }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    const server = new Server({ name: 'gatehouse', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await this.listFor(p) }));
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      try {
        return await this.call(p, req.params.name, req.params.arguments, extra.signal);
      } catch (e) {
        if (e instanceof GatewayError) throw rpcError(REFUSED_CODE, e.message, { status: e.status, code: e.code });
        throw e;
      }
    });
    return server;
  }

  private priceOf(server: string, tool: string): ModelPrice | null {
    const prices = this.d.billing.prices;
    return prices.get(priceName(server, tool)) ?? prices.get(priceName(server, '*'));
  }

  /** One tool call: admitted, reserved, called, settled (or refunded) and logged, each once. */
  async call(p: KeyPrincipal, name: string, args: Record<string, unknown> | undefined, signal?: AbortSignal) {
    const { ErrorCode, McpError } = await import('@modelcontextprotocol/sdk/types.js');
    const i = name.indexOf(TOOL_SEPARATOR);
    const server = i > 0 ? name.slice(0, i) : '';
    const tool = i > 0 ? name.slice(i + TOOL_SEPARATOR.length) : '';
    const spec = this.specs.get(server);
    const plugin = this.plugin(server);
    // A tool outside the key's allow-list is answered like one that does not exist.
    if (
      (!spec && !plugin) ||
      !tool ||
      !mcpAllowed(p.mcpTools, server, tool) ||
      (spec?.tools && !spec.tools.has(tool)) ||
      (spec?.groups && !spec.groups.has(p.group)) ||
      (plugin && !plugin.tools.some((t) => t.name === tool))
    )
      throw rpcError(ErrorCode.InvalidParams, `unknown tool: ${name.slice(0, 200)}`);
    const model = priceName(server, tool);
    const price = this.priceOf(server, tool);
    if (!price && !this.core.config.relayAllowUnpricedModels) throw fail('model_price_not_set', { model });
    const { ledger, budgets, prices } = this.d.billing;
    const cost = price ? prices.cost(price, { inputTokens: 0, outputTokens: 0 }, p.group) : 0;
    const admission = await this.d.rateLimits.admit(
      {
        keyId: p.keyId,
        userId: p.userId,
        group: p.group,
        keyLimits: p.keyLimits,
        userLimits: p.userLimits,
        teamId: p.teamId,
        teamLimits: p.teamLimits,
      },
      model,
      0,
      null,
    );
    const ref = requestId();
    const payer = budgets.payer(p);
    const started = Date.now();
    try {
      if (cost > 0) await ledger.reserve(payer, ref, cost, { open: true });
      let result;
      try {
        if (plugin) {
          const caller = { user_id: p.userId, username: p.username, key_name: p.keyName, group: p.group };
          result = await plugin.callTool({ caller }, tool, args ?? {});
        } else result = await this.d.upstreams.call(spec!, tool, args, signal);
      } catch (e) {
        if (cost > 0) await ledger.refund(payer, ref, cost);
        const reason = reasonOf(e, spec);
        this.d.logs.write(this.row(p, ref, model, 'error', 0, started, 502, `${server}: ${reason}`));
        // A plugin that threw, ran out of time or memory answers a tool error result, uncharged.
        if (plugin) return { content: [{ type: 'text', text: `the tool plugin "${server}" failed: ${reason}` }], isError: true };
        if (e instanceof McpError) throw rpcError(e.code, reason.replace(/^MCP error -?\d+: /, ''));
        throw rpcError(ErrorCode.InternalError, `the MCP server "${server}" failed: ${reason}`);
      }
      const settled = cost > 0 ? await ledger.settle(payer, ref, cost, cost) : { charged: 0, shortfall: 0 };
      this.d.logs.write(this.row(p, ref, model, 'mcp', settled?.charged ?? cost, started, 200, result.isError ? 'tool error' : null));
      return result;
    } finally {
      admission?.end(0);
    }
  }

  private row(
    p: KeyPrincipal,
    ref: string,
    model: string,
    type: 'mcp' | 'error',
    quota: number,
    started: number,
    status: number,
    content: string | null,
  ): NewLog {
    const now = Date.now();
    return {
      created_at: now,
      type,
      request_id: ref,
      user_id: p.userId,
      username: p.username,
      key_id: p.keyId,
      key_name: p.keyName,
      group_name: p.group,
      model,
      upstream_model: null,
      channel_id: null,
      endpoint: '/mcp',
      status_code: status,
      prompt_tokens: 0,
      completion_tokens: 0,
      cached_tokens: 0,
      quota,
      latency_ms: now - started,
      first_byte_ms: null,
      is_stream: 0,
      attempts: 1,
      content: content ? content.slice(0, 500) : null,
      other: null,
    };
  }
}

/**
 * A JSON-RPC error the SDK's server sends as it is (code, message, data). Its McpError would put
 * "MCP error <code>: " before the message, which clients add themselves.
 */
function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data !== undefined ? { data } : {}) });
}

/** An upstream failure's text, without the server's credentials should its answer echo them. */
function reasonOf(e: unknown, spec?: McpServerSpec): string {
  const m = e instanceof Error ? e.message : String(e);
  if (!spec) return m.slice(0, 300);
  const secrets = [...Object.values(spec.headers), ...(spec.oauth ? [spec.oauth.client_secret] : [])];
  for (const v of Object.values(spec.headers)) secrets.push(...v.split(/\s+/).filter((x) => x.length >= 8));
  return redactSecrets(m, secrets).slice(0, 300);
}
