/**
 * The call pipeline's stream pump (relay/pipeline/pump.ts), driven as a family's attempt answers a
 * stream: every reserve settled once, metered streams extended or cut.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Grant } from '../../billing/allowance.ts';
import type { TokenUsage } from '../../billing/prices.ts';
import { countTokens, type TokenCounter } from '../../billing/tokens.ts';
import type { NewLog } from '../../logs/writer.ts';
import type { RelayDeps } from '../call.ts';
import type { RuntimeChannel } from '../channels.ts';
import { GatewayError } from '../../platform/errors.ts';
import { Pipeline, type FamilyOutcome, type PipelineCall, type StreamRelay, type WholeAnswer } from './index.ts';
import { SseFramer, type SseEvent } from '../sse.ts';
import type { UpstreamResponse } from '../upstream.ts';

class FakeRes extends EventEmitter {
  chunks: string[] = [];
  head: { status: number; headers: Record<string, string> } | null = null;
  writableEnded = false;
  writableFinished = false;
  writeHead(status: number, headers: Record<string, string>): void {
    this.head = { status, headers };
  }
  write(c: string | Buffer): boolean {
    this.chunks.push(String(c));
    return true;
  }
  end(c?: string): void {
    if (c) this.chunks.push(c);
    this.writableEnded = true;
    this.writableFinished = true;
  }
}

/** Events whose data is the output text. */
class TextStream implements StreamRelay<PipelineCall> {
  text = '';
  readonly framer = new SseFramer();
  chunk(chunk: Buffer): Buffer {
    for (const ev of this.framer.push(chunk)) this.text += ev.data;
    return chunk;
  }
  end(): string {
    for (const ev of this.framer.end()) this.text += ev.data;
    return '';
  }
  event(ev: SseEvent): string {
    this.text += ev.data;
    return ev.raw;
  }
  tail(): string {
    return '';
  }
  frame(out: string | Buffer): string | Buffer {
    return out;
  }
  close(cut: boolean): string {
    return cut ? 'event: cut\n\n' : '';
  }
  async usage(_ctx: PipelineCall, cutAt: number | null, _gone: boolean, counter: TokenCounter) {
    return { usage: { inputTokens: 0, outputTokens: cutAt ?? (await counter.total()) }, reported: false };
  }
}

function setup(balance: number) {
  const settles: Array<{ amount: number; actual: number }> = [];
  /** The rate limits' corrections: the tokens, and how many writes the caller had by then. */
  const ends: Array<{ tokens: number; written: number }> = [];
  const res = new FakeRes();
  const rows: NewLog[] = [];
  let left = balance;
  const allowances = {
    settle(g: Grant, actual: number) {
      assert.equal(g.done, false, 'settled once');
      g.done = true;
      settles.push({ amount: g.amount, actual });
      return { charged: actual, shortfall: 0 };
    },
    extend(g: Grant, _n: number, amt: number) {
      if (left < amt) return false;
      left -= amt;
      g.amount += amt;
      return true;
    },
    reserve(payer: Grant['payer'], ref: string, amount: number): Grant {
      return { payer, ref, amount, hold: null, done: false };
    },
    refund() {
      throw new Error('nothing is refunded once a stream started');
    },
  };
  const log = { warn() {}, error() {} };
  const d = {
    core: { log, config: { quotaPerUsd: 500_000 } },
    allowances,
    prices: { groupRatio: () => 1, upstreamCost: () => 0 },
    logs: { write: (r: NewLog) => rows.push(r) },
    rateLimits: { countsTokens: () => false, admit: () => ({ end: (t: number) => ends.push({ tokens: t, written: res.chunks.length }) }) },
    channels: {
      pick: (cands: RuntimeChannel[], tried: Set<number>) => {
        const c = cands.find((x) => !tried.has(x.id));
        return c ? { channel: c, key: 'k', keyIndex: 0 } : null;
      },
    },
    policy: { maxAttempts: () => 1, succeeded() {}, failed: async () => ({ keyFault: false }) },
  } as unknown as RelayDeps;
  const perToken = (_c: PipelineCall, u: TokenUsage) => u.inputTokens + u.outputTokens;
  const body = new PassThrough();
  const up = { statusCode: 200, headers: {}, body } as unknown as UpstreamResponse;
  /** What the family's one attempt answers. */
  let outcome: FamilyOutcome<PipelineCall> | null = null;
  const pipe = new Pipeline<PipelineCall>(d, (p) => p, {
    holds: true,
    attempt: async () => outcome!,
    sticky: () => false,
    reserveOf: perToken,
    cost: perToken,
    logDetails: (c) => ({ attempts: c.attempts }),
    settleDeferMs: () => 0,
  });
  const payer = { userId: 1, keyId: 1 } as Grant['payer'];
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
    stream: true,
    price: null,
    payer,
    reserved: 0,
    grant: null,
    attempts: [],
    upstreamWaitMs: 0,
    firstByteMs: null,
    started: false,
    inputBound: 0,
    cacheWrites: false,
    n: 1,
    maxOut: 10,
    extensions: 0,
    admission: null,
  };
  /** Runs the call (a reserve of 10 units, for 10 output tokens) on one channel whose attempt answers a stream. */
  const serve = (relay: StreamRelay<PipelineCall>, metered: boolean): Promise<void> => {
    outcome = { kind: 'answer', status: 200, headers: { 'content-type': 'text/event-stream' }, model: 'm', stream: { up, relay, metered } };
    return pipe.run(ctx, [channel], { inputTokens: 0, outputTokens: 10 });
  };
  /** Runs the call whose attempt answers a whole body. */
  const serveWhole = (a: WholeAnswer): Promise<void> => {
    outcome = a;
    return pipe.run(ctx, [channel], { inputTokens: 0, outputTokens: 10 });
  };
  return { serve, serveWhole, pipe, ctx, res, body, settles, rows, ends };
}

