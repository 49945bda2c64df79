/**
 * The areas of the gateway in the order they are built. An area creates its services from the core
 * and the areas before it, and may add HTTP routes. Nothing else knows the order.
 */
import type { Core } from './core.ts';
import type { Services } from './services.ts';
import type { RouteModule } from './http/app.ts';
import { accountsArea } from './accounts/index.ts';
import { adminArea } from './admin/index.ts';
import { pluginsArea } from './tasks/runtime/index.ts';
import { billingArea } from './billing/index.ts';
import { tasksArea } from './tasks/index.ts';
import { relayArea } from './relay/index.ts';
import { protocolsArea } from './tasks/protocols/index.ts';
import { topupArea } from './billing/topup.ts';
import { alertsArea } from './alerts/index.ts';
import { signupArea } from './accounts/signup-area.ts';
import { ssoArea } from './accounts/sso-area.ts';

export interface Area {
  name: string;
  init(core: Core, services: Services): Promise<void> | void;
  routes?: RouteModule;
  /** Called once the HTTP server listens (background workers start here). */
  start?(core: Core, services: Services): Promise<void> | void;
}

export const AREAS: Area[] = [accountsArea, billingArea, relayArea, pluginsArea, adminArea, signupArea, ssoArea, alertsArea, topupArea, tasksArea, protocolsArea];
