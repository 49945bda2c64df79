/**
 * Channel administration. Keys are sealed with the SecretBox (`seal(JSON.stringify(keys))`) and never
 * leave this module: views carry a count and hints (`sk-ab…wxyz`) with each key's state.
 */
import { checkChannelSettings } from '../relay/providers/registry.ts';
import type { Selectable } from 'kysely';
import type { Core } from '../core.ts';
import { fail } from '../platform/errors.ts';
import { isUniqueViolation } from '../store/db.ts';
import { ChannelStore } from '../channels/store.ts';
import type { ChannelRow } from '../store/schema-core.ts';
import { CHANNEL_TYPE_NAMES, parseChannelType, isTaskChannelType } from '../channels/types.ts';
import { bindingField } from '../channels/settings-check.ts';
import { PROMPT_CACHE_MODES, PROMPT_CACHE_TTLS } from '../relay/providers/cache-breakpoints.ts';
import type { Changes } from './changes.ts';
import type { Actor } from './users.ts';
import type { AuditLog } from '../logs/audit.ts';
import { Reader, checkUrl, fieldError, join, jsonList, jsonObj, stableJson, type Obj, type Page } from '../platform/validate.ts';

const CHANNEL_FIELDS = [
  'name',
  'type',
  'base_url',
  'keys',
  'key_mode',
  'models',
  'groups',
  'priority',
  'weight',
  'model_mapping',
  'header_override',
  'param_override',
  'status',
  'status_reason',
  'settings',
  'test_model',
  'cost_ratio',
  'max_concurrency',
  'max_input_tokens',
  'tag',
];
const KEY_MODES = ['random', 'round_robin'] as const;
export const CHANNEL_STATUS = { enabled: 1, disabled: 2, auto_disabled: 3 } as const;
const STATUS_NAME: Record<number, ChannelStatusName> = { 1: 'enabled', 2: 'disabled', 3: 'auto_disabled' };
export type ChannelStatusName = keyof typeof CHANNEL_STATUS;

/** Per-key state as stored in `channels.key_state`: only keys that are not enabled have an entry. */
export interface KeyStateEntry {
  status: 'disabled' | 'auto_disabled';
  reason?: string | null;
  at?: number;
}

export interface ChannelInput {
  name?: string;
  type?: number;
  base_url?: string;
  keys?: string[];
  key_mode?: (typeof KEY_MODES)[number];
  models?: string[];
  groups?: string[];
  priority?: number;
  weight?: number;
  model_mapping?: Record<string, string>;
  header_override?: Record<string, string>;
  param_override?: Obj;
  status?: 1 | 2 | 3;
  status_reason?: string | null;
  settings?: Obj;
  test_model?: string | null;
  /** What the operator pays the vendor relative to list prices (1 = list). */
  cost_ratio?: number;
  max_concurrency?: number;
  max_input_tokens?: number;
  tag?: string | null;
}

export interface ChannelKeyView {
  index: number;
  hint: string;
  status: 'enabled' | 'disabled' | 'auto_disabled';
  reason: string | null;
  at: number | null;
}

export interface ChannelView {
  id: number;
  name: string;
  type: number;
  type_name: string;
  base_url: string;
  key_count: number;
  keys: ChannelKeyView[];
  /** Set when the stored keys cannot be decrypted (CRYPTO_SECRET differs from the one that sealed them). */
  keys_error?: string;
  key_mode: string;
  models: string[];
  groups: string[];
  priority: number;
  weight: number;
  model_mapping: Obj;
  header_override: Obj;
  param_override: Obj;
  status: ChannelStatusName;
  status_reason: string | null;
  settings: Obj;
  test_model: string | null;
  cost_ratio: number;
  /** Calls in flight above which the relay skips the channel (0: no cap). */
  max_concurrency: number;
  /** Estimated prompt tokens above which the relay skips the channel (0: no cap). */
  max_input_tokens: number;
  response_time_ms: number | null;
  tested_at: number | null;
  created_at: number;
  updated_at: number;
  tag: string | null;
  /** The upstream's balance as its vendor last reported it (GET /api/channel/update_balance/:id). */
  balance: number | null;
  balance_updated_at: number | null;
  /** The last "test all models": each model's result and time. */
  last_test: { at: number; results: Array<{ model: string; ok: boolean; status: number; time_ms: number; message: string }> } | null;
}

/** Optional hook of the plugin runtime: validates the binding of a type 60/61 channel. */
export type ChannelBindingCheck = (
  ch: { type: number; settings: Obj; models: string[]; base_url: string },
  opts: { requireInstalled: boolean },
) => void | Promise<void>;

