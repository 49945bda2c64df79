/**
 * The plugin runtime area: `services.plugins` (PluginHost) with its admin and marketplace services,
 * rebuilt from the database at start and whenever the plugin revision changes on any node.
 */
import type { Core } from '../../core.ts';
import { PluginHost, PLUGINS_REVISION } from './host.ts';
import { PluginAdmin } from '../admin/service.ts';
import { Marketplace } from '../market/service.ts';

export { PluginHost, PLUGINS_REVISION } from './host.ts';
export { PluginCallError, PluginLoadError } from './errors.ts';
export { LoadedPlugin, loadPlugin, precheckSyntax } from './loader.ts';
export type { Generation } from './generation.ts';
export { NativeRouteIndex } from './routes.ts';
export type { RouteMatch } from './routes.ts';
export type { NormalisedManifest, NormalisedRoute, NormalisedClaim } from './manifest.ts';
export { checkChannelBinding, effectiveBaseUrl, bindingOf, TYPE_PEER_GATEWAY, TYPE_TASK_PLUGIN } from './channels.ts';

export interface PluginsService extends PluginHost {
  admin: PluginAdmin;
  market: Marketplace;
}

export const pluginsArea = {
  name: 'plugins',
  async init(core: Core): Promise<PluginsService> {
    const host = new PluginHost(core, {
      timeoutMs: core.config.pluginCallTimeoutMs,
      memoryMb: core.config.pluginMemoryLimitMb,
      poolSize: core.config.pluginPoolSize,
    }) as PluginsService;
    host.admin = new PluginAdmin(core, host);
    host.market = new Marketplace(core, host.admin);
    await core.cache.register(PLUGINS_REVISION, async () => {
      await host.rebuild();
    });
    core.onClose(() => host.shutdown());
    return host;
  },
};
