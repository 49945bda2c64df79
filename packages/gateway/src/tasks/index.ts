/**
 * The task area: lifecycle (submit, poll, settle), outbound execution, artifacts and the generic
 * task endpoints. Other areas (image/video/Responses protocols, native routes) use `services.tasks`.
 */
import type { Core } from '../core.ts';
import type { Options } from '../options/options.ts';
import type { Accounts } from '../accounts/index.ts';
import type { Billing } from '../billing/index.ts';
import type { PluginsService } from '../plugins/runtime/index.ts';
import { TaskCatalog } from './lifecycle/catalog.ts';
import { TaskService, type PluginSource } from './lifecycle/service.ts';
import { Poller } from './lifecycle/poller.ts';
import { TaskStore } from './lifecycle/store.ts';
import { Artifacts } from './artifacts/service.ts';
import { TaskAdmin } from './lifecycle/admin.ts';
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
   * Base of signed links: the older TaskPublicAddress option (or TASK_PUBLIC_ADDRESS) when set, else
   * the public address (PUBLIC_URL, or the older ServerAddress option), else this node's address.
   */
  publicBase(): string;
  /** Called by the HTTP layer once the server listens. */
  setListeningUrl(url: string): void;
}

export interface TasksDeps {
  options: Options;
  accounts: Accounts;
  billing: Billing;
  plugins: PluginsService;
}

export const tasksArea = {
  name: 'tasks',
  async init(core: Core, deps: TasksDeps): Promise<Tasks> {
    const catalog = new TaskCatalog(core);
    await catalog.register();
    const plugins = (): PluginSource => deps.plugins;
    const store = new TaskStore(core.h);
    deps.plugins.inFlightCounter = (key: string) => store.countUnfinished(key);
    const callbacks = new TaskCallbacks(core);
    const callbackWorker = new CallbackWorker(core, callbacks, store);
    const service = new TaskService(core, store, deps.billing.ledger, catalog, plugins, {
      callbacks,
      rateLimits: deps.accounts.rateLimits,
      budgets: deps.billing.budgets,
    });
    const poller = new Poller(service, store, core.log);
    let selfUrl = `http://127.0.0.1:${core.config.port}`;
    const { options } = deps;
    const publicBase = () => options.get('TaskPublicAddress') || options.publicUrl() || selfUrl;
    const artifacts = new Artifacts(service, publicBase);
    const tasks: Tasks = {
      service,
      store,
      poller,
      artifacts,
      catalog,
      publicBase,
      callbacks,
      callbackWorker,
      admin: new TaskAdmin(core, service, store, deps.billing.ledger, callbacks),
      setListeningUrl: (u) => {
        selfUrl = u;
      },
      submit: (i) => service.submit(i),
      get: (u, id) => service.get(u, id),
      waitForTerminal: (id, ms, sig) => service.waitForTerminal(id, ms, sig),
      pollNow: (id) => poller.pollNow(id),
    };
    core.onClose(async () => {
      await poller.stop();
      await callbackWorker.stop();
    });
    return tasks;
  },
  start(_core: Core, tasks: Tasks) {
    tasks.poller.start();
    tasks.callbackWorker.start();
  },
};
