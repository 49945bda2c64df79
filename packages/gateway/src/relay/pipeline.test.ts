/** The call pipeline's stream pump (relay/pipeline.ts): every reserve settled once, metered streams extended or cut. */
import test from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Grant } from '../billing/allowance.ts';
import type { TokenUsage } from '../billing/prices.ts';
import { countTokens, type TokenCounter } from '../billing/tokens.ts';
import type { NewLog } from '../logs/writer.ts';
import type { RelayDeps } from './call.ts';
import { Pipeline, type PipelineCall, type StreamRelay } from './pipeline.ts';
import { SseFramer, type SseEvent } from './sse.ts';
import type { UpstreamResponse } from './upstream.ts';

class FakeRes extends EventEmitter {
  chunks: string[] = [];
  writableEnded = false;
  writableFinished = false;
  writeHead(): void {}
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
  } as unknown as RelayDeps;
  const perToken = (_c: PipelineCall, u: TokenUsage) => u.inputTokens + u.outputTokens;
  const pipe = new Pipeline<PipelineCall>(d, (p) => p, {
    holds: true,
    attempt: () => Promise.reject(new Error('not used')),
    sticky: () => false,
    reserveOf: perToken,
    cost: perToken,
    logDetails: (c) => ({ attempts: c.attempts }),
    settleDeferMs: () => 0,
  });
  const res = new FakeRes();
  const grant: Grant = { payer: { userId: 1, keyId: 1 } as Grant['payer'], ref: 'r1', amount: 10, hold: null, done: false };
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
    payer: grant.payer,
    reserved: 10,
    grant,
    attempts: [],
    upstreamWaitMs: 0,
    firstByteMs: null,
    started: true,
    inputBound: 0,
    cacheWrites: false,
    n: 1,
    maxOut: 10,
    extensions: 0,
    admission: null,
  };
  const body = new PassThrough();
  const up = { statusCode: 200, headers: {}, body } as unknown as UpstreamResponse;
  return { pipe, ctx, res, body, up, settles, rows };
}

/** The channel of the calls (only its cost ratio is read). */
const channel = { id: 1, costRatio: 1 } as never;

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
  const { pipe, ctx, res, body, up, settles, rows } = setup(0);
  const done = pipe.stream(ctx, channel, 'm', up, new TextStream(), 200, true);
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
  const { pipe, ctx, res, body, up, settles, rows } = setup(1000);
  const done = pipe.stream(ctx, channel, 'm', up, new TextStream(), 200, true);
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
  const { pipe, ctx, res, body, up, settles, rows } = setup(0);
  ctx.maxOut = null;
  const done = pipe.stream(ctx, channel, 'm', up, new TextStream(), 200, false);
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
  const { pipe, ctx, res, body, up, settles, rows } = setup(0);
  ctx.maxOut = null;
  const done = pipe.stream(ctx, channel, 'm', up, new BreakingStream(), 200, false);
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