/** The channel of the calls (its id, keys, cost ratio and model mapping are read). */
const channel = { id: 1, keys: ['k'], costRatio: 1, modelMapping: {} } as unknown as RuntimeChannel;

const words = Array.from({ length: 40 }, (_, i) => `word${i} `);
const sse = (t: string) => `data: ${t}\n\n`;

/**
 * Output tokens of `pieces` as the pump counts them: at least those of their joined text, at most the
 * sum of each piece's (once the reserve's bound is near, each event is counted on its own).
 */
async function assertCharged(actual: number, pieces: string[]): Promise<void> {
  let most = 0;
  for (const p of pieces) most += await countTokens(p);
  const least = await countTokens(pieces.join(''));
  assert.ok(actual >= least && actual <= most, `${actual} within [${least}, ${most}]`);
}

test('a metered stream the balance cannot extend is cut at what it wrote, settled once and charged what it wrote', async () => {
  const { serve, res, body, settles, rows } = setup(0);
  const done = serve(new TextStream(), true);
  for (const w of words) body.write(sse(w));
  body.end();
  await done;
  assert.equal(settles.length, 1);
  assert.equal(res.chunks.at(-1), 'event: cut\n\n');
  const written = res.chunks
    .join('')
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6));
  assert.ok(written.length > 0 && written.length < words.length);
  await assertCharged(settles[0].actual, written);
  assert.ok(settles[0].actual <= settles[0].amount);
  assert.equal(rows.length, 1);
  assert.equal(JSON.parse(rows[0].other!).cut, 'insufficient_quota');
});

test('a metered stream past its reserve is extended and charged its whole output', async () => {
  const { serve, ctx, res, body, settles, rows } = setup(1000);
  const done = serve(new TextStream(), true);
  for (const w of words) body.write(sse(w));
  body.end();
  await done;
  assert.equal(settles.length, 1);
  assert.equal(res.chunks.join(''), words.map(sse).join(''));
  await assertCharged(settles[0].actual, words);
  assert.ok(settles[0].amount > 10 && settles[0].amount >= settles[0].actual);
  assert.ok(ctx.extensions > 0);
  assert.equal(rows[0].status_code, 200);
});

test('a caller leaving mid-stream: settled once (499); the upstream ending later changes nothing', async () => {
  const { serve, ctx, res, body, settles, rows } = setup(0);
  ctx.maxOut = null;
  const done = serve(new TextStream(), false);
  body.write(sse('hello '));
  await new Promise((r) => setImmediate(r));
  res.emit('close');
  body.write(sse('world'));
  body.end();
  await done;
  await new Promise((r) => setImmediate(r));
  assert.equal(settles.length, 1);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].status_code, 499);
  assert.equal(settles[0].actual, await countTokens('hello '));
});

/** A family converter that throws on its third chunk. */
class BreakingStream extends TextStream {
  seen = 0;
  override chunk(chunk: Buffer): Buffer {
    if (++this.seen === 3) throw new Error('unreadable event');
    return super.chunk(chunk);
  }
}

test('a family converter throwing mid-stream: the stream ends as 502, settled once for what it wrote', async () => {
  const { serve, ctx, res, body, settles, rows } = setup(0);
  ctx.maxOut = null;
  const done = serve(new BreakingStream(), false);
  body.write(sse('hello '));
  body.write(sse('world '));
  body.write(sse('lost'));
  body.write(sse('never'));
  await done;
  await new Promise((r) => setImmediate(r));
  assert.equal(settles.length, 1);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].status_code, 502);
  assert.equal(res.writableEnded, true);
  assert.equal(res.chunks.join(''), sse('hello ') + sse('world '));
  assert.equal(settles[0].actual, await countTokens(`${'hello '}${'world '}`));
});

