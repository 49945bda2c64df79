/**
 * The host protocols (docs/protocols.md): image, video and Responses requests served by task plugins.
 * Candidate selection, channel choice deciding the executing plugin, submission through the task
 * lifecycle, in-request waiting, and rendering through the plugin's protocol hooks. No HTTP here.
 */
import type { HeaderSink } from '../accounts/rate-limits.ts';
import type { KeyPrincipal } from '../accounts/types.ts';
import { checkModelAccess } from '../accounts/keys.ts';
import { echo, GatewayError, fail, foreignError, statusOf } from '../platform/errors.ts';
import type { Logger } from '../platform/logger.ts';
import { claimants, canonicalModel, decodeCandidates, decodeWith, filterByMode, responsesMode, type Candidate } from './candidates.ts';
import { sanitizeHookText } from './hook-text.ts';
import { addBase64, shapeImageResult, wantsB64, type DownloadLimits, type ImageResult } from './image.ts';
import { claimOf, protocolHook, type PluginLike, type ProtocolKind, type ResponsesMode } from './plugin-like.ts';
import type { Task } from '../tasks/lifecycle/context.ts';
import type { DecodedBody, TaskChannel, UploadedFile } from '../tasks/lifecycle/service.ts';
import type { Generation } from '../plugins/runtime/generation.ts';
import type { ContentResponse } from '../tasks/artifacts/service.ts';
import type { ArtifactsPort, TasksPort } from './port.ts';
import {
  checkRenderEvents,
  normalizeFinal,
  responseIdOf,
  responseObject,
  ResponsesEventMapper,
  sseFrame,
  SSE_HEARTBEAT,
  taskIdOfResponse,
} from './responses.ts';
import { isTerminal, taskViewOf, type TaskViewLike } from './task-view.ts';
import { videoFromRender, videoObject } from './video.ts';

export interface ProtocolRequest {
  principal: KeyPrincipal;
  path: string;
  method: string;
  params: Record<string, string>;
  query: Record<string, string[]>;
  body: DecodedBody;
  files: UploadedFile[];
  requestHeaders: Record<string, string>;
  requestId: string;
  /** The `X-Callback-URL` header (a task completion callback; absent: the key's default). */
  callbackUrl?: string;
  /** Aborted when the client goes away (waiting stops; the task does not). */
  signal?: AbortSignal;
  /** Where the rate-limit headers of a submission go (the HTTP response). */
  limitHeaders?: HeaderSink;
}

export interface ProtocolHostDeps {
  tasks: () => TasksPort | null;
  artifacts: () => ArtifactsPort | null;
  generation: () => Generation | null;
  log: Logger;
  protocolTimeoutMs: () => number;
  tickMs: number;
  heartbeatMs: number;
  download: DownloadLimits;
}

interface Prepared {
  generation: Generation;
  plugin: PluginLike;
  channel: TaskChannel;
  intent: Candidate['intent'];
  model: string;
  decodeCtx: Record<string, unknown>;
}

/** The top-level model of a protocol request (JSON, form or multipart field). */
export function requestModel(body: DecodedBody): string | null {
  if (body.kind === 'json') {
    const v = body.value as { model?: unknown } | null;
    return v && typeof v === 'object' && typeof v.model === 'string' && v.model ? v.model : null;
  }
  if (body.kind === 'form' || body.kind === 'multipart') return body.fields.model?.[0] || null;
  return null;
}

function withModel(body: DecodedBody, model: string): DecodedBody {
  if (body.kind === 'json' && body.value && typeof body.value === 'object' && !Array.isArray(body.value))
    return { kind: 'json', value: { ...(body.value as object), model } };
  if (body.kind === 'form') return { kind: 'form', fields: { ...body.fields, model: [model] } };
  if (body.kind === 'multipart') return { ...body, fields: { ...body.fields, model: [model] } };
  return body;
}

/** Orders channels: higher priority first, weighted random within one priority. */
export function orderByPriority<T extends { priority: number; weight: number }>(list: T[], rand: () => number = Math.random): T[] {
  const prios = [...new Set(list.map((c) => c.priority))].sort((a, b) => b - a);
  const out: T[] = [];
  for (const p of prios) {
    const pool = list.filter((c) => c.priority === p);
    while (pool.length) {
      const total = pool.reduce((s, c) => s + Math.max(c.weight, 0) + 0.0001, 0);
      let r = rand() * total;
      let i = 0;
      for (; i < pool.length - 1; i++) {
        r -= Math.max(pool[i].weight, 0) + 0.0001;
        if (r < 0) break;
      }
      out.push(pool.splice(i, 1)[0]);
    }
  }
  return out;
}

