/**
 * The task lifecycle: submit, state changes, settlement and reads. HTTP handlers, native routes and
 * the image/video/Responses protocols all call this service.
 *
 * Money: a task reserves once at submit (ref `task:<public id>`), and exactly one of settle or
 * refund closes it. Status changes are compare-and-swap on the previous status; the final cost is
 * written together with the terminal transition, so whichever node (or restart) performs the
 * settlement afterwards moves the same amount, and the ledger refuses a second movement.
 */
import type { GoogleTokens } from '../../platform/google-token.ts';
import { sql } from 'kysely';
import type { Core } from '../../core.ts';
import { insertLogs } from '../../logs/writer.ts';
import type { KeyPrincipal } from '../../accounts/types.ts';
import { checkModelAccess } from '../../accounts/keys.ts';
import type { HeaderSink, RateLimiter } from '../../accounts/rate-limits.ts';
import type { Budgets } from '../../billing/budgets.ts';
import type { Ledger, Payer } from '../../billing/ledger.ts';
import { echo, GatewayError } from '../../platform/errors.ts';
import { redactSecrets, sentSecrets } from '../../platform/redact.ts';
import { randomId } from '../../platform/ids.ts';
import { compile, type Facts } from '../billing/expr.ts';
import { validateFacts } from '../billing/facts.ts';
import { orderChannels, type TaskCatalog, type TaskChannel } from './catalog.ts';
import { channelAuth, effectiveBaseUrl, queryContext, type Task } from './context.ts';
import type { Generation } from '../runtime/generation.ts';
import type { PluginHost } from '../runtime/host.ts';
import type { LoadedPlugin } from '../runtime/loader.ts';
import type { UsageSchemaN } from '../runtime/manifest.ts';
import { normalizeProgress, normalizeStatus, parseJson, publicTask, TERMINAL, type PublicTask, type TaskStatus } from './states.ts';
import {
  buildRequest, decodeBody, DEFAULT_LIMITS, fileRefOf, firstHeaders, OutboundError, readLimited, send,
  type Descriptor, type FileRef, type OutboundLimits, type UploadedFile,
} from '../outbound/request.ts';
import { checkStateSize, DEFAULT_SSE_LIMITS, DeltaResult, readSse, type SseLimits } from '../outbound/sse.ts';
import type { CallbackView, TaskCallbacks } from '../callbacks/service.ts';

/** The decoded inbound body (`ctx.body`); multipart files are references, the bytes stay with the host. */
export type DecodedBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'form'; fields: Record<string, string[]> }
  | { kind: 'multipart'; fields: Record<string, string[]>; files: FileRef[] }
  | { kind: 'none' };

/** Where the lifecycle reads the current plugin generation from (the plugin runtime's host). */
export type PluginSource = Pick<PluginHost, 'current'>;

export interface SubmitInput {
  principal: KeyPrincipal;
  pluginKey: string;
  model: string;
  action?: string;
  /** The normalised request body the plugin sees as `ctx.requestBody`. */
  requestBody: unknown;
  /** The decoded inbound body (`ctx.body`); defaults to `{kind:'json', value: requestBody}`. */
  body?: DecodedBody;
  files?: UploadedFile[];
  path?: string;
  method?: string;
  params?: Record<string, string>;
  query?: Record<string, string[]>;
  requestHeaders?: Record<string, string>;
  /** Default true. False: an immediate terminal result is not stored (reads answer 404). */
  retainResult?: boolean;
  /**
   * With `retainResult: false`: an asynchronous task is expected (its result is kept without a
   * warning). The image protocol sets it: results completed by in-request polling keep their snapshot.
   */
  expectAsync?: boolean;
  /**
   * Pins the channel chosen at candidate selection (it decides the executing plugin). Another channel
   * of the same plugin is tried only when the pinned one certainly did not accept the task.
   */
  channelId?: number;
  /**
   * Public ids of earlier tasks this one continues (decoder `originTaskIds`). Each must belong to the
   * caller and have been run by a channel of this plugin, all on one channel, which is then pinned for
   * every attempt. The driver gets `ctx.originTasks` with the upstream ids; renderers never do.
   */
  originTaskIds?: string[];
  /** Host-protocol facts stored with the task (e.g. `{ background: true }` for Responses). */
  protocol?: Record<string, unknown>;
  /** Pin the request to this generation (default: the current one). */
  generation?: Generation;
  /** Where the rate-limit headers of the submission go (the HTTP response). */
  limitHeaders?: HeaderSink;
  /** Endpoint name for logs. */
  endpoint?: string;
  /** The `X-Callback-URL` header of the submission (absent: the key's default callback URL, if any). */
  callbackUrl?: string;
}

/** An origin task as the driver sees it (`ctx.originTasks[]`); `taskId` is the upstream id. */
export interface OriginTask { taskId: string; publicTaskId: string; action: string; status: string; data: unknown }

/** A submit's outcome; `data` is the submit-time taskData, also when it was not retained. */
export interface SubmitOutcome { task: PublicTask; row: Task; data: unknown }

export interface BillingInfo {
  mode: 'expr' | 'per_call';
  priceKey: string;
  expression?: string;
  perCallUsd?: number;
  groupRatio: number;
  facts: Facts;
}

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

const HOOK_MSG_MAX = 512;

export function hookMessage(e: unknown): string {
  const m = (e as Error)?.message ?? String(e);
  // eslint-disable-next-line no-control-regex
  return m.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').slice(0, HOOK_MSG_MAX);
}

