/**
 * Task submission: model and channel choice, the reserve, the upstream call through the plugin's
 * hooks with failover to another channel while the upstream certainly did not take the task, and the
 * record of the accepted task (or of an outcome that is unknown, flagged for an administrator).
 * Money is priced and settled by `Settlement`; status changes go through `Transitions`.
 */
import { checkModelAccess } from '../../accounts/keys.ts';
import type { KeyPrincipal } from '../../accounts/types.ts';
import type { HeaderSink, RateLimiter } from '../../accounts/rate-limits.ts';
import type { Budgets } from '../../billing/budgets.ts';
import type { Payer } from '../../billing/ledger.ts';
import { echo, GatewayError, fail } from '../../platform/errors.ts';
import { redactSecrets, sentSecrets } from '../../platform/redact.ts';
import { randomId } from '../../platform/ids.ts';
import { validateFacts } from '../billing/facts.ts';
import { orderChannels, type TaskChannel } from './catalog.ts';
import { channelAuth, effectiveBaseUrl, type Task } from './context.ts';
import { hookMessage, type TaskEnv } from './env.ts';
import { ledgerRef, usageSchema, type BillingInfo, type Settlement } from './settle.ts';
import type { Transitions } from './transitions.ts';
import type { Generation } from '../../plugins/runtime/generation.ts';
import type { LoadedPlugin } from '../../plugins/runtime/loader.ts';
import { normalizeProgress, normalizeStatus, parseJson, publicTask, TERMINAL, type PublicTask, type TaskStatus } from './states.ts';
import {
  buildRequest,
  decodeBody,
  fileRefOf,
  OutboundError,
  readLimited,
  send,
  type Descriptor,
  type FileRef,
  type UploadedFile,
} from '../outbound/request.ts';
import { checkStateSize, DeltaResult, readSse } from '../outbound/sse.ts';

/** The decoded inbound body (`ctx.body`); multipart files are references, the bytes stay with the host. */
export type DecodedBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'form'; fields: Record<string, string[]> }
  | { kind: 'multipart'; fields: Record<string, string[]>; files: FileRef[] }
  | { kind: 'none' };

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
export interface OriginTask {
  taskId: string;
  publicTaskId: string;
  action: string;
  status: string;
  data: unknown;
}

/** A submit's outcome; `data` is the submit-time taskData, also when it was not retained. */
export interface SubmitOutcome {
  task: PublicTask;
  row: Task;
  data: unknown;
}

export class Submission {
  constructor(
    private readonly env: TaskEnv,
    private readonly money: Settlement,
    private readonly states: Transitions,
    private readonly rateLimits: RateLimiter | null,
    private readonly budgets: Budgets | null,
  ) {}

  private get log() {
    return this.env.log;
  }