export function hintOf(key: string): string {
  return key.length <= 12 ? '*'.repeat(Math.min(key.length, 6)) : `${key.slice(0, 5)}…${key.slice(-4)}`;
}

function parseStatus(v: unknown, field: string): 1 | 2 | 3 {
  if (v === 1 || v === 'enabled') return 1;
  if (v === 2 || v === 'disabled') return 2;
  if (v === 3 || v === 'auto_disabled') return 3;
  throw fieldError(field, 'must be enabled, disabled or auto_disabled');
}

export class ChannelAdmin {
  constructor(
    private readonly core: Core,
    private readonly changes: Changes,
    private readonly bindingCheck: () => ChannelBindingCheck | undefined,
    private readonly audit: AuditLog | null = null,
  ) {}

  private get store() {
    return new ChannelStore(this.core.h);
  }

  openKeys(sealed: string): string[] {
    const v = JSON.parse(this.core.secrets.open(sealed));
    return Array.isArray(v) ? v.map(String) : [];
  }

  sealKeys(keys: string[]): string {
    return this.core.secrets.seal(JSON.stringify(keys));
  }

  view(r: Selectable<ChannelRow>): ChannelView {
    let keys: string[] = [];
    let keysError: string | undefined;
    try {
      keys = this.openKeys(r.keys_sealed);
    } catch {
      keysError = 'stored keys cannot be decrypted with this CRYPTO_SECRET; set the keys again';
    }
    const state = jsonObj(r.key_state) as Record<string, KeyStateEntry>;
    const kv: ChannelKeyView[] = keys.map((k, i) => {
      const s = state[String(i)];
      return { index: i, hint: hintOf(k), status: s?.status ?? 'enabled', reason: s?.reason ?? null, at: s?.at ?? null };
    });
    return {
      id: Number(r.id),
      name: r.name,
      type: Number(r.type),
      type_name: CHANNEL_TYPE_NAMES[Number(r.type)] ?? 'unknown',
      base_url: r.base_url,
      key_count: keys.length,
      keys: kv,
      ...(keysError ? { keys_error: keysError } : {}),
      key_mode: r.key_mode,
      models: jsonList(r.models),
      groups: jsonList(r.groups),
      priority: Number(r.priority),
      weight: Number(r.weight),
      model_mapping: jsonObj(r.model_mapping),
      header_override: jsonObj(r.header_override),
      param_override: jsonObj(r.param_override),
      status: STATUS_NAME[Number(r.status)] ?? 'disabled',
      status_reason: r.status_reason,
      settings: jsonObj(r.settings),
      test_model: r.test_model,
      cost_ratio: r.cost_ratio === undefined || r.cost_ratio === null ? 1 : Number(r.cost_ratio),
      max_concurrency: Number(r.max_concurrency ?? 0),
      max_input_tokens: Number(r.max_input_tokens ?? 0),
      response_time_ms: r.response_time_ms === null ? null : Number(r.response_time_ms),
      tested_at: r.tested_at === null ? null : Number(r.tested_at),
      created_at: Number(r.created_at),
      updated_at: Number(r.updated_at),
      tag: r.tag ?? null,
      balance: r.balance === null || r.balance === undefined ? null : Number(r.balance),
      balance_updated_at: r.balance_updated_at === null || r.balance_updated_at === undefined ? null : Number(r.balance_updated_at),
      last_test: r.last_test ? (JSON.parse(r.last_test) as ChannelView['last_test']) : null,
    };
  }

