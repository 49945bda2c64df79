/** The session meter of the call pipeline (relay/pipeline/session.ts): reserve, extensions, one settlement or one refund. */
import test from 'node:test';
import assert from 'node:assert/strict';
import type { Grant } from '../../billing/allowance.ts';
import type { TokenUsage } from '../../billing/prices.ts';
import type { NewLog } from '../../logs/writer.ts';
import type { RelayDeps } from '../call.ts';
import type { RuntimeChannel } from '../channels.ts';
import { SessionMeter, type MeteredSession } from './index.ts';

/** One unit per token; `balance` is what extensions may take. */
function setup(balance: number) {
  const settles: Array<{ amount: number; actual: number }> = [];
  const refunds: Grant[] = [];
  const rows: NewLog[] = [];
  const reserves: number[] = [];
  const ended: number[] = [];
  let left = balance;
  /** Extensions wait for this before they answer (to settle while one is under way). */
  let gate: Promise<void> = Promise.resolve();
  const d = {
    core: { log: { warn() {}, error() {} }, config: { quotaPerUsd: 500_000 } },
    ledger: {
      reserve: async (_p: unknown, _ref: string, amount: number) => {
        reserves.push(amount);
        return true;
      },
    },
    allowances: {
      settle(g: Grant, actual: number) {
        assert.equal(g.done, false, 'settled once');
        g.done = true;
        settles.push({ amount: g.amount, actual });
        return { charged: actual, shortfall: 0 };
      },
      async extend(g: Grant, _n: number, amt: number) {
        await gate;
        if (left < amt) return false;
        left -= amt;
        g.amount += amt;
        return true;
      },
      refund(g: Grant) {
        refunds.push(g);
        return true;
      },
    },
    rateLimits: { admit: () => ({ end: (t: number) => ended.push(t) }) },
    prices: {
      bound: (_p: unknown, u: TokenUsage) => u.inputTokens + u.outputTokens,
      cost: (_p: unknown, u: TokenUsage) => u.inputTokens + u.outputTokens,
      groupRatio: () => 1,
    },
    logs: { write: (r: NewLog) => rows.push(r) },
  } as unknown as RelayDeps;
  const s: MeteredSession = {
    call: {
      principal: { userId: 1, username: 'u', keyId: 1, keyName: 'k', group: 'default' } as MeteredSession['call']['principal'],
      requestId: 'rt1',
      endpoint: '/v1/realtime',
      startedAt: process.hrtime.bigint(),
    },
    model: 'm',
    stream: true,
    firstByteMs: null,
    payer: { userId: 1, keyId: 1 } as MeteredSession['payer'],
    reserved: 0,
    grant: null,
    maxOut: null,
    n: 1,
    extensions: 0,
    admission: null,
    price: null,
    attempts: [],
    usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
    responses: 0,
    channel: { id: 7, modelMapping: {} } as unknown as RuntimeChannel,
  };
  const open = () => SessionMeter.open(d, (p) => p, s, { inputTokens: 5, outputTokens: 5 }, null);
  const hold = () => {
    let release!: () => void;
    gate = new Promise((r) => (release = r));
    return release;
  };
  return { s, open, hold, settles, refunds, rows, reserves, ended };
}

const tick = () => new Promise((r) => setImmediate(r));

test('a session is reserved at its estimate, extended as its usage grows and settled once at its usage', async () => {
  const { s, open, settles, rows, reserves } = setup(100);
  const m = await open();
  assert.deepEqual(reserves, [10]);
  assert.equal(s.reserved, 10);
  let exhausted = 0;
  m.response({ inputTokens: 4, outputTokens: 4 }, () => exhausted++);
  m.response(null, () => exhausted++);
  m.response({ inputTokens: 4, outputTokens: 4 }, () => exhausted++);
  await tick();
  assert.equal(s.reserved, 20, 'extended by the first reserve');
  assert.equal(s.extensions, 1);
  m.close(200);
  m.close(499);
  assert.deepEqual(settles, [{ amount: 20, actual: 16 }]);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].status_code, 200);
  assert.equal(rows[0].channel_id, 7);
  assert.deepEqual(JSON.parse(rows[0].other!).responses, 3);
  assert.equal(exhausted, 0);
});

test('a session the balance cannot extend is told once; closing while an extension is under way settles after it', async () => {
  const { s, open, hold, settles } = setup(0);
  const m = await open();
  const release = hold();
  let exhausted = 0;
  m.response({ inputTokens: 10, outputTokens: 5 }, () => exhausted++);
  m.close(200);
  assert.equal(settles.length, 0, 'the settlement waits for the extension');
  release();
  await tick();
  await tick();
  assert.equal(exhausted, 1);
  assert.deepEqual(settles, [{ amount: 10, actual: 15 }]);
  assert.equal(s.grant, null);
});

test('a session that never started gives its reserve back, and is never settled', async () => {
  const { open, settles, refunds, rows, ended } = setup(0);
  const m = await open();
  m.abandon();
  m.close(499);
  m.abandon();
  assert.equal(refunds.length, 1);
  assert.equal(refunds[0].amount, 10);
  assert.equal(settles.length, 0);
  assert.equal(rows.length, 0);
  assert.deepEqual(ended, [0]);
});
