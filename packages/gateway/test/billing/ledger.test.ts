import { test } from 'node:test';
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import assert from 'node:assert/strict';
import { TEST_DB } from '../harness.ts';
import { sqlitePath, withTx } from '../../src/store/db.ts';
import { payerGateway } from '../billing-fixtures.ts';
import { Ledger } from '../../src/billing/ledger.ts';
import { GROUP_MAX } from '../../src/billing/ledger-sqlite.ts';

async function setup(quota: number, keyCap: number | null) {
  const { gw, payer, userId, keyId } = await payerGateway(quota, keyCap);
  const balance = async () => {
    const u = await gw.core.h.db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', userId).executeTakeFirstOrThrow();
    const k = await gw.core.h.db.selectFrom('api_keys').select(['remain_quota']).where('id', '=', keyId).executeTakeFirstOrThrow();
    return { quota: Number(u.quota), used: Number(u.used_quota), key: Number(k.remain_quota) };
  };
  return { gw, payer, balance, ledger: gw.services.billing.ledger };
}

test('100 concurrent reserves against a balance that fits 10: exactly 10 succeed, never negative', async () => {
  const { gw, payer, balance, ledger } = await setup(1000, null);
  try {
    const results = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => ledger.reserve(payer, `r${i}`, 100)));
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    assert.equal(ok, 10);
    for (const r of results) if (r.status === 'rejected') assert.equal((r.reason as { code: string }).code, 'insufficient_quota');
    assert.equal((await balance()).quota, 0);
    const rows = await gw.core.h.db.selectFrom('ledger').select('ref').where('kind', '=', 'reserve').execute();
    assert.equal(rows.length, 10);
  } finally {
    await gw.stop();
  }
});

test(
  'movements asked for in one turn commit in groups of at most GROUP_MAX, in the order asked, the loop turning between groups',
  { skip: TEST_DB !== 'sqlite' },
  async () => {
    const { gw, payer, balance, ledger } = await setup(1000, null);
    try {
      const done: number[] = [];
      const asked = 2 * GROUP_MAX + 12;
      const all = Array.from({ length: asked }, (_, i) =>
        ledger.reserve(payer, `g${i}`, 100).then(
          () => done.push(i),
          () => done.push(i),
        ),
      );
      // The first group's commit runs in this turn's check phase; what is queued after it runs in the next.
      const afterFirst = await new Promise<number>((resolve) => setImmediate(() => resolve(done.length)));
      await Promise.all(all);
      assert.equal(afterFirst, GROUP_MAX);
      assert.deepEqual(
        done,
        Array.from({ length: asked }, (_, i) => i),
      );
      // The first ten in the order asked are the ones the balance covered.
      const rows = await gw.core.h.db.selectFrom('ledger').select('ref').where('kind', '=', 'reserve').execute();
      assert.deepEqual(rows.map((r) => r.ref).sort(), Array.from({ length: 10 }, (_, i) => `g${i}`).sort());
      assert.equal((await balance()).quota, 0);
    } finally {
      await gw.stop();
    }
  },
);

test('the key cap holds as well as the user balance', async () => {
  const { gw, payer, balance, ledger } = await setup(10_000, 250);
  try {
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => ledger.reserve(payer, `k${i}`, 100)));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 2);
    assert.deepEqual(await balance(), { quota: 9800, used: 0, key: 50 });
  } finally {
    await gw.stop();
  }
});

test('settle and refund happen once per ref, whichever comes first', async () => {
  const { gw, payer, balance, ledger } = await setup(1000, 500);
  try {
    assert.equal(await ledger.reserve(payer, 'a', 300), true);
    assert.equal(await ledger.reserve(payer, 'a', 300), false, 'second reserve of the same ref is a no-op');
    assert.deepEqual(await balance(), { quota: 700, used: 0, key: 200 });
    // Real cost below the estimate: the difference comes back.
    const s = await Promise.all([ledger.settle(payer, 'a', 300, 120), ledger.settle(payer, 'a', 300, 120), ledger.refund(payer, 'a', 300)]);
    assert.equal(s.filter((x) => x !== null && x !== false).length, 1, 'exactly one closing movement');
    const b = await balance();
    if (s[0] || s[1]) assert.deepEqual(b, { quota: 880, used: 120, key: 380 });
    else assert.deepEqual(b, { quota: 1000, used: 0, key: 500 });

    // Real cost above the estimate and above the balance: take what is there, report the shortfall.
    assert.equal(await ledger.reserve(payer, 'b', 100), true);
    const before = await balance();
    const r = await ledger.settle(payer, 'b', 100, 100 + before.key + 50);
    assert.ok(r);
    assert.equal(r.shortfall, 50);
    const after = await balance();
    assert.equal(after.key, 0);
    assert.ok(after.quota >= 0);
    const moves = await ledger.movements('b');
    assert.equal(moves.reserve, 100);
    assert.equal(moves.settle, before.key);
  } finally {
    await gw.stop();
  }
});

