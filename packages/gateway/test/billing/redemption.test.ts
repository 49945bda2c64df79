/**
 * Redemption codes: admins create batches, list, search, filter, disable, delete and export them; a
 * user redeems one by POST /api/user/topup and it credits exactly once (a `topup` ledger row whose ref
 * is the code) — also under 50 concurrent redemptions, and across two gateway processes on one
 * database. Expired, disabled and used codes are refused with 400; guesses are rate-limited.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { startChild, stopChild } from '../child-gateway.ts';

async function newUser(root: AdminClient, gw: TestGateway, name: string): Promise<{ id: number; client: AdminClient }> {
  const u = await root.ok('POST', '/api/user', { username: name, password: `${name}-password` });
  return { id: u.id, client: await AdminClient.login(gw.url, name, `${name}-password`) };
}

const balance = async (gw: TestGateway, id: number) =>
  Number((await gw.core.h.db.selectFrom('users').select('quota').where('id', '=', id).executeTakeFirstOrThrow()).quota);
const topupRows = (gw: TestGateway, ref: string) => gw.core.h.db.selectFrom('ledger').selectAll().where('ref', '=', ref).execute();

test('codes: create a batch, list with filters and search, redeem once, refuse used/disabled/expired, export, delete', async () => {
  const gw = await startTestGateway();
  try {
    const root = await AdminClient.login(gw.url);
    const alice = await newUser(root, gw, 'alice');

    // Validation names the field; users may not manage codes.
    await root.fails(400, 'POST', '/api/redemption', { quota: 100 }, 'name');
    await root.fails(400, 'POST', '/api/redemption', { name: 'x' }, 'quota');
    await root.fails(400, 'POST', '/api/redemption', { name: 'x', quota: 100, count: 1001 }, 'count');
    await root.fails(400, 'POST', '/api/redemption', { name: 'x', quota: 100, expired_time: 1000 }, 'expired_time');
    await root.fails(400, 'POST', '/api/redemption', { name: 'x', quota: 100, colour: 'red' }, 'colour');
    await alice.client.fails(403, 'POST', '/api/redemption', { name: 'mine', quota: 1e9 });
    await alice.client.fails(403, 'GET', '/api/redemption');

    const codes: string[] = await root.ok('POST', '/api/redemption', {
      name: 'launch',
      quota_usd: 2,
      count: 3,
      note: 'for the launch party',
    });
    assert.equal(codes.length, 3);
    for (const c of codes) assert.match(c, /^[0-9a-f]{32}$/);
    assert.equal(new Set(codes).size, 3);
    const [other] = await root.ok('POST', '/api/redemption', {
      name: 'other',
      quota: 1000,
      expired_time: Math.floor(Date.now() / 1000) + 3600,
    });

    // Stored hashed and sealed: the code's text is nowhere in the row.
    const rows = await gw.core.h.db.selectFrom('redemptions').selectAll().execute();
    assert.equal(rows.length, 4);
    for (const r of rows) for (const c of [...codes, other]) assert.ok(!JSON.stringify(r).includes(c));

    const all = await root.ok('GET', '/api/redemption?page_size=10');
    assert.equal(all.total, 4);
    assert.deepEqual(
      all.items.map((i: any) => i.name),
      ['other', 'launch', 'launch', 'launch'],
    );
    assert.deepEqual(
      new Set(all.items.filter((i: any) => i.name === 'launch').map((i: any) => i.code)),
      new Set(codes),
      'admins see the codes in full',
    );
    assert.equal(all.items[1].quota, 1_000_000);
    assert.equal(all.items[1].note, 'for the launch party');
    assert.equal(all.items[1].status, 'enabled');
    const search = await root.ok('GET', '/api/redemption/search?keyword=launch');
    assert.equal(search.total, 3);
    const byCode = await root.ok('GET', `/api/redemption/search?keyword=${codes[1].toUpperCase()}`);
    assert.deepEqual(
      byCode.items.map((i: any) => i.code),
      [codes[1]],
    );
    await root.fails(400, 'GET', '/api/redemption?status=lost', undefined, 'status');

    // Redeem with the personal access token: credited once, a topup row whose ref is the code.
    const before = await balance(gw, alice.id);
    const r = await alice.client.ok('POST', '/api/user/topup', { key: codes[0] });
    assert.equal(r.quota, 1_000_000);
    assert.equal(r.quota_usd, 2);
    assert.equal(r.balance, before + 1_000_000);
    assert.equal(await balance(gw, alice.id), before + 1_000_000);
    const led = await topupRows(gw, codes[0]);
    assert.deepEqual(
      led.map((l) => [l.kind, Number(l.amount), Number(l.user_id)]),
      [['topup', -1_000_000, alice.id]],
    );
    const used = (await root.ok('GET', '/api/redemption?status=used')).items;
    assert.equal(used.length, 1);
    assert.equal(used[0].code, codes[0]);
    assert.equal(used[0].used_user_id, alice.id);
    assert.ok(used[0].redeemed_at > 0);
    const again = await alice.client.fails(400, 'POST', '/api/user/topup', { key: codes[0] });
    assert.match(again.body.message, /already used/);
    assert.equal(await balance(gw, alice.id), before + 1_000_000);
    // The credit is in the user's own logs.
    const logs = await alice.client.ok('GET', '/api/log/self?type=topup');
    assert.ok(logs.items.some((l: any) => l.quota === 1_000_000 && /launch/.test(l.content)));

    // Disabled: refused; enabled again: redeemable. A used code cannot be re-enabled.
    const id1 = all.items.find((i: any) => i.code === codes[1]).id;
    assert.equal((await root.ok('PUT', '/api/redemption', { id: id1, status: 2 })).status, 'disabled');
    assert.match((await alice.client.fails(400, 'POST', '/api/user/topup', { key: codes[1] })).body.message, /disabled/);
    assert.equal((await root.ok('GET', '/api/redemption?status=disabled')).total, 1);
    await root.ok('PUT', '/api/redemption', { id: id1, status: 'enabled' });
    await alice.client.ok('POST', '/api/user/topup', { key: codes[1] });
    await root.fails(409, 'PUT', '/api/redemption', { id: id1, status: 'disabled' });
    await root.fails(400, 'PUT', '/api/redemption', { id: id1, status: 'gone' }, 'status');
    await root.fails(404, 'PUT', '/api/redemption', { id: 999_999, status: 1 });

    // Expired: refused, listed as expired. (Time moved on: the API takes only future expiry dates.)
    const otherId = all.items[0].id;
    await gw.core.h.db
      .updateTable('redemptions')
      .set({ expires_at: Date.now() - 1000 })
      .where('id', '=', otherId)
      .execute();
    assert.match((await alice.client.fails(400, 'POST', '/api/user/topup', { key: other })).body.message, /expired/);
    assert.deepEqual(
      (await root.ok('GET', '/api/redemption?status=expired')).items.map((i: any) => i.id),
      [otherId],
    );
    assert.equal((await topupRows(gw, other)).length, 0);

    // Unknown codes and malformed bodies.
    assert.match((await alice.client.fails(400, 'POST', '/api/user/topup', { key: 'f'.repeat(32) })).body.message, /does not exist/);
    await alice.client.fails(400, 'POST', '/api/user/topup', {}, 'key');
    const anon = await fetch(`${gw.url}/api/user/topup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: codes[2] }),
    });
    assert.equal(anon.status, 401);

    // CSV export (with a filter) has the codes; delete removes a code, the ledger row of a used one stays.
    const csv = await fetch(`${gw.url}/api/redemption/export?keyword=launch`, { headers: { authorization: `Bearer ${root.token}` } });
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type')!, /text\/csv/);
    const text = await csv.text();
    const lines = text.trim().split('\r\n');
    assert.equal(lines[0], 'id,name,code,quota,quota_usd,status,note,created_at,expires_at,used_user_id,redeemed_at');
    assert.equal(lines.length, 4);
    for (const c of codes) assert.ok(text.includes(c));
    assert.ok(!text.includes(other));
    const aliceCsv = await fetch(`${gw.url}/api/redemption/export`, { headers: { authorization: `Bearer ${alice.client.token}` } });
    assert.equal(aliceCsv.status, 403);

    await root.ok('DELETE', `/api/redemption/${otherId}`);
    await root.fails(404, 'DELETE', `/api/redemption/${otherId}`);
    const usedId = used[0].id;
    await root.ok('DELETE', `/api/redemption/${usedId}`);
    assert.equal((await topupRows(gw, codes[0])).length, 1);
    assert.equal((await root.ok('GET', '/api/redemption')).total, 2);
  } finally {
    await gw.stop();
  }
});

test('guesses: unknown codes are limited per user and address; used codes are not guesses', async () => {
  const gw = await startTestGateway();
  try {
    const root = await AdminClient.login(gw.url);
    await root.ok('PUT', '/api/option', { key: 'RedemptionAttemptLimit', value: '3' });
    const bob = await newUser(root, gw, 'bob');
    const carol = await newUser(root, gw, 'carol');
    const [first, code] = await root.ok('POST', '/api/redemption', { name: 'b', quota: 500, count: 2 });

    // Refusals of a code that exists (used) do not count.
    await carol.client.ok('POST', '/api/user/topup', { key: first });
    for (let i = 0; i < 5; i++)
      assert.match((await carol.client.fails(400, 'POST', '/api/user/topup', { key: first })).body.message, /already used/);

    // Three unknown codes: then 429 with Retry-After, even for a valid code; nothing is redeemed.
    for (let i = 0; i < 3; i++) await bob.client.fails(400, 'POST', '/api/user/topup', { key: `${i}`.repeat(32) });
    const blocked = await fetch(`${gw.url}/api/user/topup`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bob.client.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key: code }),
    });
    assert.equal(blocked.status, 429);
    assert.ok(Number(blocked.headers.get('retry-after')) > 0);
    assert.equal((await topupRows(gw, code)).length, 0, 'nothing redeemed while blocked');
    // Another user from the same address is blocked too: the address counts.
    assert.equal((await carol.client.call('POST', '/api/user/topup', { key: code })).status, 429);

    // Limit off: redeeming works again.
    await root.ok('PUT', '/api/option', { key: 'RedemptionAttemptLimit', value: '0' });
    await bob.client.ok('POST', '/api/user/topup', { key: code });
  } finally {
    await gw.stop();
  }
});

/** Fires `n` redemptions of `code` at once, spread over `urls` and `clients`; returns the answers. */
async function storm(urls: string[], clients: AdminClient[], code: string, n: number) {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const c = clients[i % clients.length];
      const res = await fetch(`${urls[i % urls.length]}/api/user/topup`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ key: code }),
      });
      return { status: res.status, body: (await res.json()) as { success: boolean; message: string } };
    }),
  );
}

