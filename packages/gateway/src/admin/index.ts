/**
 * The administration area: users, API keys, channels, prices, group ratios, options and logs, plus
 * the configuration file applied at every start (after accounts created the root account).
 */
import type { Area } from '../areas.ts';
import type { Core } from '../core.ts';
import type { Services } from '../services.ts';
import { adminRoutes } from '../http/admin-routes.ts';
import { loadConfigFile } from '../config-file/load.ts';
import { applyConfigDoc } from '../config-file/apply.ts';
import { Changes } from './changes.ts';
import { UserAdmin } from './users.ts';
import { KeyAdmin } from './keys.ts';
import { ChannelAdmin, type ChannelBindingCheck } from './channels.ts';
import type { SchemaField } from '../tasks/billing/expr.ts';
import { checkChannelBinding, type ChannelBindingSettings } from '../tasks/runtime/channels.ts';
import { PriceAdmin } from './prices.ts';
import { Options } from './options.ts';
import { LogAdmin } from './logs.ts';
import { AuditLog } from './audit.ts';
import { UsageReports } from '../logs/usage.ts';

export interface Admin {
  changes: Changes;
  users: UserAdmin;
  keys: KeyAdmin;
  channels: ChannelAdmin;
  prices: PriceAdmin;
  options: Options;
  logs: LogAdmin;
  usage: UsageReports;
  /** The administrative audit log (every write of the services above records itself here). */
  audit: AuditLog;
}

declare module '../services.ts' {
  interface Services {
    admin: Admin;
  }
}

export function createAdmin(core: Core, services: Services): Admin {
  const bindingCheck: ChannelBindingCheck = (ch, opts) =>
    checkChannelBinding(services.plugins.current(), ch.type, ch.settings as ChannelBindingSettings, opts);
  const changes = new Changes(core);
  const audit = new AuditLog(core);
  return {
    changes,
    audit,
    users: new UserAdmin(core, changes, () => services.billing.ledger, audit, () => services.billing.budgets),
    keys: new KeyAdmin(core, changes, audit, () => services.billing.budgets),
    channels: new ChannelAdmin(core, changes, () => bindingCheck, audit),
    prices: new PriceAdmin(core, changes, (model) => {
      const sep = model.indexOf('::');
      if (sep <= 0) return null;
      const plugin = services.plugins.current().plugins.get(model.slice(0, sep));
      return (plugin?.usageSchemaFor(model.slice(sep + 2)).schema as Record<string, SchemaField> | undefined) ?? null;
    }, audit),
    options: new Options(core, changes, audit),
    logs: new LogAdmin(core),
    usage: new UsageReports(core),
  };
}

export const adminArea: Area = {
  name: 'admin',
  async init(core, services) {
    const admin = createAdmin(core, services);
    services.admin = admin;
    await core.cache.register('options', () => admin.options.load());
    const file = core.config.configFile;
    if (file) {
      const doc = loadConfigFile(file, core.config);
      const sum = await applyConfigDoc(admin, doc, file, (line) => process.stdout.write(`${line}\n`));
      core.log.info({ file, ...sum }, 'configuration file applied');
    }
  },
  start(core, services) {
    services.admin.logs.startRetention();
  },
  routes: adminRoutes,
};