  /** Validates the fields given; type-specific rules are checked later on the merged channel. */
  parse(raw: unknown, mode: 'create' | 'update', at = ''): ChannelInput {
    const r = Reader.of(raw, at).only(CHANNEL_FIELDS);
    const out: ChannelInput = {};
    out.name = r.str('name', { required: mode === 'create', max: 128 });
    if (r.has('type') || mode === 'create') {
      if (!r.has('type')) throw fieldError(r.path('type'), 'is required');
      try {
        out.type = parseChannelType(r.obj.type);
      } catch (e) {
        throw fieldError(r.path('type'), (e as Error).message);
      }
    }
    const base = r.str('base_url', { max: 512 });
    if (base !== undefined) out.base_url = checkUrl(base, r.path('base_url'));
    if (r.has('keys')) {
      const v = r.obj.keys;
      const arr =
        typeof v === 'string'
          ? v
              .split('\n')
              .map((s) => s.trim())
              .filter(Boolean)
          : v;
      if (!Array.isArray(arr)) throw fieldError(r.path('keys'), 'must be a list of strings (or newline-separated text)');
      out.keys = arr.map((k, i) => {
        if (typeof k !== 'string' || k.trim() === '') throw fieldError(join(r.path('keys'), i), 'must be a non-empty string');
        if (k.length > 16384) throw fieldError(join(r.path('keys'), i), 'is too long');
        return k.trim();
      });
    }
    out.key_mode = r.oneOf('key_mode', KEY_MODES);
    out.models = r.list('models', { max: 191 });
    out.groups = r.list('groups', { max: 64 });
    out.priority = r.num('priority', { int: true, min: -1e9, max: 1e9 });
    out.weight = r.num('weight', { int: true, min: 0, max: 1e6 });
    out.model_mapping = r.object('model_mapping', { values: 'string' }) as Record<string, string> | undefined;
    out.header_override = r.object('header_override', { values: 'string' }) as Record<string, string> | undefined;
    out.param_override = r.object('param_override');
    if (r.has('status')) out.status = parseStatus(r.obj.status, r.path('status'));
    if (r.has('status_reason') || r.obj.status_reason === null) out.status_reason = r.nullableStr('status_reason', { max: 1000 });
    out.settings = r.object('settings');
    if (r.has('test_model') || r.obj.test_model === null) out.test_model = r.nullableStr('test_model', { max: 191 });
    out.cost_ratio = r.num('cost_ratio', { min: 0, max: 100 });
    out.max_concurrency = r.num('max_concurrency', { int: true, min: 0, max: 1e6 });
    out.max_input_tokens = r.num('max_input_tokens', { int: true, min: 0, max: 1e9 });
    if (r.has('tag') || r.obj.tag === null) out.tag = r.nullableStr('tag', { max: 64 }) || null;
    for (const k of Object.keys(out) as (keyof ChannelInput)[]) if (out[k] === undefined) delete out[k];
    return out;
  }

  /** Type-specific rules on the whole channel (after merging an update onto the stored row). */
  private async checkWhole(
    c: Required<Pick<ChannelInput, 'type' | 'base_url' | 'keys' | 'models' | 'settings'>>,
    at: string,
    requireInstalled: boolean,
  ): Promise<void> {
    const f = (k: string) => join(at, k);
    const s = c.settings;
    // Each provider checks its own channels' settings (relay/providers/<name>/channel-settings.ts), each
    // task kind its own (channels/settings-check.ts); the first issue refuses the channel.
    const [issue] = checkChannelSettings(c.type, c);
    if (issue) throw fail(issue.code, `${f(issue.field)}: ${issue.message}`, { details: { field: f(issue.field) } });
    // Prompt-cache breakpoints on converted calls to Claude (relay/providers/cache-breakpoints.ts).
    if (s.prompt_cache !== undefined && !(PROMPT_CACHE_MODES as readonly unknown[]).includes(s.prompt_cache)) {
      throw fieldError(f('settings.prompt_cache'), `must be one of ${PROMPT_CACHE_MODES.join(', ')}`);
    }
    if (s.prompt_cache_ttl !== undefined && !(PROMPT_CACHE_TTLS as readonly unknown[]).includes(s.prompt_cache_ttl)) {
      throw fieldError(f('settings.prompt_cache_ttl'), `must be one of ${PROMPT_CACHE_TTLS.join(', ')}`);
    }
    // The price multiplier the relay's `cost` strategy ranks channels by (relay/routing.ts).
    if (s.cost_ratio !== undefined && (typeof s.cost_ratio !== 'number' || !Number.isFinite(s.cost_ratio) || s.cost_ratio < 0)) {
      throw fieldError(f('settings.cost_ratio'), 'must be a number ≥ 0');
    }
    // A task channel's plugins, as the plugin runtime holds them.
    if (isTaskChannelType(c.type)) {
      const check = this.bindingCheck();
      if (check) {
        try {
          await check({ type: c.type, settings: s, models: c.models, base_url: c.base_url }, { requireInstalled });
        } catch (e) {
          throw fieldError(f(bindingField(c.type)), (e as Error).message);
        }
      }
    }
  }

  async list(q: {
    page: number;
    pageSize: number;
    offset: number;
    keyword?: string;
    type?: number;
    status?: number;
    group?: string;
    tag?: string;
  }): Promise<Page<ChannelView>> {
    const { rows, total } = await this.store.page(q, q.pageSize, q.offset);
    return { items: rows.map((r) => this.view(r)), total, page: q.page, page_size: q.pageSize };
  }