/** A task that ended in an unknown outcome (flagged for an administrator), as written by this node. */
export interface UnknownOutcome {
  taskId: string;
  userId: number;
  plugin: string;
  channelId: number | null;
  reason: string;
}

export class TaskService {
  readonly limits: OutboundLimits;
  readonly sseLimits: SseLimits;
  private readonly rateLimits: RateLimiter | null;
  private readonly budgets: Budgets | null;
  readonly nodeId: string;
  readonly callbacks: TaskCallbacks | null;
  private unknownListeners: Array<(u: UnknownOutcome) => void> = [];

  /** Access tokens of service-account keys (`oauth2_jwt` plugins). */
  get google(): GoogleTokens {
    return this.core.outbound.google;
  }

  constructor(
    private readonly core: Core,
    private readonly ledger: Ledger,
    readonly catalog: TaskCatalog,
    private readonly plugins: () => PluginSource | undefined,
    opts: TaskServiceOptions = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.sseLimits = { ...DEFAULT_SSE_LIMITS, ...opts.sseLimits };
    this.rateLimits = opts.rateLimits ?? null;
    this.budgets = opts.budgets ?? null;
    this.nodeId = core.config.nodeId;
    this.callbacks = opts.callbacks ?? null;
  }

  get db() { return this.core.h.db; }
  get log() { return this.core.log; }
  get config() { return this.core.config; }
  /** The outbound HTTP client (platform/outbound.ts). */
  get outbound() { return this.core.outbound; }

  generation(): Generation {
    const src = this.plugins();
    if (!src) throw new GatewayError(503, 'plugin_runtime_unavailable', 'the task plugin runtime is not available');
    return src.current();
  }

  /**
   * An UPDATE of the one task `id`, reached through the primary key. On MySQL/MariaDB the key is
   * forced: on a small table the optimizer may otherwise read the row through an index named in the
   * compare-and-swap condition (status, billing_status, next_poll_at) and lock the index entries of
   * other tasks before their rows — the opposite of the order every other single-task write takes
   * (row, then its index entries), which deadlocks (see Poller.sweepStaleSubmits).
   */
  updateTask(id: Task['id']) {
    const table = this.core.h.dialect === 'mysql' ? (sql`tasks FORCE INDEX (PRIMARY)` as unknown as 'tasks') : 'tasks';
    return this.db.updateTable(table).where('id', '=', id);
  }

  plugin(key: string, gen: Generation = this.generation()): LoadedPlugin {
    const p = gen.plugins.get(key);
    if (!p) throw new GatewayError(404, 'plugin_not_found', `no task plugin "${key}" is installed and enabled`);
    return p;
  }

  pollIntervalMs(): number {
    return Math.max(10, this.config.taskPollIntervalSeconds * 1000);
  }

  // ------------------------------------------------------------------------------------------
  // Submit
  // ------------------------------------------------------------------------------------------

  async submit(input: SubmitInput): Promise<SubmitOutcome> {
    const gen = input.generation ?? this.generation();
    const plugin = this.plugin(input.pluginKey, gen);
    if (typeof input.model !== 'string' || !input.model) throw new GatewayError(400, 'model_required', 'the request needs a "model" string');
    const model = plugin.manifest.models.find((m) => m.toLowerCase() === input.model.toLowerCase());
    if (!model) throw new GatewayError(400, 'model_not_supported', `plugin "${plugin.key}" does not serve model "${echo(input.model)}"`);
    const p = input.principal;
    checkModelAccess(p, model);
    const channels = orderChannels(this.catalog.candidates(plugin.key, model, p.group));
    if (!channels.length) throw new GatewayError(503, 'no_available_channel', `no channel serves model "${echo(model)}" of plugin "${plugin.key}" for group "${p.group}"`);
    // Rate limits (accounts/rate-limits.ts): before anything is priced or reserved; no tokens are counted.
    const a = this.rateLimits ? this.rateLimits.admit(p, model, 0, input.limitHeaders ?? null) : null;
    const admission = a instanceof Promise ? await a : a;
    try {
      return await this.submitTo(input, plugin, model, channels);
    } finally {
      admission?.end(0);
    }
  }

