import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { ChannelStore } from '../../src/channels/store.ts';
import { readFileSync } from 'node:fs';

const K1 = 'sk-upstreamKeyNumberOne-abcdefghijklmnop';
const K2 = 'sk-upstreamKeyNumberTwo-qrstuvwxyz012345';
const K3 = 'sk-upstreamKeyNumberThree-6789ABCDEFGHIJ';

test('channels: CRUD, validation naming the field, keys never in any response, per-key state, status', async () => {
  const gw = await startTestGateway();
  try {
    const root = await AdminClient.login(gw.url);
    const texts: string[] = [];
    const keep = async (method: string, path: string, body?: unknown) => {
      const r = await root.call(method, path, body);
      texts.push(r.text);
      assert.equal(r.status, 200, r.text);
      return r.body.data;
    };

    const base = { name: 'main', type: 'openai', base_url: 'https://api.example.com/', keys: [K1, K2], models: ['gpt-4o', 'gpt-4o-mini'] };
    await root.fails(400, 'POST', '/api/channel', { ...base, type: 'nope' }, 'type');
    await root.fails(400, 'POST', '/api/channel', { ...base, base_url: 'ftp://x' }, 'base_url');
    await root.fails(400, 'POST', '/api/channel', { ...base, base_url: 'not a url' }, 'base_url');
    await root.fails(400, 'POST', '/api/channel', { ...base, model_mapping: '{oops' }, 'model_mapping');
    await root.fails(400, 'POST', '/api/channel', { ...base, model_mapping: { a: 1 } }, 'model_mapping.a');
    await root.fails(400, 'POST', '/api/channel', { ...base, priority: 'high' }, 'priority');
    await root.fails(400, 'POST', '/api/channel', { ...base, weight: -1 }, 'weight');
    await root.fails(400, 'POST', '/api/channel', { ...base, keys: [] }, 'keys');
    await root.fails(400, 'POST', '/api/channel', { ...base, keys: [K1, ''] }, 'keys[1]');
    await root.fails(400, 'POST', '/api/channel', { ...base, models: [] }, 'models');
    await root.fails(400, 'POST', '/api/channel', { ...base, key_mode: 'lottery' }, 'key_mode');
    await root.fails(400, 'POST', '/api/channel', { ...base, settings: { preset: 'nowhere' } }, 'settings.preset');
    await root.fails(400, 'POST', '/api/channel', { ...base, base_url: '', settings: { preset: 'cloudflare' } }, 'settings.account_id');
    await root.fails(
      400,
      'POST',
      '/api/channel',
      { ...base, base_url: '', settings: { preset: 'cloudflare', account_id: 'a/b' } },
      'settings.account_id',
    );
    await root.fails(400, 'POST', '/api/channel', { ...base, type: 'azure', base_url: '' }, 'base_url');
    await root.fails(400, 'POST', '/api/channel', { ...base, type: 'azure', settings: { api_version: 'latest' } }, 'settings.api_version');
    await root.fails(400, 'POST', '/api/channel', { name: 'tp', type: 'task_plugin', settings: {} }, 'settings.plugin');
    await root.fails(
      400,
      'POST',
      '/api/channel',
      { name: 'gw', type: 'gateway', base_url: 'https://peer.example.com', keys: [K3], settings: { plugins: [] } },
      'settings.plugins',
    );

    const ch = await keep('POST', '/api/channel', {
      ...base,
      key_mode: 'round_robin',
      model_mapping: { 'gpt-4o': 'gpt-4o-2024-08-06' },
      header_override: { 'x-org': 'acme' },
      param_override: { temperature: 0.2 },
      groups: 'default,vip',
      priority: 5,
      weight: 3,
    });
    assert.equal(ch.type, 1);
    assert.equal(ch.type_name, 'openai');
    assert.equal(ch.base_url, 'https://api.example.com');
    assert.equal(ch.key_count, 2);
    assert.deepEqual(
      ch.keys.map((k: any) => k.hint),
      ['sk-up…mnop', 'sk-up…2345'],
    );
    assert.deepEqual(ch.groups, ['default', 'vip']);
    assert.equal(ch.status, 'enabled');
    await root.fails(409, 'POST', '/api/channel', base);

    // Sealed in the database too.
    const row = await gw.core.h.db.selectFrom('channels').selectAll().where('id', '=', ch.id).executeTakeFirstOrThrow();
    assert.equal(row.keys_sealed.includes(K1), false);
    assert.deepEqual(JSON.parse(gw.core.secrets.open(row.keys_sealed)), [K1, K2]);

    // Update without keys keeps them; per-key state.
    const upd = await keep('PUT', `/api/channel/${ch.id}`, { models: ['gpt-4o'], priority: 7 });
    assert.equal(upd.key_count, 2);
    assert.equal(upd.priority, 7);
    const after = await gw.core.h.db.selectFrom('channels').select('keys_sealed').where('id', '=', ch.id).executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(gw.core.secrets.open(after.keys_sealed)), [K1, K2]);
    assert.equal(after.keys_sealed, row.keys_sealed, 'keys not resealed when not given');

    const dis = await keep('PUT', `/api/channel/${ch.id}/keys/1`, { enabled: false, reason: 'rotating' });
    assert.deepEqual(
      dis.keys.map((k: any) => [k.status, k.reason]),
      [
        ['enabled', null],
        ['disabled', 'rotating'],
      ],
    );
    await root.fails(400, 'PUT', `/api/channel/${ch.id}/keys/5`, { enabled: false }, 'index');
    // An auto-disabled key (written by the relay, here through its channel store at a fixed time) is shown with its reason.
    await new ChannelStore(gw.core.h).update(ch.id, {
      key_state: JSON.stringify({
        0: { status: 'auto_disabled', reason: 'upstream 401', at: 123 },
        1: { status: 'disabled', reason: 'rotating', at: 1 },
      }),
    });
    const auto = await keep('GET', `/api/channel/${ch.id}`);
    assert.deepEqual(auto.keys[0], { index: 0, hint: 'sk-up…mnop', status: 'auto_disabled', reason: 'upstream 401', at: 123 });
    // Replacing the keys keeps the state of keys that stay (K2 moves to index 0).
    const rep = await keep('PUT', `/api/channel/${ch.id}`, { keys: `${K2}\n${K3}` });
    assert.deepEqual(
      rep.keys.map((k: any) => k.status),
      ['disabled', 'enabled'],
    );
    const en = await keep('PUT', `/api/channel/${ch.id}/keys/0`, { enabled: true });
    assert.deepEqual(
      en.keys.map((k: any) => k.status),
      ['enabled', 'enabled'],
    );

    // Status with reason; enabling clears the reason.
    const off = await keep('PUT', `/api/channel/${ch.id}`, { status: 'disabled', status_reason: 'maintenance' });
    assert.equal(off.status, 'disabled');
    assert.equal(off.status_reason, 'maintenance');
    const on = await keep('PUT', `/api/channel/${ch.id}`, { status: 'enabled' });
    assert.equal(on.status_reason, null);

    // Other types.
    const az = await keep('POST', '/api/channel', {
      name: 'az',
      type: 'azure',
      base_url: 'https://acme.openai.azure.com',
      keys: [K3],
      models: ['gpt-4o'],
      model_mapping: { 'gpt-4o': 'my-deployment' },
      settings: { api_version: '2024-10-21' },
    });
    assert.equal(az.type, 3);
    // Task channels bind installed plugins only; a type 60 channel only plugins with the peer upstream.
    await root.fails(400, 'POST', '/api/channel', { name: 'video', type: 61, settings: { plugin: 'kling' } }, 'settings.plugin');
    await gw.services.plugins.admin.upload({
      source: readFileSync(new URL('../../../../examples/plugins/example-video.js', import.meta.url), 'utf8'),
    });
    await gw.services.plugins.admin.upload({
      source: readFileSync(new URL('../../../../examples/plugins/example-image.js', import.meta.url), 'utf8'),
    });
    const tp = await keep('POST', '/api/channel', { name: 'video', type: 61, settings: { plugin: 'clipforge' } });
    assert.equal(tp.key_count, 0);
    const imageKey = gw.services.plugins.current().plugins.has('pixelwave')
      ? 'pixelwave'
      : [...gw.services.plugins.current().plugins.keys()].find((k) => k !== 'clipforge')!;
    await root.fails(
      400,
      'POST',
      '/api/channel',
      { name: 'peer', type: 'gateway', base_url: 'https://peer.example.com', keys: [K1], settings: { plugins: [imageKey] } },
      'settings.plugins',
    );
    const peer = await keep('POST', '/api/channel', {
      name: 'peer',
      type: 'gateway',
      base_url: 'https://peer.example.com',
      keys: [K1],
      settings: { plugins: ['clipforge'] },
    });
    assert.equal(peer.type, 60);
    const ds = await keep('POST', '/api/channel', {
      name: 'ds',
      type: 'openai',
      keys: [K1],
      models: ['deepseek-chat'],
      settings: { preset: 'deepseek' },
    });
    assert.deepEqual(ds.settings, { preset: 'deepseek' });
    await keep('POST', '/api/channel', { name: 'claude', type: 'anthropic', keys: [K2], models: ['claude-sonnet-4'] });
    await keep('POST', '/api/channel', { name: 'gem', type: 'gemini', keys: [K3], models: ['gemini-2.5-flash'] });

    const list = await keep('GET', '/api/channel?page=1&page_size=3');
    assert.equal(list.total, 7);
    assert.equal(list.items.length, 3);
    assert.equal(list.items[0].name, 'main', 'highest priority first');
    assert.equal((await keep('GET', '/api/channel?type=azure')).total, 1);
    assert.equal((await keep('GET', '/api/channel?group=vip')).total, 1);
    await keep('GET', '/api/channel?page_size=100');

    // No response ever carried a key.
    for (const t of texts) for (const k of [K1, K2, K3]) assert.equal(t.includes(k), false, 'a channel key leaked into a response');

    await keep('DELETE', `/api/channel/${az.id}`);
    await root.fails(404, 'GET', `/api/channel/${az.id}`);
    const rev = await gw.core.h.db.selectFrom('revisions').selectAll().where('name', '=', 'channels').executeTakeFirstOrThrow();
    assert.ok(Number(rev.value) >= 10, 'every change bumps the channels revision');
  } finally {
    await gw.stop();
  }
});

