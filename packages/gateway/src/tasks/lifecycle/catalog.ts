/**
 * In-memory snapshot of what the task host needs on every submit: the enabled task channels (types
 * 60 and 61) with their keys opened, the task prices and the group ratios. Rebuilt when the
 * `channels`, `prices` or `group_ratios` revision changes on any node.
 */
import type { Core } from '../../core.ts';
import { ChannelType } from '../../channels/types.ts';
import { orderRanked } from '../../channels/pick.ts';
import { ChannelStore } from '../../channels/store.ts';
import { PriceStore } from '../../billing/price-store.ts';
import { PRICES_REVISION } from '../../billing/prices.ts';

export const TASK_CHANNEL_TYPES: number[] = [ChannelType.gateway, ChannelType.task_plugin];

export interface TaskChannel {
  id: number;
  name: string;
  type: number;
  baseUrl: string;
  keys: string[];
  models: string[];
  groups: string[];
  priority: number;
  weight: number;
  modelMapping: Record<string, string>;
  /** Plugin keys this channel is bound to (type 61: `settings.plugin`; type 60: `settings.plugins`). */
  plugins: string[];
  settings: Record<string, unknown>;
}

export interface TaskPrice {
  expression: string | null;
  perRequest: number | null;
}

function json<T>(s: string | null | undefined, dflt: T): T {
  if (!s) return dflt;
  try {
    return JSON.parse(s) as T;
  } catch {
    return dflt;
  }
}

export class TaskCatalog {
  private channels: TaskChannel[] = [];
  private byId = new Map<number, TaskChannel>();
  private prices = new Map<string, TaskPrice>();
  private ratios = new Map<string, number>();

  constructor(private readonly core: Core) {}

  async register(): Promise<void> {
    await this.core.cache.register('channels', () => this.loadChannels());
    // Prices and group ratios move under one revision (`prices`: billing/prices.ts, admin/prices.ts).
    await this.core.cache.register(PRICES_REVISION, async () => {
      await this.loadPrices();
      await this.loadRatios();
    });
  }

  async loadChannels(): Promise<void> {
    const rows = await new ChannelStore(this.core.h).enabledOfTypes(TASK_CHANNEL_TYPES);
    const list: TaskChannel[] = [];
    for (const r of rows) {
      let keys: string[] = [];
      try {
        keys = json<string[]>(this.core.secrets.open(r.keys_sealed), []);
      } catch {
        this.core.log.warn({ channelId: r.id }, 'task channel keys cannot be opened (CRYPTO_SECRET changed?); channel skipped');
        continue;
      }
      const state = json<Record<string, { status?: string }>>(r.key_state, {});
      keys = keys.filter((_k, i) => !state[i]?.status);
      const settings = json<Record<string, unknown>>(r.settings, {});
      const plugins =
        Number(r.type) === ChannelType.task_plugin
          ? [settings.plugin, settings.task_plugin_key].filter((x): x is string => typeof x === 'string' && x !== '')
          : [
              ...(Array.isArray(settings.plugins) ? settings.plugins : []),
              settings.task_plugin_key,
              ...(Array.isArray(settings.task_extend_plugin_keys) ? settings.task_extend_plugin_keys : []),
            ].filter((x): x is string => typeof x === 'string' && x !== '');
      list.push({
        id: Number(r.id),
        name: r.name,
        type: Number(r.type),
        baseUrl: r.base_url.replace(/\/+$/, ''),
        keys,
        models: json<string[]>(r.models, []),
        groups: json<string[]>(r.groups, []),
        priority: Number(r.priority),
        weight: Math.max(0, Number(r.weight)),
        modelMapping: json<Record<string, string>>(r.model_mapping, {}),
        plugins: [...new Set(plugins)],
        settings,
      });
    }
    this.channels = list;
    this.byId = new Map(list.map((c) => [c.id, c]));
  }

  async loadPrices(): Promise<void> {
    const rows = await new PriceStore(this.core.h).all();
    this.prices = new Map(
      rows.map((r) => [r.model, { expression: r.expression || null, perRequest: r.per_request === null ? null : Number(r.per_request) }]),
    );
  }

  async loadRatios(): Promise<void> {
    const rows = await new PriceStore(this.core.h).ratios();
    this.ratios = new Map(rows.map((r) => [r.group_name, Number(r.ratio)]));
  }

  /** Enabled channels bound to `pluginKey` that serve `model` to `group`. */
  candidates(pluginKey: string, model: string, group: string): TaskChannel[] {
    return this.channels.filter(
      (c) =>
        c.plugins.includes(pluginKey) &&
        (c.models.length === 0 || c.models.includes(model)) &&
        (c.groups.length === 0 || c.groups.includes(group)) &&
        c.keys.length > 0,
    );
  }

  channel(id: number | null): TaskChannel | undefined {
    return id === null ? undefined : this.byId.get(id);
  }

  /** The price for a task: `<pluginKey>::<model>`, then the model, then the upstream model. */
  price(pluginKey: string, model: string, upstreamModel: string): { key: string; price: TaskPrice } | null {
    for (const key of [`${pluginKey}::${model}`, `${pluginKey}::${upstreamModel}`, model, upstreamModel]) {
      const p = this.prices.get(key);
      if (p && (p.expression || p.perRequest !== null)) return { key, price: p };
    }
    return null;
  }

  groupRatio(group: string): number {
    return this.ratios.get(group) ?? 1;
  }
}

/**
 * Orders candidates for one submit: highest priority first; within one priority a weighted random
 * order, zero-weight channels after the weighted ones (the rule of `channels/pick.ts`, which
 * model calls use too).
 */
export function orderChannels(list: TaskChannel[], rand: () => number = Math.random): TaskChannel[] {
  return orderRanked(list, (c) => c, rand);
}
