/**
 * What every route module is given: the core, the service of each area (built by the composition
 * root, areas.ts) and the console's build.
 */
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.ts';
import type { Accounts } from '../accounts/index.ts';
import type { Signup } from '../accounts/signup.ts';
import type { SsoService } from '../accounts/sso-area.ts';
import type { Admin } from '../admin/index.ts';
import type { AlertsService } from '../alerts/index.ts';
import type { Billing } from '../billing/index.ts';
import type { Topup } from '../billing/topup.ts';
import type { RelayService } from '../relay/index.ts';
import type { McpService } from '../mcp/index.ts';
import type { Tasks } from '../tasks/index.ts';
import type { Protocols } from '../protocols/index.ts';
import type { PluginsService } from '../plugins/runtime/index.ts';
import type { ConsoleSite } from './console-routes.ts';

/** The services of every area, one member per area. */
export interface Services {
  accounts: Accounts;
  billing: Billing;
  relay: RelayService;
  mcp: McpService;
  plugins: PluginsService;
  admin: Admin;
  signup: Signup;
  sso: SsoService;
  alerts: AlertsService;
  topup: Topup;
  tasks: Tasks;
  protocols: Protocols;
}

export interface AppDeps {
  core: Core;
  services: Services;
  /** The web console's build (http/console-routes.ts); null or absent: no console. */
  console?: ConsoleSite | null;
}

export type RouteModule = (app: FastifyInstance, deps: AppDeps) => Promise<void> | void;
