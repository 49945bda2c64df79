/**
 * The task area: lifecycle (submit, poll, settle), outbound execution, artifacts and the generic
 * task endpoints. Other areas (image/video/Responses protocols, native routes) use `services.tasks`.
 */
import type { AddressInfo } from 'node:net';
import type { Area } from '../areas.ts';
import type { Services } from '../services.ts';
import { TaskCatalog } from './lifecycle/catalog.ts';
import { TaskService, type PluginSource } from './lifecycle/service.ts';
import { Poller } from './lifecycle/poller.ts';
import { TaskStore } from './lifecycle/store.ts';
import { Artifacts } from './artifacts/service.ts';
import { TaskAdmin } from './lifecycle/admin.ts';
import { taskRoutes } from '../http/task-routes.ts';
import { taskAdminRoutes } from '../http/task-admin-routes.ts';
import { TaskCallbacks } from './callbacks/service.ts';
import { CallbackWorker } from './callbacks/worker.ts';

export interface Tasks {
  /** submit / get / waitForTerminal / settle ... */
  service: TaskService;
  /** Every SQL statement on the `tasks` table. */
  store: TaskStore;
  poller: Poller;
  artifacts: Artifacts;
  catalog: TaskCatalog;
  /** Completion callbacks: the delivery rows, and the worker that sends them (on the lease holder). */
  callbacks: TaskCallbacks;
  callbackWorker: CallbackWorker;
  /** Task administration: lists, details, resolution of flagged tasks, users' own task lists. */
  admin: TaskAdmin;
  submit: TaskService['submit'];
  get: TaskService['get'];
  waitForTerminal: TaskService['waitForTerminal'];
  /** Polls one task now (in-request polling); false when it was not due, leased or terminal. */
  pollNow(publicId: string): Promise<boolean>;
  /**
   * Base of signed links: the option TaskPublicAddress, else ServerAddress (options override
   * TASK_PUBLIC_ADDRESS / SERVER_ADDRESS; read from the in-memory options), else this node's address.
   */
  publicBase(): string;
  /** Called by the HTTP layer once the server listens. */
  setListeningUrl(url: string): void;
}

declare module '../services.ts' {
  interface Services {
    tasks: Tasks;
  }
}

export const tasksArea: Area = {
  name: 'tasks',
  async init(core, services: Services) {
    const catalog = new TaskCatalog(core);
    await catalog.register();
    const plugins = (): PluginSource | undefined => (services as { plugins?: PluginSource }).plugins;
    const store = new TaskStore(core.h);
    if (services.plugins) services.plugins.inFlightCounter = (key: string) => store.countUnfinished(key);
    const callbacks = new TaskCallbacks(core);
    const callbackWorker = new CallbackWorker(core, callbacks, store);
    const service = new TaskService(core, store, services.billing.ledger, catalog, plugins, { callbacks, rateLimits: services.accounts.rateLimits, budgets: services.billing.budgets });
    const poller = new Poller(service, store, core.log);
    let selfUrl = `http://127.0.0.1:${core.config.port}`;
    const options = services.admin?.options;
    const publicBase = () => options
      ? options.get('TaskPublicAddress') || options.get('ServerAddress') || selfUrl
      : core.config.taskPublicAddress || core.config.serverAddress || selfUrl;
    const artifacts = new Artifacts(service, publicBase);
    services.tasks = {
      service, store, poller, artifacts, catalog, publicBase, callbacks, callbackWorker,
      admin: new TaskAdmin(core, service, store, services.billing.ledger, callbacks),
      setListeningUrl: (u) => { selfUrl = u; },
      submit: (i) => service.submit(i),
      get: (u, id) => service.get(u, id),
      waitForTerminal: (id, ms, sig) => service.waitForTerminal(id, ms, sig),
      pollNow: (id) => poller.pollNow(id),
    };
    core.onClose(async () => {
      await poller.stop();
      await callbackWorker.stop();
    });
  },
  async routes(app, deps) {
    await taskRoutes(app, deps);
    await taskAdminRoutes(app, deps);
  },
  start(_core, services) {
    services.tasks.poller.start();
    services.tasks.callbackWorker.start();
  },
};

/** Records the address the server listens on (used for links when no public address is set). */
export function listeningUrl(addr: AddressInfo | string | null): string | null {
  if (!addr || typeof addr === 'string') return null;
  const host = addr.address === '0.0.0.0' || addr.address === '::' ? '127.0.0.1' : addr.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
}