/**
 * Channel choice among accepted candidates: every channel bound to a candidate; a channel bound to
 * several candidates runs the first in ascending key order. The chosen channel decides the plugin.
 */
export function chooseChannel<P extends PluginLike>(
  accepted: Candidate<P>[],
  channelsOf: (key: string) => TaskChannel[],
  rand?: () => number,
): { channel: TaskChannel; candidate: Candidate<P> } | null {
  const owner = new Map<number, Candidate<P>>();
  const list: TaskChannel[] = [];
  for (const c of accepted)
    for (const ch of channelsOf(c.plugin.key)) {
      if (owner.has(ch.id)) continue;
      owner.set(ch.id, c);
      list.push(ch);
    }
  const ordered = orderByPriority(list, rand);
  if (!ordered.length) return null;
  return { channel: ordered[0], candidate: owner.get(ordered[0].id)! };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((r) => {
    const t = setTimeout(r, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        r();
      },
      { once: true },
    );
  });

export class ProtocolHost {
  constructor(private readonly d: ProtocolHostDeps) {}

  private tasks(): TasksPort {
    const t = this.d.tasks();
    if (!t) throw fail('task_host_unavailable');
    return t;
  }

  /** Plugins claiming the model, or null (the ordinary relay serves it). */
  claimantsFor(protocol: ProtocolKind, model: string): PluginLike[] {
    const gen = this.d.generation();
    if (!gen) return [];
    return claimants(gen.plugins.values(), protocol, model);
  }

  /**
   * Candidate selection and channel choice. Returns null when no plugin claims the model.
   * A Responses mode no candidate declared is refused here, before any hook and before billing.
   */
  async prepare(protocol: ProtocolKind, operation: string, req: ProtocolRequest, mode?: ResponsesMode): Promise<Prepared | null> {
    const gen = this.d.generation();
    if (!gen) return null;
    const asked = requestModel(req.body);
    if (!asked) throw fail('invalid_request_error', 'the request needs a "model" string');
    let plugins = claimants(gen.plugins.values(), protocol, asked);
    if (!plugins.length) return null;
    const model = canonicalModel(plugins, protocol, asked);
    checkModelAccess(req.principal, model);
    if (protocol === 'responses') plugins = filterByMode(plugins, mode ?? 'sync');
    const body = withModel(req.body, model);
    const ctxFor = (p: PluginLike): Record<string, unknown> => ({
      path: req.path,
      method: req.method,
      params: req.params,
      query: req.query,
      body,
      protocol: claimSpelling(p, protocol),
      operation,
      model,
      ...(protocol === 'responses' ? { stream: mode === 'stream' } : {}),
    });
    const accepted = await decodeCandidates(plugins, protocol, (p) => ctxFor(p) as { model: string });
    const tasks = this.tasks();
    const chosen = chooseChannel(accepted, (key) => tasks.catalog.candidates(key, model, req.principal.group));
    if (!chosen) throw fail('no_available_channel', { model: echo(model), group: req.principal.group });
    const plugin = chosen.candidate.plugin;
    // The executing plugin decodes again (decoders are deterministic); its model must be the pinned one.
    const decodeCtx = ctxFor(plugin);
    const intent = await decodeWith(plugin, protocol, decodeCtx as { model: string });
    return { generation: gen, plugin, channel: chosen.channel, intent, model, decodeCtx };
  }

  private async submit(
    p: Prepared,
    req: ProtocolRequest,
    endpoint: string,
    extra: { retainResult?: boolean; expectAsync?: boolean; protocol?: Record<string, unknown> } = {},
  ): Promise<{ row: Task; data?: unknown }> {
    return this.tasks().submit({
      principal: req.principal,
      pluginKey: p.plugin.key,
      model: p.model,
      action: p.intent.action,
      requestBody: p.intent.requestBody ?? (req.body.kind === 'json' ? req.body.value : null),
      body: p.decodeCtx.body as DecodedBody,
      files: req.files,
      path: req.path,
      method: req.method,
      params: req.params,
      query: req.query,
      requestHeaders: req.requestHeaders,
      limitHeaders: req.limitHeaders,
      retainResult: extra.retainResult ?? true,
      ...(extra.expectAsync ? { expectAsync: true } : {}),
      ...(extra.protocol ? { protocol: extra.protocol } : {}),
      ...(p.intent.originTaskIds?.length ? { originTaskIds: p.intent.originTaskIds } : {}),
      generation: p.generation,
      endpoint,
      channelId: p.channel.id,
      ...(req.callbackUrl !== undefined ? { callbackUrl: req.callbackUrl } : {}),
    });
  }

