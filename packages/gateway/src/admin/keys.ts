/**
 * API key administration. A key (`sk-…`) is shown once when created; the database keeps its SHA-256
 * and a hint. Users manage their own keys; admins manage the keys of users they may manage.
 * A key may carry a default task callback URL and a callback signing secret (sealed at rest like
 * channel keys, shown once when it is made).
 */
import type { Selectable } from 'kysely';
import type { Core } from '../core.ts';
import { ROLE_RANK } from '../accounts/types.ts';
import { compileIpList } from '../accounts/ip.ts';
import { parseMcpAllowList } from '../accounts/mcp-access.ts';
import { generateApiKey, hashApiKey, keyHint } from '../accounts/keys.ts';
import { randomToken } from '../platform/crypto.ts';
import { fail } from '../platform/errors.ts';
import { isUniqueViolation } from '../store/db.ts';
import { KeyStore } from '../accounts/key-store.ts';
import { UserStore } from '../accounts/user-store.ts';
import type { ApiKeyRow } from '../store/schema-core.ts';
import type { Changes } from './changes.ts';
import type { Actor } from './users.ts';
import type { AuditLog } from '../logs/audit.ts';
import { Reader, fieldError, jsonList, quotaToUsd, usdToQuota, type Page } from '../platform/validate.ts';
import {
  LIMIT_FIELDS,
  checkBudgetPair,
  fillBudgetSpend,
  limitColumns,
  limitView,
  parseLimits,
  type LimitInput,
  type LimitView,
} from './limit-fields.ts';
import type { Budgets } from '../billing/budgets.ts';
import { carveChild, ceilingOf, remainUnder } from '../billing/key-ceilings.ts';
import type { KeyPrincipal } from '../accounts/types.ts';

const KEY_FIELDS = [
  'user_id',
  'name',
  'key',
  'status',
  'expires_at',
  'quota',
  'quota_usd',
  'max_spend_usd',
  'unlimited_quota',
  'models',
  'allowed_ips',
  'group',
  'callback_url',
  'mcp_tools',
  ...LIMIT_FIELDS,
];
const CALLBACK_URL_MAX = 2048;
export const FIXED_KEY_RE = /^sk-[A-Za-z0-9_-]{20,200}$/;

export interface KeyInput extends LimitInput {
  user_id?: number;
  /** The team that pays for the key's calls (set by the team routes, admin/team-activity.ts). */
  team_id?: number;
  name?: string;
  /** A fixed key value (configuration file, admins). */
  key?: string;
  status?: 1 | 2;
  expires_at?: number | null;
  /** null = unlimited, else the key's own remaining cap in quota units. */
  quota?: number | null;
  /** The key's lifetime ceiling in quota units (spent plus remaining; null: none). */
  max_spend?: number | null;
  models?: string[] | null;
  allowed_ips?: string[] | null;
  group?: string | null;
  /** Default task callback URL (null: none). Its address is checked when a task is submitted. */
  callback_url?: string | null;
  /** MCP tools the key may use (`server/tool`, `server/*`; null: none). Admins only. */
  mcp_tools?: string[] | null;
}

export interface KeyView extends LimitView {
  id: number;
  user_id: number;
  /** The team that pays for the key's calls; null: its user. */
  team_id: number | null;
  username?: string;
  name: string;
  /** `sk-ab…wxyz`; the full key is only in the creation answer. */
  hint: string;
  status: 'enabled' | 'disabled' | 'expired' | 'exhausted';
  expires_at: number | null;
  unlimited_quota: boolean;
  remain_quota: number;
  remain_quota_usd: number;
  used_quota: number;
  /** The lifetime spending ceiling in USD (spent plus remaining); null: none. */
  max_spend_usd: number | null;
  models: string[] | null;
  allowed_ips: string[] | null;
  group: string | null;
  callback_url: string | null;
  /** Whether the key has a callback signing secret (the secret itself is shown once, when made). */
  callback_secret_set: boolean;
  mcp_tools: string[] | null;
  created_at: number;
  accessed_at: number | null;
}

export class KeyAdmin {
  constructor(
    private readonly core: Core,
    private readonly changes: Changes,
    private readonly audit: AuditLog | null = null,
    private readonly budgets: () => Budgets = () => {
      throw new Error('no budgets');
    },
  ) {}

