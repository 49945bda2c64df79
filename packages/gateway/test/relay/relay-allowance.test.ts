/**
 * Model calls with QuotaAllowanceEnabled: the openai SDK against the gateway, served from a node-local
 * hold. What each call was charged (its log row) is what leaves the balance once the hold is closed;
 * failed calls cost nothing; every call has one `spend` row.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { createTestDatabase, startTestGateway, type TestGateway } from '../harness.ts';
import { startChild, stopChild, type Child } from '../child-gateway.ts';
import { AdminClient } from '../admin-client.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { balance, createCaller, createChannel, logsFor, setPrice, waitFor } from '../relay-fixtures.ts';

let gw: TestGateway;
let root: AdminClient;
const fakes: FakeOpenAI[] = [];

before(async () => {
  gw = await startTestGateway();
  root = await AdminClient.login(gw.url);
  await root.ok('PUT', '/api/option', { options: { QuotaAllowanceEnabled: true } });
});
after(async () => {
  await gw?.stop();
  await Promise.all(fakes.map((f) => f.close()));
});

const QUOTA = 500_000_000;

test('calls served from a hold are charged exactly what their logs say, once each', async () => {
  const f = await startFakeOpenAI();
  fakes.push(f);
  await createChannel(gw, { baseUrl: f.url, models: ['held-model'] });
  await setPrice(gw, 'held-model', { input: 2, output: 3 });
  const c = await createCaller(gw, { quota: QUOTA });
  const client = new OpenAI({ apiKey: c.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const ids: string[] = [];
  await Promise.all(
    Array.from({ length: 24 }, async (_, i) => {
      if (i % 3 === 0) {
        const stream = await client.chat.completions
          .create({ model: 'held-model', messages: [{ role: 'user', content: `long:${i + 2}` }], stream: true })
          .withResponse();
        let text = '';
        for await (const ch of stream.data) text += ch.choices[0]?.delta?.content ?? '';
        assert.ok(text.startsWith('word0'));
        ids.push(stream.response.headers.get('x-request-id')!);
      } else {
        const r = await client.chat.completions
          .create({ model: 'held-model', messages: [{ role: 'user', content: `echo:call ${i}` }] })
          .withResponse();
        assert.equal(r.data.choices[0].message.content, `call ${i}`);
        ids.push(r.response.headers.get('x-request-id')!);
      }
    }),
  );
  const held = gw.services.relay.allowances.snapshot().filter((h) => h.userId === c.userId);
  assert.ok(held.length >= 1, 'the calls were served from a hold');
  // The admin API shows the open holds; the balance is lower by exactly what they took.
  const holds = (
    (await root.ok('GET', '/api/quota/holds')) as Array<{ user_id: number; key_id: number; amount: number; spent: number; held: number }>
  ).filter((h) => h.user_id === c.userId);
  assert.ok(holds.length >= 1);
  for (const h of holds) {
    assert.equal(h.key_id, c.keyId);
    assert.equal(h.held, h.amount - h.spent);
  }
  assert.equal(await balance(gw, c.userId), QUOTA - holds.reduce((x, h) => x + h.amount, 0));

  // Idle holds are closed by the maintenance pass; then the balance is exact.
  await gw.services.relay.allowances.maintain(Date.now() + 60_000);
  assert.equal(gw.services.relay.allowances.snapshot().filter((h) => h.userId === c.userId).length, 0);
  assert.equal(((await root.ok('GET', '/api/quota/holds')) as Array<{ user_id: number }>).filter((h) => h.user_id === c.userId).length, 0);
  let charged = 0;
  for (const id of ids) {
    const rows = await logsFor(gw, id);
    const consume = rows.filter((r) => r.type === 'consume');
    assert.equal(consume.length, 1);
    assert.ok(Number(consume[0].quota) > 0);
    charged += Number(consume[0].quota);
  }
  assert.equal(await balance(gw, c.userId), QUOTA - charged);
  const spends = await gw.core.h.db
    .selectFrom('ledger')
    .select(['ref', 'amount'])
    .where('kind', '=', 'spend')
    .where('user_id', '=', c.userId)
    .execute();
  assert.deepEqual(spends.map((s) => s.ref).sort(), [...ids].sort());
  assert.equal(
    spends.reduce((x, s) => x + Number(s.amount), 0),
    charged,
  );
  const u = await gw.core.h.db
    .selectFrom('users')
    .select(['used_quota', 'request_count'])
    .where('id', '=', c.userId)
    .executeTakeFirstOrThrow();
  assert.equal(Number(u.used_quota), charged);
  assert.equal(Number(u.request_count), 24);
  const k = await gw.core.h.db.selectFrom('api_keys').select(['used_quota']).where('id', '=', c.keyId).executeTakeFirstOrThrow();
  assert.equal(Number(k.used_quota), charged);
});

test('a call that fails upstream gives its part back to the hold: nothing is charged', async () => {
  const f = await startFakeOpenAI({ keys: ['only-this'] });
  fakes.push(f);
  await createChannel(gw, { baseUrl: f.url, models: ['held-broken'], keys: ['revoked'] });
  await setPrice(gw, 'held-broken', { input: 2, output: 3 });
  const c = await createCaller(gw, { quota: QUOTA });
  const client = new OpenAI({ apiKey: c.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  for (let i = 0; i < 3; i++) {
    await assert.rejects(
      client.chat.completions.create({ model: 'held-broken', messages: [{ role: 'user', content: 'hi' }] }),
      (e: { status?: number }) => (e.status ?? 0) >= 400,
    );
  }
  assert.equal(gw.services.relay.allowances.snapshot().filter((h) => h.userId === c.userId && h.inflight > 0).length, 0);
  await gw.services.relay.allowances.maintain(Date.now() + 60_000);
  await waitFor(async () => (await balance(gw, c.userId)) === QUOTA, 5000, 'the hold closed with nothing spent');
  const rows = await gw.core.h.db
    .selectFrom('ledger')
    .select(['kind'])
    .where('user_id', '=', c.userId)
    .where('kind', 'in', ['spend', 'charge'])
    .execute();
  assert.equal(rows.length, 0);
});

test('a gateway that stops writes its last spends and closes its holds: after a restart the balance is exact', async () => {
  const f = await startFakeOpenAI();
  fakes.push(f);
  const first = await startTestGateway();
  let second: TestGateway | null = null;
  try {
    const admin = await AdminClient.login(first.url);
    await admin.ok('PUT', '/api/option', { options: { QuotaAllowanceEnabled: true } });
    await createChannel(first, { baseUrl: f.url, models: ['held-restart'] });
    await setPrice(first, 'held-restart', { input: 2, output: 3 });
    const c = await createCaller(first, { quota: QUOTA });
    const client = new OpenAI({ apiKey: c.key, baseURL: `${first.url}/v1`, maxRetries: 0 });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await client.chat.completions
        .create({ model: 'held-restart', messages: [{ role: 'user', content: `echo:${i}` }] })
        .withResponse();
      ids.push(r.response.headers.get('x-request-id')!);
    }
    assert.ok(first.services.relay.allowances.snapshot().length >= 1, 'served from a hold');
    let charged = 0;
    for (const id of ids) charged += Number((await logsFor(first, id)).find((r) => r.type === 'consume')!.quota);
    await first.stop({ keepDb: true });
    second = await startTestGateway({ db: first.db });
    const open = await second.core.h.db.selectFrom('quota_holds').select('ref').where('closed', '=', 0).execute();
    assert.equal(open.length, 0, 'no hold left open');
    assert.equal(await balance(second, c.userId), QUOTA - charged);
    const spends = await second.core.h.db.selectFrom('ledger').select('ref').where('kind', '=', 'spend').execute();
    assert.deepEqual(spends.map((s) => s.ref).sort(), [...ids].sort());
  } finally {
    if (second) await second.stop();
    else await first.stop().catch(() => {});
  }
});

test(
  'a gateway process killed with holds open: another node closes them after the lease; what was written stays charged',
  { timeout: 120_000 },
  async () => {
    const f = await startFakeOpenAI();
    fakes.push(f);
    const db = await createTestDatabase();
    // The in-process gateway prepares the database and is the second node that reclaims the holds.
    const b = await startTestGateway({ db, listen: false });
    let a: Child | undefined;
    try {
      await b.services.admin.options.set('QuotaAllowanceEnabled', true);
      await b.services.admin.options.set('QuotaAllowanceLeaseSeconds', 5);
      await createChannel(b, { baseUrl: f.url, models: ['held-crash'] });
      await setPrice(b, 'held-crash', { input: 2, output: 3 });
      const c = await createCaller(b, { quota: QUOTA });
      a = await startChild(b.db, 'node-a');
      const client = new OpenAI({ apiKey: c.key, baseURL: `${a.url}/v1`, maxRetries: 0 });
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        const r = await client.chat.completions
          .create({ model: 'held-crash', messages: [{ role: 'user', content: `echo:${i}` }] })
          .withResponse();
        ids.push(r.response.headers.get('x-request-id')!);
      }
      const spendRows = () => b.core.h.db.selectFrom('ledger').select(['ref', 'amount']).where('kind', '=', 'spend').execute();
      await waitFor(async () => (await spendRows()).length === ids.length, 10_000, 'spends written by node a');
      // One more call, and the node is killed at once: its hold is in use (not idle) and still open;
      // whether this last call's spend was written before the kill is what the node's last 20 ms decide.
      await client.chat.completions.create({ model: 'held-crash', messages: [{ role: 'user', content: 'echo:last' }] });
      await stopChild(a, 'SIGKILL');
      const open = await b.core.h.db.selectFrom('quota_holds').select(['ref', 'amount', 'spent', 'node']).where('closed', '=', 0).execute();
      assert.equal(open.length, 1, 'node a died holding part of the balance');
      assert.match(open[0].node, /^node-a\./);
      assert.equal(await balance(b, c.userId), QUOTA - Number(open[0].amount));
      await waitFor(
        async () => (await b.core.h.db.selectFrom('quota_holds').select('ref').where('closed', '=', 0).execute()).length === 0,
        30_000,
        "the dead node's hold closed by node b",
      );
      const spends = await spendRows();
      const written = new Set(spends.map((s) => s.ref));
      for (const id of ids) assert.ok(written.has(id), `${id} stays charged`);
      assert.ok(spends.length === ids.length || spends.length === ids.length + 1);
      const charged = spends.reduce((x, s) => x + Number(s.amount), 0);
      assert.equal(await balance(b, c.userId), QUOTA - charged, 'the unspent rest came back, the spends stayed charged');
      const holdRows = await b.core.h.db
        .selectFrom('ledger')
        .select(['kind', 'amount'])
        .where('ref', '=', open[0].ref)
        .orderBy('kind')
        .execute();
      assert.deepEqual(
        holdRows.map((r) => [r.kind, Number(r.amount)]),
        [
          ['close', 0],
          ['reserve', Number(open[0].amount)],
          ['settle', -(Number(open[0].amount) - charged)],
        ],
      );
    } finally {
      await stopChild(a, 'SIGKILL');
      await b.stop();
    }
  },
);