test('a whole answer: written with its length, the rate limits corrected to its report first, settled once at its usage', async () => {
  const { serveWhole, res, settles, rows, ends } = setup(0);
  let counted = 0;
  await serveWhole({
    kind: 'answer',
    status: 201,
    headers: { 'content-type': 'application/json' },
    model: 'up-m',
    body: '{"ok":true}',
    reported: { inputTokens: 3, outputTokens: 4 },
    usage: () => {
      counted++;
      return { inputTokens: 3, outputTokens: 4 };
    },
    other: { upstreamUsage: true },
  });
  assert.equal(res.head?.status, 201);
  assert.equal(res.head?.headers['content-length'], '11');
  assert.equal(res.head?.headers['content-type'], 'application/json');
  assert.equal(res.chunks.join(''), '{"ok":true}');
  assert.deepEqual(ends[0], { tokens: 7, written: 0 });
  assert.equal(counted, 1);
  assert.deepEqual(settles, [{ amount: 10, actual: 7 }]);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].status_code, 201);
  assert.equal(rows[0].upstream_model, 'up-m');
  assert.equal(JSON.parse(rows[0].other!).upstreamUsage, true);
});

test('a call on one known channel: its answer is written and settled; an unreachable upstream is one error row and upstream_error', async () => {
  const { pipe, ctx, res, settles, rows } = setup(0);
  ctx.grant = null;
  await pipe.direct(ctx, channel, async () => ({
    kind: 'answer',
    status: 200,
    headers: { 'content-type': 'application/json' },
    model: 'm',
    body: '{}',
    reported: null,
    usage: () => ({ inputTokens: 0, outputTokens: 0 }),
    other: { op: 'get' },
  }));
  assert.equal(res.chunks.join(''), '{}');
  assert.equal(settles.length, 1);
  assert.equal(rows.length, 1);
  assert.equal(JSON.parse(rows[0].other!).op, 'get');

  const second = setup(0);
  await assert.rejects(
    second.pipe.direct(second.ctx, channel, async () => ({ kind: 'retry', status: 0, message: 'connection refused' })),
    (e: unknown) => e instanceof GatewayError && e.code === 'upstream_error',
  );
  assert.equal(second.rows.length, 1);
  assert.equal(second.rows[0].type, 'error');
  assert.equal(second.settles.length, 0);
  assert.equal(second.res.head, null);
});

test('a metered stream within its bound: reads of whole events passing unchanged are written as received, the rest as the relay makes them, in order', async () => {
  const { serve, ctx, res, body, settles } = setup(1000);
  ctx.maxOut = 100_000;
  /** Drops the event whose data is `drop` and rewrites the one whose data is `shout`. */
  class Editing extends TextStream {
    override event(ev: SseEvent): string {
      this.text += ev.data;
      if (ev.data === 'drop') return '';
      if (ev.data === 'shout') return sse('SHOUT');
      return ev.raw;
    }
  }
  const written: Array<string | Buffer> = [];
  const write = res.write.bind(res);
  res.write = (c: string | Buffer) => {
    written.push(c);
    return write(c);
  };
  const done = serve(new Editing(), true);
  const reads = [
    sse('a') + sse('b'), // whole: as received
    'data: c', // the start of an event
    '\n\n' + sse('d'), // its end and a whole event: after a partial one
    sse('e'), // whole again
    sse('drop') + sse('f'), // one event dropped
    sse('shout'), // one event rewritten
    sse('g'), // whole
  ];
  const sent: Buffer[] = [];
  for (const r of reads) {
    const b = Buffer.from(r);
    sent.push(b);
    body.write(b);
    await new Promise((resolve) => setImmediate(resolve));
  }
  body.end();
  await done;
  assert.equal(res.chunks.join(''), ['a', 'b', 'c', 'd', 'e', 'f', 'SHOUT', 'g'].map(sse).join(''));
  // The whole reads were written as the very bytes received; the others as strings.
  const buffers = written.filter((c) => Buffer.isBuffer(c));
  assert.equal(buffers.length, 3);
  assert.equal(buffers[0], sent[0]);
  assert.equal(buffers[1], sent[3]);
  assert.equal(buffers[2], sent[6]);
  assert.equal(settles.length, 1);
  await assertCharged(settles[0].actual, ['a', 'b', 'c', 'd', 'e', 'drop', 'f', 'shout', 'g']);
});
