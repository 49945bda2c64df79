/**
 * Channels that bind plugins: type 61 binds one plugin by key (`settings.plugin`), type 60 (a peer
 * gateway) binds plugins that declare the `gateway_api` upstream (`settings.plugins`). Plugins that
 * own legacy channel types (`channelTypes`) serve channels of those types.
 */
import { fail } from '../../platform/errors.ts';
import { ChannelType } from '../../channels/types.ts';
import type { Generation } from './generation.ts';

export const TYPE_PEER_GATEWAY = ChannelType.gateway;
export const TYPE_TASK_PLUGIN = ChannelType.task_plugin;

export interface ChannelBindingSettings {
  plugin?: string;
  plugins?: string[];
}

/**
 * Throws GatewayError 400 naming the problem when a channel of `type` cannot bind `settings`.
 * `requireInstalled: false` (the configuration file, applied before plugins may be uploaded) checks
 * the shape only and lets a channel name a plugin that is not installed yet; such a channel serves
 * nothing until the plugin is there.
 */
export function checkChannelBinding(
  gen: Generation,
  type: number,
  settings: ChannelBindingSettings,
  opts: { requireInstalled?: boolean } = {},
): void {
  const strict = opts.requireInstalled !== false;
  const bad = (m: string) => {
    throw fail('invalid_channel_binding', m);
  };
  if (type === TYPE_TASK_PLUGIN) {
    if (settings.plugins !== undefined) bad('a type 61 channel binds one plugin: set settings.plugin, not settings.plugins');
    const key = settings.plugin;
    if (typeof key !== 'string' || !key) bad('a type 61 (task plugin) channel needs settings.plugin: the key of an installed plugin');
    if (strict && !gen.plugins.has(key!)) bad(`task plugin "${key}" is not installed or is disabled`);
    return;
  }
  if (type === TYPE_PEER_GATEWAY) {
    if (settings.plugin !== undefined) bad('a type 60 channel binds plugins through settings.plugins (an array of keys)');
    const keys = settings.plugins ?? [];
    if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string' || !k)) bad('settings.plugins must be an array of plugin keys');
    if (new Set(keys).size !== keys.length) bad('settings.plugins lists a plugin twice');
    for (const k of keys) {
      const p = gen.plugins.get(k);
      if (!p) {
        if (strict) bad(`task plugin "${k}" is not installed or is disabled`);
        continue;
      }
      if (!p.manifest.upstreams.includes('gateway_api'))
        bad(`task plugin "${k}" does not declare the gateway_api (new_api) upstream, so a type 60 channel cannot bind it`);
    }
    return;
  }
  if (settings.plugin !== undefined || settings.plugins !== undefined)
    bad(`channel type ${type} does not bind plugins by key (only types 60 and 61 do)`);
}

/** The base URL a channel uses: its own, else (type 61) the bound plugin's default `baseUrl`. */
export function effectiveBaseUrl(
  gen: Generation,
  channel: { type: number; base_url: string; settings: string | ChannelBindingSettings },
): string {
  const own = (channel.base_url ?? '').trim().replace(/\/+$/, '');
  if (own) return own;
  if (channel.type !== TYPE_TASK_PLUGIN) return '';
  const s = parseSettings(channel.settings);
  return (s.plugin && gen.plugins.get(s.plugin)?.manifest.baseUrl) || '';
}

export function parseSettings(v: string | ChannelBindingSettings | null | undefined): ChannelBindingSettings {
  if (!v) return {};
  if (typeof v === 'object') return v;
  try {
    const o = JSON.parse(v) as unknown;
    return o && typeof o === 'object' ? (o as ChannelBindingSettings) : {};
  } catch {
    return {};
  }
}

export interface BoundChannel {
  id: number;
  name: string;
  type: number;
  status: number;
  via: 'key' | 'peer' | 'channel_type';
}

/** Whether a channel row binds plugin `key` (directly, through a peer list, or as owner of its legacy type). */
export function bindingOf(row: { type: number; settings: string }, key: string, ownedTypes: readonly number[]): BoundChannel['via'] | null {
  const s = parseSettings(row.settings);
  if (row.type === TYPE_TASK_PLUGIN && s.plugin === key) return 'key';
  if (row.type === TYPE_PEER_GATEWAY && Array.isArray(s.plugins) && s.plugins.includes(key)) return 'peer';
  if (ownedTypes.includes(row.type)) return 'channel_type';
  return null;
}