  private get keys() {
    return new KeyStore(this.core.h);
  }

  view(r: Selectable<ApiKeyRow> & { username?: string }): KeyView {
    const unlimited = Number(r.unlimited_quota) === 1;
    const expires = r.expires_at === null ? null : Number(r.expires_at);
    let status: KeyView['status'] = Number(r.status) === 1 ? 'enabled' : 'disabled';
    if (status === 'enabled' && expires !== null && expires <= Date.now()) status = 'expired';
    else if (status === 'enabled' && !unlimited && Number(r.remain_quota) <= 0) status = 'exhausted';
    const models = jsonList(r.models);
    const ips = jsonList(r.allowed_ips);
    return {
      id: Number(r.id),
      user_id: Number(r.user_id),
      team_id: r.team_id === null || r.team_id === undefined ? null : Number(r.team_id),
      ...(r.username !== undefined ? { username: r.username } : {}),
      name: r.name,
      hint: r.key_hint,
      status,
      expires_at: expires,
      unlimited_quota: unlimited,
      remain_quota: Number(r.remain_quota),
      remain_quota_usd: quotaToUsd(Number(r.remain_quota), this.core.config.quotaPerUsd),
      used_quota: Number(r.used_quota),
      max_spend_usd: ceilingOf(r) === null ? null : quotaToUsd(ceilingOf(r)!, this.core.config.quotaPerUsd),
      models: models.length ? models : null,
      allowed_ips: ips.length ? ips : null,
      group: r.group_name,
      callback_url: r.callback_url ?? null,
      callback_secret_set: !!r.callback_secret,
      mcp_tools: jsonList(r.mcp_tools ?? null).length ? jsonList(r.mcp_tools ?? null) : null,
      ...limitView(r, this.core.config.quotaPerUsd),
      created_at: Number(r.created_at),
      accessed_at: r.accessed_at === null ? null : Number(r.accessed_at),
    };
  }