  async submit(input: SubmitInput): Promise<SubmitOutcome> {
    const gen = input.generation ?? this.env.generation();
    const plugin = this.env.plugin(input.pluginKey, gen);
    if (typeof input.model !== 'string' || !input.model) throw fail('model_required');
    const model = plugin.manifest.models.find((m) => m.toLowerCase() === input.model.toLowerCase());
    if (!model) throw fail('model_not_supported', { plugin: plugin.key, model: echo(input.model) });
    const p = input.principal;
    checkModelAccess(p, model);
    const channels = orderChannels(this.env.catalog.candidates(plugin.key, model, p.group));
    if (!channels.length)
      throw fail('no_available_channel', `no channel serves model "${echo(model)}" of plugin "${plugin.key}" for group "${p.group}"`);
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
    const origins = await this.originTasks(input.originTaskIds ?? [], p.userId, plugin.key);
    // Checked before any money moves: a callback URL that cannot be used refuses the submission.
    const callbackUrl = this.env.callbacks ? await this.env.callbacks.resolve(p, input.callbackUrl) : null;
    const channels = pinChannels(ordered, origins.channelId, input.channelId, model, plugin.key, p.group);

    const publicId = `task_${randomId(32)}`;
    const now = Date.now();
    const files = new Map((input.files ?? []).map((f) => [f.ref, f]));
    const fileRefs: FileRef[] = (input.files ?? []).map(fileRefOf);
    const action = input.action ?? '';

    let row: Task | null = null;
    let billing: BillingInfo | null = null;
    let lastError: GatewayError | null = null;

    for (let attempt = 0; attempt < channels.length; attempt++) {
      const ch = channels[attempt];
      const keyIndex = Math.floor(Math.random() * ch.keys.length);
      const upstreamModel = ch.modelMapping[model] ?? model;
      const baseUrl = effectiveBaseUrl(plugin, ch);
      const ctx: Record<string, unknown> = {
        ...driverContext(input, plugin, {
          files: fileRefs,
          action,
          publicTaskId: publicId,
          model,
          upstreamModel,
          baseUrl,
          originTasks: origins.tasks,
        }),
        ...(await channelAuth(plugin, ch, keyIndex, this.env.google)),
      };

      // Price and reserve once, before the first upstream call.
      if (!row) {
        billing = await this.money.price(plugin, ctx, model, upstreamModel, p.group);
        row = await this.reserve(input, plugin, { publicId, now, action, model, upstreamModel, channelId: ch.id, keyIndex }, billing);
      } else {
        await this.env.store.moveToChannel(row.id, ch.id, keyIndex, upstreamModel);
      }

      let desc: Descriptor;
      try {
        desc = (await plugin.call('buildSubmitRequest', ctx)) as Descriptor;
      } catch (e) {
        lastError = fail('plugin_request_invalid', hookMessage(e));
        break; // the request itself is refused; another channel would refuse it too
      }
      if (desc && typeof desc.action === 'string' && desc.action) ctx.action = desc.action;
      const wantsSse = desc?.responseType === 'sse';
      if (wantsSse && !(plugin.manifest.submitResponseTypes ?? ['json']).includes('sse')) {
        lastError = fail('plugin_response_invalid', 'plugin asked for an SSE response without declaring it in submitResponseTypes');
        break;
      }

      // Send. Until the upstream answers we know whether it certainly did not take the request.
      let res;
      let built: ReturnType<typeof buildRequest> | null = null;
      try {
        built = buildRequest(
          desc,
          { baseUrl, allowedHosts: plugin.manifest.allowedHosts ?? [], files, defaultMethod: 'POST' },
          this.env.limits,
        );
        res = await send(built, this.env.limits, this.env.core.outbound.agent);
      } catch (e) {
        if (e instanceof OutboundError && !e.sent) {
          lastError = e;
          if (e.status === 502 || e.status === 504) continue; // unreachable: try another channel
          break;
        }
        return this.unknownOutcome(row, e, input.endpoint, callbackUrl);
      }

      if (res.status < 200 || res.status >= 300) {
        lastError = await rejection(res, [ch.keys[keyIndex], ...ch.keys], built);
        const retryable = res.status === 429 || res.status === 500 || res.status === 502 || res.status === 503;
        if (res.status === 504) return this.unknownOutcome(row, lastError, input.endpoint, callbackUrl);
        if (retryable) continue;
        break;
      }

      // Accepted (2xx): from here on nothing is retried.
      const answer = await this.readAnswer(plugin, ctx, res, wantsSse);
      if (!answer.ok) return this.unknownOutcome(row, answer.error, input.endpoint, callbackUrl);
      return this.accept(plugin, row, ctx, billing!, answer.result, input, callbackUrl);
    }

    // Certainly not accepted anywhere: the task fails and the reserve goes back.
    const err = lastError ?? fail('upstream_error', 'no channel accepted the task');
    if (row) {
      const won = await this.states.transition(row, 'NOT_START', {
        status: 'FAILURE',
        progress: '100%',
        fail_reason: err.message,
        quota_final: 0,
        finished_at: Date.now(),
      });
      if (won) await this.money.settle(row.public_id);
    }
    throw err;
  }

