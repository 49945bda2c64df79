/**
 * Fixtures of relay tests: users, keys, channels, prices and group ratios made through the services
 * that make them in production (the accounts service, the administration's keys, channels and
 * prices), which bump the cache revisions themselves.
 */
import type { Gateway } from '../src/gateway.ts';

let seq = 0;
const uniq = (p: string) => `${p}${Date.now().toString(36)}${(seq++).toString(36)}`;

/** The password of fixture users that name none. */
export const FIXTURE_PASSWORD = 'fixture-password';

export async function createUser(
  gw: Gateway,
  o: { quota?: number; group?: string; username?: string; password?: string } = {},
): Promise<number> {
  return gw.services.accounts.users.create({
    username: o.username ?? uniq('u'),
    password: o.password ?? FIXTURE_PASSWORD,
    displayName: 'test',
    group: o.group ?? 'default',
    quota: o.quota ?? 1_000_000_000,
  });
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
  const keys = gw.services.admin.keys;
  const made = await keys.create(
    keys.parse(
      {
        user_id: userId,
        name: uniq('k'),
        expires_at: o.expiresAt ?? null,
        quota: o.cap ?? null,
        ...(o.models ? { models: o.models } : {}),
        ...(o.allowedIps ? { allowed_ips: o.allowedIps } : {}),
        ...(o.group ? { group: o.group } : {}),
      },
      'create',
    ),
    null,
  );
  return { key: made.key, id: made.id };
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
  const channels = gw.services.admin.channels;
  const input = channels.parse(
    {
      name: o.name ?? uniq('ch'),
      type: o.type ?? 1,
      base_url: o.baseUrl,
      keys: o.keys ?? ['sk-upstream'],
      key_mode: o.keyMode ?? 'random',
      models: o.models,
      groups: o.groups ?? ['default'],
      priority: o.priority ?? 0,
      weight: o.weight ?? 1,
      model_mapping: o.modelMapping ?? {},
      header_override: o.headerOverride ?? {},
      param_override: o.paramOverride ?? {},
      status: o.status ?? 1,
      settings: o.settings ?? {},
      ...(o.testModel ? { test_model: o.testModel } : {}),
    },
    'create',
  );
  return (await channels.create(input)).id;
}

export async function setPrice(
  gw: Gateway,
  model: string,
  p: { input?: number; output?: number; cached_input?: number; per_request?: number },
): Promise<void> {
  const prices = gw.services.admin.prices;
  await prices.set(prices.parse({ model, ...p }));
}

export async function setGroupRatio(gw: Gateway, group: string, ratio: number): Promise<void> {
  await gw.services.admin.prices.setRatio({ group, ratio });
}

export async function balance(gw: Gateway, userId: number): Promise<number> {
  const r = await gw.core.h.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow();
  return Number(r.quota);
}

/**
 * The balance once every call of the node has settled: in-flight settlements written, this node's holds
 * closed (their spends written, their rest given back). For tests that compare balances across calls of a
 * payer whose earlier calls may still be settling.
 */
export async function settledBalance(gw: Gateway, userId: number): Promise<number> {
  await gw.services.relay.relay.drain();
  await gw.services.relay.allowances.maintain(Date.now() + 3_600_000);
  return balance(gw, userId);
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

/** The name and arguments of the first tool call of a streamed Chat Completions answer (an OpenAI SDK stream). */
export async function streamedToolCall(
  s: AsyncIterable<{ choices: { delta?: { tool_calls?: { function?: { name?: string; arguments?: string } }[] } }[] }>,
): Promise<{ name: string; args: string }> {
  let name = '';
  let args = '';
  for await (const ch of s) {
    const tc = ch.choices[0]?.delta?.tool_calls?.[0];
    if (tc?.function?.name) name = tc.function.name;
    args += tc?.function?.arguments ?? '';
  }
  return { name, args };
}
