/**
 * The protocols area: image, video and Responses protocols and plugin native routes, on top of the
 * task lifecycle (`services.tasks`) and the plugin runtime (`services.plugins`).
 */
import type { Core } from '../core.ts';
import type { Tasks } from '../tasks/index.ts';
import type { PluginsService } from '../plugins/runtime/index.ts';
import { NativeHost } from './native/host.ts';
import { ProtocolHost } from './host.ts';
import type { ArtifactsPort, TasksPort } from './port.ts';

export interface Protocols {
  host: ProtocolHost;
  native: NativeHost;
}

export const protocolsArea = {
  name: 'protocols',
  init(core: Core, deps: { plugins: PluginsService; tasks: Tasks }): Protocols {
    const generation = () => deps.plugins.current();
    const tasks = (): TasksPort | null => {
      const t = deps.tasks;
      return {
        submit: (i) => t.submit(i),
        byPublicId: (id) => t.service.byPublicId(id),
        waitForTerminal: (id, ms, sig) => t.waitForTerminal(id, ms, sig),
        pollNow: (id) => t.pollNow(id),
        catalog: t.catalog,
      };
    };
    const artifacts = (): ArtifactsPort | null => {
      const t = deps.tasks;
      return {
        links: async (row) =>
          (await t.artifacts.list(Number(row.user_id), row.public_id)).artifacts.map((a) => ({
            key: a.key,
            type: a.type,
            ...(a.mime_type ? { mimeType: a.mime_type } : {}),
            url: a.content_url,
          })),
        content: (row, key, req) =>
          t.artifacts.content(Number(row.user_id), row.public_id, key, req.method === 'HEAD' ? 'HEAD' : 'GET', req.headers),
      };
    };
    const host = new ProtocolHost({
      tasks,
      artifacts,
      generation,
      log: core.log,
      protocolTimeoutMs: () => core.config.taskProtocolTimeoutSeconds * 1000,
      tickMs: core.config.taskProtocolTickMs,
      heartbeatMs: core.config.taskProtocolHeartbeatSeconds * 1000,
      download: { maxBytes: core.config.maxFileDownloadMb * 1024 * 1024, timeoutMs: 60_000, dispatcher: core.outbound.content },
    });
    const native = new NativeHost({ tasks, generation, log: core.log });
    return { host, native };
  },
};
