/**
 * Serving plugin native routes (docs/protocols.md): match per generation, authenticate, check ownership (query)
 * or model scope (submit/dynamic), run the decoder, submit through the task lifecycle, and let the
 * presenter shape only the outgoing envelope. Errors go through `native.error` when the plugin has it.
 */
import type { HeaderSink } from '../../accounts/rate-limits.ts';
import type { KeyPrincipal } from '../../accounts/types.ts';
import { checkModelAccess } from '../../accounts/keys.ts';
import { GatewayError, fail } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logger.ts';
import { sanitizeHookText } from '../hook-text.ts';
import type { Task } from '../../tasks/lifecycle/context.ts';
import type { DecodedBody, UploadedFile } from '../../tasks/lifecycle/service.ts';
import type { Generation } from '../../plugins/runtime/generation.ts';
import type { NormalisedRoute } from '../../plugins/runtime/manifest.ts';
import type { RouteMatch } from '../../plugins/runtime/routes.ts';
import type { PluginLike } from '../plugin-like.ts';
import type { TasksPort } from '../port.ts';
import { taskViewOf } from '../task-view.ts';
import { checkNativeIntent, checkRouteModel, defaultNativeErrorBody, isReservedPath, nativeError } from './rules.ts';

export type NativeMatch = RouteMatch<PluginLike, NormalisedRoute>;

export interface NativeRequest {
  principal: KeyPrincipal;
  method: string;
  path: string;
  query: Record<string, string[]>;
  body: DecodedBody;
  files: UploadedFile[];
  requestHeaders: Record<string, string>;
  requestId: string;
  /** The `X-Callback-URL` header (a task completion callback; absent: the key's default). */
  callbackUrl?: string;
  /** Where the rate-limit headers of a submission go (the HTTP response). */
  limitHeaders?: HeaderSink;
}

export interface NativeAnswer {
  status: number;
  body: unknown;
}

export interface NativeHostDeps {
  tasks: () => TasksPort | null;
  generation: () => Generation | null;
  log: Logger;
}

export class NativeHost {
  constructor(private readonly d: NativeHostDeps) {}

  /** The route for a request, pinned to the current generation; null when none (or a reserved path). */
  match(method: string, path: string): { gen: Generation; m: NativeMatch } | null {
    const gen = this.d.generation();
    if (!gen || typeof gen.routes?.match !== 'function') return null;
    const m = gen.routes.match(method, path);
    if (!m || isReservedPath(m.route.path)) return null;
    return { gen, m };
  }

  /**
   * Whether a plugin of the current generation has a route under the first segment of `path` (its
   * prefix, e.g. `/mj`): such paths are the plugin's API, never the web console's.
   */
  ownsPrefix(path: string): boolean {
    const gen = this.d.generation();
    const entries = gen?.routes?.entries;
    if (!entries) return false;
    const first = path.split('?')[0].split('/')[1] ?? '';
    if (!first) return false;
    return entries.some((e) => e.parsed.segments[0]?.kind === 'static' && e.parsed.segments[0].value === first);
  }

  /** Serves a matched route; every error is rendered as the plugin's (or the host's) error envelope. */
  async serve(gen: Generation, m: NativeMatch, req: NativeRequest): Promise<NativeAnswer> {
    const ctx = { path: req.path, method: req.method, params: m.params, query: req.query, body: req.body };
    try {
      return await this.run(gen, m, req, ctx);
    } catch (e) {
      const g = e instanceof GatewayError ? e : fail('internal_error');
      // Every 500 is logged with its exception (stack included): the caller only sees "Task request failed".
      if (g.status === 500)
        this.d.log.error({ err: e, plugin: m.plugin.key, requestId: req.requestId, path: req.path }, 'native route failed');
      const info = nativeError(g.status, g.status < 500 ? g.message : null, req.requestId);
      if (m.plugin.has('native.error')) {
        try {
          return { status: g.status, body: await m.plugin.call('native.error', ctx, info) };
        } catch (err) {
          this.d.log.warn({ plugin: m.plugin.key, err: sanitizeHookText(err) }, 'native.error failed; host error body used');
        }
      }
      return { status: g.status, body: defaultNativeErrorBody(info) };
    }
  }

