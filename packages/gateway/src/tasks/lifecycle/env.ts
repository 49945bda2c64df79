/**
 * What every part of the task lifecycle shares (submit, settlement, transitions, reads): the core, the
 * task store, the ledger, the channel catalog, the current plugin generation, the outbound limits and
 * the completion callbacks, with the few helpers they all use. One is built per node by `TaskService`.
 */
import type { GoogleTokens } from '../../platform/google-token.ts';
import type { Core } from '../../core.ts';
import type { RateLimiter } from '../../accounts/rate-limits.ts';
import type { Budgets } from '../../billing/budgets.ts';
import type { Ledger } from '../../billing/ledger.ts';
import { fail } from '../../platform/errors.ts';
import type { TaskCatalog, TaskChannel } from './catalog.ts';
import { queryContext, type Task } from './context.ts';
import type { TaskStore } from './store.ts';
import type { Generation } from '../../plugins/runtime/generation.ts';
import type { PluginHost } from '../../plugins/runtime/host.ts';
import type { LoadedPlugin } from '../../plugins/runtime/loader.ts';
import {
  buildRequest,
  decodeBody,
  DEFAULT_LIMITS,
  readLimited,
  send,
  type OutboundLimits,
  type OutboundTarget,
} from '../outbound/request.ts';
import { DEFAULT_SSE_LIMITS, type SseLimits } from '../outbound/sse.ts';
import type { TaskCallbacks } from '../callbacks/service.ts';

/** Where the lifecycle reads the current plugin generation from (the plugin runtime's host). */
export type PluginSource = Pick<PluginHost, 'current'>;

export interface TaskServiceOptions {
  limits?: Partial<OutboundLimits>;
  sseLimits?: Partial<SseLimits>;
  /** Completion callbacks (tasks/callbacks); without it no callback is recorded. */
  callbacks?: TaskCallbacks;
  /** Rate limits per key, user and model: a submission is a request (and a call in flight while it is submitted). */
  rateLimits?: RateLimiter;
  /** Period budgets: a task's reserve is taken against them too. */
  budgets?: Budgets;
}

/** An upstream's answer to a poll query, read within the limits. */
export interface QueryAnswer {
  status: number;
  headers: Record<string, string[]>;
  body: unknown;
}

const HOOK_MSG_MAX = 512;

/** A plugin hook's error as a short single-line text. */
export function hookMessage(e: unknown): string {
  const m = (e as Error)?.message ?? String(e);
  // eslint-disable-next-line no-control-regex
  return m.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').slice(0, HOOK_MSG_MAX);
}

export class TaskEnv {
  readonly limits: OutboundLimits;
  readonly sseLimits: SseLimits;
  readonly nodeId: string;
  readonly callbacks: TaskCallbacks | null;

  constructor(
    readonly core: Core,
    readonly store: TaskStore,
    readonly ledger: Ledger,
    readonly catalog: TaskCatalog,
    private readonly plugins: () => PluginSource | undefined,
    opts: TaskServiceOptions = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.sseLimits = { ...DEFAULT_SSE_LIMITS, ...opts.sseLimits };
    this.nodeId = core.config.nodeId;
    this.callbacks = opts.callbacks ?? null;
  }

  get log() {
    return this.core.log;
  }
  get config() {
    return this.core.config;
  }
  /** Access tokens of service-account keys (`oauth2_jwt` plugins). */
  get google(): GoogleTokens {
    return this.core.outbound.google;
  }

  generation(): Generation {
    const src = this.plugins();
    if (!src) throw fail('plugin_runtime_unavailable');
    return src.current();
  }

  plugin(key: string, gen: Generation = this.generation()): LoadedPlugin {
    const p = gen.plugins.get(key);
    if (!p) throw fail('plugin_not_found', { plugin: key });
    return p;
  }

  pollIntervalMs(): number {
    return Math.max(10, this.config.taskPollIntervalSeconds * 1000);
  }

  /** The channel of a stored task (undefined when disabled or gone; `ch` when given) and the context its query hooks get. */
  async pollContext(
    plugin: LoadedPlugin,
    t: Task,
    ch: TaskChannel | undefined = this.catalog.channel(t.channel_id),
  ): Promise<{ ch: TaskChannel | undefined; ctx: Record<string, unknown> }> {
    return { ch, ctx: await queryContext(plugin, t, ch, this.google) };
  }

  /** Sends a query descriptor and reads its answer within the limits; throws on transport errors. */
  async query(desc: unknown, target: OutboundTarget): Promise<QueryAnswer> {
    const res = await send(buildRequest(desc as never, target, this.limits), this.limits, this.core.outbound.agent);
    return { status: res.status, headers: res.headers, body: decodeBody(await readLimited(res.body, this.limits.maxResponseBytes)) };
  }
}
