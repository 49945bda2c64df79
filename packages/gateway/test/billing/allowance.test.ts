/**
 * Node-local quota allowances (billing/allowance.ts) on a real database: holds, spends written once,
 * release, leases reclaimed by another node, late spends, small balances on the per-request path,
 * and two nodes serving one payer. Each QuotaAllowances instance stands for one node.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestGateway } from '../harness.ts';
import { payerGateway } from '../billing-fixtures.ts';
import { QuotaAllowances, QUOTA_HOLD_REQUESTS, type AllowanceSettings, type Grant } from '../../src/billing/allowance.ts';
import { waitFor } from '../relay-fixtures.ts';

async function setup(quota: number, keyCap: number | null) {
  const { gw, payer, userId, keyId } = await payerGateway(quota, keyCap);
  // The gateway's own node would reclaim expired holds in the background: only the nodes below act.
  await gw.services.relay.allowances.close();
  const db = gw.core.h.db;
  const balance = async () => {
    const u = await db
      .selectFrom('users')
      .select(['quota', 'used_quota', 'request_count'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const k = await db.selectFrom('api_keys').select(['remain_quota', 'used_quota']).where('id', '=', keyId).executeTakeFirstOrThrow();
    return {
      quota: Number(u.quota),
      used: Number(u.used_quota),
      requests: Number(u.request_count),
      key: Number(k.remain_quota),
      keyUsed: Number(k.used_quota),
    };
  };
  const rows = async (kind: string) =>
    (await db.selectFrom('ledger').select(['ref', 'amount']).where('kind', '=', kind).orderBy('ref').execute()).map((r) => ({
      ref: r.ref,
      amount: Number(r.amount),
    }));
  const settings: AllowanceSettings = { enabled: true, leaseMs: 60_000 };
  const node = () => new QuotaAllowances(gw.core, gw.services.billing.ledger, () => settings);
  return { gw, payer, balance, rows, settings, node };
}

async function grant(g: Grant | Promise<Grant>): Promise<Grant> {
  return g instanceof Promise ? g : g;
}

const openHolds = async (gw: TestGateway) =>
  Number(
    (
      await gw.core.h.db
        .selectFrom('quota_holds')
        .select((e) => e.fn.countAll().as('n'))
        .where('closed', '=', 0)
        .executeTakeFirstOrThrow()
    ).n,
  );

test('a hold serves requests in memory; each request is written once; closing gives back the rest', async () => {
  const { gw, payer, balance, rows, node } = await setup(1_000_000, null);
  const a = node();
  try {
    const first = a.reserve(payer, 'req-1', 100);
    assert.ok(first instanceof Promise, 'the first request takes the hold');
    const g1 = await first;
    assert.ok(g1.hold, 'served from a hold');
    const second = a.reserve(payer, 'req-2', 100);
    assert.ok(!(second instanceof Promise), 'the next request is served synchronously');
    const hold = 100 * QUOTA_HOLD_REQUESTS;
    assert.equal((await balance()).quota, 1_000_000 - hold, 'the hold is taken from the balance');
    assert.deepEqual(a.settle(g1, 80), { charged: 80, shortfall: 0 });
    assert.deepEqual(a.settle(second, 130), { charged: 130, shortfall: 0 }, 'above the estimate: charged in full');
    assert.equal(a.settle(second, 130), null, 'a second settle does nothing');
    assert.equal(a.refund(second), false, 'nor a refund after it');
    const g3 = await grant(a.reserve(payer, 'req-3', 100));
    assert.equal(a.refund(g3), true);
    await waitFor(async () => (await rows('spend')).length === 2, 5000, 'spends flushed');
    assert.deepEqual(await rows('spend'), [
      { ref: 'req-1', amount: 80 },
      { ref: 'req-2', amount: 130 },
    ]);
    const mid = await balance();
    assert.equal(mid.quota, 1_000_000 - hold, 'spends inside the hold do not move the balance');
    assert.equal(mid.used, 210);
    assert.equal(mid.requests, 2);
    assert.equal(mid.keyUsed, 210);
    await a.close();
    const end = await balance();
    assert.equal(end.quota, 1_000_000 - 210, 'the unspent rest came back');
    assert.equal(await openHolds(gw), 0);
    const holdRows = await gw.core.h.db
      .selectFrom('ledger')
      .select(['kind', 'amount'])
      .where('ref', 'like', 'hold:%')
      .orderBy('kind')
      .execute();
    assert.deepEqual(
      holdRows.map((r) => [r.kind, Number(r.amount)]),
      [
        ['close', 0],
        ['reserve', hold],
        ['settle', -(hold - 210)],
      ],
    );
  } finally {
    await a.close();
    await gw.stop();
  }
});

test('small balances use the per-request path: 100 concurrent requests against a balance for 10, exactly 10 pass', async () => {
  const { gw, payer, balance, rows, node } = await setup(1000, null);
  const a = node();
  try {
    const results = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => grant(a.reserve(payer, `r${i}`, 100))));
    const ok = results.filter((r) => r.status === 'fulfilled');
    assert.equal(ok.length, 10);
    for (const r of results) if (r.status === 'rejected') assert.equal((r.reason as { code: string }).code, 'insufficient_quota');
    for (const r of ok) assert.equal((r as PromiseFulfilledResult<Grant>).value.hold, null, 'no hold for a small balance');
    assert.equal((await balance()).quota, 0);
    assert.equal((await rows('reserve')).length, 10);
    assert.equal(await openHolds(gw), 0);
  } finally {
    await a.close();
    await gw.stop();
  }
});

test('a capped key: the hold needs the cap too, and the cap pays for what was spent', async () => {
  const { gw, payer, balance, node } = await setup(10_000_000, 1_000_000);
  const a = node();
  try {
    const gs = await Promise.all(Array.from({ length: 20 }, (_, i) => grant(a.reserve(payer, `c${i}`, 100))));
    assert.ok(
      gs.every((g) => g.hold),
      'served from holds',
    );
    gs.forEach((g, i) => a.settle(g, 50 + i));
    await a.close();
    const spent = Array.from({ length: 20 }, (_, i) => 50 + i).reduce((x, y) => x + y, 0);
    assert.deepEqual(await balance(), { quota: 10_000_000 - spent, used: spent, requests: 20, key: 1_000_000 - spent, keyUsed: spent });
  } finally {
    await a.close();
    await gw.stop();
  }
});

test('a node that stops without closing: another node closes its hold after the lease; flushed spends stay charged', async () => {
  const { gw, payer, balance, rows, settings, node } = await setup(1_000_000, null);
  settings.leaseMs = 300;
  const a = node();
  const b = node();
  try {
    const g = await grant(a.reserve(payer, 'dead-1', 100));
    a.settle(g, 70);
    await waitFor(async () => (await rows('spend')).length === 1, 5000, 'spend flushed');
    // `a` stops here without closing its hold (as if killed).
    assert.equal(await b.reclaim(), 0, 'not before the lease runs out');
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(await b.reclaim(), 1);
    assert.equal(await b.reclaim(), 0, 'closed once');
    assert.equal((await balance()).quota, 1_000_000 - 70);
    assert.equal(await openHolds(gw), 0);
  } finally {
    await b.close();
    await gw.stop();
  }
});

test('spends written after the hold was reclaimed are charged from the balance directly', async () => {
  const { gw, payer, balance, rows, settings, node } = await setup(1_000_000, null);
  settings.leaseMs = 200;
  const a = node();
  const b = node();
  try {
    const g = await grant(a.reserve(payer, 'late-1', 100));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await b.reclaim(), 1);
    assert.equal((await balance()).quota, 1_000_000, 'the whole hold came back');
    a.settle(g, 60);
    await waitFor(async () => (await rows('spend')).length === 1, 5000, 'spend flushed');
    assert.deepEqual(await rows('charge'), [{ ref: 'late-1', amount: 60 }]);
    const bal = await balance();
    assert.equal(bal.quota, 1_000_000 - 60);
    assert.equal(bal.used, 60);
    // The lost hold is not used again: the next request takes a new one.
    const g2 = await grant(a.reserve(payer, 'late-2', 100));
    assert.ok(g2.hold);
    a.settle(g2, 40);
    await a.close();
    assert.equal((await balance()).quota, 1_000_000 - 100);
  } finally {
    await a.close();
    await b.close();
    await gw.stop();
  }
});

test('two nodes serving one payer concurrently: every unit is accounted for, each request written once', async () => {
  const { gw, payer, balance, rows, node } = await setup(50_000_000, null);
  const a = node();
  const b = node();
  try {
    let expected = 0;
    const serve = async (n: QuotaAllowances, i: number) => {
      const g = await grant(n.reserve(payer, `two-${i}`, 100 + (i % 7)));
      await new Promise((r) => setTimeout(r, i % 5));
      if (i % 11 === 0) {
        n.refund(g);
        return;
      }
      const cost = 30 + (i % 97);
      expected += cost;
      n.settle(g, cost);
    };
    await Promise.all(Array.from({ length: 400 }, (_, i) => serve(i % 2 ? a : b, i)));
    await Promise.all([a.close(), b.close()]);
    const bal = await balance();
    assert.equal(bal.quota, 50_000_000 - expected);
    assert.equal(bal.used, expected);
    // Each settled request has one row: a spend (from a hold) or its own settle (per-request path).
    const spends = await rows('spend');
    const settles = (await rows('settle')).filter((r) => r.ref.startsWith('two-'));
    assert.equal(spends.length + settles.length, 400 - Math.ceil(400 / 11));
    assert.equal(new Set([...spends, ...settles].map((r) => r.ref)).size, spends.length + settles.length);
    assert.ok(spends.length > 300, `most of the burst is served from holds (${spends.length})`);
    assert.equal(await openHolds(gw), 0);
  } finally {
    await a.close();
    await b.close();
    await gw.stop();
  }
});

test('with allowances off every request uses the ledger reserve and settle', async () => {
  const { gw, payer, balance, rows, settings, node } = await setup(1_000_000, null);
  settings.enabled = false;
  const a = node();
  try {
    const g = await grant(a.reserve(payer, 'off-1', 100));
    assert.equal(g.hold, null);
    const r = a.settle(g, 40);
    assert.ok(r instanceof Promise);
    assert.deepEqual(await r, { charged: 40, shortfall: 0 });
    assert.deepEqual(await rows('reserve'), [{ ref: 'off-1', amount: 100 }]);
    assert.equal((await balance()).quota, 1_000_000 - 40);
  } finally {
    await a.close();
    await gw.stop();
  }
});
