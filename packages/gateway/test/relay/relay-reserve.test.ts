/**
 * The money rule of model calls: the gateway never serves what the balance cannot pay. A loopback
 * upstream counts tokens honestly (gpt-tokenizer) and answers with as many output tokens as the
 * max_tokens it was sent allows (or, for the dishonest cases, ignores it); the reserve must bound what
 * it bills, the charge must equal its usage, and no call may leave a shortfall.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startFake, type FakeUpstream, type Recorded } from '../fakes/upstreams/common.ts';
import { balance, consumeLog, createCaller, createChannel, logsFor, setPrice } from '../relay-fixtures.ts';
import { ChannelType } from '../../src/channels/types.ts';
import { estimateInput, FAMILIES } from '../../src/relay/input-estimate.ts';

let gw: TestGateway;
let up: FakeUpstream;
let anthropicCh = 0;

/** How the upstream behaves: honest, or producing `produce` output tokens whatever it was sent. */
const mode: { ignoreMax: boolean; produce: number } = { ignoreMax: false, produce: 0 };
const WORD = ' hello'; // one o200k token, and counts add up across pieces

function textOf(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
}

/** The input tokens an honest vendor bills: the message text plus its framing (3 a message, 3 a reply). */
function honestInput(messages: Array<{ content: unknown }>): number {
  let n = 3;
  for (const m of messages) n += 3 + countTokens(textOf(m.content));
  return n;
}

function answer(r: Recorded, res: ServerResponse): void {
  const b = r.body;
  if (r.path.includes('/responses')) {
    // Responses: a stream of output_text deltas, then response.completed with the usage.
    const out = mode.ignoreMax ? mode.produce : b.max_output_tokens;
    const usage = { input_tokens: countTokens(String(b.input)) + 3, output_tokens: out, total_tokens: 0 };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.on('error', () => {});
    const ev = (o: { type: string }) => `event: ${o.type}\ndata: ${JSON.stringify(o)}\n\n`;
    let s = ev({ type: 'response.created', response: { id: 'resp_1', status: 'in_progress' } } as never);
    for (let i = 0; i < out; i += 20) s += ev({ type: 'response.output_text.delta', delta: WORD.repeat(Math.min(20, out - i)) } as never);
    res.end(s + ev({ type: 'response.completed', response: { id: 'resp_1', status: 'completed', usage } } as never));
    return;
  }
  if (r.path.includes('/messages')) {
    // An Anthropic channel: the same counting in that format.
    const out = mode.ignoreMax ? mode.produce : b.max_tokens;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: b.model,
        content: [{ type: 'text', text: WORD.repeat(out) }],
        stop_reason: 'max_tokens',
        stop_sequence: null,
        usage: { input_tokens: honestInput(b.messages), output_tokens: out },
      }),
    );
    return;
  }
  const max = b.max_completion_tokens ?? b.max_tokens;
  // An honest upstream with no max_tokens would use its own default: far more than any reserve.
  const out = mode.ignoreMax ? mode.produce : typeof max === 'number' ? max : 100_000;
  const input = honestInput(b.messages);
  const usage = { prompt_tokens: input, completion_tokens: out, total_tokens: input + out };
  if (!b.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-h',
        object: 'chat.completion',
        created: 1,
        model: b.model,
        choices: [{ index: 0, message: { role: 'assistant', content: WORD.repeat(out) }, finish_reason: 'length' }],
        usage,
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.on('error', () => {});
  const chunk = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
  let s = '';
  for (let i = 0; i < out; i += 20) {
    s += chunk({
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: b.model,
      choices: [{ index: 0, delta: { content: WORD.repeat(Math.min(20, out - i)) }, finish_reason: null }],
    });
  }
  s += chunk({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: b.model,
    choices: [{ index: 0, delta: {}, finish_reason: 'length' }],
  });
  if (b.stream_options?.include_usage)
    s += chunk({ id: 'c', object: 'chat.completion.chunk', created: 1, model: b.model, choices: [], usage });
  res.end(s + 'data: [DONE]\n\n');
}

/** 3,000 CJK characters that are mostly two o200k tokens each (a plain ÷ 3 estimate misses them by far). */
const CJK = Array.from({ length: 3000 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20000))).join('');