  private tasks(): TasksPort {
    const t = this.d.tasks();
    if (!t) throw fail('task_host_unavailable');
    return t;
  }

  /** The caller's own retained task of this plugin, else 404. */
  private async ownTask(req: NativeRequest, plugin: PluginLike, publicId: string): Promise<Task> {
    const row = publicId && publicId.length <= 128 ? await this.tasks().byPublicId(publicId) : undefined;
    if (!row || Number(row.user_id) !== req.principal.userId || row.plugin_key !== plugin.key || row.retain !== 1) {
      throw fail('task_not_found');
    }
    return row;
  }

  private async present(plugin: PluginLike, name: string, ctx: unknown, view: unknown): Promise<unknown> {
    try {
      return await plugin.call(`native.${name}`, ctx, view);
    } catch (e) {
      throw fail('plugin_render_failed', sanitizeHookText(e));
    }
  }

  private async run(gen: Generation, m: NativeMatch, req: NativeRequest, ctx: Record<string, unknown>): Promise<NativeAnswer> {
    const { plugin, route } = m;
    if (route.type === 'query') {
      if (req.body.kind !== 'none') throw fail('unsupported_media_type', 'this route takes no request body');
      const id = m.params[route.taskIdParam || 'task_id'] ?? '';
      const row = await this.ownTask(req, plugin, id);
      return { status: 200, body: await this.present(plugin, route.render, ctx, taskViewOf(row)) };
    }
    if (req.body.kind === 'none') throw fail('invalid_request', 'this route needs a request body');
    const top =
      req.body.kind === 'json'
        ? req.body.value
        : Object.fromEntries(Object.entries((req.body as { fields: Record<string, string[]> }).fields).map(([k, v]) => [k, v[0]]));
    checkRouteModel(route, top);
    let raw: unknown;
    try {
      raw = await plugin.call(`native.${route.decode}`, ctx);
    } catch (e) {
      throw fail('invalid_request', sanitizeHookText(e));
    }
    const intent = checkNativeIntent(raw, route, plugin);
    if (intent.kind === 'query') {
      const views = [];
      for (const id of intent.taskIds) views.push(taskViewOf(await this.ownTask(req, plugin, id)));
      return { status: 200, body: await this.present(plugin, route.render, ctx, views) };
    }
    checkModelAccess(req.principal, intent.model);
    const tasks = this.tasks();
    const { row, data } = await tasks.submit({
      principal: req.principal,
      pluginKey: plugin.key,
      model: intent.model,
      action: intent.action,
      requestBody: intent.requestBody ?? (req.body.kind === 'json' ? req.body.value : null),
      body: req.body,
      files: req.files,
      path: req.path,
      method: req.method,
      params: m.params,
      query: req.query,
      limitHeaders: req.limitHeaders,
      requestHeaders: req.requestHeaders,
      retainResult: route.retainResult !== false,
      generation: gen,
      endpoint: route.path,
      ...(req.callbackUrl !== undefined ? { callbackUrl: req.callbackUrl } : {}),
      ...(intent.originTaskIds.length ? { originTaskIds: intent.originTaskIds } : {}),
    });
    const view = taskViewOf(row);
    if (view.data === null && data !== undefined) view.data = data;
    try {
      return { status: 200, body: await plugin.call(`native.${route.render}`, ctx, view) };
    } catch (e) {
      this.d.log.warn(
        { plugin: plugin.key, task: row.public_id, err: sanitizeHookText(e) },
        'native presenter failed; host submit body used',
      );
      return {
        status: 200,
        body: { id: row.public_id, task_id: row.public_id, status: 'queued', model: row.model, created_at: view.created_at },
      };
    }
  }
}
