/**
 * The MCP gateway area (docs/mcp.md): the registered remote MCP servers (`servers`), the connections
 * to them (`upstreams`) and the calls of keys through `/mcp` (`gateway`). Its tool calls are logged
 * by a log writer of its own, closed with the area.
 */
import type { Core } from '../core.ts';
import type { Accounts } from '../accounts/index.ts';
import type { Billing } from '../billing/index.ts';
import { LogWriter } from '../logs/writer.ts';
import { McpServers, MCP_REVISION } from './servers.ts';
import { McpUpstreams } from './upstream.ts';
import { McpGateway } from './gateway.ts';

export interface McpService {
  servers: McpServers;
  gateway: McpGateway;
}

export const mcpArea = {
  name: 'mcp',
  async init(core: Core, deps: { accounts: Accounts; billing: Billing }): Promise<McpService> {
    const servers = new McpServers(core);
    const upstreams = new McpUpstreams(core);
    const logs = new LogWriter(core);
    const gateway = new McpGateway(core, { servers, upstreams, billing: deps.billing, rateLimits: deps.accounts.rateLimits, logs });
    await core.cache.register(MCP_REVISION, () => gateway.load());
    core.onClose(async () => {
      await upstreams.close();
      await logs.close();
    });
    return { servers, gateway };
  },
};