  parse(raw: unknown, mode: 'create' | 'update', at = ''): KeyInput {
    const r = Reader.of(raw, at).only(KEY_FIELDS);
    const out: KeyInput = {};
    if (r.has('user_id')) out.user_id = r.num('user_id', { int: true, min: 1 });
    out.name = r.str('name', { required: mode === 'create', max: 128 });
    out.key = r.str('key', { pattern: FIXED_KEY_RE, hint: 'must be sk- followed by 20-200 letters, digits, _ or -' });
    if (r.has('status')) {
      const s = r.obj.status;
      out.status = s === 'enabled' || s === 1 ? 1 : s === 'disabled' || s === 2 ? 2 : undefined;
      if (!out.status) throw fieldError(r.path('status'), 'must be enabled or disabled');
    }
    out.expires_at = r.time('expires_at');
    if (r.has('quota') || r.obj.quota === null) out.quota = r.nullableNum('quota', { int: true, min: 0 });
    if (r.has('quota_usd') || r.obj.quota_usd === null) {
      const usd = r.nullableNum('quota_usd', { min: 0 });
      out.quota = usd === null || usd === undefined ? null : usdToQuota(usd, this.core.config.quotaPerUsd);
    }
    if (r.has('max_spend_usd') || r.obj.max_spend_usd === null) {
      if (r.has('quota') || r.has('quota_usd')) throw fieldError(r.path('max_spend_usd'), 'give either max_spend_usd or quota');
      const usd = r.nullableNum('max_spend_usd', { min: 0, max: 1e9 });
      out.max_spend = usd === null || usd === undefined ? null : usdToQuota(usd, this.core.config.quotaPerUsd);
    }
    if (r.bool('unlimited_quota') === true) out.quota = null;
    if (r.obj.models === null) out.models = null;
    else if (r.has('models')) out.models = r.list('models', { max: 191 }) ?? null;
    if (r.obj.allowed_ips === null) out.allowed_ips = null;
    else if (r.has('allowed_ips')) {
      const ips = r.list('allowed_ips', { max: 64 }) ?? [];
      try {
        compileIpList(ips);
      } catch (e) {
        throw fieldError(r.path('allowed_ips'), (e as Error).message.replace(/^allowed_ips: /, ''));
      }
      out.allowed_ips = ips;
    }
    if (r.obj.group === null) out.group = null;
    else if (r.has('group')) out.group = r.nullableStr('group', { max: 64 });
    if (r.obj.callback_url === null) out.callback_url = null;
    else if (r.has('callback_url')) {
      const u = r.nullableStr('callback_url', { max: CALLBACK_URL_MAX });
      if (u) {
        let url: URL | null = null;
        try {
          url = new URL(u);
        } catch {
          url = null;
        }
        if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || /\s/.test(u))
          throw fieldError(r.path('callback_url'), 'must be an http or https URL');
        if (url.username || url.password) throw fieldError(r.path('callback_url'), 'may not carry a user name or password');
        out.callback_url = url.toString();
      } else out.callback_url = null;
    }
    if (r.obj.mcp_tools === null) out.mcp_tools = null;
    else if (r.has('mcp_tools')) out.mcp_tools = parseMcpAllowList(r.list('mcp_tools', { max: 200 }) ?? [], r.path('mcp_tools'));
    parseLimits(r, out, this.core.config.quotaPerUsd, mode);
    for (const k of Object.keys(out) as (keyof KeyInput)[]) if (out[k] === undefined) delete out[k];
    if (mode === 'create' && out.max_spend !== undefined) out.quota = out.max_spend;
    if (mode === 'create' && out.quota === undefined) out.quota = null;
    return out;
  }

  /** Throws unless `actor` may manage keys of user `userId`. */
  private async checkOwner(actor: Actor, userId: number): Promise<void> {
    if (!actor || actor.role === 'root' || actor.id === userId) return;
    if (ROLE_RANK[actor.role] < ROLE_RANK.admin) throw fail('key_not_found');
    const owner = await new UserStore(this.core.h).byId(userId);
    if (owner && ROLE_RANK[owner.role] >= ROLE_RANK[actor.role])
      throw fail('forbidden', 'only root may manage the keys of admin and root accounts');
  }

  /** A key's group can only be its user's own (a key never reaches beyond its user); only admins set key values. */
  private checkFields(actor: Actor, input: KeyInput, userGroup: string): void {
    if (input.group && input.group !== userGroup) throw fieldError('group', `must be the user's own group "${userGroup}" (or empty)`);
    if (!actor || ROLE_RANK[actor.role] >= ROLE_RANK.admin) return;
    if (input.key !== undefined) throw fail('forbidden', 'only admins may set a fixed key value');
    if (input.mcp_tools !== undefined) throw fail('forbidden', "only admins may set a key's MCP tools");
  }

  async list(q: {
    page: number;
    pageSize: number;
    offset: number;
    userId?: number;
    keyword?: string;
    teamId?: number;
  }): Promise<Page<KeyView>> {
    const { rows, total } = await this.keys.page(q, q.pageSize, q.offset);
    return { items: await this.withSpend(rows.map((r) => this.view(r))), total, page: q.page, page_size: q.pageSize };
  }

  private async row(id: number) {
    return this.keys.withUser(id);
  }

  async get(id: number, actor: Actor): Promise<KeyView> {
    const r = await this.row(id);
    if (!r) throw fail('key_not_found', `no API key with id ${id}`);
    await this.checkOwner(actor, Number(r.user_id));
    return (await this.withSpend([this.view(r)]))[0];
  }

  /** The views with what their budgets spent in the current period. */
  private withSpend(views: KeyView[]): Promise<KeyView[]> {
    return fillBudgetSpend(this.budgets(), views, 'k', this.core.config.quotaPerUsd);
  }

  /** The key with this full value, if any. */
  async findByValue(key: string) {
    return this.keys.byHash(hashApiKey(key));
  }

  async findByName(userId: number, name: string) {
    return this.keys.byName(userId, name);
  }

  /** Creates a key for `input.user_id` (default: the actor). Returns the full key once. */
  async create(input: KeyInput, actor: Actor): Promise<KeyView & { key: string }> {
    const userId = input.user_id ?? actor?.id;
    if (!userId) throw fieldError('user_id', 'is required');
    if (actor && userId !== actor.id && ROLE_RANK[actor.role] < ROLE_RANK.admin)
      throw fail('forbidden', 'you may only create keys for yourself');
    await this.checkOwner(actor, userId);
    const user = await new UserStore(this.core.h).byId(userId);
    if (!user) throw fieldError('user_id', `no user with id ${userId}`);
    this.checkFields(actor, input, user.group_name);
    const key = input.key ?? generateApiKey();
    let id: number;
    try {
      id = await this.keys.insert({
        user_id: userId,
        ...(input.team_id !== undefined ? { team_id: input.team_id } : {}),
        name: input.name ?? '',
        key_hash: hashApiKey(key),
        key_hint: keyHint(key),
        status: input.status ?? 1,
        expires_at: input.expires_at ?? null,
        unlimited_quota: input.quota === null || input.quota === undefined ? 1 : 0,
        remain_quota: input.quota ?? 0,
        used_quota: 0,
        models: input.models?.length ? JSON.stringify(input.models) : null,
        allowed_ips: input.allowed_ips?.length ? JSON.stringify(input.allowed_ips) : null,
        group_name: input.group ?? null,
        callback_url: input.callback_url ?? null,
        mcp_tools: input.mcp_tools?.length ? JSON.stringify(input.mcp_tools) : null,
        ...limitColumns(input, true),
        created_at: Date.now(),
        accessed_at: null,
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw fail('key_exists');
      throw e;
    }
    await this.changes.changed('keys');
    const r = await this.row(id);
    const made = (await this.withSpend([this.view(r!)]))[0];
    await this.audit?.record(actor, 'key.create', { type: 'key', id }, null, made);
    return { ...made, key };
  }

  /** Applies the given fields; returns the view, and whether anything changed. */
  async update(id: number, input: KeyInput, actor: Actor): Promise<{ view: KeyView; changed: boolean }> {
    const cur = await this.row(id);
    if (!cur) throw fail('key_not_found', `no API key with id ${id}`);
    await this.checkOwner(actor, Number(cur.user_id));
    this.checkFields(actor, input, cur.user_group);
    checkBudgetPair(cur, input);
    if (input.user_id !== undefined && input.user_id !== Number(cur.user_id))
      throw fieldError('user_id', 'a key cannot move to another user');
    const set: Partial<Record<keyof ApiKeyRow, unknown>> = {};
    const diff = (col: keyof ApiKeyRow, v: unknown) => {
      if ((cur as any)[col] === null ? v !== null : String((cur as any)[col]) !== String(v)) set[col] = v;
    };
    if (input.name !== undefined) diff('name', input.name);
    if (input.key !== undefined) {
      const h = hashApiKey(input.key);
      if (h !== cur.key_hash) {
        set.key_hash = h;
        set.key_hint = keyHint(input.key);
      }
    }
    if (input.status !== undefined) diff('status', input.status);
    if (input.expires_at !== undefined) diff('expires_at', input.expires_at);
    if (input.max_spend !== undefined) input.quota = input.max_spend === null ? null : remainUnder(input.max_spend, Number(cur.used_quota));
    if (input.quota !== undefined) {
      diff('unlimited_quota', input.quota === null ? 1 : 0);
      if (input.quota !== null) diff('remain_quota', input.quota);
    }
    if (input.models !== undefined) diff('models', input.models?.length ? JSON.stringify(input.models) : null);
    if (input.allowed_ips !== undefined) diff('allowed_ips', input.allowed_ips?.length ? JSON.stringify(input.allowed_ips) : null);
    if (input.group !== undefined) diff('group_name', input.group);
    if (input.callback_url !== undefined) diff('callback_url', input.callback_url);
    if (input.mcp_tools !== undefined) diff('mcp_tools', input.mcp_tools?.length ? JSON.stringify(input.mcp_tools) : null);
    for (const [col, v] of Object.entries(limitColumns(input, false))) diff(col as keyof ApiKeyRow, v);
    if (Object.keys(set).length === 0) return { view: (await this.withSpend([this.view(cur)]))[0], changed: false };
    try {
      await this.keys.update(id, set as any);
    } catch (e) {
      if (isUniqueViolation(e)) throw fail('key_exists');
      throw e;
    }
    await this.changes.changed('keys');
    const view = (await this.withSpend([this.view((await this.row(id))!)]))[0];
    // A new key value shows as a changed (redacted) `key`, never as its hint alone.
    await this.audit?.record(
      actor,
      'key.update',
      { type: 'key', id },
      { ...this.view(cur), key: set.key_hash ? 'old' : undefined },
      { ...view, key: set.key_hash ? 'new' : undefined },
    );
    return { view, changed: true };
  }

  /**
   * Makes a new callback signing secret for the key (replacing the old one at once) and returns it:
   * the only time it is shown. Stored sealed with CRYPTO_SECRET, like channel keys.
   */
  async rotateCallbackSecret(id: number, actor: Actor): Promise<{ callback_secret: string }> {
    const cur = await this.row(id);
    if (!cur) throw fail('key_not_found', `no API key with id ${id}`);
    await this.checkOwner(actor, Number(cur.user_id));
    const secret = `whsec_${randomToken(32)}`;
    await this.keys.update(id, { callback_secret: this.core.secrets.seal(secret) });
    return { callback_secret: secret };
  }

  /** Deletes a key; `checked`: the caller has already decided the actor may (a team's owners and admins, admin/team-activity.ts). */
  async remove(id: number, actor: Actor, checked = false): Promise<void> {
    const cur = await this.row(id);
    if (!cur) throw fail('key_not_found', `no API key with id ${id}`);
    if (!checked) await this.checkOwner(actor, Number(cur.user_id));
    await this.keys.remove(id);
    await this.changes.changed('keys');
    await this.audit?.record(actor, 'key.delete', { type: 'key', id }, this.view(cur), null);
  }

  /**
   * Mints a child key of key `parentId`, asked by the parent key itself (`principal`). The child
   * belongs to the parent's user, keeps the parent's group, addresses and MCP tools, may narrow its
   * models, expires no later than the parent, and its ceiling (`max_spend_usd`, required) is taken out
   * of the parent's remaining ceiling. Returns the full child key once.
   */
  async createChild(parentId: number, principal: KeyPrincipal, raw: unknown): Promise<KeyView & { key: string }> {
    if (principal.keyId !== parentId) throw fail('key_not_found', `no API key with id ${parentId}`);
    const parent = await this.row(parentId);
    if (!parent) throw fail('key_not_found', `no API key with id ${parentId}`);
    const r = Reader.of(raw).only(['name', 'max_spend_usd', 'expires_at', 'models']);
    const name = r.str('name', { required: true, max: 128 })!;
    const usd = r.num('max_spend_usd', { min: 0, max: 1e9 });
    if (usd === undefined) throw fieldError('max_spend_usd', 'is required: a child key has a ceiling');
    const amount = usdToQuota(usd, this.core.config.quotaPerUsd);
    if (amount < 1) throw fieldError('max_spend_usd', 'must be above zero');
    const parentExpiry = parent.expires_at === null ? null : Number(parent.expires_at);
    let expires = r.time('expires_at') ?? parentExpiry;
    if (parentExpiry !== null && (expires === null || expires > parentExpiry)) expires = parentExpiry;
    const parentModels = jsonList(parent.models);
    let models = r.has('models') ? (r.list('models', { max: 191 }) ?? []) : parentModels;
    if (parentModels.length && models.length === 0) models = parentModels;
    const outside = parentModels.length ? models.filter((m) => !parentModels.includes(m)) : [];
    if (outside.length) throw fieldError('models', `the parent key may not use ${outside.join(', ')}`);
    const key = generateApiKey();
    const id = await carveChild(this.core.h, parentId, amount, (tx) =>
      this.keys.insertIn(tx, {
        user_id: Number(parent.user_id),
        name,
        key_hash: hashApiKey(key),
        key_hint: keyHint(key),
        status: 1,
        expires_at: expires,
        unlimited_quota: 0,
        remain_quota: amount,
        used_quota: 0,
        models: models.length ? JSON.stringify(models) : null,
        allowed_ips: parent.allowed_ips,
        group_name: parent.group_name,
        callback_url: parent.callback_url ?? null,
        mcp_tools: parent.mcp_tools ?? null,
        rpm: Number(parent.rpm),
        tpm: Number(parent.tpm),
        max_concurrency: Number(parent.max_concurrency),
        budget_quota: parent.budget_quota,
        budget_period: parent.budget_period,
        created_at: Date.now(),
        accessed_at: null,
      }),
    );
    await this.changes.changed('keys');
    const made = (await this.withSpend([this.view((await this.row(id))!)]))[0];
    const actor: Actor = { id: principal.userId, username: principal.username, role: principal.userRole, group: principal.group };
    await this.audit?.record(actor, 'key.create_child', { type: 'key', id }, null, { ...made, parent_id: parentId });
    return { ...made, key };
  }
}