test('prices, group ratios and options', async () => {
  const gw = await startTestGateway();
  try {
    const root = await AdminClient.login(gw.url);
    await gw.services.plugins.admin.upload({
      source: readFileSync(new URL('../../../../examples/plugins/example-video.js', import.meta.url), 'utf8'),
    });
    await root.fails(400, 'PUT', '/api/price', { model: 'gpt-4o' }, 'body');
    await root.fails(400, 'PUT', '/api/price', { model: 'gpt-4o', input: -1 }, 'input');
    await root.fails(400, 'PUT', '/api/price', { input: 1 }, 'model');
    await root.fails(400, 'PUT', '/api/price', { model: 'gpt-4o', input: 'cheap' }, 'input');
    const p = await root.ok('PUT', '/api/price', { model: 'gpt-4o', input: 2.5, output: 10, cached_input: 1.25 });
    assert.deepEqual(
      { ...p, updated_at: 0 },
      {
        model: 'gpt-4o',
        input: 2.5,
        output: 10,
        cached_input: 1.25,
        cache_write_5m: null,
        cache_write_1h: null,
        per_request: null,
        expression: null,
        updated_at: 0,
      },
    );
    await root.ok('PUT', '/api/price', { model: 'dall-e-3', per_request: 0.04 });
    // Expressions are checked when saved: syntax, and for <pluginKey>::<model> the plugin's usage facts.
    await root.fails(400, 'PUT', '/api/price', { model: 'org/video-model', expression: 'u("seconds") *' }, 'expression');
    await root.ok('PUT', '/api/price', { model: 'org/video-model', expression: 'u("seconds") * 0.1' });
    await root.fails(400, 'PUT', '/api/price', { model: 'clipforge::clip-1', expression: 'u("frames") * 0.1' }, 'expression');
    await root.ok('PUT', '/api/price', {
      model: 'clipforge::clip-1',
      expression: 'u("seconds") * (u("resolution") == "1080p" ? 0.2 : 0.1)',
    });
    const rev1 = Number(
      (await gw.core.h.db.selectFrom('revisions').select('value').where('name', '=', 'prices').executeTakeFirstOrThrow()).value,
    );
    await root.ok('PUT', '/api/price', { model: 'gpt-4o', input: 2.5, output: 10, cached_input: 1.25 });
    const rev2 = Number(
      (await gw.core.h.db.selectFrom('revisions').select('value').where('name', '=', 'prices').executeTakeFirstOrThrow()).value,
    );
    assert.equal(rev2, rev1, 'an unchanged price bumps nothing');
    const list = await root.ok('GET', '/api/price');
    assert.deepEqual(
      list.items.map((x: any) => x.model),
      ['clipforge::clip-1', 'dall-e-3', 'gpt-4o', 'org/video-model'],
    );
    assert.equal((await root.ok('GET', `/api/price/${encodeURIComponent('org/video-model')}`)).expression, 'u("seconds") * 0.1');
    await root.ok('DELETE', '/api/price/org/video-model');
    await root.fails(404, 'GET', '/api/price/org/video-model');

    await root.fails(400, 'PUT', '/api/group_ratio', { group: 'vip', ratio: -2 }, 'ratio');
    await root.ok('PUT', '/api/group_ratio', { group: 'vip', ratio: 0.8 });
    await root.ok('PUT', '/api/group_ratio', { group: 'vip', ratio: 0.7 });
    assert.deepEqual(await root.ok('GET', '/api/group_ratio'), [{ group: 'vip', ratio: 0.7 }]);
    await root.ok('DELETE', '/api/group_ratio/vip');
    assert.deepEqual(await root.ok('GET', '/api/group_ratio'), []);

    const opts = gw.services.admin.options;
    assert.equal(opts.get('AutoDisableFailureThreshold'), '3');
    await root.fails(400, 'PUT', '/api/option', { key: 'RetryTimes', value: 'many' }, 'value');
    await root.fails(400, 'PUT', '/api/option', { options: { AutoDisableEnabled: 'maybe' } }, 'options.AutoDisableEnabled');
    await root.ok('PUT', '/api/option', { key: 'RetryTimes', value: 4 });
    await root.ok('PUT', '/api/option', { options: { AutoDisableStatusCodes: '401, 403,429', ServerAddress: 'https://gw.example.com/' } });
    assert.equal(opts.get('RetryTimes'), '4');
    assert.equal(opts.getNumber('RetryTimes'), 4);
    assert.deepEqual(opts.getList('AutoDisableStatusCodes'), ['401', '403', '429']);
    assert.equal(opts.get('ServerAddress'), 'https://gw.example.com');
    const all = await root.ok('GET', '/api/option');
    assert.equal(all.find((o: any) => o.key === 'RetryTimes').default, false);
    await root.ok('DELETE', '/api/option/RetryTimes');
    assert.equal(opts.get('RetryTimes'), String(gw.core.config.relayMaxRetries));

    const doc = (await (await fetch(`${gw.url}/api/openapi.json`)).json()) as any;
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.servers[0].url, 'https://gw.example.com');
    for (const path of [
      '/api/user',
      '/api/token',
      '/api/channel',
      '/api/price',
      '/api/group_ratio',
      '/api/option',
      '/api/log',
      '/v1/chat/completions',
      '/v1/completions',
      '/v1/embeddings',
      '/v1/models',
    ]) {
      assert.ok(doc.paths[path], `OpenAPI describes ${path}`);
    }
  } finally {
    await gw.stop();
  }
});