  /** Waits for a terminal state, polling the upstream inside the request when the lifecycle allows it. */
  private async wait(publicId: string, timeoutMs: number, signal?: AbortSignal): Promise<{ row: Task; timedOut: boolean }> {
    const tasks = this.tasks();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = deadline - Date.now();
      try {
        await tasks.pollNow(publicId);
      } catch (e) {
        this.d.log.debug({ task: publicId, err: (e as Error).message }, 'in-request poll failed');
      }
      const r = await tasks.waitForTerminal(publicId, Math.max(0, Math.min(left, this.d.tickMs)), signal);
      if (!r.timedOut || Date.now() >= deadline || signal?.aborted) return { row: r.row, timedOut: r.timedOut };
    }
  }

  // ------------------------------------------------------------------------------------------
  // Images
  // ------------------------------------------------------------------------------------------

  /** Generate or edit; null when no plugin claims the model. */
  async image(req: ProtocolRequest, operation: 'generate' | 'edit'): Promise<ImageResult | null> {
    const p = await this.prepare('image', operation, req);
    if (!p) return null;
    // An immediate terminal result is not stored (its data comes back from submit for rendering);
    // a result completed by in-request polling keeps its polling snapshot.
    const sub = await this.submit(p, req, operation === 'edit' ? '/v1/images/edits' : '/v1/images/generations', {
      retainResult: false,
      expectAsync: true,
    });
    let row = sub.row;
    let data: unknown = sub.data;
    if (!isTerminal(row.status)) {
      const w = await this.wait(row.public_id, this.d.protocolTimeoutMs(), req.signal);
      if (w.timedOut) {
        throw fail(
          'task_timeout',
          `image generation is still running; task ${row.public_id} settles when it completes (request id: ${req.requestId})`,
        );
      }
      row = w.row;
      data = undefined;
    }
    if (row.status === 'FAILURE') {
      const { code, message } = failureOf(row.fail_reason);
      // A failure code the plugin gave is the plugin's own: passed on as it is, with the status of image_generation_failed.
      throw code ? foreignError(statusOf('image_generation_failed'), code, message) : fail('image_generation_failed', message);
    }
    const view = taskViewOf(row);
    if (data !== undefined && view.data === null) view.data = data;
    let rendered: unknown;
    try {
      rendered = await p.plugin.call(protocolHook(p.plugin, 'image', 'render'), p.decodeCtx, view);
    } catch (e) {
      throw fail('plugin_render_failed', sanitizeHookText(e));
    }
    let result = shapeImageResult(rendered, view.created_at || Math.floor(Date.now() / 1000));
    if (wantsB64(req.body)) result = await addBase64(result, this.d.download, this.d.log, row.public_id);
    return result;
  }

  // ------------------------------------------------------------------------------------------
  // Videos
  // ------------------------------------------------------------------------------------------

  async videoCreate(req: ProtocolRequest): Promise<Record<string, unknown> | null> {
    const p = await this.prepare('video', 'create', req);
    if (!p) return null;
    const { row } = await this.submit(p, req, '/v1/videos');
    return videoObject(taskViewOf(row), row.model);
  }

  /** The caller's own retained task served by a plugin that claims `protocol` in the current generation. */
  private async ownProtocolTask(
    principal: KeyPrincipal,
    publicId: string,
    protocol: ProtocolKind,
    notFound: () => GatewayError,
  ): Promise<{ row: Task; plugin: PluginLike }> {
    const row = publicId.length <= 64 ? await this.tasks().byPublicId(publicId) : undefined;
    if (!row || row.retain !== 1 || Number(row.user_id) !== principal.userId) throw notFound();
    const plugin = this.d.generation()?.plugins.get(row.plugin_key);
    if (!plugin || !claimOf(plugin.manifest, protocol)) throw notFound();
    return { row, plugin };
  }

  async videoGet(
    principal: KeyPrincipal,
    id: string,
    http: { path: string; query: Record<string, string[]> },
  ): Promise<Record<string, unknown>> {
    const { row, plugin } = await this.ownProtocolTask(principal, id, 'video', () => videoNotFound(id));
    const view = taskViewOf(row);
    const ctx = {
      path: http.path,
      method: 'GET',
      params: { video_id: id },
      query: http.query,
      body: { kind: 'none' },
      protocol: claimSpelling(plugin, 'video'),
      operation: 'retrieve',
      model: row.model,
    };
    let rendered: unknown;
    try {
      rendered = await plugin.call(protocolHook(plugin, 'video', 'render'), ctx, view);
    } catch (e) {
      throw fail('plugin_render_failed', sanitizeHookText(e));
    }
    return videoFromRender(rendered, view, row.model, row.upstream_task_id);
  }

  async videoContent(principal: KeyPrincipal, id: string, method: string, headers: Record<string, string>): Promise<ContentResponse> {
    const { row } = await this.ownProtocolTask(principal, id, 'video', () => videoNotFound(id));
    if (row.status !== 'SUCCESS') throw fail('task_not_completed', { status: row.status });
    const art = this.d.artifacts();
    if (!art) throw fail('artifacts_unavailable');
    const links = await art.links(row);
    const video = links.find((l) => l.type === 'video') ?? links[0];
    if (!video) throw fail('artifact_not_found', 'the task has no video artifact');
    return art.content(row, video.key, { method, headers });
  }

  // ------------------------------------------------------------------------------------------
  // Responses
  // ------------------------------------------------------------------------------------------

  private async renderCtx(row: TaskViewLike, base: Record<string, unknown>, rowFull: Task): Promise<Record<string, unknown>> {
    if (row.status !== 'SUCCESS') return base;
    const art = this.d.artifacts();
    if (!art) return { ...base, artifacts: {} };
    const links = await art.links(rowFull);
    return {
      ...base,
      artifacts: Object.fromEntries(
        links.map((l) => [l.key, { key: l.key, type: l.type, ...(l.mimeType ? { mimeType: l.mimeType } : {}), url: l.url }]),
      ),
    };
  }

  private async finalResponse(
    plugin: PluginLike,
    row: Task,
    ctx: Record<string, unknown>,
    background?: boolean,
  ): Promise<Record<string, unknown>> {
    const view = taskViewOf(row);
    const base = { task: view, model: row.model, background };
    if (view.status === 'FAILURE') return responseObject(base);
    if (view.status !== 'SUCCESS') return responseObject(base);
    const rctx = await this.renderCtx(view, ctx, row);
    const claim = claimOf(plugin.manifest, 'responses');
    if (claim && (claim.supports.includes('sync') || claim.supports.includes('background'))) {
      let rendered: unknown;
      try {
        rendered = await plugin.call(protocolHook(plugin, 'responses', 'renderFinal'), rctx, view);
      } catch (e) {
        throw fail('plugin_render_failed', sanitizeHookText(e));
      }
      return normalizeFinal(rendered, base);
    }
    // A stream-only plugin: one renderEvents call that must complete the response.
    const mapper = new ResponsesEventMapper({ model: row.model, taskId: row.public_id, background });
    const r = checkRenderEvents(await plugin.call(protocolHook(plugin, 'responses', 'renderEvents'), rctx, view));
    const evs = mapper.map(view, { ...r, done: true });
    const last = evs.at(-1);
    return (last?.response as Record<string, unknown>) ?? responseObject(base);
  }

  /**
   * POST /v1/responses. null: no plugin claims the model. `json`: sync or background Response.
   * `stream`: a host-managed SSE run that writes frames until the response is finished.
   */
  async responsesCreate(
    req: ProtocolRequest,
  ): Promise<null | { kind: 'json'; body: Record<string, unknown> } | { kind: 'stream'; run: (out: SseOut) => Promise<void> }> {
    if (req.body.kind !== 'json' || !req.body.value || typeof req.body.value !== 'object') {
      throw fail('invalid_request_error', 'the request body must be a JSON object');
    }
    const mode = responsesMode(req.body.value as { stream?: unknown; background?: unknown });
    const p = await this.prepare('responses', 'create', req, mode);
    if (!p) return null;
    const { row } = await this.submit(p, req, '/v1/responses', mode === 'background' ? { protocol: { background: true } } : {});
    if (mode === 'background') {
      return { kind: 'json', body: responseObject({ task: taskViewOf(row), model: row.model, background: true }) };
    }
    if (mode === 'sync') {
      const w = isTerminal(row.status) ? { row, timedOut: false } : await this.wait(row.public_id, this.d.protocolTimeoutMs(), req.signal);
      if (w.timedOut) {
        const view = taskViewOf(w.row);
        return { kind: 'json', body: responseObject({ task: view, model: row.model, background: false }, { status: 'queued' }) };
      }
      return { kind: 'json', body: await this.finalResponse(p.plugin, w.row, p.decodeCtx, false) };
    }
    return { kind: 'stream', run: (out) => this.streamResponse(p, row.public_id, out, req.signal) };
  }

  private async streamResponse(p: Prepared, publicId: string, out: SseOut, signal?: AbortSignal): Promise<void> {
    const tasks = this.tasks();
    const first = await tasks.byPublicId(publicId);
    const mapper = new ResponsesEventMapper({ model: p.model, taskId: publicId });
    const write = (evs: ReturnType<ResponsesEventMapper['created']>) => {
      for (const e of evs) out.write(sseFrame(e));
    };
    const hb = setInterval(() => {
      if (!out.closed()) out.write(SSE_HEARTBEAT);
    }, this.d.heartbeatMs);
    const deadline = Date.now() + this.d.protocolTimeoutMs();
    let state: unknown;
    let hasState = false;
    let view = taskViewOf(first!);
    try {
      write(mapper.created(view));
      while (!mapper.finished && !out.closed() && !signal?.aborted) {
        if (!isTerminal(view.status)) {
          try {
            await tasks.pollNow(publicId);
          } catch {
            /* counted by the lifecycle */
          }
        }
        const row = await tasks.byPublicId(publicId);
        if (!row) {
          write(mapper.fail(view, 'The task could not be observed.'));
          break;
        }
        view = taskViewOf(row);
        let r;
        try {
          const ctx = await this.renderCtx(view, p.decodeCtx, row);
          const args: unknown[] = hasState ? [ctx, view, state] : [ctx, view];
          r = checkRenderEvents(await p.plugin.call(protocolHook(p.plugin, 'responses', 'renderEvents'), ...args));
        } catch (e) {
          this.d.log.warn({ task: publicId, err: sanitizeHookText(e) }, 'renderEvents failed');
          write(mapper.fail(view, 'The task could not be observed.'));
          break;
        }
        if (r.state !== undefined) {
          state = r.state;
          hasState = true;
        }
        write(mapper.map(view, r));
        if (mapper.finished) break;
        if (Date.now() >= deadline) {
          write(mapper.finish({ ...view, status: 'IN_PROGRESS' }));
          break;
        }
        await sleep(this.d.tickMs, signal);
      }
    } finally {
      clearInterval(hb);
      out.end();
    }
  }

  async responsesGet(
    principal: KeyPrincipal,
    id: string,
    http: { path: string; query: Record<string, string[]> },
  ): Promise<Record<string, unknown>> {
    const tid = taskIdOfResponse(id);
    const nf = () => fail('not_found', `No response found with id '${id.slice(0, 80)}'.`, { type: 'invalid_request_error' });
    if (!tid) throw nf();
    const { row, plugin } = await this.ownProtocolTask(principal, tid, 'responses', nf);
    const ctx = {
      path: http.path,
      method: 'GET',
      params: { response_id: id },
      query: http.query,
      body: { kind: 'none' },
      protocol: claimSpelling(plugin, 'responses'),
      operation: 'retrieve',
      model: row.model,
      stream: false,
    };
    return this.finalResponse(plugin, row, ctx, backgroundOf(row));
  }
}

export interface SseOut {
  write(s: string): void;
  closed(): boolean;
  end(): void;
}

function claimSpelling(p: PluginLike, protocol: ProtocolKind): string {
  return claimOf(p.manifest, protocol)?.spelling ?? `compat_${protocol}`;
}

/** Whether the task was created by a Responses request with `background: true`. */
export function backgroundOf(row: Task): boolean {
  if (!row.protocol) return false;
  try {
    return (JSON.parse(row.protocol) as { background?: unknown }).background === true;
  } catch {
    return false;
  }
}

function videoNotFound(id: string): GatewayError {
  return fail('video_not_found', { id: id.slice(0, 80) });
}

/** A failure reason that is JSON `{code, message}` gives both; otherwise the text is the message. */
export function failureOf(reason: string | null): { code?: string; message: string } {
  const r = reason ?? 'the task failed';
  try {
    const j = JSON.parse(r) as { code?: unknown; message?: unknown };
    if (j && typeof j === 'object' && typeof j.message === 'string')
      return { code: typeof j.code === 'string' ? j.code : undefined, message: j.message };
  } catch {
    /* plain text */
  }
  return { message: r };
}

export { responseIdOf };