  private async submitTo(input: SubmitInput, plugin: LoadedPlugin, model: string, ordered: TaskChannel[]): Promise<SubmitOutcome> {
    const p = input.principal;
    let channels = ordered;
    const origins = await this.originTasks(input.originTaskIds ?? [], p.userId, plugin.key);
    // Checked before any money moves: a callback URL that cannot be used refuses the submission.
    const callbackUrl = this.callbacks ? await this.callbacks.resolve(p, input.callbackUrl) : null;
    const pinnedId = origins.channelId ?? input.channelId;
    if (origins.channelId !== null && input.channelId !== undefined && input.channelId !== origins.channelId) {
      throw new GatewayError(400, 'origin_task_channel_conflict', `the origin tasks were made on another channel than the one chosen for this request`);
    }
    if (pinnedId !== undefined && pinnedId !== null) {
      const pinned = channels.find((c) => c.id === pinnedId);
      if (!pinned) {
        throw origins.channelId !== null
          ? new GatewayError(400, 'origin_task_channel_disabled', `the channel of the origin tasks does not serve model "${echo(model)}" for group "${p.group}" (disabled or changed)`)
          : new GatewayError(503, 'no_available_channel', `the chosen channel no longer serves model "${echo(model)}" of plugin "${plugin.key}"`);
      }
      // Origin tasks keep their channel for every attempt; a chosen channel may fail over within the plugin.
      channels = origins.channelId !== null ? [pinned] : [pinned, ...channels.filter((c) => c !== pinned)];
    }

    const publicId = `task_${randomId(32)}`;
    const now = Date.now();
    const files = new Map((input.files ?? []).map((f) => [f.ref, f]));
    const fileRefs: FileRef[] = (input.files ?? []).map(fileRefOf);
    const action = input.action ?? '';
    const payer: Payer = this.budgets ? this.budgets.payer(p) : { userId: p.userId, keyId: p.keyId, unlimitedKey: p.unlimitedQuota };

    let row: Task | null = null;
    let billing: BillingInfo | null = null;
    let lastError: GatewayError | null = null;

    for (let attempt = 0; attempt < channels.length; attempt++) {
      const ch = channels[attempt];
      const keyIndex = Math.floor(Math.random() * ch.keys.length);
      const upstreamModel = ch.modelMapping[model] ?? model;
      const baseUrl = effectiveBaseUrl(plugin, ch);
      const ctx: Record<string, unknown> = {
        path: input.path ?? `/v1/tasks/${plugin.key}`,
        method: input.method ?? 'POST',
        params: input.params ?? {},
        query: input.query ?? {},
        body: input.body ?? { kind: 'json', value: input.requestBody ?? null },
        requestBody: input.requestBody ?? null,
        requestHeaders: input.requestHeaders ?? {},
        files: fileRefs,
        action,
        publicTaskId: publicId,
        model,
        upstreamModel,
        baseUrl,
        ...(origins.tasks.length ? { originTasks: origins.tasks } : {}),
        ...(await channelAuth(plugin, ch, keyIndex, this.google)),
      };

      // Price and reserve once, before the first upstream call.
      if (!row) {
        billing = await this.price(plugin, ctx, model, upstreamModel, p.group);
        const amount = this.quotaOf(billing);
        row = await this.insertTask({
          public_id: publicId, plugin_key: plugin.key, plugin_version: plugin.version, user_id: p.userId, key_id: p.keyId,
          key_unlimited: p.unlimitedQuota ? 1 : 0, channel_id: ch.id, channel_key_index: keyIndex, group_name: p.group,
          model, upstream_model: upstreamModel, action, status: 'NOT_START', progress: '0%', fail_reason: null,
          upstream_task_id: null, data: null, state: null, retain: 1, quota_reserved: amount, quota_final: null,
          billing_status: 'reserving', billing: JSON.stringify(billing), poll_failures: 0, next_poll_at: null,
          lease_owner: null, lease_until: null, submitted_at: null, started_at: null, finished_at: null,
          created_at: now, updated_at: now, flagged: 0, flag_reason: null,
          protocol: input.protocol ? JSON.stringify(input.protocol) : null,
        });
        try {
          await this.ledger.reserve(payer, ledgerRef(publicId), amount);
        } catch (e) {
          await this.updateTask(row.id).set({ status: 'FAILURE', progress: '100%', billing_status: 'none', fail_reason: (e as Error).message, finished_at: Date.now(), updated_at: Date.now() })
            .execute();
          throw e;
        }
        await this.updateTask(row.id).set({ billing_status: 'reserved' }).where('billing_status', '=', 'reserving').execute();
        await this.logMovement(row, 'reserve', amount, input.endpoint);
      } else {
        await this.updateTask(row.id).set({ channel_id: ch.id, channel_key_index: keyIndex, upstream_model: upstreamModel, updated_at: Date.now() })
          .where('status', '=', 'NOT_START').execute();
      }

      let desc: Descriptor;
      try {
        desc = (await plugin.call('buildSubmitRequest', ctx)) as Descriptor;
      } catch (e) {
        lastError = new GatewayError(400, 'plugin_request_invalid', hookMessage(e));
        break; // the request itself is refused; another channel would refuse it too
      }
      if (desc && typeof desc.action === 'string' && desc.action) ctx.action = desc.action;
      const wantsSse = desc?.responseType === 'sse';
      if (wantsSse && !(plugin.manifest.submitResponseTypes ?? ['json']).includes('sse')) {
        lastError = new GatewayError(502, 'plugin_request_invalid', 'plugin asked for an SSE response without declaring it in submitResponseTypes');
        break;
      }

      // Send. Until the upstream answers we know whether it certainly did not take the request.
      let res;
      let built: ReturnType<typeof buildRequest> | null = null;
      try {
        built = buildRequest(desc, { baseUrl, allowedHosts: plugin.manifest.allowedHosts ?? [], files, defaultMethod: 'POST' }, this.limits);
        res = await send(built, this.limits, this.core.outbound.agent);
      } catch (e) {
        if (e instanceof OutboundError && !e.sent) {
          lastError = e;
          if (e.status === 502 || e.status === 504) continue; // unreachable: try another channel
          break;
        }
        return this.unknownOutcome(row, e, input.endpoint, callbackUrl);
      }

      if (res.status < 200 || res.status >= 300) {
        const buf = await readLimited(res.body, 64 * 1024).catch(() => Buffer.alloc(0));
        // An upstream error may echo the credentials it got: they never go further than here.
        const secrets = sentSecrets([ch.keys[keyIndex], ...ch.keys], built?.headers, built?.url);
        const detail = upstreamMessage(decodeBody(Buffer.from(redactSecrets(buf.toString('utf8'), secrets))));
        const retryable = res.status === 429 || res.status === 500 || res.status === 502 || res.status === 503;
        lastError = res.status === 429
          ? new GatewayError(429, 'upstream_busy', `the upstream is busy (HTTP 429)${detail}`)
          : res.status >= 500
            ? new GatewayError(502, 'upstream_error', `the upstream failed (HTTP ${res.status})${detail}`)
            : new GatewayError(400, 'upstream_rejected', `the upstream rejected the task (HTTP ${res.status})${detail}`);
        if (res.status === 504) return this.unknownOutcome(row, lastError, input.endpoint, callbackUrl);
        if (retryable) continue;
        break;
      }

      // Accepted (2xx): from here on nothing is retried.
      let body: unknown;
      try {
        const ctype = String(res.headers['content-type']?.[0] ?? '');
        if (wantsSse) {
          if (!/^text\/event-stream/i.test(ctype)) throw new OutboundError(502, 'plugin_submit_response_invalid', 'the upstream did not answer with an event stream', true);
          body = await this.readSubmitStream(plugin, ctx, res);
        } else {
          if (/^text\/event-stream/i.test(ctype)) throw new OutboundError(502, 'plugin_submit_response_invalid', 'the upstream answered with an event stream to a JSON submission', true);
          body = decodeBody(await readLimited(res.body, this.limits.maxResponseBytes));
        }
      } catch (e) {
        return this.unknownOutcome(row, e, input.endpoint, callbackUrl);
      }
      let result: Record<string, unknown>;
      try {
        result = (await plugin.call('parseSubmitResponse', ctx, { statusCode: res.status, headers: res.headers, body })) as Record<string, unknown>;
        if (!result || typeof result !== 'object') throw new Error('parseSubmitResponse returned no object');
        if ('clientResponse' in result) throw new Error('parseSubmitResponse may not return clientResponse');
        const imm = result.immediate as Record<string, unknown> | undefined;
        if (typeof result.taskId === 'number') result.taskId = String(result.taskId);
        if ((typeof result.taskId !== 'string' || !result.taskId) && !(imm && TERMINAL.has(normalizeStatus(imm.status)))) {
          throw new Error('parseSubmitResponse returned no taskId');
        }
      } catch (e) {
        return this.unknownOutcome(row, new GatewayError(502, 'plugin_submit_response_invalid', hookMessage(e)), input.endpoint, callbackUrl);
      }
      return this.accept(plugin, row, ctx, billing!, result, input, callbackUrl);
    }

    // Certainly not accepted anywhere: the task fails and the reserve goes back.
    const err = lastError ?? new GatewayError(502, 'upstream_error', 'no channel accepted the task');
    if (row) {
      const won = await this.transition(row, 'NOT_START', { status: 'FAILURE', progress: '100%', fail_reason: err.message, quota_final: 0, finished_at: Date.now() });
      if (won) await this.settle(row.public_id);
    }
    throw err;
  }

