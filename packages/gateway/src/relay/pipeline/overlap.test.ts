/**
 * The call pipeline's reserve committed under the first attempt (index.ts `overlapped`), with a ledger
 * whose reserve the test resolves: no byte reaches the caller and nothing is settled or refunded before
 * the reserve committed; a refused reserve aborts the attempt and the caller gets the serial path's error.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Grant } from '../../billing/allowance.ts';
import type { TokenUsage } from '../../billing/prices.ts';
import { fail, type GatewayError } from '../../platform/errors.ts';
import type { RelayDeps } from '../call.ts';
import type { RuntimeChannel } from '../channels.ts';
import type { UpstreamResponse } from '../upstream.ts';
import { Pipeline, type FamilyOutcome, type PipelineCall, type StreamRelay } from './index.ts';

class FakeRes extends EventEmitter {
  chunks: string[] = [];
  head: number | null = null;
  writableEnded = false;
  writableFinished = false;
  writeHead(status: number): void {
    this.head = status;
  }
  write(c: string | Buffer): boolean {
    this.chunks.push(String(c));
    return true;
  }
  end(c?: string): void {
    if (c) this.chunks.push(c);
    this.writableEnded = this.writableFinished = true;
  }
}

const channel = { id: 1, keys: ['k'], costRatio: 1, modelMapping: {} } as unknown as RuntimeChannel;
const tick = () => new Promise((r) => setTimeout(r, 20));

/** One call whose reserves wait for the test (`reserves[i].ok()` / `.refuse(e)`), known to cover (`covers`). */
function setup(covers: boolean, answer: (signal: AbortSignal | undefined) => Promise<FamilyOutcome<PipelineCall>>) {
  const events: string[] = [];
  const reserves: Array<{ ok: () => void; refuse: (e: unknown) => void }> = [];
  const res = new FakeRes();
  const ledger = {
    covers: () => covers,
    available: async () => 0,
    reserve: () =>
      new Promise<boolean>((ok, refuse) => {
        events.push('reserve asked');
        reserves.push({
          ok: () => {
            events.push('reserve committed');
            ok(true);
          },
          refuse,
        });
      }),
  };
  const allowances = {
    active: () => false,
    settle(g: Grant, actual: number) {
      events.push(`settle ${actual}`);
      return { charged: actual, shortfall: 0 };
    },
    refund() {
      events.push('refund');
      return true;
    },
  };
  const d = {
    core: { log: { warn() {}, error() {} }, config: { quotaPerUsd: 500_000 } },
    ledger,
    allowances,
    prices: { groupRatio: () => 1, upstreamCost: () => 0 },
    logs: { write() {} },
    rateLimits: { countsTokens: () => false, admit: () => ({ end() {} }) },
    channels: {
      pick: (cands: RuntimeChannel[], tried: Set<number>) => {
        const c = cands.find((x) => !tried.has(x.id));
        return c ? { channel: c, key: 'k', keyIndex: 0 } : null;
      },
    },
    policy: { maxAttempts: () => 1, succeeded() {}, failed: async () => ({ keyFault: false }) },
  } as unknown as RelayDeps;
  const perToken = (_c: PipelineCall, u: TokenUsage) => u.inputTokens + u.outputTokens;
  const pipe = new Pipeline<PipelineCall>(d, (p) => p, {
    holds: false,
    overlaps: () => true,
    attempt: (ctx) => {
      events.push('upstream request');
      return answer(ctx.reserving?.signal);
    },
    sticky: () => false,
    reserveOf: perToken,
    cost: perToken,
    logDetails: () => ({}),
    settleDeferMs: () => 0,
  });
  const ctx: PipelineCall = {
    call: {
      principal: { userId: 1, username: 'u', keyId: 1, keyName: 'k', group: 'default' } as PipelineCall['call']['principal'],
      requestId: 'r1',
      endpoint: '/v1/chat/completions',
      startedAt: process.hrtime.bigint(),
      client: { res: res as never, hijack() {} },
      body: {},
    },
    model: 'm',
    stream: false,
    price: null,
    payer: { userId: 1, keyId: 1, unlimitedKey: true },
    reserved: 0,
    grant: null,
    attempts: [],
    upstreamWaitMs: 0,
    firstByteMs: null,
    started: false,
    inputBound: 0,
    cacheWrites: false,
    n: 1,
    maxOut: null,
    extensions: 0,
    admission: null,
  };
  const run = pipe.run(ctx, [channel], { inputTokens: 0, outputTokens: 10 });
  run.catch(() => {});
  return { run, events, reserves, res };
}

