/** Contexts handed to plugin hooks (docs/plugins.md), built from a channel and a stored task. */
import type { Selectable } from 'kysely';
import type { TaskRow } from '../../store/schema-tasks.ts';
import type { TaskChannel } from './catalog.ts';
import type { LoadedPlugin } from '../../plugins/runtime/loader.ts';
import { parseJson } from './states.ts';
import type { GoogleTokens } from '../../platform/google-token.ts';
import { ChannelType } from '../../channels/types.ts';

export type Task = Selectable<TaskRow>;

export interface ChannelAuth {
  upstream: { kind: 'vendor' | 'gateway_api' };
  auth: { authHeader?: string; projectId?: string };
  authHeader?: string;
  apiKey?: string;
  authError?: string;
}

export function effectiveBaseUrl(plugin: LoadedPlugin, ch: TaskChannel): string {
  if (ch.baseUrl) return ch.baseUrl;
  if (ch.type === ChannelType.task_plugin && plugin.manifest.baseUrl) return plugin.manifest.baseUrl.replace(/\/+$/, '');
  return '';
}

/**
 * The credentials a plugin hook sees. `oauth2_jwt` (the market's `vertex_oauth`): the channel key is a
 * Google service-account JSON key, exchanged for an access token (platform/google-token.ts, cached and
 * shared with Vertex AI channels): `authHeader` is `Bearer <token>`, `auth.projectId` the key's project,
 * and no `apiKey`. A key that cannot be exchanged sets `authError`.
 */
export async function channelAuth(plugin: LoadedPlugin, ch: TaskChannel, keyIndex: number, google: GoogleTokens): Promise<ChannelAuth> {
  const key = ch.keys[keyIndex] ?? ch.keys[0] ?? '';
  if (ch.type === ChannelType.gateway)
    return { upstream: { kind: 'gateway_api' }, auth: { authHeader: `Bearer ${key}` }, authHeader: `Bearer ${key}`, apiKey: key };
  // The manifest normalises `vertex_oauth` to `oauth2_jwt`.
  if (plugin.manifest.auth === 'oauth2_jwt') {
    try {
      const sa = google.account(key);
      const authHeader = `Bearer ${await google.token(sa)}`;
      return { upstream: { kind: 'vendor' }, auth: { authHeader, projectId: sa.projectId }, authHeader };
    } catch (e) {
      return { upstream: { kind: 'vendor' }, auth: {}, authError: (e as Error).message };
    }
  }
  return { upstream: { kind: 'vendor' }, auth: { authHeader: key }, authHeader: key, apiKey: key };
}

export async function queryContext(
  plugin: LoadedPlugin,
  t: Task,
  ch: TaskChannel | undefined,
  google: GoogleTokens,
): Promise<Record<string, unknown>> {
  const auth = ch ? await channelAuth(plugin, ch, t.channel_key_index, google) : { upstream: { kind: 'vendor' }, auth: {} };
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