  private async readSubmitStream(plugin: LoadedPlugin, ctx: Record<string, unknown>, res: Awaited<ReturnType<typeof send>>): Promise<unknown> {
    const delta = (plugin.manifest.requiredCapabilities ?? []).includes('submit-sse-delta@1');
    let prev: unknown = null;
    const result = new DeltaResult(this.sseLimits.maxResultBytes);
    return readSse(res, this.sseLimits, async (ev) => {
      let out: Record<string, unknown>;
      try {
        out = (await plugin.call(delta ? 'parseSubmitEventDelta' : 'parseSubmitEvent', ctx, ev, prev)) as Record<string, unknown>;
      } catch (e) {
        throw new OutboundError(502, 'plugin_submit_event_failed', hookMessage(e), true);
      }
      if (!out || typeof out !== 'object' || typeof out.done !== 'boolean' || !('state' in out)) {
        throw new OutboundError(502, 'plugin_submit_event_invalid', 'submit event hook must return { state, done }', true);
      }
      if (delta) {
        const keys = Object.keys(out).sort().join(',');
        if (keys !== 'changes,done,state') throw new OutboundError(502, 'plugin_submit_event_invalid', 'parseSubmitEventDelta must return exactly { changes, state, done }', true);
        checkStateSize(out.state, 64 * 1024);
        result.apply(out.changes);
      } else {
        checkStateSize(out.state, this.sseLimits.maxStateBytes);
      }
      prev = out.state ?? null;
      return { done: out.done as boolean, value: delta ? result.value : prev };
    });
  }

