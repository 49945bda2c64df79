/**
 * The task lifecycle's entry point: one `TaskService` per node, which HTTP handlers, native routes,
 * the image/video/Responses protocols, the poller and task administration call. It only delegates, to
 * one part per job:
 *
 * - `submit.ts` — submission (channel choice, reserve, the upstream call, accept or flag);
 * - `settle.ts` — prices, final costs and the settlement that closes a task's reserve;
 * - `transitions.ts` — status changes after submit (poll results, poll failures, deadlines);
 * - `views.ts` — reads for callers;
 * - `store.ts` — every SQL statement on the `tasks` table.
 *
 * Money: a task reserves once at submit (ref `task:<public id>`), and exactly one of settle or
 * refund closes it. Status changes are compare-and-swap on the previous status; the final cost is
 * written together with the terminal transition, so whichever node (or restart) performs the
 * settlement afterwards moves the same amount, and the ledger refuses a second movement.
 */
import type { GoogleTokens } from '../../platform/google-token.ts';
import type { Core } from '../../core.ts';
import type { Ledger } from '../../billing/ledger.ts';
import type { TaskCatalog, TaskChannel } from './catalog.ts';
import type { Task } from './context.ts';
import { TaskEnv, type PluginSource, type QueryAnswer, type TaskServiceOptions } from './env.ts';
import { Settlement, type BillingInfo } from './settle.ts';
import { Submission, type SubmitInput, type SubmitOutcome } from './submit.ts';
import { Transitions, type UnknownOutcome } from './transitions.ts';
import { TaskReads } from './views.ts';
import type { TaskStore, SwapCondition, TaskChanges } from './store.ts';
import type { PublicTask } from './states.ts';
import type { Generation } from '../../plugins/runtime/generation.ts';
import type { LoadedPlugin } from '../../plugins/runtime/loader.ts';
import type { OutboundLimits, OutboundTarget } from '../outbound/request.ts';
import type { SseLimits } from '../outbound/sse.ts';
import type { CallbackView, TaskCallbacks } from '../callbacks/service.ts';

export { hookMessage } from './env.ts';
export { ledgerRef, usageSchema } from './settle.ts';
export type { PluginSource, QueryAnswer, TaskServiceOptions } from './env.ts';
export type { BillingInfo } from './settle.ts';
export type { DecodedBody, OriginTask, SubmitInput, SubmitOutcome } from './submit.ts';
export type { UnknownOutcome } from './transitions.ts';
export type { FileRef, UploadedFile } from '../outbound/request.ts';
export type { TaskChannel };

/** The settings the poller works by, read when asked (they may change while a node runs). */
export interface PollSettings {
  nodeId: string;
  intervalMs: number;
  leaseMs: number;
  /** TASK_TIMEOUT_SECONDS in minutes (0: no outer deadline). */
  timeoutMinutes: number;
  /** How long a NOT_START task may stay so before its submission is taken for dead. */
  staleSubmitMs: number;
}

export class TaskService {
  private readonly env: TaskEnv;
  private readonly money: Settlement;
  private readonly states: Transitions;
  private readonly reads: TaskReads;
  private readonly submission: Submission;

  constructor(
    core: Core,
    store: TaskStore,
    ledger: Ledger,
    catalog: TaskCatalog,
    plugins: () => PluginSource | undefined,
    opts: TaskServiceOptions = {},
  ) {
    this.env = new TaskEnv(core, store, ledger, catalog, plugins, opts);
    this.money = new Settlement(this.env);
    this.states = new Transitions(this.env, this.money);
    this.reads = new TaskReads(this.env);
    this.submission = new Submission(this.env, this.money, this.states, opts.rateLimits ?? null, opts.budgets ?? null);
  }