  async row(id: number) {
    const r = await this.store.byId(id);
    if (!r) throw fail('channel_not_found', { id });
    return r;
  }

  async get(id: number): Promise<ChannelView> {
    return this.view(await this.row(id));
  }

  async findByName(name: string) {
    return this.store.byName(name);
  }

  /**
   * `at` prefixes field names in errors (a path in the configuration file); `requireInstalled: false`
   * lets a task channel name a plugin that is not installed yet (the configuration file).
   */
  async create(input: ChannelInput, at = '', opts: { requireInstalled?: boolean; actor?: Actor } = {}): Promise<ChannelView> {
    const type = input.type!;
    const c = {
      type,
      base_url: input.base_url ?? '',
      keys: input.keys ?? [],
      models: input.models ?? [],
      settings: input.settings ?? {},
    };
    await this.checkWhole(c, at, opts.requireInstalled !== false);
    const now = Date.now();
    let id: number;
    try {
      id = await this.store.insert({
        name: input.name!,
        type,
        base_url: c.base_url,
        keys_sealed: this.sealKeys(c.keys),
        key_mode: input.key_mode ?? 'random',
        key_state: '{}',
        models: JSON.stringify(c.models),
        groups: JSON.stringify(input.groups?.length ? input.groups : ['default']),
        priority: input.priority ?? 0,
        weight: input.weight ?? 1,
        model_mapping: stableJson(input.model_mapping ?? {}),
        header_override: stableJson(input.header_override ?? {}),
        param_override: stableJson(input.param_override ?? {}),
        status: input.status ?? 1,
        status_reason: input.status_reason ?? null,
        settings: stableJson(c.settings),
        test_model: input.test_model ?? null,
        cost_ratio: input.cost_ratio ?? 1,
        max_concurrency: input.max_concurrency ?? 0,
        max_input_tokens: input.max_input_tokens ?? 0,
        tag: input.tag ?? null,
        response_time_ms: null,
        tested_at: null,
        created_at: now,
        updated_at: now,
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw fail('channel_exists', `${join(at, 'name')}: a channel named "${input.name}" already exists`);
      throw e;
    }
    await this.changes.changed('channels');
    const made = await this.get(id);
    await this.audit?.record(opts.actor ?? null, 'channel.create', { type: 'channel', id }, null, auditView(made));
    return made;
  }

  /** Applies the given fields (absent `keys` keep the stored keys). Returns whether anything changed. */
  async update(
    id: number,
    input: ChannelInput,
    at = '',
    opts: { requireInstalled?: boolean; actor?: Actor } = {},
  ): Promise<{ view: ChannelView; changed: boolean }> {
    const cur = await this.row(id);
    let curKeys: string[] | null = null;
    try {
      curKeys = this.openKeys(cur.keys_sealed);
    } catch {
      if (!input.keys)
        throw fieldError(join(at, 'keys'), 'the stored keys cannot be decrypted with this CRYPTO_SECRET; give the keys again');
    }
    const merged = {
      type: input.type ?? Number(cur.type),
      base_url: input.base_url ?? cur.base_url,
      keys: input.keys ?? curKeys ?? [],
      models: input.models ?? jsonList(cur.models),
      settings: input.settings ?? jsonObj(cur.settings),
    };
    await this.checkWhole(merged, at, opts.requireInstalled !== false);
    const set: Partial<Record<keyof ChannelRow, unknown>> = {};
    const diff = (col: keyof ChannelRow, v: unknown) => {
      const old = (cur as any)[col];
      if (old === null ? v !== null : String(old) !== String(v)) set[col] = v;
    };
    if (input.name !== undefined) diff('name', input.name);
    if (input.type !== undefined) diff('type', input.type);
    if (input.base_url !== undefined) diff('base_url', input.base_url);
    if (input.keys !== undefined && (curKeys === null || JSON.stringify(curKeys) !== JSON.stringify(input.keys))) {
      set.keys_sealed = this.sealKeys(input.keys);
      // Keep the state of keys that stay; indices follow the new list.
      const oldState = jsonObj(cur.key_state) as Record<string, KeyStateEntry>;
      const next: Record<string, KeyStateEntry> = {};
      input.keys.forEach((k, i) => {
        const oi = curKeys ? curKeys.indexOf(k) : -1;
        if (oi >= 0 && oldState[String(oi)]) next[String(i)] = oldState[String(oi)];
      });
      set.key_state = stableJson(next);
    }
    if (input.key_mode !== undefined) diff('key_mode', input.key_mode);
    if (input.models !== undefined) diff('models', JSON.stringify(input.models));
    if (input.groups !== undefined) diff('groups', JSON.stringify(input.groups.length ? input.groups : ['default']));
    if (input.priority !== undefined) diff('priority', input.priority);
    if (input.weight !== undefined) diff('weight', input.weight);
    if (input.model_mapping !== undefined) diff('model_mapping', stableJson(input.model_mapping));
    if (input.header_override !== undefined) diff('header_override', stableJson(input.header_override));
    if (input.param_override !== undefined) diff('param_override', stableJson(input.param_override));
    if (input.status !== undefined) {
      diff('status', input.status);
      if (input.status === 1 && input.status_reason === undefined) diff('status_reason', null);
    }
    if (input.status_reason !== undefined) diff('status_reason', input.status_reason);
    if (input.settings !== undefined) diff('settings', stableJson(input.settings));
    if (input.test_model !== undefined) diff('test_model', input.test_model);
    if (input.cost_ratio !== undefined) diff('cost_ratio', input.cost_ratio);
    if (input.max_concurrency !== undefined) diff('max_concurrency', input.max_concurrency);
    if (input.max_input_tokens !== undefined) diff('max_input_tokens', input.max_input_tokens);
    if (input.tag !== undefined) diff('tag', input.tag);
    if (Object.keys(set).length === 0) return { view: this.view(cur), changed: false };
    set.updated_at = Date.now();
    try {
      await this.store.update(id, set as any);
    } catch (e) {
      if (isUniqueViolation(e)) throw fail('channel_exists', `${join(at, 'name')}: a channel named "${input.name}" already exists`);
      throw e;
    }
    await this.changes.changed('channels');
    const view = await this.get(id);
    // New keys show as a changed (redacted) `keys` field; their hints change with them.
    const keysChanged = set.keys_sealed !== undefined;
    await this.audit?.record(
      opts.actor ?? null,
      'channel.update',
      { type: 'channel', id },
      { ...auditView(this.view(cur)), keys: keysChanged ? 'old' : undefined },
      { ...auditView(view), keys: keysChanged ? 'new' : undefined },
    );
    return { view, changed: true };
  }

  async setStatus(id: number, status: 1 | 2 | 3, reason: string | null = null, actor: Actor = null): Promise<ChannelView> {
    const cur = await this.row(id);
    await this.store.update(id, { status, status_reason: status === 1 ? null : reason, updated_at: Date.now() });
    await this.changes.changed('channels');
    const view = await this.get(id);
    await this.audit?.record(actor, 'channel.status', { type: 'channel', id }, auditView(this.view(cur)), auditView(view));
    return view;
  }

  /** Enables or disables one key of a channel by its index. */
  async setKeyState(id: number, index: number, enabled: boolean, reason: string | null = null, actor: Actor = null): Promise<ChannelView> {
    const cur = await this.row(id);
    let count: number;
    try {
      count = this.openKeys(cur.keys_sealed).length;
    } catch {
      throw fieldError('keys', 'the stored keys cannot be decrypted with this CRYPTO_SECRET');
    }
    if (!Number.isInteger(index) || index < 0 || index >= count) throw fieldError('index', `must be between 0 and ${count - 1}`);
    const state = jsonObj(cur.key_state) as Record<string, KeyStateEntry>;
    if (enabled) delete state[String(index)];
    else state[String(index)] = { status: 'disabled', reason: reason ?? 'disabled by an administrator', at: Date.now() };
    await this.store.update(id, { key_state: stableJson(state), updated_at: Date.now() });
    await this.changes.changed('channels');
    const view = await this.get(id);
    await this.audit?.record(
      actor,
      enabled ? 'channel.key_enable' : 'channel.key_disable',
      { type: 'channel', id },
      auditView(this.view(cur)),
      auditView(view),
    );
    return view;
  }

  async remove(id: number, actor: Actor = null): Promise<void> {
    const cur = await this.row(id);
    await this.store.remove(id);
    await this.changes.changed('channels');
    await this.audit?.record(actor, 'channel.delete', { type: 'channel', id }, auditView(this.view(cur)), null);
  }
}

/** A channel as the audit log keeps it: without the fields every write moves (times, test results). */
export function auditView(v: ChannelView): Record<string, unknown> {
  const {
    updated_at: _u,
    created_at: _c,
    tested_at: _t,
    response_time_ms: _r,
    balance: _b,
    balance_updated_at: _bu,
    last_test: _l,
    keys,
    ...rest
  } = v;
  // The key list holds hints and states (not secrets): kept under a name the redaction leaves alone.
  return { ...rest, key_list: keys };
}
