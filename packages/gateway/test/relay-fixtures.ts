/**
 * Direct database helpers for relay tests: users, keys, channels and prices inserted through Kysely,
 * then the matching cache revision bumped (as the admin API would).
 */
import { generateApiKey, hashApiKey, keyHint } from '../src/accounts/keys.ts';
import { insertId } from '../src/store/db.ts';
import type { Gateway } from '../src/gateway.ts';

let seq = 0;
const uniq = (p: string) => `${p}${Date.now().toString(36)}${(seq++).toString(36)}`;

export async function createUser(gw: Gateway, o: { quota?: number; group?: string; username?: string } = {}): Promise<number> {
  const now = Date.now();
  const id = await insertId(gw.core.h.db, gw.core.h.dialect, 'users', {
    username: o.username ?? uniq('u'),
    password_hash: 'x',
    display_name: 'test',
    role: 'user',
    group_name: o.group ?? 'default',
    quota: o.quota ?? 1_000_000_000,
    used_quota: 0,
    request_count: 0,
    status: 1,
    access_token_hash: null,
    created_at: now,
    updated_at: now,
  });
  await gw.core.cache.bump('keys');
  return id;
}

export interface KeyOpts {
  models?: string[];
  allowedIps?: string[];
  expiresAt?: number | null;
  /** A key cap in quota units; omitted = unlimited. */
  cap?: number;
  group?: string;
}

export async function createKey(gw: Gateway, userId: number, o: KeyOpts = {}): Promise<{ key: string; id: number }> {
  const key = generateApiKey();
  const id = await insertId(gw.core.h.db, gw.core.h.dialect, 'api_keys', {
    user_id: userId,
    name: uniq('k'),
    key_hash: hashApiKey(key),
    key_hint: keyHint(key),
    status: 1,
    expires_at: o.expiresAt ?? null,
    unlimited_quota: o.cap === undefined ? 1 : 0,
    remain_quota: o.cap ?? 0,
    used_quota: 0,
    models: o.models ? JSON.stringify(o.models) : null,
    allowed_ips: o.allowedIps ? JSON.stringify(o.allowedIps) : null,
    group_name: o.group ?? null,
    created_at: Date.now(),
    accessed_at: null,
  });
  await gw.core.cache.bump('keys');
  return { key, id };
}

/** A user with a key in one go. */
export async function createCaller(gw: Gateway, o: { quota?: number; group?: string } & KeyOpts = {}) {
  const userId = await createUser(gw, o);
  const k = await createKey(gw, userId, o);
  return { userId, keyId: k.id, key: k.key };
}

export interface ChannelOpts {
  type?: number;
  baseUrl: string;
  keys?: string[];
  models: string[];
  groups?: string[];
  priority?: number;
  weight?: number;
  keyMode?: 'random' | 'round_robin';
  modelMapping?: Record<string, string>;
  headerOverride?: Record<string, string>;
  paramOverride?: Record<string, unknown>;
  settings?: Record<string, unknown>;
  status?: number;
  testModel?: string;
  name?: string;
}

export async function createChannel(gw: Gateway, o: ChannelOpts): Promise<number> {
  const now = Date.now();
  const id = await insertId(gw.core.h.db, gw.core.h.dialect, 'channels', {
    name: o.name ?? uniq('ch'),
    type: o.type ?? 1,
    base_url: o.baseUrl,
    keys_sealed: gw.core.secrets.seal(JSON.stringify(o.keys ?? ['sk-upstream'])),
    key_mode: o.keyMode ?? 'random',
    key_state: '{}',
    models: JSON.stringify(o.models),
    groups: JSON.stringify(o.groups ?? ['default']),
    priority: o.priority ?? 0,
    weight: o.weight ?? 1,
    model_mapping: JSON.stringify(o.modelMapping ?? {}),
    header_override: JSON.stringify(o.headerOverride ?? {}),
    param_override: JSON.stringify(o.paramOverride ?? {}),
    status: o.status ?? 1,
    status_reason: null,
    settings: JSON.stringify(o.settings ?? {}),
    test_model: o.testModel ?? null,
    response_time_ms: null,
    tested_at: null,
    created_at: now,
    updated_at: now,
  });
  await gw.core.cache.bump('channels');
  return id;
}

export async function setPrice(
  gw: Gateway,
  model: string,
  p: { input?: number; output?: number; cached_input?: number; per_request?: number },
): Promise<void> {
  await gw.core.h.db.deleteFrom('prices').where('model', '=', model).execute();
  await gw.core.h.db
    .insertInto('prices')
    .values({
      model,
      input: p.input ?? null,
      output: p.output ?? null,
      cached_input: p.cached_input ?? null,
      per_request: p.per_request ?? null,
      expression: null,
      updated_at: Date.now(),
    })
    .execute();
  await gw.core.cache.bump('prices');
}

export async function setGroupRatio(gw: Gateway, group: string, ratio: number): Promise<void> {
  await gw.core.h.db.deleteFrom('group_ratios').where('group_name', '=', group).execute();
  await gw.core.h.db.insertInto('group_ratios').values({ group_name: group, ratio }).execute();
  await gw.core.cache.bump('prices');
}

export async function balance(gw: Gateway, userId: number): Promise<number> {
  const r = await gw.core.h.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow();
  return Number(r.quota);
}

export async function logsFor(gw: Gateway, requestId: string) {
  await gw.services.relay.logs.flush();
  return gw.core.h.db.selectFrom('logs').selectAll().where('request_id', '=', requestId).orderBy('id').execute();
}

export async function channelRow(gw: Gateway, id: number) {
  return gw.core.h.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** Polls `fn` until it returns a truthy value (or throws after `ms`). */
export async function waitFor<T>(fn: () => Promise<T> | T, ms = 5000, what = 'condition'): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until the request's consume (or error) log row is written and returns it. */
export async function consumeLog(gw: Gateway, requestId: string, type = 'consume') {
  return waitFor(async () => (await logsFor(gw, requestId)).find((r) => r.type === type), 5000, `${type} log of ${requestId}`);
}