const whole = (): FamilyOutcome<PipelineCall> => ({
  kind: 'answer',
  status: 200,
  headers: {},
  model: 'm',
  body: 'answer',
  reported: null,
  usage: () => ({ inputTokens: 0, outputTokens: 3 }),
  other: {},
});

const relay = {
  text: '',
  framer: null,
  chunk: (c: Buffer) => c,
  end: () => '',
  event: () => '',
  tail: () => '',
  frame: (o: string | Buffer) => o,
  close: () => '',
  usage: async () => ({ usage: { inputTokens: 0, outputTokens: 2 }, reported: true }),
} as unknown as StreamRelay<PipelineCall>;

test('an answer, whole or streamed, reaches the caller only once the reserve committed', async () => {
  for (const streamed of [false, true]) {
    const body = new PassThrough();
    const up = { statusCode: 200, headers: {}, body } as unknown as UpstreamResponse;
    const { run, events, reserves, res } = setup(true, async () =>
      streamed ? { kind: 'answer', status: 200, headers: {}, model: 'm', stream: { up, relay, metered: false } } : whole(),
    );
    if (streamed) body.end('data: x\n\n');
    await tick();
    assert.deepEqual(events, ['reserve asked', 'upstream request'], 'the request left with the reserve in flight');
    assert.equal(res.head, null, 'no status line before the commit');
    assert.deepEqual(res.chunks, []);
    reserves[0].ok();
    await run;
    assert.equal(res.head, 200);
    assert.deepEqual(events.slice(2), ['reserve committed', streamed ? 'settle 2' : 'settle 3']);
  }
});

test('a failed attempt under a reserve in flight is refunded only once the reserve committed', async () => {
  const { run, events, reserves } = setup(true, async () => ({ kind: 'retry', status: 500, message: 'down' }));
  await tick();
  assert.deepEqual(events, ['reserve asked', 'upstream request']);
  reserves[0].ok();
  await assert.rejects(run, (e: GatewayError) => e.code === 'upstream_error');
  assert.deepEqual(events.slice(2), ['reserve committed', 'refund']);
});

test('a refused reserve aborts the attempt in flight; the caller gets the serial path error, nothing settled or refunded', async () => {
  const refusal = () => fail('insufficient_quota', 'quota exhausted: the account balance is too low for this request');
  // The serial path: the reserve first, refused.
  const serial = setup(false, async () => whole());
  await tick();
  assert.deepEqual(serial.events, ['reserve asked'], 'an unknown or low balance: no request before the reserve');
  serial.reserves[0].refuse(refusal());
  const want = await serial.run.then(
    () => assert.fail('served'),
    (e: GatewayError) => e,
  );

  let aborted = false;
  const o = setup(
    true,
    (signal) =>
      new Promise((_ok, no) =>
        signal!.addEventListener('abort', () => {
          aborted = true;
          no(Object.assign(new Error('aborted'), { name: 'AbortError' }));
        }),
      ),
  );
  await tick();
  assert.deepEqual(o.events, ['reserve asked', 'upstream request']);
  o.reserves[0].refuse(refusal());
  const got = await o.run.then(
    () => assert.fail('served'),
    (e: GatewayError) => e,
  );
  assert.ok(aborted, 'the upstream request was aborted');
  assert.equal(got.code, want.code);
  assert.equal(got.status, want.status);
  assert.equal(got.message, want.message);
  assert.deepEqual(o.events, ['reserve asked', 'upstream request'], 'no settle, no refund');
  assert.equal(o.res.head, null);
});

test('a streamed answer that arrived before the reserve was refused is dropped unread', async () => {
  const body = new PassThrough();
  const up = { statusCode: 200, headers: {}, body } as unknown as UpstreamResponse;
  const o = setup(true, async () => ({ kind: 'answer', status: 200, headers: {}, model: 'm', stream: { up, relay, metered: false } }));
  await tick();
  o.reserves[0].refuse(fail('insufficient_quota'));
  await assert.rejects(o.run, (e: GatewayError) => e.code === 'insufficient_quota');
  assert.ok(body.destroyed);
  assert.equal(o.res.head, null);
  assert.deepEqual(o.res.chunks, []);
});

test('another failure of the reserve aborts the attempt and is thrown as it is', async () => {
  let aborted = false;
  const o = setup(
    true,
    (signal) =>
      new Promise((_ok, no) =>
        signal!.addEventListener('abort', () => {
          aborted = true;
          no(new Error('aborted'));
        }),
      ),
  );
  await tick();
  o.reserves[0].refuse(new Error('database is locked'));
  await assert.rejects(o.run, /database is locked/);
  assert.ok(aborted);
  assert.equal(o.events.length, 2);
});
