/**
 * The checks of a channel's type-specific settings: what a check reads of the channel, what it answers
 * (one issue per field at fault, with its error code), the rules every model-call channel shares, and
 * the rules of the task kinds (`gateway`, `task_plugin`), which no relay provider serves. Each relay
 * provider checks its own types (relay/providers/<vendor>/channel-settings.ts); administration asks
 * the provider registry (relay/providers/registry.ts, `checkChannelSettings`) and refuses the first issue.
 */
import type { ErrorCode } from '../platform/errors.ts';
import { ChannelType } from './types.ts';

/** The error codes of a channel-settings issue: a setting the type needs is missing, or one is not valid for it. */
export type ChannelIssueCode = Extract<ErrorCode, 'channel_setting_required' | 'channel_setting_invalid'>;

/** One setting at fault: its field (`base_url`, `settings.region`, `keys[0]` …), what is wrong and the error code. */
export interface ChannelIssue {
  field: string;
  message: string;
  code: ChannelIssueCode;
}

/** What a check of a channel's settings reads (an update is merged onto the stored row first). */
export interface ChannelSettingsInput {
  base_url: string;
  keys: readonly string[];
  models: readonly string[];
  settings: Record<string, unknown>;
}

/** A setting the channel's type needs is missing. */
export const missing = (field: string, message: string): ChannelIssue => ({ field, message, code: 'channel_setting_required' });

/** A setting is not valid for the channel's type. */
export const invalid = (field: string, message: string): ChannelIssue => ({ field, message, code: 'channel_setting_invalid' });

/** What every model-call channel needs: a model, and a key unless its upstream takes none (`keyless`). */
export function modelChannelBasics(c: ChannelSettingsInput, opts: { keyless?: boolean } = {}): ChannelIssue[] {
  const out: ChannelIssue[] = [];
  if (!opts.keyless && c.keys.length === 0) out.push(missing('keys', 'must list at least one key'));
  if (c.models.length === 0) out.push(missing('models', 'must list at least one model'));
  return out;
}

const PLUGIN_KEY = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,29}$/;

/** The rules of a task kind's channel: a task plugin names its plugin; a peer gateway its address, a key and its plugins. */
export function checkTaskChannel(type: number, c: ChannelSettingsInput): ChannelIssue[] {
  const s = c.settings;
  if (type === ChannelType.task_plugin) {
    if (typeof s.plugin !== 'string' || !PLUGIN_KEY.test(s.plugin)) {
      return [missing('settings.plugin', 'is required for task_plugin channels: the plugin key (at most 30 characters)')];
    }
    return [];
  }
  if (type === ChannelType.gateway) {
    const out: ChannelIssue[] = [];
    if (!c.base_url) out.push(missing('base_url', 'is required for gateway channels'));
    const p = s.plugins;
    if (!Array.isArray(p) || p.length === 0 || p.some((x) => typeof x !== 'string' || x === '' || x.length > 30)) {
      out.push(missing('settings.plugins', 'is required for gateway channels: a list of plugin keys'));
    }
    if (c.keys.length === 0) out.push(missing('keys', 'must list at least one key'));
    return out;
  }
  return [];
}

/** The setting that binds a task kind's channel to its plugins: where the plugin runtime's refusal of the binding is shown. */
export const bindingField = (type: number): string => (type === ChannelType.task_plugin ? 'settings.plugin' : 'settings.plugins');
