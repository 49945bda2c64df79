/**
 * The administration area: users, API keys, channels, prices, group ratios, options and logs. The
 * composition root (areas.ts) applies the configuration file to it at every start (after accounts
 * created the root account).
 */
import type { Core } from '../core.ts';
import type { Changes } from './changes.ts';
import { UserAdmin } from './users.ts';
import { KeyAdmin } from './keys.ts';
import { ChannelAdmin, type ChannelBindingCheck } from './channels.ts';
import { ChannelBulk } from './channel-bulk.ts';
import type { SchemaField } from '../billing/expr.ts';
import { checkChannelBinding, type ChannelBindingSettings } from '../plugins/runtime/channels.ts';
import type { PluginsService } from '../plugins/runtime/index.ts';
import type { Billing } from '../billing/index.ts';
import { PriceAdmin } from './prices.ts';
import { PriceCatalog } from './price-catalog.ts';
import type { OptionsAdmin } from './options.ts';
import { LogAdmin } from './logs.ts';
import { TeamAdmin, type TeamTopUp } from './teams.ts';
import { TeamActivity } from './team-activity.ts';
import { topUpTeam } from '../teams/wallet.ts';
import type { AuditLog } from '../logs/audit.ts';
import { UsageReports, type NameLookup } from '../logs/usage.ts';
import { ChannelStore } from '../channels/store.ts';
import { UserStore } from '../accounts/user-store.ts';
import { KeyStore } from '../accounts/key-store.ts';

export interface Admin {
  changes: Changes;
  users: UserAdmin;
  keys: KeyAdmin;
  channels: ChannelAdmin;
  /** Actions over many channels: tags, copies, deletes of several. */
  channelBulk: ChannelBulk;
  prices: PriceAdmin;
  /** The list-price catalog: adoption and the price editor's preview. */
  priceCatalog: PriceCatalog;
  options: OptionsAdmin;
  logs: LogAdmin;
  /** Teams: the operators' teams and what team owners and admins manage (members, invitations). */
  teams: TeamAdmin;
  /** A team's keys, logs and usage for its members. */
  teamActivity: TeamActivity;
  usage: UsageReports;
  /** The administrative audit log (every write of the services above records itself here). */
  audit: AuditLog;
  /** Names of users, keys and channels by id: the usage reports' and the audit log's. */
  names: NameLookup;
}

/**
 * What the administration area is built from: the revision bumps, the audit log and the options
 * (made by the composition root before every area, since every area reads the options), and the
 * areas it administers.
 */
export interface AdminDeps {
  changes: Changes;
  audit: AuditLog;
  options: OptionsAdmin;
  billing: Billing;
  plugins: PluginsService;
}

export function createAdmin(core: Core, deps: AdminDeps): Admin {
  const { changes, audit, billing, plugins } = deps;
  const names: NameLookup = (g, ids) =>
    g === 'user' ? new UserStore(core.h).names(ids) : g === 'key' ? new KeyStore(core.h).names(ids) : new ChannelStore(core.h).names(ids);
  const bindingCheck: ChannelBindingCheck = (ch, opts) =>
    checkChannelBinding(plugins.current(), ch.type, ch.settings as ChannelBindingSettings, opts);
  const channels = new ChannelAdmin(core, changes, () => bindingCheck, audit);
  const prices = new PriceAdmin(
    core,
    changes,
    (model) => {
      const sep = model.indexOf('::');
      if (sep <= 0) return null;
      const plugin = plugins.current().plugins.get(model.slice(0, sep));
      return (plugin?.usageSchemaFor(model.slice(sep + 2)).schema as Record<string, SchemaField> | undefined) ?? null;
    },
    audit,
  );
  const keys = new KeyAdmin(core, changes, audit, () => billing.budgets);
  const logs = new LogAdmin(core);
  const topUp: TeamTopUp = (teamId, quota, ref, byUserId) => topUpTeam(core, billing.ledger, teamId, quota, ref, byUserId);
  return {
    changes,
    audit,
    channelBulk: new ChannelBulk(core, channels, changes, audit),
    users: new UserAdmin(
      core,
      changes,
      () => billing.ledger,
      audit,
      () => billing.budgets,
    ),
    keys,
    channels,
    prices,
    priceCatalog: new PriceCatalog(core, prices),
    options: deps.options,
    logs,
    teams: new TeamAdmin(
      core,
      changes,
      audit,
      () => topUp,
      () => deps.options.publicUrl(),
    ),
    teamActivity: new TeamActivity(core, keys, logs),
    usage: new UsageReports(core, names),
    names,
  };
}

export const adminArea = {
  name: 'admin',
  init(core: Core, deps: AdminDeps): Admin {
    return createAdmin(core, deps);
  },
  start(_core: Core, admin: Admin) {
    admin.logs.startRetention();
  },
};
