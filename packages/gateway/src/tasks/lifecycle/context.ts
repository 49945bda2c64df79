/** Contexts handed to plugin hooks (docs/plugins.md), built from a channel and a stored task. */
import type { Selectable } from 'kysely';
import type { TaskRow } from '../../store/schema-tasks.ts';
import type { TaskChannel } from './catalog.ts';
import type { LoadedPlugin } from '../runtime/loader.ts';
import { parseJson } from './states.ts';

export type Task = Selectable<TaskRow>;

export interface ChannelAuth {
  upstream: { kind: 'vendor' | 'gateway_api' };
  auth: { authHeader?: string };
  authHeader?: string;
  apiKey?: string;
  authError?: string;
}

export function effectiveBaseUrl(plugin: LoadedPlugin, ch: TaskChannel): string {
  if (ch.baseUrl) return ch.baseUrl;
  if (ch.type === 61 && plugin.manifest.baseUrl) return plugin.manifest.baseUrl.replace(/\/+$/, '');
  return '';
}

export function channelAuth(plugin: LoadedPlugin, ch: TaskChannel, keyIndex: number): ChannelAuth {
  const key = ch.keys[keyIndex] ?? ch.keys[0] ?? '';
  if (ch.type === 60) return { upstream: { kind: 'gateway_api' }, auth: { authHeader: `Bearer ${key}` }, authHeader: `Bearer ${key}`, apiKey: key };
  // The manifest normalises `vertex_oauth` to `oauth2_jwt`.
  if (plugin.manifest.auth === 'oauth2_jwt') {
    return { upstream: { kind: 'vendor' }, auth: {}, authError: 'service-account (vertex_oauth) credentials are not supported by this host yet' };
  }
  return { upstream: { kind: 'vendor' }, auth: { authHeader: key }, authHeader: key, apiKey: key };
}

export function queryContext(plugin: LoadedPlugin, t: Task, ch: TaskChannel | undefined): Record<string, unknown> {
  const auth = ch ? channelAuth(plugin, ch, t.channel_key_index) : { upstream: { kind: 'vendor' }, auth: {} };
  return {
    taskId: t.upstream_task_id ?? '',
    publicTaskId: t.public_id,
    action: t.action,
    model: t.model,
    upstreamModel: t.upstream_model,
    baseUrl: ch ? effectiveBaseUrl(plugin, ch) : '',
    data: parseJson(t.data),
    state: parseJson(t.state),
    ...auth,
  };
}

export function artifactTask(t: Task): Record<string, unknown> {
  return {
    taskId: t.public_id,
    status: t.status,
    action: t.action,
    data: parseJson(t.data),
    state: parseJson(t.state),
    producerVersion: t.plugin_version,
  };
}
