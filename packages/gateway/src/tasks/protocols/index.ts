/**
 * The protocols area: image, video and Responses protocols and plugin native routes, on top of the
 * task lifecycle (`services.tasks`) and the plugin runtime (`services.plugins`).
 */
import type { Area } from '../../areas.ts';
import type { Services } from '../../services.ts';
import { protocolRoutes } from '../../http/protocol-routes.ts';
import { nativeRoutes } from '../../http/native-routes.ts';
import { NativeHost, type NativeGeneration } from '../native/host.ts';
import { ProtocolHost } from './host.ts';
import type { ArtifactsPort, GenerationLike, TasksPort } from './port.ts';

export interface Protocols {
  host: ProtocolHost;
  native: NativeHost;
}

declare module '../../services.ts' {
  interface Services {
    protocols: Protocols;
  }
}

interface TasksArea {
  service: {
    submit(i: unknown): Promise<{ row: unknown; data?: unknown }>;
    byPublicId(id: string): Promise<unknown>;
    waitForTerminal(id: string, ms: number, sig?: AbortSignal): Promise<{ row: unknown; timedOut: boolean }>;
    db: { updateTable(t: 'tasks'): { set(v: Record<string, unknown>): { where(...a: unknown[]): { where(...a: unknown[]): { execute(): Promise<unknown> } } } } };
  };
  poller: { tick(): Promise<void> };
  catalog: TasksPort['catalog'];
  artifacts: {
    list(userId: number, taskId: string): Promise<{ artifacts: Array<Record<string, string>> }>;
    content(userId: number | null, taskId: string, key: string, method: 'GET' | 'HEAD', headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string>; body: NodeJS.ReadableStream | null }>;
  };
}

const envNum = (name: string, dflt: number): number => {
  const n = Number(process.env[name]);
  return process.env[name] && Number.isFinite(n) && n > 0 ? n : dflt;
};

export const protocolsArea: Area = {
  name: 'protocols',
  init(core, services: Services) {
    const area = () => (services as unknown as { tasks?: TasksArea }).tasks ?? null;
    const generation = () => {
      const p = (services as unknown as { plugins?: { current(): GenerationLike } }).plugins;
      return p ? p.current() : null;
    };
    const tasks = (): TasksPort | null => {
      const t = area();
      if (!t) return null;
      return {
        submit: (i) => t.service.submit(i) as ReturnType<TasksPort['submit']>,
        byPublicId: (id) => t.service.byPublicId(id) as ReturnType<TasksPort['byPublicId']>,
        waitForTerminal: (id, ms, sig) => t.service.waitForTerminal(id, ms, sig) as ReturnType<TasksPort['waitForTerminal']>,
        // In-request polling: the task becomes due now and one poller pass runs (leases keep it single).
        pollNow: async (id) => {
          const now = Date.now();
          await t.service.db.updateTable('tasks').set({ next_poll_at: now }).where('public_id', '=', id).where('next_poll_at', '>', now).execute();
          await t.poller.tick();
        },
        discardResult: async (id) => {
          await t.service.db.updateTable('tasks').set({ data: null, retain: 0 }).where('public_id', '=', id).where('retain', '=', 1).execute();
        },
        catalog: t.catalog,
      };
    };
    const artifacts = (): ArtifactsPort | null => {
      const t = area();
      if (!t) return null;
      return {
        links: async (row) => (await t.artifacts.list(Number(row.user_id), row.public_id)).artifacts.map((a) => ({ key: a.key, type: a.type, ...(a.mime_type ? { mimeType: a.mime_type } : {}), url: a.content_url })),
        content: (row, key, req) => t.artifacts.content(Number(row.user_id), row.public_id, key, req.method === 'HEAD' ? 'HEAD' : 'GET', req.headers),
      };
    };
    const host = new ProtocolHost({
      tasks, artifacts, generation, log: core.log,
      protocolTimeoutMs: () => core.config.taskProtocolTimeoutSeconds * 1000,
      tickMs: envNum('TASK_PLUGIN_PROTOCOL_TICK_MILLISECONDS', 2000),
      heartbeatMs: envNum('TASK_PLUGIN_PROTOCOL_HEARTBEAT_SECONDS', 15) * 1000,
      download: { maxBytes: envNum('MAX_FILE_DOWNLOAD_MB', 64) * 1024 * 1024, timeoutMs: 60_000, allowPrivate: core.config.contentAllowPrivateAddresses },
    });
    const native = new NativeHost({ tasks, generation: () => generation() as NativeGeneration | null, log: core.log });
    services.protocols = { host, native };
  },
  async routes(app, deps) {
    await protocolRoutes(app, deps);
    await nativeRoutes(app, deps);
  },
};
