/**
 * Streams keep their events: through the gateway, with the official SDKs, every text delta an upstream
 * sends reaches the caller once and in order — same format (OpenAI chat), converted (Anthropic Messages
 * and Responses callers on an OpenAI channel), and for many streams at once with their events
 * interleaved. A caller that leaves mid-stream on a converted stream closes the upstream stream too, and
 * is charged for what it got, with one log row that says so.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { balance, consumeLog, createCaller, createChannel, setPrice, waitFor } from '../relay-fixtures.ts';

let gw: TestGateway;
let up: FakeOpenAI;
let caller: { key: string; userId: number };

before(async () => {
  gw = await startTestGateway();
  up = await startFakeOpenAI();
  await createChannel(gw, { baseUrl: up.url, models: ['order-chat'] });
  // No Responses API upstream: Responses calls are converted to chat completions.
  await createChannel(gw, { baseUrl: up.url, models: ['order-conv'], settings: { responses_api: false } });
  await setPrice(gw, 'order-chat', { input: 1, output: 1 });
  await setPrice(gw, 'order-conv', { input: 1, output: 1 });
  caller = await createCaller(gw, { quota: 10_000_000 });
});

after(async () => {
  await gw?.stop();
  await up?.close();
});

const N = 60;
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i} `);

test('same format: OpenAI chat deltas arrive once each and in order', async () => {
  up.delayMs = 1;
  try {
    const openai = new OpenAI({ apiKey: caller.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const stream = await openai.chat.completions.create({
      model: 'order-chat',
      stream: true,
      max_tokens: 4000,
      messages: [{ role: 'user', content: `long:${N}` }],
    });
    const got: string[] = [];
    for await (const chunk of stream) {
      const c = chunk.choices[0]?.delta?.content;
      if (c) got.push(c);
    }
    assert.deepEqual(got, words(N));
  } finally {
    up.delayMs = 0;
  }
});

test('converted: an Anthropic caller and a Responses caller on an OpenAI channel get every delta in order', async () => {
  up.delayMs = 1;
  try {
    const anthropic = new Anthropic({ apiKey: caller.key, baseURL: gw.url, maxRetries: 0 });
    const got: string[] = [];
    const s = anthropic.messages.stream({ model: 'order-conv', max_tokens: 4000, messages: [{ role: 'user', content: `long:${N}` }] });
    for await (const ev of s) if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') got.push(ev.delta.text);
    assert.deepEqual(got, words(N));
    assert.equal((await s.finalMessage()).stop_reason, 'end_turn');

    const openai = new OpenAI({ apiKey: caller.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const r = await openai.responses.create({ model: 'order-conv', input: `long:${N}`, max_output_tokens: 4000, stream: true });
    const deltas: string[] = [];
    let completed = 0;
    for await (const ev of r) {
      if (ev.type === 'response.output_text.delta') deltas.push(ev.delta);
      if (ev.type === 'response.completed') completed++;
    }
    assert.deepEqual(deltas, words(N));
    assert.equal(completed, 1);
  } finally {
    up.delayMs = 0;
  }
});

test('forty streams at once, their events interleaved: each in order and complete', async () => {
  up.delayMs = 2;
  try {
    const openai = new OpenAI({ apiKey: caller.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const one = async (i: number) => {
      const n = 20 + (i % 7);
      const stream = await openai.chat.completions.create({
        model: i % 2 ? 'order-chat' : 'order-conv',
        stream: true,
        max_tokens: 4000,
        messages: [{ role: 'user', content: `long:${n}` }],
      });
      const got: string[] = [];
      for await (const chunk of stream) {
        const c = chunk.choices[0]?.delta?.content;
        if (c) got.push(c);
      }
      assert.deepEqual(got, words(n), `stream ${i}`);
    };
    await Promise.all(Array.from({ length: 40 }, (_, i) => one(i)));
  } finally {
    up.delayMs = 0;
  }
});

test('a caller that leaves a converted stream mid-way: the upstream stream is closed, the call charged for what was sent', async () => {
  // An upstream that streams 2,000 words slowly and notes when its response is closed before its end.
  let cutEarly = false;
  up.override = (r, res) => {
    if (!r.body?.stream) return false;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let i = 0;
    const base = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: r.body.model };
    const timer = setInterval(() => {
      if (i >= 2000) {
        clearInterval(timer);
        res.end('data: [DONE]\n\n');
        return;
      }
      res.write(
        `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: `word${i++} ` }, finish_reason: null }] })}\n\n`,
      );
    }, 2);
    res.on('close', () => {
      if (i < 2000) cutEarly = true;
      clearInterval(timer);
    });
    return true;
  };
  try {
    // A payer of its own (the calls of the tests above may still be settling), its balance as the ledger
    // holds it: with this node's holds closed.
    const payer = await createCaller(gw, { quota: 10_000_000 });
    const settled = async () => {
      await gw.services.relay.allowances.maintain(Date.now() + 3_600_000);
      return balance(gw, payer.userId);
    };
    const before = await settled();
    const ac = new AbortController();
    const r = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      signal: ac.signal,
      headers: { 'x-api-key': payer.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'order-conv', stream: true, max_tokens: 8000, messages: [{ role: 'user', content: 'go' }] }),
    });
    assert.equal(r.status, 200);
    const rid = r.headers.get('x-request-id')!;
    const reader = r.body!.getReader();
    let text = '';
    while (text.split('text_delta').length <= 15) {
      const { value, done } = await reader.read();
      if (done) assert.fail('stream ended early');
      text += new TextDecoder().decode(value);
    }
    ac.abort();
    await waitFor(() => cutEarly, 5000, 'the upstream stream closed');
    const log = await consumeLog(gw, rid);
    assert.equal(Number(log.status_code), 499);
    assert.equal(JSON.parse(log.other!).clientGone, true);
    const out = Number(log.completion_tokens);
    assert.ok(out >= 15 && out < 2000 * 3, `completion tokens ${out} reflect what was streamed`);
    assert.equal(await settled(), before - Number(log.quota), 'charged once, for what was sent');
  } finally {
    up.override = null;
  }
});
