/**
 * The administrative audit log: every admin write (users, top-ups, keys, channels, prices, group
 * ratios, options, plugins, marketplace sources, redemption codes and their redemption) leaves one row with its actor,
 * target and a diff without secrets; GET /api/audit filters them and is for admins only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';

const CH_KEY = 'sk-auditUpstreamKeyOne-abcdefghijklmnop';
const CH_KEY2 = 'sk-auditUpstreamKeyTwo-qrstuvwxyz012345';
const FIXED_KEY = 'sk-auditFixedApiKey-0123456789abcdefghij';
const PASSWORD = 'first-password-123';
const NEW_PASSWORD = 'second-password-456';
const OPTION_SECRET = 'operator-webhook-secret-value';

test('audit log: one row per admin write with actor, target and a diff without secrets; filters; admins only', async () => {
  const gw = await startTestGateway();
  try {
    const root = await AdminClient.login(gw.url);
    const since = Date.now();

    // users and top-ups
    const u = await root.ok('POST', '/api/user', { username: 'alice', password: PASSWORD, quota: 1000 });
    await root.ok('PUT', `/api/user/${u.id}`, { display_name: 'Alice A.', password: NEW_PASSWORD, role: 'admin' });
    await root.ok('POST', `/api/user/${u.id}/quota`, { mode: 'add', amount: 500, reason: 'welcome' });
    await root.ok('POST', `/api/user/${u.id}/quota`, { mode: 'set', amount: 100 });
    // keys
    const k = await root.ok('POST', '/api/token', { name: 'k1', user_id: u.id, key: FIXED_KEY });
    await root.ok('PUT', `/api/token/${k.id}`, { name: 'k1-renamed' });
    // channels
    const ch = await root.ok('POST', '/api/channel', {
      name: 'c1',
      type: 'openai',
      base_url: 'https://api.example.com',
      keys: [CH_KEY],
      models: ['gpt-4o'],
      header_override: { authorization: 'Bearer hdr-secret-123456789' },
    });
    await root.ok('PUT', `/api/channel/${ch.id}`, { keys: [CH_KEY, CH_KEY2], priority: 3 });
    await root.ok('PUT', `/api/channel/${ch.id}/keys/1`, { enabled: false, reason: 'rotating' });
    // prices and ratios
    await root.ok('PUT', '/api/price', { model: 'gpt-4o', input: 2.5, output: 10 });
    await root.ok('PUT', '/api/price', { model: 'gpt-4o', input: 3, output: 10 });
    await root.ok('DELETE', '/api/price/gpt-4o');
    await root.ok('PUT', '/api/group_ratio', { group: 'vip', ratio: 0.8 });
    await root.ok('DELETE', '/api/group_ratio/vip');
    // options (a secret one among them)
    await root.ok('PUT', '/api/option', { key: 'RetryTimes', value: 5 });
    await root.ok('PUT', '/api/option', { key: 'AlertWebhookSecret', value: OPTION_SECRET });
    await root.ok('DELETE', '/api/option/RetryTimes');
    // redemption codes
    const codes = await root.ok<string[]>('POST', '/api/redemption', { name: 'promo', quota: 100, count: 2 });
    const list = await root.ok('GET', '/api/redemption');
    const codeId = list.items[0].id;
    await root.ok('PUT', '/api/redemption', { id: codeId, status: 'disabled' });
    await root.ok('DELETE', `/api/redemption/${codeId}`);
    // plugins and the marketplace
    const source = readFileSync(new URL('../../../../examples/plugins/example-video.js', import.meta.url), 'utf8');
    const up = await root.ok('POST', '/api/plugin/task', { source, enabled: false });
    await root.ok('POST', `/api/plugin/task/${up.plugin}/status`, { enabled: true });
    await root.ok('PUT', '/api/plugin/task/marketplace/sources', [{ name: 'mine', index_url: 'https://market.example.com/index.json' }]);
    // deletes
    await root.ok('DELETE', `/api/token/${k.id}`);
    await root.ok('DELETE', `/api/channel/${ch.id}`);
    await root.ok('DELETE', `/api/user/${u.id}`);

    const all = await root.call('GET', '/api/audit?page_size=100');
    assert.equal(all.status, 200, all.text);
    const items = all.body.data.items as any[];
    const actions = items.map((i) => i.action).reverse();
    assert.deepEqual(actions, [
      'user.create',
      'user.update',
      'user.topup',
      'user.adjust',
      'key.create',
      'key.update',
      'channel.create',
      'channel.update',
      'channel.key_disable',
      'price.create',
      'price.update',
      'price.delete',
      'group_ratio.create',
      'group_ratio.delete',
      'option.set',
      'option.set',
      'option.reset',
      'redemption.create',
      'redemption.status',
      'redemption.delete',
      'plugin.upload',
      'plugin.enable',
      'marketplace.sources',
      'key.delete',
      'channel.delete',
      'user.delete',
    ]);
    for (const i of items) {
      assert.equal(i.actor, 'root');
      assert.equal(i.actor_role, 'root');
      assert.ok(i.created_at >= since);
      assert.ok(Object.keys(i.diff).length > 0, `${i.action} has a diff`);
    }
    const by = (action: string) => items.find((i) => i.action === action);
    assert.equal(by('user.create').target_type, 'user');
    assert.equal(by('user.create').target_id, String(u.id));
    assert.equal(by('user.create').diff.username.after, 'alice');
    const upd = by('user.update').diff;
    assert.deepEqual(upd.display_name, { before: 'alice', after: 'Alice A.' });
    assert.deepEqual(upd.role, { before: 'user', after: 'admin' });
    assert.deepEqual(upd.password, { before: '[redacted]', after: '[redacted]' });
    assert.deepEqual(by('user.topup').diff.quota, { before: 1000, after: 1500 });
    assert.equal(by('user.topup').diff.reason.after, 'welcome');
    assert.deepEqual(by('user.adjust').diff.quota, { before: 1500, after: 100 });
    assert.deepEqual(by('key.update').diff.name, { before: 'k1', after: 'k1-renamed' });
    assert.deepEqual(by('channel.update').diff.keys, { before: '[redacted]', after: '[redacted]' });
    assert.deepEqual(by('channel.update').diff.priority, { before: 0, after: 3 });
    assert.equal(by('channel.create').diff.header_override.after.authorization, '[redacted]');
    assert.equal(by('channel.key_disable').diff.key_list.after[1].status, 'disabled');
    assert.deepEqual(by('price.update').diff.input, { before: 2.5, after: 3 });
    assert.deepEqual(items.find((i) => i.action === 'option.set' && i.target_id === 'RetryTimes').diff.RetryTimes.after, '5');
    assert.deepEqual(items.find((i) => i.target_id === 'AlertWebhookSecret').diff.AlertWebhookSecret.after, '[redacted]');
    assert.equal(by('redemption.create').diff.count.after, 2);
    assert.equal(by('plugin.enable').target_id, up.plugin);
    assert.deepEqual(by('plugin.enable').diff.enabled, { before: false, after: true });
    assert.equal(by('user.delete').diff.username.before, 'alice');

    // No secret reaches any row.
    for (const secret of [CH_KEY, CH_KEY2, FIXED_KEY, PASSWORD, NEW_PASSWORD, OPTION_SECRET, 'hdr-secret-123456789', ...codes]) {
      assert.ok(!all.text.includes(secret), `audit rows must not contain ${secret.slice(0, 8)}…`);
    }

    // Filters.
    const f = async (qs: string) => (await root.ok('GET', `/api/audit?${qs}`)).items as any[];
    assert.ok((await f('target_type=channel')).every((i) => i.target_type === 'channel'));
    assert.equal((await f('target_type=channel')).length, 4);
    assert.deepEqual(
      (await f('action=price.update')).map((i) => i.target_id),
      ['gpt-4o'],
    );
    assert.equal((await f('action=price.*')).length, 3);
    assert.equal((await f('actor=root&page_size=100')).length, items.length);
    assert.equal((await f(`actor=${items[0].actor_id}&page_size=100`)).length, items.length);
    assert.equal((await f('actor=nobody')).length, 0);
    assert.equal((await f(`from=${Date.now() + 60_000}`)).length, 0);
    assert.equal((await f(`to=${since - 1}`)).length, 0);
    const p2 = await root.ok('GET', '/api/audit?page_size=5&p=2');
    assert.equal(p2.page, 2);
    assert.deepEqual(
      p2.items.map((i: any) => i.id),
      items.slice(5, 10).map((i) => i.id),
    );
    await root.fails(400, 'GET', '/api/audit?from=tomorrow', undefined, 'from');

    // Admins only.
    await root.ok('POST', '/api/user', { username: 'bob', password: 'bob-password-1' });
    const bob = await AdminClient.login(gw.url, 'bob', 'bob-password-1');
    assert.equal((await bob.call('GET', '/api/audit')).status, 403);
    // A user's own key is a write too, recorded with that user as the actor; so is redeeming a code.
    await bob.ok('POST', '/api/token', { name: 'mine' });
    const left = (await root.ok('GET', '/api/redemption?status=enabled')).items[0];
    await bob.ok('POST', '/api/user/topup', { key: left.code });
    const own = await f('actor=bob');
    assert.deepEqual(
      own.map((i) => [i.action, i.actor_role]),
      [
        ['redemption.redeem', 'user'],
        ['key.create', 'user'],
      ],
    );
    assert.deepEqual(own[0].diff.status, { before: 'enabled', after: 'used' });
    assert.equal(own[0].diff.quota.after, 100);
    assert.ok(!JSON.stringify(own).includes(left.code));
  } finally {
    await gw.stop();
  }
});
