/**
 * A call's reserve committing while its upstream request is on its way (relay/pipeline/index.ts, the
 * payer's known balance of billing/ledger-known.ts): the caller gets nothing before the reserve
 * committed; a reserve refused meanwhile aborts the upstream request and the caller gets what the
 * serial path answers, with nothing charged; unknown and low balances are reserved first. The reserve
 * is held back through the ledger's `reserve` to make the commit slow. Only SQLite keeps balances
 * (billing/ledger-known.ts): on PostgreSQL and MySQL every call is checked to reserve first.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, TEST_DB, type TestGateway } from '../harness.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { sleep } from '../fakes/upstreams/common.ts';
import { balance, createCaller, createChannel, setPrice, waitFor } from '../relay-fixtures.ts';
import type { Ledger } from '../../src/billing/ledger.ts';

let gw: TestGateway;
let up: FakeOpenAI;
let ledger: Ledger;
/** While set, every reserve waits for it before it runs (a slow commit). */
let held: Promise<void> | null = null;
/** Reserves that reached the ledger. */
let reserves = 0;
/** Known balances are kept on this database. */
const keeps = TEST_DB === 'sqlite';

before(async () => {
  gw = await startTestGateway();
  up = await startFakeOpenAI();
  await createChannel(gw, { baseUrl: up.url, models: ['ov-flat'] });
  await setPrice(gw, 'ov-flat', { per_request: 0.001 }); // 500 units per call
  ledger = gw.services.billing.ledger;
  const reserve = ledger.reserve.bind(ledger);
  ledger.reserve = async (...a: Parameters<Ledger['reserve']>) => {
    reserves++;
    if (held) await held;
    return reserve(...a);
  };
});
after(async () => {
  await gw?.stop();
  await up?.close();
});

/** Holds every reserve back until `release` is called. */
function hold(): { release: () => void } {
  let release!: () => void;
  held = new Promise<void>((r) => (release = r));
  return {
    release: () => {
      held = null;
      release();
    },
  };
}

const post = (key: string, stream = false) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'ov-flat', stream, messages: [{ role: 'user', content: 'hi' }] }),
  });

/** Whether `p` settled within `ms`. */
const settledWithin = (p: Promise<unknown>, ms: number) =>
  Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    sleep(ms).then(() => false),
  ]);

/** A caller whose balance this node knows (one call served). */
async function knownCaller(quota: number) {
  const c = await createCaller(gw, { quota });
  const r = await post(c.key);
  assert.equal(r.status, 200);
  await r.text();
  return c;
}

for (const stream of [false, true]) {
  test(`${stream ? 'a stream' : 'a whole answer'}: a known payer on PostgreSQL or MySQL reserves first`, { skip: keeps }, async () => {
    const c = await knownCaller(1_000_000);
    await serialCall(c.key, stream);
  });
  test(
    `${stream ? 'a stream' : 'a whole answer'}: the upstream has the request before the reserve committed, the caller nothing`,
    { skip: !keeps },
    async () => {
      const c = await knownCaller(1_000_000);
      const sent = up.requests.length;
      const h = hold();
      const n = reserves;
      const res = post(c.key, stream);
      await waitFor(() => up.requests.length > sent, 5000, 'the upstream request');
      assert.equal(reserves, n + 1, 'the reserve was asked for');
      // The upstream answered at once; the caller has no status line while the reserve waits.
      assert.equal(await settledWithin(res, 300), false, 'nothing reached the caller before the reserve committed');
      h.release();
      const r = await res;
      assert.equal(r.status, 200);
      await r.text();
      await gw.services.relay.relay.drain();
      const kinds = await gw.core.h.db.selectFrom('ledger').select('kind').where('ref', '=', r.headers.get('x-request-id')!).execute();
      assert.deepEqual(kinds.map((k) => k.kind).sort(), ['close', 'reserve', 'settle']);
    },
  );
}

test(
  'a reserve refused while the request is on its way aborts it: the caller gets the serial answer, nothing is charged',
  { skip: !keeps },
  async () => {
    // What the serial path answers a payer with nothing left.
    const poor = await createCaller(gw, { quota: 0 });
    const serial = await post(poor.key);
    const serialBody = (await serial.json()) as { error: { code: string; message: string } };
    assert.equal(serial.status, 429);

    const c = await knownCaller(1_000_000);
    let aborted = false;
    let answered = false;
    up.override = (_r, res) => {
      // The upstream answers only after a while, and notes when the gateway gives up on it.
      res.on('close', () => {
        if (!answered) aborted = true;
      });
      setTimeout(() => {
        if (res.destroyed) return;
        answered = true;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }, 3000).unref();
      return true;
    };
    try {
      const sent = up.requests.length;
      const h = hold();
      const res = post(c.key);
      await waitFor(() => up.requests.length > sent, 5000, 'the upstream request');
      // Another node spends the balance before this reserve commits.
      const left = await balance(gw, c.userId);
      assert.ok(await ledger.adjust(c.userId, `drain-${c.userId}`, -left, 'adjust'));
      const rowsBefore = await gw.core.h.db.selectFrom('ledger').select('id').where('user_id', '=', c.userId).execute();
      h.release();
      const r = await res;
      const body = (await r.json()) as { error: { code: string; message: string } };
      assert.equal(r.status, serial.status);
      assert.equal(body.error.code, serialBody.error.code);
      assert.equal(body.error.message, serialBody.error.message);
      await waitFor(() => aborted, 2000, 'the upstream request aborted');
      assert.equal(answered, false);
      await gw.services.relay.relay.drain();
      const rowsAfter = await gw.core.h.db.selectFrom('ledger').select('id').where('user_id', '=', c.userId).execute();
      assert.equal(rowsAfter.length, rowsBefore.length, 'no ledger row for the refused call');
      assert.equal(await balance(gw, c.userId), 0);
      const open = await gw.core.h.db.selectFrom('open_reserves').select('ref').where('user_id', '=', c.userId).execute();
      assert.equal(open.length, 0);
    } finally {
      up.override = null;
    }
  },
);

test('an unknown payer and a low balance reach the upstream only after the reserve committed', async () => {
  const unknown = await createCaller(gw, { quota: 1_000_000 });
  // Known, but after one call (500) less than twice the next reserve is left.
  const low = await knownCaller(1400);
  for (const c of [unknown, low]) await serialCall(c.key, false);
});

/** A call whose reserve is held back: the upstream gets nothing until it is released. */
async function serialCall(key: string, stream: boolean): Promise<void> {
  const sent = up.requests.length;
  const h = hold();
  const n = reserves;
  const res = post(key, stream);
  await waitFor(() => reserves > n, 5000, 'the reserve asked for');
  await sleep(200);
  assert.equal(up.requests.length, sent, 'no upstream request before the reserve');
  h.release();
  const r = await res;
  assert.equal(r.status, 200);
  await r.text();
}
