/**
 * Test fixtures for task tests: users with API keys, task channels bound to a plugin, task prices,
 * and the example plugins loaded by the real plugin loader.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Gateway } from '../../src/gateway.ts';
import { generateApiKey, hashApiKey, KEYS_REVISION } from '../../src/accounts/keys.ts';
import { insertId } from '../../src/store/db.ts';

export const EXAMPLES = join(dirname(fileURLToPath(import.meta.url)), '../../../../examples/plugins');

export function exampleSource(name: string): string {
  return readFileSync(join(EXAMPLES, name), 'utf8');
}

/** Installs example plugins through the plugin runtime's admin service (as an upload would). */
export async function installPlugins(gw: Gateway, files: string[]): Promise<void> {
  for (const f of files) await gw.services.plugins.admin.upload({ source: exampleSource(f), enabled: true });
  for (const f of files) {
    const key = /key:\s*'([^']+)'/.exec(exampleSource(f))![1];
    if (!gw.services.plugins.current().plugins.has(key))
      throw new Error(`plugin ${key} did not load: ${JSON.stringify(gw.services.plugins.lastRebuild)}`);
  }
}

export interface TestUser {
  userId: number;
  keyId: number;
  key: string;
}

export async function createUser(gw: Gateway, opts: { name: string; quota: number; group?: string; models?: string[] }): Promise<TestUser> {
  const userId = await gw.services.accounts.users.create({ username: opts.name, password: `${opts.name}-password`, quota: opts.quota });
  if (opts.group) await gw.core.h.db.updateTable('users').set({ group_name: opts.group }).where('id', '=', userId).execute();
  const key = generateApiKey();
  const keyId = await insertId(gw.core.h.db, gw.core.h.dialect, 'api_keys', {
    user_id: userId,
    name: `${opts.name}-key`,
    key_hash: hashApiKey(key),
    key_hint: 'sk-…',
    status: 1,
    expires_at: null,
    unlimited_quota: 1,
    remain_quota: 0,
    used_quota: 0,
    models: opts.models ? JSON.stringify(opts.models) : null,
    allowed_ips: null,
    group_name: null,
    created_at: Date.now(),
    accessed_at: null,
  });
  await gw.core.cache.bump(KEYS_REVISION);
  return { userId, keyId, key };
}

export async function createTaskChannel(
  gw: Gateway,
  opts: {
    name: string;
    plugin: string;
    baseUrl: string;
    models?: string[];
    priority?: number;
    weight?: number;
    key?: string;
    modelMapping?: Record<string, string>;
    type?: number;
  },
): Promise<number> {
  const now = Date.now();
  const type = opts.type ?? 61;
  const id = await insertId(gw.core.h.db, gw.core.h.dialect, 'channels', {
    name: opts.name,
    type,
    base_url: opts.baseUrl,
    keys_sealed: gw.core.secrets.seal(JSON.stringify([opts.key ?? 'vendor-secret-key'])),
    key_mode: 'random',
    key_state: '{}',
    models: JSON.stringify(opts.models ?? []),
    groups: JSON.stringify([]),
    priority: opts.priority ?? 0,
    weight: opts.weight ?? 1,
    model_mapping: JSON.stringify(opts.modelMapping ?? {}),
    header_override: '{}',
    param_override: '{}',
    status: 1,
    status_reason: null,
    settings: JSON.stringify(type === 61 ? { plugin: opts.plugin } : { plugins: [opts.plugin] }),
    test_model: null,
    response_time_ms: null,
    tested_at: null,
    created_at: now,
    updated_at: now,
  });
  await gw.core.cache.bump('channels');
  return id;
}

export async function setTaskPrice(gw: Gateway, model: string, price: { expression?: string; perRequest?: number }): Promise<void> {
  await gw.core.h.db
    .insertInto('prices')
    .values({
      model,
      input: null,
      output: null,
      cached_input: null,
      per_request: price.perRequest ?? null,
      expression: price.expression ?? null,
      updated_at: Date.now(),
    })
    .execute();
  await gw.core.cache.bump('prices');
}

export async function balance(gw: Gateway, userId: number): Promise<number> {
  const u = await gw.core.h.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow();
  return Number(u.quota);
}

export async function movements(gw: Gateway, publicId: string): Promise<Array<{ kind: string; amount: number }>> {
  const rows = await gw.core.h.db
    .selectFrom('ledger')
    .select(['kind', 'amount'])
    .where('ref', '=', `task:${publicId}`)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ kind: r.kind, amount: Number(r.amount) }));
}

export async function api(
  base: string,
  key: string | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers; raw: Buffer }> {
  const res = await fetch(base + path, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const raw = Buffer.from(await res.arrayBuffer());
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    parsed = raw.toString('utf8');
  }
  return { status: res.status, body: parsed, headers: res.headers, raw };
}

export async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