// $2 per 1M input, $10 per 1M output: 1 unit an input token, 5 an output token (500,000 units per USD).
const cost = (input: number, output: number) => Math.round(input * 1 + output * 5);

before(async () => {
  gw = await startTestGateway();
  up = await startFake(answer);
  await createChannel(gw, { baseUrl: up.url, models: ['gpt-honest'] });
  anthropicCh = await createChannel(gw, { type: ChannelType.anthropic, baseUrl: up.url, models: ['claude-via'] });
  await setPrice(gw, 'gpt-honest', { input: 2, output: 10 });
  await setPrice(gw, 'claude-via', { input: 2, output: 10 });
});

after(async () => {
  await gw?.stop();
  await up?.close();
});

async function post(path: string, key: string, body: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'x-api-key': key, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: r.status, id: r.headers.get('x-request-id') ?? '', text: await r.text() };
}

async function ledgerRows(ref: string) {
  return gw.core.h.db.selectFrom('ledger').selectAll().where('ref', '=', ref).execute();
}

test('thirty concurrent CJK calls without max_tokens on a balance worth ten reserves: every served call charged its honest usage, no shortfall', async () => {
  const messages = [{ role: 'user', content: CJK }];
  const raw = JSON.stringify({ model: 'gpt-honest', messages });
  assert.ok(countTokens(CJK) > 5000, 'the prompt is far more tokens than characters ÷ 3');
  // The reserve of one call: the body's bytes (+16) as input, the default max_tokens (4096) as output.
  const reserve = cost(Buffer.byteLength(raw) + 16, 4096);
  const start = reserve * 10;
  const c = await createCaller(gw, { quota: start });
  up.requests.length = 0;
  mode.ignoreMax = false;
  const results = await Promise.all(
    Array.from({ length: 30 }, () => post('/v1/chat/completions', c.key, { model: 'gpt-honest', messages })),
  );
  const served = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status !== 200);
  assert.ok(served.length >= 10, `a balance worth ten reserves serves at least ten calls (served ${served.length})`);
  for (const r of refused) {
    assert.equal(r.status, 429, r.text);
    assert.equal(JSON.parse(r.text).error.code, 'insufficient_quota');
  }
  assert.equal(up.requests.length, served.length, 'nothing refused reached the upstream');
  const sentMax = new Set(up.requests.map((q) => q.body.max_completion_tokens ?? q.body.max_tokens));
  let charged = 0;
  for (const r of served) {
    const log = await consumeLog(gw, r.id);
    const j = JSON.parse(r.text);
    const usage = j.usage;
    // Every served call was sent a max_tokens, and the upstream's usage is exactly what was charged.
    assert.ok(sentMax.has(usage.completion_tokens), 'the output billed is a max_tokens sent');
    assert.equal(Number(log.quota), cost(usage.prompt_tokens, usage.completion_tokens));
    assert.equal(Number(log.prompt_tokens), usage.prompt_tokens);
    assert.equal(Number(log.completion_tokens), usage.completion_tokens);
    const other = JSON.parse(log.other ?? '{}');
    assert.equal(other.shortfall, undefined, 'no shortfall');
    assert.equal(other.upstream_over_max_tokens, undefined);
    // The reserve covered the charge.
    const rows = await ledgerRows(r.id);
    const reserved = rows.filter((x) => x.kind === 'reserve').reduce((s, x) => s + Number(x.amount), 0);
    assert.ok(reserved >= Number(log.quota), `reserve ${reserved} ≥ charge ${log.quota}`);
    charged += Number(log.quota);
  }
  for (const q of up.requests)
    assert.ok(typeof (q.body.max_completion_tokens ?? q.body.max_tokens) === 'number', 'every call sent upstream names max_tokens');
  const end = await balance(gw, c.userId);
  assert.ok(end >= 0);
  assert.equal(start - end, charged, 'the balance moved by exactly the sum of the charges');
  // Every ref is closed and the ledger agrees with the balance.
  const all = await gw.core.h.db.selectFrom('ledger').select(['ref', 'kind', 'amount']).where('user_id', '=', c.userId).execute();
  assert.equal(
    all.reduce((s, x) => s + Number(x.amount), 0),
    start - end,
  );
});

