import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startTestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';

test('users: create, list with search and paging, update, quota with ledger rows, delete; validation names the field', async () => {
  const gw = await startTestGateway();
  try {
    const root = await AdminClient.login(gw.url);
    await root.fails(400, 'POST', '/api/user', { username: 'bad name!', password: 'longenough' }, 'username');
    await root.fails(400, 'POST', '/api/user', { username: 'alice', password: 'short' }, 'password');
    await root.fails(400, 'POST', '/api/user', { username: 'alice', password: 'longenough', role: 'king' }, 'role');
    await root.fails(400, 'POST', '/api/user', { username: 'alice', password: 'longenough', quota_usd: -1 }, 'quota_usd');
    await root.fails(400, 'POST', '/api/user', { username: 'alice', password: 'longenough', colour: 'red' }, 'colour');

    const alice = await root.ok('POST', '/api/user', { username: 'alice', password: 'alice-password', group: 'vip', quota_usd: 2 });
    assert.equal(alice.quota, 1_000_000);
    assert.equal(alice.group, 'vip');
    assert.equal(alice.status, 'enabled');
    assert.equal(JSON.stringify(alice).includes('password'), false);
    await root.fails(409, 'POST', '/api/user', { username: 'alice', password: 'alice-password' });
    for (let i = 0; i < 3; i++) await root.ok('POST', '/api/user', { username: `bob${i}`, password: 'bob-password' });

    const p1 = await root.ok('GET', '/api/user?page=1&page_size=2');
    assert.equal(p1.total, 5);
    assert.equal(p1.items.length, 2);
    assert.equal(p1.page_size, 2);
    const p3 = await root.ok('GET', '/api/user?page=3&page_size=2');
    assert.equal(p3.items.length, 1);
    const search = await root.ok('GET', '/api/user?keyword=bob');
    assert.deepEqual(
      search.items.map((u: any) => u.username),
      ['bob0', 'bob1', 'bob2'],
    );
    await root.fails(400, 'GET', '/api/user?page_size=500', undefined, 'page_size');

    const upd = await root.ok('PUT', `/api/user/${alice.id}`, { display_name: 'Alice A.', group: 'default' });
    assert.equal(upd.display_name, 'Alice A.');
    assert.equal(upd.group, 'default');

    // Quota: top-up, deduction, set; each is a ledger row.
    let u = await root.ok('POST', `/api/user/${alice.id}/quota`, { amount_usd: 1, reason: 'invoice 2026-11 paid' });
    assert.equal(u.quota, 1_500_000);
    u = await root.ok('POST', `/api/user/${alice.id}/quota`, { amount: -500_000 });
    assert.equal(u.quota, 1_000_000);
    await root.fails(400, 'POST', `/api/user/${alice.id}/quota`, { amount: -5_000_000 }, 'amount');
    u = await root.ok('POST', `/api/user/${alice.id}/quota`, { mode: 'set', amount: 42 });
    assert.equal(u.quota, 42);
    const ledger = await gw.core.h.db.selectFrom('ledger').selectAll().where('user_id', '=', alice.id).orderBy('id').execute();
    assert.deepEqual(
      ledger.map((r) => [r.kind, Number(r.amount)]),
      [
        ['topup', -1_000_000],
        ['topup', -500_000],
        ['adjust', 500_000],
        ['adjust', 1_000_000 - 42],
      ],
    );
    const sum = ledger.reduce((s, r) => s - Number(r.amount), 0);
    assert.equal(sum, 42, 'the ledger explains the balance');

    // The ledger history through the API: newest first, signed changes, the reason where one was given.
    const hist = await root.ok('GET', `/api/user/${alice.id}/ledger?page_size=3`);
    assert.equal(hist.total, 4);
    assert.deepEqual(
      hist.items.map((e: any) => [e.kind, e.change]),
      [
        ['adjust', -(1_000_000 - 42)],
        ['adjust', -500_000],
        ['topup', 500_000],
      ],
    );
    const older = await root.ok('GET', `/api/user/${alice.id}/ledger?page=2&page_size=3`);
    assert.deepEqual(
      older.items.map((e: any) => [e.kind, e.change, e.change_usd, e.note]),
      [['topup', 1_000_000, 2, null]],
      'the starting balance',
    );
    assert.equal(hist.items[2].note, 'invoice 2026-11 paid');
    assert.match(hist.items[1].note, /^deduction of \$1 by root$/);
    const topupLogs = await root.ok('GET', `/api/log?type=topup&user_id=${alice.id}`);
    assert.ok(
      topupLogs.items.some((l: any) => l.content === 'invoice 2026-11 paid' && l.quota === 500_000),
      'the reason is in the logs too',
    );
    await root.fails(400, 'POST', `/api/user/${alice.id}/quota`, { amount: 1, reason: 'x'.repeat(501) }, 'reason');
    const bob = await AdminClient.login(gw.url, 'bob0', 'bob-password');
    await bob.fails(403, 'GET', `/api/user/${alice.id}/ledger`);

    // Disable: the user cannot log in.
    await root.ok('PUT', `/api/user/${alice.id}`, { status: 'disabled' });
    const login = await fetch(`${gw.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'alice-password' }),
    });
    assert.equal(login.status, 403);

    await root.ok('DELETE', `/api/user/${alice.id}`);
    await root.fails(404, 'GET', `/api/user/${alice.id}`);
  } finally {
    await gw.stop();
  }
});

test('permissions: anonymous 401, user 403 on admin routes, admin cannot manage admins or options, root can', async () => {
  const gw = await startTestGateway();
  try {
    const root = await AdminClient.login(gw.url);
    const anon = new AdminClient(gw.url, null);
    for (const [m, p] of [
      ['GET', '/api/user'],
      ['GET', '/api/channel'],
      ['GET', '/api/token'],
      ['GET', '/api/log'],
      ['GET', '/api/option'],
    ] as const) {
      await anon.fails(401, m, p);
    }
    await root.ok('POST', '/api/user', { username: 'carol', password: 'carol-password' });
    await root.ok('POST', '/api/user', { username: 'adam', password: 'adam-password', role: 'admin' });
    const other = await root.ok('POST', '/api/user', { username: 'dave', password: 'dave-password' });
    const carol = await AdminClient.login(gw.url, 'carol', 'carol-password');
    const adam = await AdminClient.login(gw.url, 'adam', 'adam-password');

    for (const [m, p, b] of [
      ['GET', '/api/user'],
      ['POST', '/api/channel', { name: 'x' }],
      ['GET', '/api/log'],
      ['PUT', '/api/price', { model: 'm', input: 1 }],
      ['GET', '/api/option'],
    ] as const) {
      const r = await carol.fails(403, m, p, b);
      assert.match(r.body.message, /role/);
    }
    // A user manages their own keys only.
    const daveKey = await root.ok('POST', '/api/token', { user_id: other.id, name: 'dave-key' });
    await carol.fails(404, 'GET', `/api/token/${daveKey.id}`);
    await carol.fails(404, 'DELETE', `/api/token/${daveKey.id}`);
    await carol.fails(403, 'POST', '/api/token', { name: 'fixed', key: 'sk-' + 'a'.repeat(40) });
    await carol.fails(400, 'POST', '/api/token', { name: 'other-group', group: 'vip' }, 'group');
    await carol.fails(403, 'POST', '/api/token', { name: 'theirs', user_id: other.id });
    await carol.ok('POST', '/api/token', { name: 'mine' });
    assert.equal((await carol.ok('GET', '/api/token')).total, 1);
    assert.equal((await carol.ok('GET', '/api/token?all=true')).total, 1, 'all=true is for admins only');
    assert.ok((await carol.ok('GET', '/api/price')).items, 'users may read prices');

    // Admins manage users and channels, not admins/root or options.
    await adam.ok('GET', '/api/user');
    await adam.ok('PUT', `/api/user/${other.id}`, { group: 'vip' });
    await adam.fails(403, 'POST', '/api/user', { username: 'eve', password: 'eve-password', role: 'admin' });
    await adam.fails(403, 'PUT', '/api/user/1', { group: 'x' });
    await adam.fails(403, 'POST', `/api/user/1/quota`, { amount: 1 });
    await adam.fails(403, 'GET', '/api/option');
    assert.equal((await adam.ok('GET', '/api/token?all=true')).total, 2);

    // Root cannot lock itself out.
    await root.fails(403, 'PUT', '/api/user/1', { status: 'disabled' });
    await root.fails(403, 'DELETE', '/api/user/1');
    await root.ok('PUT', '/api/option', { key: 'RetryTimes', value: 3 });
  } finally {
    await gw.stop();
  }
});

test('API keys: shown once, stored as a hash, usable at once, validated; list, update, revoke', async () => {
  const gw = await startTestGateway();
  try {
    const root = await AdminClient.login(gw.url);
    const user = await root.ok('POST', '/api/user', { username: 'kim', password: 'kim-password' });
    const kim = await AdminClient.login(gw.url, 'kim', 'kim-password');

    await kim.fails(400, 'POST', '/api/token', { name: 'k', allowed_ips: ['10.0.0.0/40'] }, 'allowed_ips');
    await kim.fails(400, 'POST', '/api/token', { name: 'k', allowed_ips: ['example.com'] }, 'allowed_ips');
    await kim.fails(400, 'POST', '/api/token', { name: 'k', expires_at: 'soon' }, 'expires_at');
    await kim.fails(400, 'POST', '/api/token', { name: 'k', quota: -5 }, 'quota');
    await kim.fails(400, 'POST', '/api/token', {}, 'name');

    const made = await kim.ok('POST', '/api/token', {
      name: 'laptop',
      models: ['gpt-4o-mini'],
      allowed_ips: ['127.0.0.1', '10.0.0.0/8'],
      quota_usd: 1,
      expires_at: '2099-01-01T00:00:00Z',
    });
    assert.match(made.key, /^sk-[A-Za-z0-9]{48}$/);
    assert.equal(made.hint, `${made.key.slice(0, 5)}…${made.key.slice(-4)}`);
    assert.equal(made.remain_quota, 500_000);
    assert.equal(made.unlimited_quota, false);
    assert.equal(made.expires_at, Date.parse('2099-01-01T00:00:00Z'));

    const row = await gw.core.h.db.selectFrom('api_keys').selectAll().where('id', '=', made.id).executeTakeFirstOrThrow();
    assert.equal(row.key_hash, createHash('sha256').update(made.key).digest('hex'));
    assert.equal(JSON.stringify(row).includes(made.key), false, 'the key itself is not stored');
    assert.equal(JSON.stringify(row).includes(made.key.slice(3, 30)), false);

    // Never shown again.
    const one = await kim.call('GET', `/api/token/${made.id}`);
    const list = await kim.call('GET', '/api/token');
    for (const r of [one, list]) assert.equal(r.text.includes(made.key.slice(3, 30)), false);

    // The key authenticates at once (the key cache reloaded on the revision bump), from allowed IPs only.
    const p = gw.services.accounts.keys.authenticate(made.key, '127.0.0.1');
    assert.equal(p.userId, user.id);
    assert.deepEqual([...p.models!], ['gpt-4o-mini']);
    assert.throws(() => gw.services.accounts.keys.authenticate(made.key, '192.168.0.1'), /may not be used/);

    const upd = await kim.ok('PUT', `/api/token/${made.id}`, { models: null, allowed_ips: null, quota: null, status: 'disabled' });
    assert.equal(upd.models, null);
    assert.equal(upd.unlimited_quota, true);
    assert.equal(upd.status, 'disabled');
    assert.throws(() => gw.services.accounts.keys.authenticate(made.key, '127.0.0.1'), /invalid API key/);
    await kim.ok('PUT', `/api/token/${made.id}`, { status: 'enabled' });
    assert.equal(gw.services.accounts.keys.authenticate(made.key, '192.168.0.1').keyName, 'laptop');

    // Admin sets a fixed key for a user.
    const fixed = 'sk-' + 'F'.repeat(40);
    const f = await root.ok('POST', '/api/token', { user_id: user.id, name: 'fixed', key: fixed });
    assert.equal(f.key, fixed);
    await root.fails(409, 'POST', '/api/token', { user_id: user.id, name: 'again', key: fixed });
    assert.equal((await kim.ok('GET', '/api/token')).total, 2);

    await kim.ok('DELETE', `/api/token/${made.id}`);
    assert.throws(() => gw.services.accounts.keys.authenticate(made.key, '127.0.0.1'), /invalid API key/);
    await kim.fails(404, 'GET', `/api/token/${made.id}`);
  } finally {
    await gw.stop();
  }
});