  /** Records the task (NOT_START, billing `reserving`) and takes its reserve; a refused reserve fails the task. */
  private async reserve(
    input: SubmitInput,
    plugin: LoadedPlugin,
    at: { publicId: string; now: number; action: string; model: string; upstreamModel: string; channelId: number; keyIndex: number },
    billing: BillingInfo,
  ): Promise<Task> {
    const p = input.principal;
    const payer: Payer = this.budgets
      ? this.budgets.payer(p)
      : { userId: p.userId, keyId: p.keyId, unlimitedKey: p.unlimitedQuota, teamId: p.teamId ?? null };
    const { publicId, now } = at;
    const amount = this.money.quotaOf(billing);
    const row = await this.env.store.insert({
      public_id: publicId,
      plugin_key: plugin.key,
      plugin_version: plugin.version,
      user_id: p.userId,
      key_id: p.keyId,
      key_unlimited: p.unlimitedQuota ? 1 : 0,
      team_id: payer.teamId ?? null,
      channel_id: at.channelId,
      channel_key_index: at.keyIndex,
      group_name: p.group,
      model: at.model,
      upstream_model: at.upstreamModel,
      action: at.action,
      status: 'NOT_START',
      progress: '0%',
      fail_reason: null,
      upstream_task_id: null,
      data: null,
      state: null,
      retain: 1,
      quota_reserved: amount,
      quota_final: null,
      billing_status: 'reserving',
      billing: JSON.stringify(billing),
      poll_failures: 0,
      next_poll_at: null,
      lease_owner: null,
      lease_until: null,
      submitted_at: null,
      started_at: null,
      finished_at: null,
      created_at: now,
      updated_at: now,
      flagged: 0,
      flag_reason: null,
      protocol: input.protocol ? JSON.stringify(input.protocol) : null,
    });
    try {
      await this.env.ledger.reserve(payer, ledgerRef(publicId), amount);
    } catch (e) {
      await this.env.store.failReserve(row.id, (e as Error).message);
      throw e;
    }
    await this.env.store.markReserved(row.id);
    await this.money.logMovement(row, 'reserve', amount, input.endpoint);
    return row;
  }

  /**
   * Reads the 2xx answer to a submission and the plugin's `parseSubmitResponse` of it. Not ok: the
   * answer cannot be used, and the upstream may have taken the task (outcome unknown).
   */
  private async readAnswer(
    plugin: LoadedPlugin,
    ctx: Record<string, unknown>,
    res: Awaited<ReturnType<typeof send>>,
    wantsSse: boolean,
  ): Promise<{ ok: true; result: Record<string, unknown> } | { ok: false; error: unknown }> {
    let body: unknown;
    try {
      const ctype = String(res.headers['content-type']?.[0] ?? '');
      if (wantsSse) {
        if (!/^text\/event-stream/i.test(ctype))
          throw new OutboundError('plugin_submit_response_invalid', 'the upstream did not answer with an event stream', true);
        body = await this.readSubmitStream(plugin, ctx, res);
      } else {
        if (/^text\/event-stream/i.test(ctype))
          throw new OutboundError(
            'plugin_submit_response_invalid',
            'the upstream answered with an event stream to a JSON submission',
            true,
          );
        body = decodeBody(await readLimited(res.body, this.env.limits.maxResponseBytes));
      }
    } catch (e) {
      return { ok: false, error: e };
    }
    let result: Record<string, unknown>;
    try {
      result = (await plugin.call('parseSubmitResponse', ctx, { statusCode: res.status, headers: res.headers, body })) as Record<
        string,
        unknown
      >;
      if (!result || typeof result !== 'object') throw new Error('parseSubmitResponse returned no object');
      if ('clientResponse' in result) throw new Error('parseSubmitResponse may not return clientResponse');
      const imm = result.immediate as Record<string, unknown> | undefined;
      if (typeof result.taskId === 'number') result.taskId = String(result.taskId);
      if ((typeof result.taskId !== 'string' || !result.taskId) && !(imm && TERMINAL.has(normalizeStatus(imm.status)))) {
        throw new Error('parseSubmitResponse returned no taskId');
      }
    } catch (e) {
      return { ok: false, error: fail('plugin_submit_response_invalid', hookMessage(e)) };
    }
    return { ok: true, result };
  }

  private async readSubmitStream(
    plugin: LoadedPlugin,
    ctx: Record<string, unknown>,
    res: Awaited<ReturnType<typeof send>>,
  ): Promise<unknown> {
    const delta = (plugin.manifest.requiredCapabilities ?? []).includes('submit-sse-delta@1');
    let prev: unknown = null;
    const result = new DeltaResult(this.env.sseLimits.maxResultBytes);
    return readSse(res, this.env.sseLimits, async (ev) => {
      let out: Record<string, unknown>;
      try {
        out = (await plugin.call(delta ? 'parseSubmitEventDelta' : 'parseSubmitEvent', ctx, ev, prev)) as Record<string, unknown>;
      } catch (e) {
        throw new OutboundError('plugin_submit_event_failed', hookMessage(e), true);
      }
      if (!out || typeof out !== 'object' || typeof out.done !== 'boolean' || !('state' in out)) {
        throw new OutboundError('plugin_submit_event_invalid', 'submit event hook must return { state, done }', true);
      }
      if (delta) {
        const keys = Object.keys(out).sort().join(',');
        if (keys !== 'changes,done,state')
          throw new OutboundError(
            'plugin_submit_event_invalid',
            'parseSubmitEventDelta must return exactly { changes, state, done }',
            true,
          );
        checkStateSize(out.state, 64 * 1024);
        result.apply(out.changes);
      } else {
        checkStateSize(out.state, this.env.sseLimits.maxStateBytes);
      }
      prev = out.state ?? null;
      return { done: out.done as boolean, value: delta ? result.value : prev };
    });
  }