test('a chat sent to an Anthropic channel reserves exactly the max_tokens it sends', async () => {
  const c = await createCaller(gw, { quota: 10_000_000 });
  up.requests.length = 0;
  try {
    const r = await post('/v1/chat/completions', c.key, { model: 'claude-via', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.status, 200, r.text);
    assert.equal(up.requests[0].body.max_tokens, 4096, 'the default max_tokens is sent');
    const rows = await ledgerRows(r.id);
    const reserved = rows.filter((x) => x.kind === 'reserve').reduce((s, x) => s + Number(x.amount), 0);
    const raw = JSON.stringify({ model: 'claude-via', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(reserved, cost(Buffer.byteLength(raw) + 16, 4096), 'the reserve is for the same 4096 output tokens');
    const log = await consumeLog(gw, r.id);
    assert.equal(Number(log.channel_id), anthropicCh);
    assert.equal(Number(log.completion_tokens), 4096);
    assert.equal(JSON.parse(log.other ?? '{}').shortfall, undefined);
  } finally {
    mode.ignoreMax = false;
  }
});

test('a max_tokens larger than the balance covers is lowered to what it covers; below a minimal answer the call is refused', async () => {
  const body = { model: 'gpt-honest', messages: [{ role: 'user', content: 'hi' }], max_tokens: 100_000 };
  // The byte bound does not fit this balance: the input is reserved at the tokenizer's estimate.
  const inBound = await estimateInput(body, [FAMILIES.openai]);
  assert.ok(inBound < Buffer.byteLength(JSON.stringify(body)));
  const c = await createCaller(gw, { quota: cost(inBound, 1000) });
  up.requests.length = 0;
  const r = await post('/v1/chat/completions', c.key, body);
  assert.equal(r.status, 200, r.text);
  assert.equal(up.requests[0].body.max_tokens, 1000, 'max_tokens lowered to what the balance covers');
  const log = await consumeLog(gw, r.id);
  assert.equal(Number(log.quota), cost(JSON.parse(r.text).usage.prompt_tokens, 1000));
  assert.ok((await balance(gw, c.userId)) >= 0);
  // Not even 16 output tokens: refused, nothing sent.
  const poor = await createCaller(gw, { quota: cost(inBound, 15) });
  up.requests.length = 0;
  const r2 = await post('/v1/chat/completions', poor.key, body);
  assert.equal(r2.status, 429);
  assert.equal(JSON.parse(r2.text).error.code, 'insufficient_quota');
  assert.equal(up.requests.length, 0);
  assert.equal(await balance(gw, poor.userId), cost(inBound, 15));
});

test('a zero balance with max_tokens of 1e308 is refused in every family and nothing is served', async () => {
  const c = await createCaller(gw, { quota: 0 });
  up.requests.length = 0;
  const huge = 1e308;
  const oa = await post('/v1/chat/completions', c.key, {
    model: 'gpt-honest',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: huge,
  });
  assert.equal(oa.status, 400, oa.text);
  assert.equal(JSON.parse(oa.text).error.param, null);
  assert.match(JSON.parse(oa.text).error.message, /max_tokens/);
  for (const [field, value] of [
    ['max_completion_tokens', huge],
    ['max_tokens', 1.5],
    ['max_tokens', -1],
    ['n', huge],
    ['n', 0],
  ] as const) {
    const r = await post('/v1/chat/completions', c.key, {
      model: 'gpt-honest',
      messages: [{ role: 'user', content: 'hi' }],
      [field]: value,
    });
    assert.equal(r.status, 400, `${field}=${value}: ${r.text}`);
  }
  const an = await post(
    '/v1/messages',
    c.key,
    { model: 'claude-via', max_tokens: huge, messages: [{ role: 'user', content: 'hi' }] },
    { 'anthropic-version': '2023-06-01' },
  );
  assert.equal(an.status, 400, an.text);
  assert.equal(JSON.parse(an.text).type, 'error');
  assert.equal(JSON.parse(an.text).error.type, 'invalid_request_error');
  const ge = await post(
    '/v1beta/models/gpt-honest:generateContent',
    c.key,
    { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: huge } },
    { 'x-goog-api-key': c.key },
  );
  assert.equal(ge.status, 400, ge.text);
  assert.equal(JSON.parse(ge.text).error.status, 'INVALID_ARGUMENT');
  const gn = await post(
    '/v1beta/models/gpt-honest:generateContent',
    c.key,
    { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { candidateCount: huge } },
    { 'x-goog-api-key': c.key },
  );
  assert.equal(gn.status, 400, gn.text);
  const resp = await post('/v1/responses', c.key, { model: 'gpt-honest', input: 'hi', max_output_tokens: huge });
  assert.equal(resp.status, 400, resp.text);
  assert.match(JSON.parse(resp.text).error.message, /max_output_tokens/);
  const img = await post('/v1/images/generations', c.key, { model: 'gpt-honest', prompt: 'a cat', n: huge });
  assert.equal(img.status, 400, img.text);
  const respNone = await post('/v1/responses', c.key, { model: 'gpt-honest', input: 'hi' });
  assert.equal(respNone.status, 429, respNone.text);
  // Without max_tokens a zero balance is refused too (the reserve of a priced call is never 0).
  const none = await post('/v1/chat/completions', c.key, { model: 'gpt-honest', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(none.status, 429, none.text);
  const tiny = await post('/v1/chat/completions', c.key, {
    model: 'gpt-honest',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 1,
  });
  assert.equal(tiny.status, 429, tiny.text);
  assert.equal(up.requests.length, 0, 'nothing was served');
  assert.equal(await balance(gw, c.userId), 0);
});

test('a stream that runs past its reserve on a small balance is cut cleanly and charged exactly what it produced', async () => {
  const body = { model: 'gpt-honest', messages: [{ role: 'user', content: 'hi' }], max_tokens: 100, stream: true };
  const inBound = Buffer.byteLength(JSON.stringify(body)) + 16;
  // Enough for the reserve and about 300 more output tokens; the upstream sends 5,000.
  const start = cost(inBound, 400);
  const c = await createCaller(gw, { quota: start });
  mode.ignoreMax = true;
  mode.produce = 5000;
  try {
    const r = await post('/v1/chat/completions', c.key, body);
    assert.equal(r.status, 200);
    let text = '';
    let error: { code?: string } | null = null;
    let done = false;
    for (const line of r.text.split('\n')) {
      if (!line.startsWith('data: ')) continue;
      const d = line.slice(6);
      if (d === '[DONE]') {
        done = true;
        continue;
      }
      const j = JSON.parse(d);
      if (j.error) error = j.error;
      else text += j.choices?.[0]?.delta?.content ?? '';
    }
    assert.equal(error?.code, 'insufficient_quota', 'the stream ends with an insufficient_quota error event');
    assert.equal(done, false);
    const produced = countTokens(text);
    assert.ok(produced >= 100 && produced < 5000, `cut after the reserve ran out (${produced} tokens written)`);
    const log = await consumeLog(gw, r.id);
    assert.equal(Number(log.completion_tokens), produced, 'charged for the output written, no more');
    assert.equal(Number(log.quota), cost(Number(log.prompt_tokens), produced));
    const other = JSON.parse(log.other ?? '{}');
    assert.equal(other.shortfall, undefined, 'no shortfall');
    assert.equal(other.cut, 'insufficient_quota');
    const end = await balance(gw, c.userId);
    assert.ok(end >= 0);
    assert.equal(start - end, Number(log.quota));
    const rows = await ledgerRows(r.id);
    assert.ok(
      rows.some((x) => x.kind.startsWith('extend:')),
      'the reserve was extended before it ran out',
    );
  } finally {
    mode.ignoreMax = false;
  }
});

test('a Responses stream past its max_output_tokens on a small balance is cut and charged what it wrote', async () => {
  const body = { model: 'gpt-honest', input: 'hi', max_output_tokens: 100, stream: true };
  const inBound = Buffer.byteLength(JSON.stringify(body)) + 16;
  const start = cost(inBound, 400);
  const c = await createCaller(gw, { quota: start });
  mode.ignoreMax = true;
  mode.produce = 5000;
  try {
    const r = await post('/v1/responses', c.key, body);
    assert.equal(r.status, 200);
    let text = '';
    let error: { code?: string } | null = null;
    for (const line of r.text.split('\n')) {
      if (!line.startsWith('data: ')) continue;
      const j = JSON.parse(line.slice(6));
      if (j.type === 'error') error = j;
      else if (j.type === 'response.output_text.delta') text += j.delta;
    }
    assert.equal(error?.code, 'insufficient_quota');
    const produced = countTokens(text);
    assert.ok(produced >= 100 && produced < 5000, `cut after the reserve ran out (${produced} tokens written)`);
    const log = await consumeLog(gw, r.id);
    assert.equal(Number(log.completion_tokens), produced);
    assert.equal(Number(log.quota), cost(Number(log.prompt_tokens), produced));
    assert.equal(JSON.parse(log.other ?? '{}').shortfall, undefined);
    const end = await balance(gw, c.userId);
    assert.ok(end >= 0);
    assert.equal(start - end, Number(log.quota));
  } finally {
    mode.ignoreMax = false;
  }
});

test('an upstream that ignores max_tokens on a stream: the reserve is extended, the charge is its usage, the channel is noted', async () => {
  const c = await createCaller(gw, { quota: 10_000_000 });
  mode.ignoreMax = true;
  mode.produce = 700;
  try {
    const r = await post('/v1/chat/completions', c.key, {
      model: 'gpt-honest',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 50,
      stream: true,
    });
    assert.equal(r.status, 200);
    assert.ok(r.text.includes('[DONE]'));
    const log = await consumeLog(gw, r.id);
    assert.equal(Number(log.completion_tokens), 700);
    assert.equal(Number(log.quota), cost(Number(log.prompt_tokens), 700));
    const other = JSON.parse(log.other ?? '{}');
    assert.equal(other.shortfall, undefined);
    assert.deepEqual(other.upstream_over_max_tokens, { sent: 50, n: 1, billed: 700 });
    const rows = await ledgerRows(r.id);
    assert.ok(rows.some((x) => x.kind.startsWith('extend:')));
    assert.equal(await balance(gw, c.userId), 10_000_000 - Number(log.quota));
  } finally {
    mode.ignoreMax = false;
  }
});

test("5,000 levels of nesting: 400 in the family's envelope, nothing sent, the channel not blamed", async () => {
  const c = await createCaller(gw, { quota: 10_000_000 });
  // Built as text: the deep value is more than JSON.stringify itself can take.
  const deep = '{"a":'.repeat(5000) + '"x"' + '}'.repeat(5000);
  up.requests.length = 0;
  const body = {
    model: 'claude-via',
    max_tokens: 10,
    stream: true,
    messages: [{ role: 'user', content: 'hi' }],
    tools: [{ name: 't', input_schema: { type: 'object', properties: { p: 'DEEP' } } }],
  };
  const r = await post('/v1/messages', c.key, JSON.stringify(body).replace('"DEEP"', deep), { 'anthropic-version': '2023-06-01' });
  assert.equal(r.status, 400, r.text);
  assert.equal(JSON.parse(r.text).error.type, 'invalid_request_error');
  assert.match(JSON.parse(r.text).error.message, /deeper than 128/);
  const oaBody = {
    model: 'claude-via',
    stream: true,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', extra: 'DEEP' }] }],
  };
  const oa = await post('/v1/chat/completions', c.key, JSON.stringify(oaBody).replace('"DEEP"', deep));
  assert.equal(oa.status, 400, oa.text);
  assert.equal(up.requests.length, 0);
  assert.equal((await logsFor(gw, r.id)).length, 0, 'no error row against the channel');
  // 100 levels are fine and the channel still serves at once (no cooldown).
  const ok = '{"a":'.repeat(100) + '"x"' + '}'.repeat(100);
  const fine = await post('/v1/messages', c.key, JSON.stringify({ ...body, stream: false }).replace('"DEEP"', ok), {
    'anthropic-version': '2023-06-01',
  });
  assert.equal(fine.status, 200, fine.text);
});
