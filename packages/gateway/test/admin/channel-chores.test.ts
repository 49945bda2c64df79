/**
 * Channel chores at New API's paths, against vendors on loopback: upstream balances read from each
 * vendor's billing endpoint and stored (with the low-balance operator alert once per crossing), model
 * lists read (OpenAI-compatible, Gemini and Anthropic, every page) and the difference applied, tags
 * enabled, disabled and edited, copies, deletes of several and of every disabled channel, a test of
 * every model kept as the channel's last test; each administrative change audited.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { json, startFake, type FakeUpstream } from '../fakes/upstreams/common.ts';
import { createChannel, waitFor } from '../relay-fixtures.ts';

let gw: TestGateway;
let root: AdminClient;
let up: FakeUpstream;
let hook: { url: string; got: Array<{ kind: string; data: Record<string, unknown> }>; server: Server };
const KEY = 'sk-vendor-key-0123456789';
/** Models whose test call the vendor refuses. */
const refused = new Set<string>(['m-broken']);

before(async () => {
  up = await startFake((r, res) => {
    const path = r.path.split('?')[0];
    if (r.method === 'GET' && r.headers.authorization !== `Bearer ${KEY}` && !r.headers['x-api-key'] && !r.headers['x-goog-api-key']) {
      return json(res, 401, { error: { message: 'no key' } });
    }
    switch (`${r.method} ${path}`) {
      case 'GET /v1/dashboard/billing/subscription':
        return json(res, 200, { object: 'billing_subscription', hard_limit_usd: 100, has_payment_method: true });
      case 'GET /v1/dashboard/billing/usage':
        return json(res, 200, { object: 'list', total_usage: 2550 });
      case 'GET /user/balance':
        return json(res, 200, {
          is_available: true,
          balance_infos: [{ currency: 'CNY', total_balance: '110.00', granted_balance: '10.00' }],
        });
      case 'GET /v1/credits':
        return json(res, 200, { data: { total_credits: 50, total_usage: 12.25 } });
      case 'GET /v1/user/info':
        return json(res, 200, { code: 20000, status: true, data: { balance: '0.88', totalBalance: '88.00' } });
      case 'GET /v1/users/me/balance':
        return json(res, 200, { code: 0, status: true, data: { available_balance: 3.5, voucher_balance: 0, cash_balance: 3.5 } });
      case 'GET /v1/models':
        if (r.headers['x-api-key'] === KEY) {
          // Anthropic: two pages.
          return r.path.includes('after_id=claude-b')
            ? json(res, 200, { data: [{ id: 'claude-c' }], has_more: false, last_id: 'claude-c' })
            : json(res, 200, { data: [{ id: 'claude-a' }, { id: 'claude-b' }], has_more: true, last_id: 'claude-b' });
        }
        return json(res, 200, { object: 'list', data: [{ id: 'm-a' }, { id: 'm-b' }, { id: 'm-new' }] });
      case 'GET /v1beta/models':
        return r.path.includes('pageToken=p2')
          ? json(res, 200, { models: [{ name: 'models/gemini-z' }] })
          : json(res, 200, { models: [{ name: 'models/gemini-x' }, { name: 'models/gemini-y' }], nextPageToken: 'p2' });
      case 'POST /v1/chat/completions': {
        if (refused.has(r.body.model)) return json(res, 404, { error: { message: `model ${r.body.model} does not exist` } });
        return json(res, 200, {
          id: 'x',
          object: 'chat.completion',
          created: 1,
          model: r.body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        });
      }
    }
    return json(res, 404, { error: { message: `no route ${r.method} ${path}` } });
  });
  const got: Array<{ kind: string; data: Record<string, unknown> }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  hook = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got, server };
  gw = await startTestGateway({ env: { CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  root = await AdminClient.login(gw.url);
  await root.ok('PUT', '/api/option', {
    options: { AlertWebhookUrl: hook.url, AlertWebhookSecret: 'hook-secret-0123456789', AlertDeliveryIntervalSeconds: 1 },
  });
});

after(async () => {
  await gw?.stop();
  await up?.close();
  await new Promise((ok) => hook?.server.close(ok));
});

const channel = (name: string, settings: Record<string, unknown>, extra: Partial<Parameters<typeof createChannel>[1]> = {}) =>
  createChannel(gw, { name, baseUrl: up.url, keys: [KEY], models: ['m-a'], settings, ...extra });

const audits = async (id: number, action: string) =>
  (await root.ok('GET', `/api/audit?target_type=channel&target_id=${id}&action=${action}`)).items as Array<{
    actor: string;
    diff: Record<string, { before?: unknown; after?: unknown }>;
  }>;

test('balances of five vendor forms are read, stored and shown; one below the threshold alerts once', async () => {
  await root.ok('PUT', '/api/option', { options: { ChannelBalanceAlertThreshold: 40 } });
  const forms: Array<[string, number]> = [
    ['openai', 74.5],
    ['deepseek', 110],
    ['openrouter', 37.75],
    ['siliconflow', 88],
    ['moonshot', 3.5],
  ];
  const ids: Record<string, number> = {};
  for (const [api] of forms) ids[api] = await channel(`bal-${api}`, { balance_api: api });
  for (const [api, want] of forms) {
    const d = await root.ok('GET', `/api/channel/update_balance/${ids[api]}`);
    assert.equal(d.balance, want, `${api} balance`);
    const view = await root.ok('GET', `/api/channel/${ids[api]}`);
    assert.equal(view.balance, want);
    assert.equal(view.balance_updated_at, d.balance_updated_at, 'the time stored is the time answered');
  }
  // The key went to the vendor as a bearer credential; the DeepSeek path has no version.
  assert.ok(up.requests.some((r) => r.path === '/user/balance' && r.headers.authorization === `Bearer ${KEY}`));
  assert.ok(up.requests.some((r) => r.path.startsWith('/v1/dashboard/billing/usage?start_date=')));
  const audited = await audits(ids.openai, 'channel.balance');
  assert.equal(audited.length, 1);
  assert.equal(audited[0].diff.balance.after, 74.5);

  // All at once: every enabled OpenAI-compatible channel, each one's result.
  const all = await root.ok('GET', '/api/channel/update_balance');
  for (const [api, want] of forms) assert.equal(all.find((x: { id: number }) => x.id === ids[api]).balance, want);

  // OpenRouter (37.75) and Moonshot (3.5) are below 40: one alert each, not repeated by the second read.
  await waitFor(() => hook.got.filter((e) => e.kind === 'channel.low_balance').length >= 2, 10_000, 'low-balance alerts');
  const low = hook.got.filter((e) => e.kind === 'channel.low_balance');
  assert.deepEqual(low.map((e) => e.data.channel_id).sort(), [ids.openrouter, ids.moonshot].sort());
  assert.equal(low.find((e) => e.data.channel_id === ids.moonshot)!.data.balance, 3.5);

  // A channel of a type without a billing endpoint is refused in the envelope.
  const gem = await createChannel(gw, { type: 24, baseUrl: up.url, keys: [KEY], models: ['gemini-x'] });
  const r = await root.call('GET', `/api/channel/update_balance/${gem}`);
  assert.equal(r.status, 400);
  assert.equal(r.body.success, false);
  assert.match(r.body.message, /publish no balance/);
  await root.ok('PUT', '/api/option', { options: { ChannelBalanceAlertThreshold: 0 } });
});

test('fetch_models reads the upstream list (three vendor forms) and its difference is applied in one update', async () => {
  const id = await channel('sync-openai', {}, { models: ['m-a', 'm-gone', 'alias'], modelMapping: { alias: 'm-b' } });
  const r = await root.call('GET', `/api/channel/fetch_models/${id}`);
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.data, ['m-a', 'm-b', 'm-new']);
  const { added, removed } = r.body as unknown as { added: string[]; removed: string[] };
  assert.deepEqual(added, ['m-new'], 'm-b is served through the alias');
  assert.deepEqual(removed, ['m-gone']);
  const cur = (await root.ok('GET', `/api/channel/${id}`)).models as string[];
  const next = [...cur.filter((m) => !removed.includes(m)), ...added];
  await root.ok('PUT', `/api/channel/${id}`, { models: next });
  const again = await root.call('GET', `/api/channel/fetch_models/${id}`);
  assert.deepEqual([(again.body as any).added, (again.body as any).removed], [[], []], 'nothing left to sync');

  const gem = await createChannel(gw, { type: 24, baseUrl: up.url, keys: [KEY], models: ['gemini-x'] });
  const g = await root.call('GET', `/api/channel/fetch_models/${gem}`);
  assert.deepEqual(g.body.data, ['gemini-x', 'gemini-y', 'gemini-z'], 'both pages, without the models/ prefix');
  const ant = await createChannel(gw, { type: 14, baseUrl: up.url, keys: [KEY], models: ['claude-a'] });
  const a = await root.call('GET', `/api/channel/fetch_models/${ant}`);
  assert.deepEqual(a.body.data, ['claude-a', 'claude-b', 'claude-c']);
  assert.deepEqual((a.body as any).added, ['claude-b', 'claude-c']);
});

test('tags: every channel of a tag disabled, enabled and edited together, each change audited', async () => {
  const a = await channel('tag-a', {}, { priority: 1 });
  const b = await channel('tag-b', {}, { priority: 2 });
  const other = await channel('tag-other', {});
  await root.ok('PUT', `/api/channel/${a}`, { tag: 'east' });
  await root.ok('PUT', `/api/channel/${b}`, { tag: 'east' });
  assert.equal((await root.ok('GET', `/api/channel/${a}`)).tag, 'east');

  assert.deepEqual((await root.ok('POST', '/api/channel/tag/disabled', { tag: 'east' })).sort(), [a, b].sort());
  for (const id of [a, b]) assert.equal((await root.ok('GET', `/api/channel/${id}`)).status, 'disabled');
  assert.equal((await root.ok('GET', `/api/channel/${other}`)).status, 'enabled', 'other tags untouched');
  assert.equal((await audits(a, 'channel.status')).length, 1);

  assert.deepEqual((await root.ok('POST', '/api/channel/tag/enabled', { tag: 'east' })).sort(), [a, b].sort());
  for (const id of [a, b]) assert.equal((await root.ok('GET', `/api/channel/${id}`)).status, 'enabled');

  const edited = await root.ok('PUT', '/api/channel/tag', { tag: 'east', priority: 7, weight: 3, models: ['m-a', 'm-b'], new_tag: 'west' });
  assert.equal(edited.length, 2);
  for (const id of [a, b]) {
    const v = await root.ok('GET', `/api/channel/${id}`);
    assert.deepEqual([v.priority, v.weight, v.models, v.tag], [7, 3, ['m-a', 'm-b'], 'west']);
  }
  assert.equal((await root.ok('GET', `/api/channel/${other}`)).priority, 0);
  const listed = await root.ok('GET', '/api/channel?tag=west');
  assert.deepEqual(listed.items.map((c: { id: number }) => c.id).sort(), [a, b].sort(), 'the list filtered by tag');
  const upd = await audits(b, 'channel.update');
  assert.equal(upd[0].diff.priority.after, 7);

  await root.fails(404, 'POST', '/api/channel/tag/enabled', { tag: 'east' });
  await root.fails(400, 'PUT', '/api/channel/tag', { tag: 'west', priority: 'high' }, 'priority');
  await root.fails(400, 'POST', '/api/channel/tag/disabled', {}, 'tag');
});

test('copy, delete several by id, delete every disabled channel', async () => {
  const src = await channel('copy-src', { balance_api: 'deepseek' }, { models: ['m-a', 'm-b'] });
  await root.ok('GET', `/api/channel/update_balance/${src}`);
  const copy = await root.ok('POST', `/api/channel/copy/${src}`);
  assert.equal(copy.name, 'copy-src_copy');
  assert.deepEqual(copy.models, ['m-a', 'm-b']);
  assert.equal(copy.key_count, 1);
  assert.equal(copy.balance, null, 'the balance is reset by default');
  const copy2 = await root.ok('POST', `/api/channel/copy/${src}?suffix=-2&reset_balance=false`);
  assert.equal(copy2.name, 'copy-src-2');
  assert.equal(copy2.balance, 110);
  await root.fails(409, 'POST', `/api/channel/copy/${src}`);
  // The copy serves with the same key: its test passes.
  assert.equal((await root.call('POST', `/api/channel/${copy.id}/test`, {})).body.success, true);
  assert.equal((await audits(copy.id, 'channel.copy')).length, 1);

  assert.equal(await root.ok('POST', '/api/channel/batch', { ids: [copy.id, copy2.id, 999999] }), 2);
  await root.fails(404, 'GET', `/api/channel/${copy.id}`);
  await root.fails(400, 'POST', '/api/channel/batch', { ids: [] }, 'ids');
  assert.equal((await audits(copy2.id, 'channel.delete')).length, 1);

  const off1 = await channel('off-1', {}, { status: 2 });
  const off2 = await channel('off-2', {}, { status: 3 });
  const n = await root.ok('DELETE', '/api/channel/disabled');
  assert.ok(n >= 2);
  await root.fails(404, 'GET', `/api/channel/${off1}`);
  await root.fails(404, 'GET', `/api/channel/${off2}`);
  assert.equal((await root.ok('GET', `/api/channel/${src}`)).status, 'enabled', 'enabled channels stay');
});

test('test all models: each model tested with its result and time, kept as the last test', async () => {
  const id = await channel('test-all', {}, { models: ['m-a', 'm-broken', 'm-b'] });
  const r = await root.call('POST', `/api/channel/${id}/test_all`, {});
  assert.equal(r.status, 200);
  assert.match(r.body.message, /1 of 3 models failed/);
  const results = r.body.data.results as Array<{ model: string; ok: boolean; status: number; time_ms: number; message: string }>;
  assert.deepEqual(
    results.map((x) => [x.model, x.ok, x.status]),
    [
      ['m-a', true, 200],
      ['m-broken', false, 404],
      ['m-b', true, 200],
    ],
  );
  assert.match(results[1].message, /does not exist/);
  assert.ok(results.every((x) => Number.isInteger(x.time_ms) && x.time_ms >= 0));
  const view = await root.ok('GET', `/api/channel/${id}`);
  assert.deepEqual(view.last_test, r.body.data);
  assert.equal(view.tested_at, r.body.data.at);
});

test('GET /api/pricing answers without a login only while PublicPricingEnabled is on', async () => {
  await createChannel(gw, { name: 'pub-ch', baseUrl: up.url, keys: [KEY], models: ['pub-x', 'pub-free'], groups: ['default', 'gold'] });
  await gw.services.admin.prices.set(gw.services.admin.prices.parse({ model: 'pub-x', input: 3, output: 6, cached_input: 1 }));
  await gw.services.admin.prices.setRatio({ group: 'gold', ratio: 2 });
  const off = await fetch(`${gw.url}/api/pricing`);
  assert.equal(off.status, 404);
  assert.equal(((await off.json()) as { success: boolean }).success, false);
  await root.ok('PUT', '/api/option', { options: { PublicPricingEnabled: true } });
  const on = await fetch(`${gw.url}/api/pricing`);
  assert.equal(on.status, 200);
  const body = (await on.json()) as {
    success: boolean;
    data: { groups: unknown[]; models: Array<{ model: string; groups: string[]; prices: unknown }> };
  };
  const x = body.data.models.find((m) => m.model === 'pub-x')!;
  assert.deepEqual(x.groups, ['default', 'gold']);
  assert.deepEqual(x.prices, {
    default: { input: 3, output: 6, cached_input: 1, per_request: null },
    gold: { input: 6, output: 12, cached_input: 2, per_request: null },
  });
  assert.ok(!body.data.models.some((m) => m.model === 'pub-free'), 'a model without a price is not listed');
  assert.ok(!JSON.stringify(body).includes(up.url) && !JSON.stringify(body).includes('pub-ch'), 'nothing about channels');
  await root.ok('PUT', '/api/option', { options: { PublicPricingEnabled: false } });
  assert.equal((await fetch(`${gw.url}/api/pricing`)).status, 404);
});