  /** Limits of plugin vendor calls (the object is shared: changing a field changes later calls). */
  get limits(): OutboundLimits {
    return this.env.limits;
  }
  get sseLimits(): SseLimits {
    return this.env.sseLimits;
  }
  get catalog(): TaskCatalog {
    return this.env.catalog;
  }
  get callbacks(): TaskCallbacks | null {
    return this.env.callbacks;
  }
  get config() {
    return this.env.config;
  }
  /** The outbound HTTP client (platform/outbound.ts). */
  get outbound() {
    return this.env.core.outbound;
  }
  /** Access tokens of service-account keys (`oauth2_jwt` plugins). */
  get google(): GoogleTokens {
    return this.env.google;
  }

  generation(): Generation {
    return this.env.generation();
  }
  plugin(key: string, gen?: Generation): LoadedPlugin {
    return this.env.plugin(key, gen);
  }
  pollIntervalMs(): number {
    return this.env.pollIntervalMs();
  }

  pollSettings(): PollSettings {
    const c = this.env.config;
    return {
      nodeId: this.env.nodeId,
      intervalMs: this.env.pollIntervalMs(),
      leaseMs: c.taskPollLeaseSeconds * 1000,
      timeoutMinutes: c.taskTimeoutMinutes,
      staleSubmitMs: this.env.sseLimits.deadlineMs + this.env.limits.headersTimeoutMs + 60_000,
    };
  }

  // Submit
  submit(input: SubmitInput): Promise<SubmitOutcome> {
    return this.submission.submit(input);
  }
  originTasks(ids: string[], userId: number, pluginKey: string) {
    return this.submission.originTasks(ids, userId, pluginKey);
  }

  // Money
  settle(publicId: string): Promise<void> {
    return this.money.settle(publicId);
  }
  quotaOf(b: BillingInfo): number {
    return this.money.quotaOf(b);
  }

  // Status changes
  transition(t: Task, from: string, set: TaskChanges, leaseOwner?: string, when: Omit<SwapCondition, 'leaseOwner'> = {}): Promise<boolean> {
    return this.states.transition(t, from, set, leaseOwner, when);
  }
  applyResult(plugin: LoadedPlugin, t: Task, result: Record<string, unknown>, data: unknown, leaseOwner: string): Promise<string> {
    return this.states.applyResult(plugin, t, result, data, leaseOwner);
  }
  pollFailed(t: Task, reason: string, leaseOwner: string, extra?: Record<string, unknown>): Promise<string> {
    return this.states.pollFailed(t, reason, leaseOwner, extra);
  }
  upstreamGone(t: Task, httpStatus: number, leaseOwner: string): Promise<void> {
    return this.states.upstreamGone(t, httpStatus, leaseOwner);
  }
  timedOut(t: Task, minutes: number): Promise<void> {
    return this.states.timedOut(t, minutes);
  }
  flagStaleSubmit(row: Pick<Task, 'id' | 'public_id' | 'user_id' | 'plugin_key' | 'channel_id'>, cutoff: number): Promise<void> {
    return this.states.flagStaleSubmit(row, cutoff);
  }
  onUnknownOutcome(fn: (u: UnknownOutcome) => void): void {
    this.states.onUnknownOutcome(fn);
  }
  flaggedUnknown(row: Pick<Task, 'public_id' | 'user_id' | 'plugin_key' | 'channel_id'>, reason: string): void {
    this.states.flaggedUnknown(row, reason);
  }

  // Polling
  pollContext(plugin: LoadedPlugin, t: Task, ch?: TaskChannel) {
    return ch ? this.env.pollContext(plugin, t, ch) : this.env.pollContext(plugin, t);
  }
  query(desc: unknown, target: OutboundTarget): Promise<QueryAnswer> {
    return this.env.query(desc, target);
  }

  // Reads
  byPublicId(publicId: string): Promise<Task | undefined> {
    return this.reads.byPublicId(publicId);
  }
  own(userId: number | null, publicId: string): Promise<Task> {
    return this.reads.own(userId, publicId);
  }
  get(userId: number, publicId: string): Promise<PublicTask & { callback?: CallbackView }> {
    return this.reads.get(userId, publicId);
  }
  waitForTerminal(publicId: string, timeoutMs: number, signal?: AbortSignal) {
    return this.reads.waitForTerminal(publicId, timeoutMs, signal);
  }
}