test('top-ups move once per ref', async () => {
  const { gw, payer, balance, ledger } = await setup(0, null);
  try {
    await Promise.all([ledger.adjust(payer.userId, 'topup-1', 5000), ledger.adjust(payer.userId, 'topup-1', 5000)]);
    assert.equal((await balance()).quota, 5000);
  } finally {
    await gw.stop();
  }
});

test('a movement started while another transaction is open waits for it and never joins it', async () => {
  const { gw, payer, balance, ledger } = await setup(100, null);
  try {
    let reserve: Promise<boolean> | null = null;
    await assert.rejects(
      withTx(gw.core.h, async (tx) => {
        await tx.updateTable('users').set({ quota: 1100 }).where('id', '=', payer.userId).execute();
        // Started while the transaction is open: it must not see (or be rolled back with) its change.
        reserve = ledger.reserve(payer, 'during-tx', 500);
        reserve.catch(() => {});
        await new Promise((r) => setTimeout(r, 50));
        throw new Error('roll back');
      }),
      /roll back/,
    );
    await assert.rejects(reserve!, (e: { code?: string }) => e.code === 'insufficient_quota');
    assert.equal((await balance()).quota, 100);
    assert.deepEqual(await ledger.movements('during-tx'), {});
    // A settle that gives back writes both rows and the counters once; deferred, it still resolves
    // only once written, and commits together with a movement asked for meanwhile.
    assert.equal(await ledger.reserve(payer, 'c', 60), true);
    const deferred = ledger.settle(payer, 'c', 60, 20, { deferMs: 30 });
    const other = ledger.reserve(payer, 'd', 10);
    assert.equal(await other, true);
    assert.deepEqual(await deferred, { charged: 20, shortfall: 0 });
    assert.equal(await ledger.refund(payer, 'd', 10), true);
    const u = await gw.core.h.db
      .selectFrom('users')
      .select(['quota', 'used_quota', 'request_count'])
      .where('id', '=', payer.userId)
      .executeTakeFirstOrThrow();
    assert.deepEqual([Number(u.quota), Number(u.used_quota), Number(u.request_count)], [80, 20, 1]);
    assert.deepEqual(await ledger.movements('c'), { reserve: 60, close: 0, settle: -40 });
  } finally {
    await gw.stop();
  }
});

// Only SQLite defers movements (PostgreSQL and MySQL run each at once).
test(
  'a deferred movement still queued when the database closes is rejected, not lost silently',
  { skip: TEST_DB !== 'sqlite' },
  async () => {
    const { gw, payer, ledger } = await setup(1000, null);
    assert.equal(await ledger.reserve(payer, 'z', 100), true);
    const s = ledger.settle(payer, 'z', 100, 50, { deferMs: 20 });
    await gw.core.h.close();
    await assert.rejects(s);
    await gw.stop().catch(() => {});
  },
);