  /** Records an accepted submission (and settles an immediate terminal result at once). */
  private async accept(plugin: LoadedPlugin, row: Task, ctx: Record<string, unknown>, billing: BillingInfo, result: Record<string, unknown>, input: SubmitInput, callbackUrl: string | null = null): Promise<SubmitOutcome> {
    const now = Date.now();
    const imm = result.immediate && typeof result.immediate === 'object' ? result.immediate as Record<string, unknown> : null;
    const taskData = result.taskData === undefined ? null : result.taskData;
    const schema = usageSchema(plugin, String(ctx.model), String(ctx.upstreamModel));
    if (plugin.has('extractUsageOnSubmit')) {
      try {
        const f = validateFacts(await plugin.call('extractUsageOnSubmit', ctx, taskData), schema, true);
        if (f) billing.facts = { ...billing.facts, ...f };
      } catch (e) {
        this.log.warn({ task: row.public_id, err: hookMessage(e) }, 'extractUsageOnSubmit failed; submit facts kept');
      }
    }
    let status: TaskStatus = imm ? normalizeStatus(imm.status) : 'SUBMITTED';
    if (status === 'NOT_START') status = 'SUBMITTED';
    const terminal = TERMINAL.has(status);
    const retain = !(input.retainResult === false && terminal);
    if (input.retainResult === false && !terminal && !input.expectAsync) {
      this.log.warn({ task: row.public_id, plugin: plugin.key }, 'route does not retain results but the upstream returned an asynchronous task; its result is kept');
    }
    const upd: Record<string, unknown> = {
      status,
      progress: normalizeProgress(imm?.progress, status, '0%'),
      upstream_task_id: typeof result.taskId === 'string' && result.taskId ? result.taskId : null,
      data: retain && taskData !== null ? JSON.stringify(taskData) : null,
      retain: retain ? 1 : 0,
      billing: JSON.stringify(billing),
      submitted_at: now,
    };
    if (ctx.action !== row.action) upd.action = ctx.action;
    if (result.state !== undefined) upd.state = JSON.stringify(result.state);
    if (status === 'IN_PROGRESS') upd.started_at = now;
    if (terminal) {
      upd.finished_at = now;
      upd.next_poll_at = null;
      if (status === 'FAILURE') {
        upd.fail_reason = typeof imm?.reason === 'string' && imm.reason ? redactSecrets(this.redactReason(row.channel_id, imm.reason), sentSecrets([typeof ctx.apiKey === 'string' ? ctx.apiKey : null])) : 'the upstream reported a failure';
        upd.quota_final = 0;
      } else {
        const view = { ...row, ...upd } as Task;
        upd.quota_final = await this.finalQuota(plugin, view, billing, imm ?? {}, taskData);
      }
    } else {
      upd.next_poll_at = now + this.pollIntervalMs();
    }
    // The callback is recorded before the task can become terminal, so its terminal step always finds it.
    if (callbackUrl) await this.recordCallback(row, callbackUrl);
    const won = await this.transition(row, 'NOT_START', upd);
    if (!won) this.log.warn({ task: row.public_id }, 'task changed while it was being accepted');
    if (terminal) await this.settle(row.public_id);
    const fresh = await this.byPublicId(row.public_id);
    return { task: publicTask(fresh!), row: fresh!, data: taskData };
  }

  /**
   * Resolves `originTaskIds` (public ids) for a submit of `pluginKey` by `userId`: each must be the
   * caller's, made by this plugin, all on one channel still bound to it. 400 naming the id otherwise.
   */
  async originTasks(ids: string[], userId: number, pluginKey: string): Promise<{ channelId: number | null; tasks: OriginTask[] }> {
    if (!ids.length) return { channelId: null, tasks: [] };
    if (ids.length > 16) throw new GatewayError(400, 'invalid_request', 'at most 16 origin tasks are allowed');
    let channelId: number | null | undefined;
    const tasks: OriginTask[] = [];
    for (const raw of ids) {
      const id = typeof raw === 'string' ? raw.trim() : '';
      const shown = JSON.stringify(String(raw).slice(0, 128));
      const t = id && id.length <= 128 ? await this.byPublicId(id) : undefined;
      if (!t || Number(t.user_id) !== userId) throw new GatewayError(400, 'origin_task_not_found', `origin task ${shown} was not found`);
      if (t.plugin_key !== pluginKey) throw new GatewayError(400, 'origin_task_platform_mismatch', `origin task ${shown} was made by another plugin`);
      const ch = t.channel_id === null ? null : Number(t.channel_id);
      if (channelId === undefined) channelId = ch;
      else if (channelId !== ch) throw new GatewayError(400, 'origin_task_channel_conflict', `origin task ${shown} was made on another channel than the other origin tasks`);
      tasks.push({
        taskId: t.upstream_task_id ?? '', publicTaskId: t.public_id, action: t.action, status: t.status,
        data: t.retain === 1 ? parseJson(t.data) : null,
      });
    }
    const bound = channelId === null || channelId === undefined ? undefined : this.catalog.channel(channelId);
    if (!bound || !bound.plugins.includes(pluginKey)) {
      throw new GatewayError(400, 'origin_task_channel_disabled', `the channel of origin task ${JSON.stringify(ids[0].slice(0, 128))} is disabled or no longer runs this plugin`);
    }
    return { channelId: bound.id, tasks };
  }

  /** Adds a listener of the tasks this node flags with an unknown outcome (the operator alerts). */
  onUnknownOutcome(fn: (u: UnknownOutcome) => void): void {
    this.unknownListeners.push(fn);
  }

  /** Tells the listeners that `row` was flagged with an unknown outcome (by this node's write). */
  flaggedUnknown(row: Pick<Task, 'public_id' | 'user_id' | 'plugin_key' | 'channel_id'>, reason: string): void {
    const u: UnknownOutcome = {
      taskId: row.public_id, userId: Number(row.user_id), plugin: row.plugin_key, channelId: row.channel_id === null ? null : Number(row.channel_id), reason,
    };
    for (const fn of this.unknownListeners) {
      try { fn(u); } catch (err) { this.log.error({ err: (err as Error).message }, 'unknown-outcome listener failed'); }
    }
  }

  /** Writes the callback row of an accepted task; a failure loses the callback, never the task. */
  private async recordCallback(row: Task, url: string): Promise<void> {
    try {
      await this.callbacks!.create(row, url);
    } catch (e) {
      this.log.error({ task: row.public_id, err: (e as Error).message }, 'the task callback could not be recorded; the task goes on without it');
    }
  }

