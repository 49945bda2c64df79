/**
 * The composition root: builds every area in order, each from the core and the services of the areas
 * before it, applies the configuration file, lists every HTTP route module and starts the background
 * workers once the server listens. Nothing else knows the order, and no area reaches another except
 * through what it is given here.
 */
import type { Core } from './core.ts';
import type { RouteModule, Services } from './http/deps.ts';
import { accountsArea } from './accounts/index.ts';
import { signupArea } from './accounts/signup-area.ts';
import { ssoArea } from './accounts/sso-area.ts';
import { adminArea } from './admin/index.ts';
import { Changes } from './admin/changes.ts';
import { OptionsAdmin } from './admin/options.ts';
import { alertsArea } from './alerts/index.ts';
import { billingArea } from './billing/index.ts';
import { topupArea } from './billing/topup.ts';
import { loadConfigFile } from './config-file/load.ts';
import { applyConfigDoc, applyMcpServers, applySsoProviders } from './config-file/apply.ts';
import { AuditLog } from './logs/audit.ts';
import { relayArea } from './relay/index.ts';
import { mcpArea } from './mcp/index.ts';
import { tasksArea } from './tasks/index.ts';
import { protocolsArea } from './protocols/index.ts';
import { pluginsArea } from './plugins/runtime/index.ts';
import { accountRoutes } from './http/account-routes.ts';
import { relayRoutes } from './http/relay-routes.ts';
import { pluginAdminRoutes } from './http/plugin-admin-routes.ts';
import { channelChoreRoutes } from './http/channel-chore-routes.ts';
import { adminRoutes } from './http/admin-routes.ts';
import { priceRoutes } from './http/price-routes.ts';
import { channelRoutes } from './http/channel-routes.ts';
import { optionRoutes } from './http/option-routes.ts';
import { signupRoutes } from './http/signup-routes.ts';
import { ssoRoutes } from './http/sso-routes.ts';
import { alertRoutes } from './http/alert-routes.ts';
import { topupRoutes } from './http/topup-routes.ts';
import { teamRoutes } from './http/team-routes.ts';
import { planRoutes } from './http/plan-routes.ts';
import { taskRoutes } from './http/task-routes.ts';
import { taskAdminRoutes } from './http/task-admin-routes.ts';
import { protocolRoutes } from './http/protocol-routes.ts';
import { nativeRoutes } from './http/native-routes.ts';
import { mcpRoutes } from './http/mcp-routes.ts';

/** Every route module, registered in this order. */
export const ROUTES: RouteModule[] = [
  accountRoutes,
  relayRoutes,
  pluginAdminRoutes,
  adminRoutes,
  priceRoutes,
  channelRoutes,
  optionRoutes,
  channelChoreRoutes,
  signupRoutes,
  ssoRoutes,
  alertRoutes,
  topupRoutes,
  planRoutes,
  teamRoutes,
  taskRoutes,
  taskAdminRoutes,
  protocolRoutes,
  mcpRoutes,
  nativeRoutes,
];

/**
 * Builds every area: accounts, billing, relay, mcp (the MCP gateway), plugins (the task-plugin runtime), admin (then the
 * configuration file is applied), signup, sso (then the file's `sso:` section), alerts, topup, tasks
 * (lifecycle, poller, artifacts, callbacks) and protocols (image, video and Responses protocols,
 * native plugin routes).
 */
export async function buildAreas(core: Core): Promise<Services> {
  // The run-time options are read by every area: made first, edited by the admin area.
  const changes = new Changes(core);
  const audit = new AuditLog(core);
  const options = new OptionsAdmin(core, changes, audit);
  await core.cache.register('options', () => options.load());

  const accounts = await accountsArea.init(core, options);
  const billing = await billingArea.init(core, options);
  const relay = await relayArea.init(core, { options, billing, accounts, audit });
  const mcp = await mcpArea.init(core, { accounts, billing });
  const plugins = await pluginsArea.init(core);
  relay.guardrails.runner = plugins;
  mcp.gateway.plugins = plugins;
  const admin = adminArea.init(core, { changes, audit, options, billing, plugins });
  const file = core.config.configFile;
  const doc = file ? loadConfigFile(file, core.config) : null;
  if (file && doc) {
    const sum = await applyConfigDoc(admin, doc, file, (line) => process.stdout.write(`${line}\n`), billing.plans, {
      core,
      ledger: billing.ledger,
    });
    core.log.info({ file, ...sum }, 'configuration file applied');
    if (doc.mcpServers.length)
      core.log.info({ file, ...(await applyMcpServers(mcp.servers, doc, file)) }, 'configuration file: mcp servers applied');
  }
  const signup = signupArea.init(core, { options, ledger: billing.ledger });
  const sso = ssoArea.init(core, accounts.users);
  if (file && doc && doc.sso.length) {
    const sum = await applySsoProviders(sso.sso, doc, file);
    core.log.info({ file, ...sum }, 'configuration file: sso providers applied');
  }
  const alerts = alertsArea.init(core, { options, relay, billing });
  const topup = topupArea.init(core, {
    options,
    ledger: billing.ledger,
    mayCredit: (creatorId, userId) => admin.users.mayTopUp(creatorId, userId),
  });
  topup.codes.plans = billing.plans;
  topup.payments.plans = billing.plans;
  const tasks = await tasksArea.init(core, { options, accounts, billing, plugins });
  const protocols = protocolsArea.init(core, { plugins, tasks });
  return { accounts, billing, relay, mcp, plugins, admin, signup, sso, alerts, topup, tasks, protocols };
}

/** Starts the background workers, once the HTTP server listens. */
export async function startAreas(core: Core, services: Services): Promise<void> {
  billingArea.start(core, services.billing);
  relayArea.start(core, services.relay);
  adminArea.start(core, services.admin);
  await alertsArea.start(core, services.alerts, services.tasks);
  tasksArea.start(core, services.tasks);
}