test('50 concurrent redemptions of one code credit once; the 49 others get a clear 400', async () => {
  const gw = await startTestGateway();
  try {
    const root = await AdminClient.login(gw.url);
    const users = await Promise.all(['u1', 'u2', 'u3', 'u4', 'u5'].map((n) => newUser(root, gw, n)));
    const [code] = await root.ok('POST', '/api/redemption', { name: 'race', quota: 7777 });
    const res = await storm(
      [gw.url],
      users.map((u) => u.client),
      code,
      50,
    );
    assert.equal(res.filter((r) => r.status === 200).length, 1, JSON.stringify(res.filter((r) => r.status !== 400)));
    const refused = res.filter((r) => r.status === 400);
    assert.equal(refused.length, 49);
    for (const r of refused) assert.match(r.body.message, /already used/);
    const rows = await topupRows(gw, code);
    assert.equal(rows.length, 1);
    let total = 0;
    for (const u of users) total += await balance(gw, u.id);
    assert.equal(total, 7777);
    assert.ok(
      users.some((u) => u.id === Number(rows[0].user_id)),
      'one of the users got it',
    );
  } finally {
    await gw.stop();
  }
});

test('two gateway processes on one database: 50 concurrent redemptions of one code through both credit once', async () => {
  const gw = await startTestGateway();
  let child: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    child = await startChild(gw.db, 'redeem-b');
    const root = await AdminClient.login(gw.url);
    const users = await Promise.all(['m1', 'm2', 'm3'].map((n) => newUser(root, gw, n)));
    for (let round = 0; round < 2; round++) {
      const [code] = await root.ok('POST', '/api/redemption', { name: `race-${round}`, quota: 1234 });
      const res = await storm(
        [gw.url, child.url],
        users.map((u) => u.client),
        code,
        50,
      );
      assert.equal(res.filter((r) => r.status === 200).length, 1, JSON.stringify(res.filter((r) => r.status !== 400)));
      assert.equal(res.filter((r) => r.status === 400 && /already used/.test(r.body.message)).length, 49);
      assert.equal((await topupRows(gw, code)).length, 1);
    }
    let total = 0;
    for (const u of users) total += await balance(gw, u.id);
    assert.equal(total, 2 * 1234);
  } finally {
    await stopChild(child);
    await gw.stop();
  }
});