  private async unknownOutcome(row: Task, e: unknown, endpoint?: string, callbackUrl: string | null = null): Promise<never> {
    const g = e instanceof GatewayError ? e : new GatewayError(502, 'upstream_unknown', hookMessage(e));
    // The task may still end (an administrator's resolution): its callback goes out then.
    if (callbackUrl) await this.recordCallback(row, callbackUrl);
    const reason = `submit outcome unknown: ${g.message}`;
    const upd = await this.updateTask(row.id).set({
      status: 'UNKNOWN', fail_reason: reason.slice(0, 1000), flagged: 1, flag_reason: 'submit outcome unknown; not retried and not refunded automatically',
      next_poll_at: null, updated_at: Date.now(),
    }).where('status', '=', 'NOT_START').executeTakeFirst();
    if (Number(upd.numUpdatedRows) === 1) this.flaggedUnknown(row, reason.slice(0, 1000));
    this.log.error({ task: row.public_id, plugin: row.plugin_key, channel: row.channel_id, endpoint, code: g.code }, 'task submit outcome unknown; flagged for an administrator');
    throw new GatewayError(502, g.code === 'plugin_submit_response_invalid' ? g.code : 'submit_outcome_unknown',
      `the upstream may have accepted the task but its answer could not be used (${g.message}); task ${row.public_id} is kept for review and was not retried`);
  }

  // ------------------------------------------------------------------------------------------
  // Billing
  // ------------------------------------------------------------------------------------------

  private async price(plugin: LoadedPlugin, ctx: Record<string, unknown>, model: string, upstreamModel: string, group: string): Promise<BillingInfo> {
    const found = this.catalog.price(plugin.key, model, upstreamModel);
    if (!found) throw new GatewayError(400, 'model_price_error', `no price is set for model "${echo(model)}" of plugin "${plugin.key}"`);
    const groupRatio = this.catalog.groupRatio(group);
    const schema = usageSchema(plugin, model, upstreamModel);
    let facts: Facts = {};
    if (plugin.has('extractUsage')) {
      let raw: unknown;
      try {
        raw = await plugin.call('extractUsage', { ...ctx, usagePurpose: 'facts' });
      } catch (e) {
        throw new GatewayError(400, 'plugin_usage_invalid', hookMessage(e));
      }
      facts = validateFacts(raw, schema) ?? {};
    }
    if (found.price.expression) {
      const b: BillingInfo = { mode: 'expr', priceKey: found.key, expression: found.price.expression, groupRatio, facts };
      try {
        this.quotaOf(b);
      } catch (e) {
        throw new GatewayError(400, 'model_price_error', `the price of "${found.key}" cannot be computed: ${(e as Error).message}`);
      }
      return b;
    }
    return { mode: 'per_call', priceKey: found.key, perCallUsd: found.price.perRequest ?? 0, groupRatio, facts };
  }

  /** Quota units for a billing snapshot (throws when the expression cannot be evaluated). */
  quotaOf(b: BillingInfo): number {
    const usd = b.mode === 'expr' ? compile(b.expression!).eval(b.facts) : (b.perCallUsd ?? 0);
    const q = Math.round(usd * this.config.quotaPerUsd * b.groupRatio);
    if (!Number.isFinite(q) || q < 0) throw new Error('price is not a finite non-negative amount');
    return q;
  }

  /** The cost of a successful task: completion facts overlaid on the frozen ones, re-evaluated. */
  private async finalQuota(plugin: LoadedPlugin, t: Task, billing: BillingInfo, result: unknown, data: unknown): Promise<number> {
    if (billing.mode !== 'expr') return Number(t.quota_reserved);
    let facts = billing.facts;
    if (plugin.has('extractUsageOnComplete')) {
      try {
        const ch = this.catalog.channel(t.channel_id);
        const raw = await plugin.call('extractUsageOnComplete', await queryContext(plugin, t, ch, this.google), result, data);
        const f = validateFacts(raw, usageSchema(plugin, t.model, t.upstream_model), true);
        if (f) facts = { ...facts, ...f };
      } catch (e) {
        this.log.warn({ task: t.public_id, err: hookMessage(e) }, 'extractUsageOnComplete failed; reservation kept');
        return Number(t.quota_reserved);
      }
    }
    try {
      return this.quotaOf({ ...billing, facts });
    } catch (e) {
      this.log.warn({ task: t.public_id, err: (e as Error).message }, 'final price could not be computed; reservation kept');
      return Number(t.quota_reserved);
    }
  }

  /**
   * Closes the money of a terminal task: settle at `quota_final` on SUCCESS, refund on FAILURE —
   * unless a FAILURE carries a positive `quota_final` (an administrator charged a task the upstream
   * worked on), which settles at that amount. Safe to call any number of times from any node.
   */
  async settle(publicId: string): Promise<void> {
    const t = await this.byPublicId(publicId);
    // Every terminal transition comes through here: its callback (if any) becomes due at this step.
    if (t && TERMINAL.has(t.status) && this.callbacks) {
      await this.callbacks.arm(t).catch((e) => this.log.warn({ task: t.public_id, err: (e as Error).message }, 'arming the task callback failed; the callback worker will'));
    }
    if (!t || !TERMINAL.has(t.status) || t.billing_status !== 'reserved') return;
    // Budget rows its reserve took (if any) are found by the ref: the settle corrects them.
    const payer: Payer = { userId: Number(t.user_id), keyId: t.key_id === null ? null : Number(t.key_id), unlimitedKey: t.key_unlimited === 1, budgets: 'recorded' };
    const ref = ledgerRef(t.public_id);
    const reserved = Number(t.quota_reserved);
    let outcome: 'settled' | 'refunded';
    const charged = t.status === 'SUCCESS' || (t.quota_final !== null && Number(t.quota_final) > 0);
    if (charged) {
      const final = t.quota_final === null ? reserved : Number(t.quota_final);
      const r = await this.ledger.settle(payer, ref, reserved, final);
      if (r) await this.logMovement(t, 'settle', r.charged, undefined, r.shortfall ? { shortfall: r.shortfall } : undefined);
      outcome = 'settled';
    } else {
      const ok = await this.ledger.refund(payer, ref, reserved);
      if (ok) await this.logMovement(t, 'refund', -reserved);
      outcome = 'refunded';
    }
    const moved = await this.ledger.movements(ref);
    const status = moved.settle !== undefined ? 'settled' : moved.refund !== undefined ? 'refunded' : outcome;
    await this.updateTask(t.id).set({ billing_status: status, updated_at: Date.now() })
      .where('billing_status', '=', 'reserved').execute();
  }