  /** Records an accepted submission (and settles an immediate terminal result at once). */
  private async accept(
    plugin: LoadedPlugin,
    row: Task,
    ctx: Record<string, unknown>,
    billing: BillingInfo,
    result: Record<string, unknown>,
    input: SubmitInput,
    callbackUrl: string | null = null,
  ): Promise<SubmitOutcome> {
    const now = Date.now();
    const imm = result.immediate && typeof result.immediate === 'object' ? (result.immediate as Record<string, unknown>) : null;
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
      this.log.warn(
        { task: row.public_id, plugin: plugin.key },
        'route does not retain results but the upstream returned an asynchronous task; its result is kept',
      );
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
        upd.fail_reason =
          typeof imm?.reason === 'string' && imm.reason
            ? redactSecrets(
                this.states.redactReason(row.channel_id, imm.reason),
                sentSecrets([typeof ctx.apiKey === 'string' ? ctx.apiKey : null]),
              )
            : 'the upstream reported a failure';
        upd.quota_final = 0;
      } else {
        const view = { ...row, ...upd } as Task;
        upd.quota_final = await this.money.finalQuota(plugin, view, billing, imm ?? {}, taskData);
      }
    } else {
      upd.next_poll_at = now + this.env.pollIntervalMs();
    }
    // The callback is recorded before the task can become terminal, so its terminal step always finds it.
    if (callbackUrl) await this.recordCallback(row, callbackUrl);
    const won = await this.states.transition(row, 'NOT_START', upd);
    if (!won) this.log.warn({ task: row.public_id }, 'task changed while it was being accepted');
    if (terminal) await this.money.settle(row.public_id);
    const fresh = await this.env.store.byPublicId(row.public_id);
    return { task: publicTask(fresh!), row: fresh!, data: taskData };
  }

  /**
   * Resolves `originTaskIds` (public ids) for a submit of `pluginKey` by `userId`: each must be the
   * caller's, made by this plugin, all on one channel still bound to it. 400 naming the id otherwise.
   */
  async originTasks(ids: string[], userId: number, pluginKey: string): Promise<{ channelId: number | null; tasks: OriginTask[] }> {
    if (!ids.length) return { channelId: null, tasks: [] };
    if (ids.length > 16) throw fail('invalid_request', 'at most 16 origin tasks are allowed');
    let channelId: number | null | undefined;
    const tasks: OriginTask[] = [];
    for (const raw of ids) {
      const id = typeof raw === 'string' ? raw.trim() : '';
      const shown = JSON.stringify(String(raw).slice(0, 128));
      const t = id && id.length <= 128 ? await this.env.store.byPublicId(id) : undefined;
      if (!t || Number(t.user_id) !== userId) throw fail('origin_task_not_found', { task: shown });
      if (t.plugin_key !== pluginKey) throw fail('origin_task_platform_mismatch', { task: shown });
      const ch = t.channel_id === null ? null : Number(t.channel_id);
      if (channelId === undefined) channelId = ch;
      else if (channelId !== ch) throw fail('origin_task_channel_conflict', { task: shown });
      tasks.push({
        taskId: t.upstream_task_id ?? '',
        publicTaskId: t.public_id,
        action: t.action,
        status: t.status,
        data: t.retain === 1 ? parseJson(t.data) : null,
      });
    }
    const bound = channelId === null || channelId === undefined ? undefined : this.env.catalog.channel(channelId);
    if (!bound || !bound.plugins.includes(pluginKey)) {
      throw fail('origin_task_channel_disabled', { task: JSON.stringify(ids[0].slice(0, 128)) });
    }
    return { channelId: bound.id, tasks };
  }

  /** Writes the callback row of an accepted task; a failure loses the callback, never the task. */
  private async recordCallback(row: Task, url: string): Promise<void> {
    try {
      await this.env.callbacks!.create(row, url);
    } catch (e) {
      this.log.error(
        { task: row.public_id, err: (e as Error).message },
        'the task callback could not be recorded; the task goes on without it',
      );
    }
  }

  private async unknownOutcome(row: Task, e: unknown, endpoint?: string, callbackUrl: string | null = null): Promise<never> {
    const g = e instanceof GatewayError ? e : fail('upstream_unknown', hookMessage(e));
    // The task may still end (an administrator's resolution): its callback goes out then.
    if (callbackUrl) await this.recordCallback(row, callbackUrl);
    const reason = `submit outcome unknown: ${g.message}`;
    const won = await this.env.store.flagUnknownSubmit(
      row.id,
      reason.slice(0, 1000),
      'submit outcome unknown; not retried and not refunded automatically',
    );
    if (won) this.states.flaggedUnknown(row, reason.slice(0, 1000));
    this.log.error(
      { task: row.public_id, plugin: row.plugin_key, channel: row.channel_id, endpoint, code: g.code },
      'task submit outcome unknown; flagged for an administrator',
    );
    const text = `the upstream may have accepted the task but its answer could not be used (${g.message}); task ${row.public_id} is kept for review and was not retried`;
    throw g.code === 'plugin_submit_response_invalid' ? fail('plugin_submit_response_invalid', text) : fail('submit_outcome_unknown', text);
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

/**
 * The channels a submission may try, in order: with origin tasks only their channel; with a chosen
 * channel that one first, then the others of the plugin.
 */
function pinChannels(
  channels: TaskChannel[],
  originChannelId: number | null,
  chosenId: number | undefined,
  model: string,
  pluginKey: string,
  group: string,
): TaskChannel[] {
  const pinnedId = originChannelId ?? chosenId;
  if (originChannelId !== null && chosenId !== undefined && chosenId !== originChannelId) {
    throw fail('origin_task_channel_conflict', `the origin tasks were made on another channel than the one chosen for this request`);
  }
  if (pinnedId === undefined || pinnedId === null) return channels;
  const pinned = channels.find((c) => c.id === pinnedId);
  if (!pinned) {
    throw originChannelId !== null
      ? fail(
          'origin_task_channel_disabled',
          `the channel of the origin tasks does not serve model "${echo(model)}" for group "${group}" (disabled or changed)`,
        )
      : fail('no_available_channel', `the chosen channel no longer serves model "${echo(model)}" of plugin "${pluginKey}"`);
  }
  // Origin tasks keep their channel for every attempt; a chosen channel may fail over within the plugin.
  return originChannelId !== null ? [pinned] : [pinned, ...channels.filter((c) => c !== pinned)];
}

/** The error for a non-2xx answer to a submission, with the upstream's message (credentials it echoes removed). */
async function rejection(
  res: Awaited<ReturnType<typeof send>>,
  keys: string[],
  built: ReturnType<typeof buildRequest> | null,
): Promise<GatewayError> {
  const buf = await readLimited(res.body, 64 * 1024).catch(() => Buffer.alloc(0));
  // An upstream error may echo the credentials it got: they never go further than here.
  const secrets = sentSecrets(keys, built?.headers, built?.url);
  const detail = upstreamMessage(decodeBody(Buffer.from(redactSecrets(buf.toString('utf8'), secrets))));
  return res.status === 429
    ? fail('upstream_busy', `the upstream is busy (HTTP 429)${detail}`)
    : res.status >= 500
      ? fail('upstream_error', `the upstream failed (HTTP ${res.status})${detail}`)
      : fail('upstream_rejected', `the upstream rejected the task (HTTP ${res.status})${detail}`);
}

/** The DriverContext of a submission before the channel's credentials are added (docs/plugins.md). */
function driverContext(
  input: SubmitInput,
  plugin: LoadedPlugin,
  at: {
    files: FileRef[];
    action: string;
    publicTaskId: string;
    model: string;
    upstreamModel: string;
    baseUrl: string;
    originTasks: OriginTask[];
  },
): Record<string, unknown> {
  return {
    path: input.path ?? `/v1/tasks/${plugin.key}`,
    method: input.method ?? 'POST',
    params: input.params ?? {},
    query: input.query ?? {},
    body: input.body ?? { kind: 'json', value: input.requestBody ?? null },
    requestBody: input.requestBody ?? null,
    requestHeaders: input.requestHeaders ?? {},
    files: at.files,
    action: at.action,
    publicTaskId: at.publicTaskId,
    model: at.model,
    upstreamModel: at.upstreamModel,
    baseUrl: at.baseUrl,
    ...(at.originTasks.length ? { originTasks: at.originTasks } : {}),
  };
}
