/**
 * Test fixtures for task tests: users with API keys, task channels bound to a plugin, task prices,
 * and the example plugins loaded by the real plugin loader.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Gateway } from '../../../src/gateway.ts';

export const EXAMPLES = join(dirname(fileURLToPath(import.meta.url)), '../../../../../examples/plugins');

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
  const userId = await gw.services.accounts.users.create({
    username: opts.name,
    password: `${opts.name}-password`,
    quota: opts.quota,
    ...(opts.group ? { group: opts.group } : {}),
  });
  const keys = gw.services.admin.keys;
  const made = await keys.create(
    keys.parse({ user_id: userId, name: `${opts.name}-key`, ...(opts.models ? { models: opts.models } : {}) }, 'create'),
    null,
  );
  return { userId, keyId: made.id, key: made.key };
}

/** A task channel (type 61, bound to one plugin; or 60, a peer gateway serving it), made by the channel administration. */
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
  const type = opts.type ?? 61;
  const channels = gw.services.admin.channels;
  const input = channels.parse(
    {
      name: opts.name,
      type,
      base_url: opts.baseUrl,
      keys: [opts.key ?? 'vendor-secret-key'],
      models: opts.models ?? [],
      priority: opts.priority ?? 0,
      weight: opts.weight ?? 1,
      model_mapping: opts.modelMapping ?? {},
      settings: type === 61 ? { plugin: opts.plugin } : { plugins: [opts.plugin] },
    },
    'create',
  );
  return (await channels.create(input, '', { requireInstalled: false })).id;
}

export async function setTaskPrice(gw: Gateway, model: string, price: { expression?: string; perRequest?: number }): Promise<void> {
  const prices = gw.services.admin.prices;
  await prices.set(prices.parse({ model, per_request: price.perRequest ?? null, expression: price.expression ?? null }));
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