  private async logMovement(t: Task, movement: string, quota: number, endpoint?: string, extra?: Record<string, unknown>): Promise<void> {
    this.core.metrics.task(t.plugin_key, movement, quota);
    try {
      await insertLogs(this.core.h, [{
        created_at: Date.now(), type: 'task', request_id: t.public_id, user_id: t.user_id, username: null,
        key_id: t.key_id, key_name: null, group_name: t.group_name, model: t.model, upstream_model: t.upstream_model,
        channel_id: t.channel_id, endpoint: endpoint ?? `/v1/tasks/${t.plugin_key}`, status_code: null,
        prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, quota, latency_ms: 0, first_byte_ms: null,
        is_stream: 0, attempts: 1, content: `task ${movement}`,
        other: JSON.stringify({ movement, plugin: t.plugin_key, status: t.status, ...extra }),
      }]);
    } catch (e) {
      this.log.warn({ task: t.public_id, err: (e as Error).message }, 'task log write failed');
    }
  }

  // ------------------------------------------------------------------------------------------
  // State changes
  // ------------------------------------------------------------------------------------------

  /**
   * Compare-and-swap on the previous status (and, for a poll, on the lease; `when` adds the flag or
   * the failure count seen). Returns whether this call won.
   */
  async transition(t: Task, from: string, set: Record<string, unknown>, leaseOwner?: string, when: { flagged?: 0 | 1; pollFailures?: number } = {}): Promise<boolean> {
    let q = this.updateTask(t.id).set({ ...set, updated_at: Date.now() } as never).where('status', '=', from);
    if (leaseOwner) q = q.where('lease_owner', '=', leaseOwner);
    if (when.flagged !== undefined) q = q.where('flagged', '=', when.flagged);
    if (when.pollFailures !== undefined) q = q.where('poll_failures', '=', when.pollFailures);
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Applies a normalised plugin result to a polled task. `data` is what is stored as the task's
   * snapshot (undefined keeps the old one). Returns the new status.
   */
  async applyResult(plugin: LoadedPlugin, t: Task, result: Record<string, unknown>, data: unknown, leaseOwner: string): Promise<string> {
    const now = Date.now();
    let status = normalizeStatus(result.status);
    if (typeof result.reason === 'string' && result.reason && result.fromBatch) status = 'FAILURE';
    const set: Record<string, unknown> = {};
    if (result.state !== undefined && result.state !== null) set.state = JSON.stringify(result.state);
    if (data !== undefined && t.retain === 1) set.data = JSON.stringify(data);
    if (status === 'UNKNOWN' || (NON_TERMINAL_RESULT(status) && result.countAsFailure)) {
      if (status === 'UNKNOWN') set.status = 'UNKNOWN';
      return this.pollFailed(t, `unrecognised upstream status ${JSON.stringify(result.status ?? null)?.slice(0, 64)}`, leaseOwner, set);
    }
    set.status = status;
    set.progress = normalizeProgress(result.progress, status, t.progress);
    if (status === 'IN_PROGRESS' && t.started_at === null) set.started_at = typeof result.startTime === 'number' && result.startTime > 0 ? toMs(result.startTime) : now;
    if (TERMINAL.has(status)) {
      set.finished_at = typeof result.finishTime === 'number' && result.finishTime > 0 ? toMs(result.finishTime) : now;
      set.next_poll_at = null;
      set.poll_failures = 0;
      if (t.started_at === null) set.started_at = set.finished_at;
      if (status === 'FAILURE') {
        set.fail_reason = typeof result.reason === 'string' && result.reason ? this.redactReason(t.channel_id, result.reason).slice(0, 2000) : 'the upstream reported a failure';
        set.quota_final = 0;
      } else {
        const billing = parseJson(t.billing) as BillingInfo | null;
        set.quota_final = billing ? await this.finalQuota(plugin, { ...t, ...set } as Task, billing, stripPrivate(result), data ?? parseJson(t.data)) : Number(t.quota_reserved);
      }
    } else {
      set.poll_failures = 0;
      set.next_poll_at = now + this.pollIntervalMs();
    }
    set.lease_owner = null;
    set.lease_until = null;
    const won = await this.transition(t, t.status, set, leaseOwner);
    if (won && TERMINAL.has(status)) await this.settle(t.public_id);
    return won ? status : t.status;
  }

  /**
   * Counts a poll failure; at TASK_POLL_MAX_FAILURES the task fails and is refunded. The update is
   * a compare-and-swap on the count it read too, so a stale poll (one whose lease expired while it
   * waited, and which the same node id would otherwise still pass) cannot overwrite a newer count.
   */
  async pollFailed(t: Task, reason: string, leaseOwner: string, extra: Record<string, unknown> = {}): Promise<string> {
    const seen = Number(t.poll_failures);
    const failures = seen + 1;
    const max = this.config.taskPollMaxFailures;
    if (max > 0 && failures >= max) {
      const won = await this.transition(t, t.status, {
        ...extra, status: 'FAILURE', progress: '100%', poll_failures: failures, fail_reason: `poll failed ${failures} times: ${reason}`.slice(0, 2000),
        quota_final: 0, finished_at: Date.now(), next_poll_at: null, lease_owner: null, lease_until: null,
      }, leaseOwner, { pollFailures: seen });
      if (won) await this.settle(t.public_id);
      return won ? 'FAILURE' : t.status;
    }
    const backoff = Math.min(this.pollIntervalMs() * 2 ** Math.min(failures - 1, 8), Math.max(this.pollIntervalMs(), this.config.taskPollBackoffMaxSeconds * 1000));
    const status = (extra.status as string | undefined) ?? t.status;
    await this.transition(t, t.status, { ...extra, status, poll_failures: failures, next_poll_at: Date.now() + backoff, lease_owner: null, lease_until: null }, leaseOwner, { pollFailures: seen });
    this.log.warn({ task: t.public_id, failures, reason: reason.slice(0, 512) }, 'task poll failed');
    return status;
  }

  /** A failure reason a plugin read from its upstream, without the channel's keys (an upstream may echo them). */
  private redactReason(channelId: number | null, reason: string): string {
    const ch = channelId === null ? undefined : this.catalog.channel(channelId);
    return ch ? redactSecrets(reason, sentSecrets(ch.keys)) : reason;
  }

  /** Upstream says the task does not exist (404/410): it fails and is refunded. */
  async upstreamGone(t: Task, httpStatus: number, leaseOwner: string): Promise<void> {
    const won = await this.transition(t, t.status, {
      status: 'FAILURE', progress: '100%', fail_reason: `upstream task not found (HTTP ${httpStatus})`, quota_final: 0,
      finished_at: Date.now(), next_poll_at: null, lease_owner: null, lease_until: null,
    }, leaseOwner);
    if (won) await this.settle(t.public_id);
  }

  // ------------------------------------------------------------------------------------------
  // Reads
  // ------------------------------------------------------------------------------------------

  async byPublicId(publicId: string): Promise<Task | undefined> {
    return this.db.selectFrom('tasks').selectAll().where('public_id', '=', publicId).executeTakeFirst();
  }

  /** The caller's own, retained task; 404 for anything else. */
  async own(userId: number | null, publicId: string): Promise<Task> {
    const t = typeof publicId === 'string' && publicId.length <= 64 ? await this.byPublicId(publicId) : undefined;
    if (!t || t.retain !== 1 || (userId !== null && Number(t.user_id) !== userId)) {
      throw new GatewayError(404, 'task_not_found', `task ${String(publicId).slice(0, 64)} not found`);
    }
    return t;
  }

  /** The caller's task view, with its callback delivery when it has one. */
  async get(userId: number, publicId: string): Promise<PublicTask & { callback?: CallbackView }> {
    const t = await this.own(userId, publicId);
    const callback = this.callbacks ? await this.callbacks.view(t.id) : null;
    return callback ? { ...publicTask(t), callback } : publicTask(t);
  }

  /**
   * Resolves when the task reaches SUCCESS or FAILURE, or with its current view at `timeoutMs`.
   * Background polling keeps going regardless of the caller.
   */
  async waitForTerminal(publicId: string, timeoutMs: number, signal?: AbortSignal): Promise<{ task: PublicTask; row: Task; timedOut: boolean }> {
    const deadline = Date.now() + timeoutMs;
    const step = Math.max(20, Math.min(this.pollIntervalMs(), 1000));
    for (;;) {
      const t = await this.byPublicId(publicId);
      if (!t) throw new GatewayError(404, 'task_not_found', `task ${publicId} not found`);
      if (TERMINAL.has(t.status) || Date.now() >= deadline || signal?.aborted) return { task: publicTask(t), row: t, timedOut: !TERMINAL.has(t.status) };
      await new Promise((r) => setTimeout(r, Math.min(step, Math.max(1, deadline - Date.now()))));
    }
  }

  private async insertTask(values: Record<string, unknown>): Promise<Task> {
    await this.db.insertInto('tasks').values(values as never).execute();
    return (await this.byPublicId(values.public_id as string))!;
  }
}

function NON_TERMINAL_RESULT(s: TaskStatus): boolean { return !TERMINAL.has(s); }

export function ledgerRef(publicId: string): string { return `task:${publicId}`; }

function toMs(v: number): number { return v < 1e12 ? v * 1000 : v; }

function stripPrivate(r: Record<string, unknown>): Record<string, unknown> {
  const { countAsFailure: _a, fromBatch: _b, ...rest } = r;
  return rest;
}

export function usageSchema(plugin: LoadedPlugin, model: string, upstreamModel: string): UsageSchemaN | null {
  try {
    return plugin.usageSchemaFor(model, upstreamModel).schema;
  } catch {
    return null;
  }
}

function upstreamMessage(body: unknown): string {
  let m = '';
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    const e = b.error as Record<string, unknown> | string | undefined;
    m = typeof e === 'string' ? e : typeof e?.message === 'string' ? e.message : typeof b.message === 'string' ? b.message : '';
  } else if (typeof body === 'string') m = body;
  m = m.replace(/\s+/g, ' ').trim().slice(0, 300);
  return m ? `: ${m}` : '';
}

export { sql };
export type { FileRef, TaskChannel, UploadedFile };
export { firstHeaders };