test("relay reserves are recorded as open with their node in the reserve's transaction, and end with their settle or refund; recovery closes those of a dead node only", async () => {
  const { gw, payer, balance, ledger } = await setup(1000, null);
  try {
    const open = async () =>
      (await gw.core.h.db.selectFrom('open_reserves').select(['ref', 'node']).orderBy('ref').execute()).map((r) => [r.ref, r.node]);
    assert.equal(await ledger.reserve(payer, 'o1', 300, { open: true }), true);
    assert.equal(await ledger.reserve(payer, 'o2', 300, { open: true }), true);
    assert.equal(await ledger.reserve(payer, 'task', 100), true, 'a reserve that is not a relay call is not recorded');
    await assert.rejects(ledger.reserve(payer, 'o3', 10_000, { open: true }), /quota exhausted/);
    assert.deepEqual(
      await open(),
      [
        ['o1', ledger.node],
        ['o2', ledger.node],
      ],
      'a refused reserve leaves no open row',
    );
    await ledger.settle(payer, 'o1', 300, 120);
    assert.deepEqual(await open(), [['o2', ledger.node]]);
    await ledger.refund(payer, 'o2', 300);
    assert.deepEqual(await open(), []);
    assert.deepEqual(await balance(), { quota: 1000 - 120 - 100, used: 120, key: 0 });

    // Another process that never took a lease (it died): its reserve, and an extension of it, go back.
    gw.services.billing.recovery.stopRounds(); // rounds by hand only
    const dead = new Ledger(gw.core);
    assert.equal(await dead.reserve(payer, 'o4', 200, { open: true }), true);
    assert.equal(await dead.extend(payer, 'o4', 1, 50), true);
    assert.equal(await ledger.reserve(payer, 'o5', 100, { open: true }), true);
    const closed = await gw.services.billing.recovery.round();
    assert.deepEqual(closed, [{ ref: 'o4', outcome: 'refunded', charged: 0 }]);
    assert.deepEqual(await ledger.movements('o4'), { reserve: 200, 'extend:1': 50, close: 0, refund: -250 });
    assert.deepEqual(await open(), [['o5', ledger.node]], "the live node's reserve is not touched");
    assert.deepEqual(await gw.services.billing.recovery.round(), []);
    assert.equal((await balance()).quota, 1000 - 120 - 100 - 100);
    // The stalled process wakes up and extends its closed reserve: refused, nothing taken.
    await assert.rejects(dead.extend(payer, 'o4', 2, 50), (e: Error & { code?: string }) => e.code === 'reserve_closed');
    assert.deepEqual(await ledger.movements('o4'), { reserve: 200, 'extend:1': 50, close: 0, refund: -250 });
    assert.equal((await balance()).quota, 1000 - 120 - 100 - 100);
  } finally {
    await gw.stop();
  }
});

test(
  'a worker among several, another holding the write lock: movements wait without stalling the event loop, then commit once',
  { skip: TEST_DB !== 'sqlite' },
  async () => {
    const { gw, payer, balance } = await setup(1000, null);
    // A worker among several (WORKERS > 1): other processes write the same file.
    const ledger = new Ledger({ ...gw.core, config: { ...gw.core.config, sharedWriters: true } } as typeof gw.core);
    let child: ChildProcess | null = null;
    try {
      await new Promise((r) => setTimeout(r, 300)); // the gateway's own start-up writes are done
      // Another process takes the write lock and lets it go 200 ms later, printing when.
      const holder = [
        'const Db = require(process.argv[1]);',
        'const db = new Db(process.argv[2]);',
        "db.prepare('BEGIN IMMEDIATE').run();",
        "process.stdout.write('locked\\n');",
        "setTimeout(() => { db.prepare('COMMIT').run(); process.stdout.write('released ' + Date.now() + '\\n'); db.close(); }, 200);",
      ].join('\n');
      child = spawn(process.execPath, ['-e', holder, createRequire(import.meta.url).resolve('better-sqlite3'), sqlitePath(gw.core.h.url)]);
      let out = '';
      child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
      const exited = new Promise((r) => child!.once('exit', r));
      while (!out.includes('locked')) await new Promise((r) => setTimeout(r, 5));

      const moving = Promise.all([ledger.reserve(payer, 'w1', 100), ledger.reserve(payer, 'w2', 200)]);
      // A timer due while the lock is held fires on time: nothing sleeps on this thread meanwhile.
      const timerAt = await new Promise<number>((r) => setTimeout(() => r(Date.now()), 20));
      assert.deepEqual(await moving, [true, true]);
      await exited;
      const releasedAt = Number(/released (\d+)/.exec(out)?.[1]);
      assert.ok(timerAt < releasedAt, `the timer fired before the lock was released (${timerAt} < ${releasedAt})`);
      assert.equal((await balance()).quota, 700);
      assert.deepEqual(await ledger.movements('w1'), { reserve: 100 });
      assert.deepEqual(await ledger.movements('w2'), { reserve: 200 });
    } finally {
      child?.kill();
      await gw.stop();
    }
  },
);
