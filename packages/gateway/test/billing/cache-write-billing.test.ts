/**
 * Prompt-cache writes are billed at their own prices: Anthropic's 5-minute and 1-hour writes at 1.25×
 * and 2× the input price unless the price book says otherwise, exact to the unit, for Anthropic callers
 * (same format, streamed and not) and OpenAI callers (converted); the log row shows the writes. A
 * request that marks cache breakpoints reserves for its input being written, so the balance covers it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import type { FakeUpstream } from '../fakes/upstreams/common.ts';
import { startFixedUsageAnthropic } from '../fakes/upstreams/anthropic.ts';
import { balance, consumeLog, createCaller, createChannel, setPrice } from '../relay-fixtures.ts';
import { AdminClient } from '../admin-client.ts';
import { estimateInput, FAMILIES } from '../../src/relay/input-estimate.ts';

const Q = 500_000; // quota units per USD
let gw: TestGateway;
let up: FakeUpstream;
let admin: AdminClient;

/** What every answer reports: 1,000 uncached, 2,000 read, 400 written for 5 minutes and 600 for 1 hour; 100 out. */
const USAGE = {
  input_tokens: 1000,
  cache_read_input_tokens: 2000,
  cache_creation_input_tokens: 1000,
  cache_creation: { ephemeral_5m_input_tokens: 400, ephemeral_1h_input_tokens: 600 },
  output_tokens: 100,
};

before(async () => {
  up = await startFixedUsageAnthropic(USAGE);
  gw = await startTestGateway();
  admin = await AdminClient.login(gw.url);
  await createChannel(gw, { type: 14, baseUrl: up.url, keys: ['sk-ant'], models: ['claude-cw', 'claude-cw-priced'] });
  await setPrice(gw, 'claude-cw', { input: 3, output: 15, cached_input: 0.3 });
  // Explicit write prices override the defaults.
  const r = await admin.call('PUT', '/api/price', {
    model: 'claude-cw-priced',
    input: 3,
    output: 15,
    cached_input: 0.3,
    cache_write_5m: 4,
    cache_write_1h: 5,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.data.cache_write_5m, 4);
  await gw.core.cache.bump('prices');
});

after(async () => {
  await gw?.stop();
  await up?.close();
});

/** USD → units as the price book rounds (once). */
const units = (usd: number) => Math.round(usd * Q);
const DEFAULT_COST = units((1000 * 3 + 2000 * 0.3 + 400 * 3.75 + 600 * 6 + 100 * 15) / 1e6);
const PRICED_COST = units((1000 * 3 + 2000 * 0.3 + 400 * 4 + 600 * 5 + 100 * 15) / 1e6);

const messages: Anthropic.MessageParam[] = [
  { role: 'user', content: [{ type: 'text', text: 'a long shared prefix', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
];

test('Anthropic callers: 5-minute and 1-hour writes at 1.25× and 2× input by default, exact to the unit, streamed or not', async () => {
  for (const stream of [false, true]) {
    const c = await createCaller(gw, { quota: 100 * Q });
    const client = new Anthropic({ apiKey: c.key, baseURL: gw.url, maxRetries: 0 });
    const before = await balance(gw, c.userId);
    let requestId: string;
    if (stream) {
      const s = client.messages.stream({ model: 'claude-cw', max_tokens: 200, messages });
      await s.finalMessage();
      requestId = (await s.withResponse()).response.headers.get('x-request-id')!;
    } else {
      const { response } = await client.messages.create({ model: 'claude-cw', max_tokens: 200, messages }).withResponse();
      requestId = response.headers.get('x-request-id')!;
    }
    const row = await consumeLog(gw, requestId);
    assert.equal(Number(row.quota), DEFAULT_COST, `stream=${stream}`);
    assert.equal(before - (await balance(gw, c.userId)), DEFAULT_COST);
    const other = JSON.parse(String(row.other));
    assert.equal(other.cache_write_tokens, 1000);
    assert.equal(other.cache_write_1h_tokens, 600);
  }
});

test('per-model write prices override the defaults; OpenAI callers of an Anthropic channel pay the same', async () => {
  const c = await createCaller(gw, { quota: 100 * Q });
  const anthropic = new Anthropic({ apiKey: c.key, baseURL: gw.url, maxRetries: 0 });
  const a = await anthropic.messages.create({ model: 'claude-cw-priced', max_tokens: 200, messages }).withResponse();
  assert.equal(Number((await consumeLog(gw, a.response.headers.get('x-request-id')!)).quota), PRICED_COST);

  const openai = new OpenAI({ apiKey: c.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const o = await openai.chat.completions
    .create({ model: 'claude-cw', max_tokens: 200, messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  assert.equal(Number((await consumeLog(gw, o.response.headers.get('x-request-id')!)).quota), DEFAULT_COST);
  assert.equal(o.data.usage?.prompt_tokens, 4000, 'prompt tokens include reads and writes');
});

test('the user model list shows the write prices a group pays', async () => {
  const data = await admin.ok<{ items: Array<Record<string, unknown>> }>('GET', '/api/user/models');
  const cw = data.items.find((i) => i.model === 'claude-cw');
  assert.ok(cw, JSON.stringify(data.items));
  assert.equal(cw.cache_write_5m, 3.75);
  assert.equal(cw.cache_write_1h, 6);
  const priced = data.items.find((i) => i.model === 'claude-cw-priced')!;
  assert.equal(priced.cache_write_1h, 5);
});

test('a request that marks cache breakpoints reserves for its input being written: a balance for plain input only is not enough', async () => {
  // The balance covers the input at its plain price, not at the 1-hour write price (2× input). Neither
  // fits the byte bound, so the input is the tokenizer's estimate (relay/input-estimate.ts).
  const big = 'The harbour master wrote the day into his ledger. '.repeat(4000);
  const body = {
    model: 'claude-cw',
    max_tokens: 16,
    messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: big, cache_control: { type: 'ephemeral' as const } }] }],
  };
  const input = await estimateInput(body, [FAMILIES.claude]);
  assert.ok(input < big.length / 2);
  const plainInput = units((input * 3 + 16 * 15) / 1e6);
  const c = await createCaller(gw, { quota: plainInput });
  const client = new Anthropic({ apiKey: c.key, baseURL: gw.url, maxRetries: 0 });
  await assert.rejects(client.messages.create(body), (e: { status?: number }) => e.status === 429);
  assert.equal(await balance(gw, c.userId), plainInput, 'nothing was taken');
  // Without the breakpoint the same balance pays for the call.
  const { cache_control: _cc, ...plainPart } = body.messages[0].content[0];
  const ok = await client.messages.create({ ...body, messages: [{ role: 'user', content: [plainPart] }] });
  assert.equal(ok.type, 'message');
});
