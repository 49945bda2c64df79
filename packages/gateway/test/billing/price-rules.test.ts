/**
 * Prices beyond flat rates, through the gateway against loopback vendors that report what the vendors
 * bill, each exact to the unit against a worked example of the vendor's price page: a 250K-token call
 * on a tiered model (Claude Sonnet 4.5's long context, Gemini 2.5 Pro), a call with three web
 * searches (and the Responses API's web_search_call items), a `flex` call, an audio call, expressions
 * over the request; what each call cost upstream at the channel's cost ratio; and the reserve holding
 * each rule's bound under 50 concurrent calls (never a shortfall, the balance never negative and
 * exactly what the calls cost).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { json, startFake, type FakeUpstream, type Recorded } from '../fakes/upstreams/common.ts';
import { balance, createCaller, createChannel, waitFor } from '../relay-fixtures.ts';
import { AdminClient } from '../admin-client.ts';
import { ChannelType } from '../../src/channels/types.ts';

let gw: TestGateway;
let up: FakeUpstream;
let admin: AdminClient;
/** What the next answers report, by path kind. */
let report: (r: Recorded) => Record<string, unknown> = () => ({});

before(async () => {
  up = await startFake((r, res) => {
    const extra = report(r);
    if (r.path.includes('/messages')) {
      return json(res, 200, {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: r.body.model,
        content: [{ type: 'text', text: 'ok' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: extra.usage,
      });
    }
    if (r.path.endsWith('/responses')) {
      return json(res, 200, {
        id: 'resp_1',
        object: 'response',
        status: 'completed',
        model: r.body.model,
        output: [
          ...Array.from({ length: Number(extra.searches ?? 0) }, (_, i) => ({
            type: 'web_search_call',
            id: `ws_${i}`,
            status: 'completed',
          })),
          { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'ok', annotations: [] }] },
        ],
        usage: extra.usage,
      });
    }
    if (r.path.includes(':generateContent')) {
      return json(res, 200, {
        candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: extra.usage,
        modelVersion: 'gemini-2.5-pro',
      });
    }
    return json(res, 200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: r.body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage: extra.usage,
      ...(extra.service_tier ? { service_tier: extra.service_tier } : {}),
    });
  });
  gw = await startTestGateway();
  admin = await AdminClient.login(gw.url);
  await createChannel(gw, {
    type: ChannelType.anthropic,
    baseUrl: up.url,
    keys: ['sk-ant'],
    models: ['claude-sonnet-4-5', 'bounded-claude', 'expr-claude'],
  });
  await createChannel(gw, { type: ChannelType.gemini, baseUrl: up.url, keys: ['g-key'], models: ['gemini-2.5-pro'] });
  const oa = await createChannel(gw, {
    baseUrl: up.url,
    models: ['gpt-5', 'gpt-4o-audio-preview', 'expr-gpt', 'gpt-4.1', 'resp-search'],
    name: 'resold',
  });
  await admin.ok('PUT', `/api/channel/${oa}`, { cost_ratio: 0.8 });
  const set = (p: Record<string, unknown>) => admin.ok('PUT', '/api/price', p);
  // Anthropic: $3 / $15 per MTok, over 200K input tokens $6 / $22.50 for the whole request; web search $10 per 1,000.
  await set({
    model: 'claude-sonnet-4-5',
    input: 3,
    output: 15,
    cached_input: 0.3,
    tiers: [{ above_input_tokens: 200_000, input: 6, output: 22.5 }],
    web_search: 10,
  });
  // Google: $1.25 / $10 up to 200K prompt tokens, $2.50 / $15 above.
  await set({ model: 'gemini-2.5-pro', input: 1.25, output: 10, tiers: [{ above_input_tokens: 200_000, input: 2.5, output: 15 }] });
  // OpenAI: gpt-5 $1.25 / $10, flex at half; gpt-4o-audio-preview text $2.50 / $10, audio $40 / $80.
  await set({ model: 'gpt-5', input: 1.25, output: 10, cached_input: 0.125, service_tiers: { flex: 0.5, priority: 2 } });
  await set({ model: 'gpt-4o-audio-preview', input: 2.5, output: 10, audio_input: 40, audio_output: 80 });
});

after(async () => {
  await gw?.stop();
  await up?.close();
});

/** The newest consume row of a user, once the user has `count` of them. */
async function lastCall(userId: number, count = 1) {
  await gw.services.relay.logs.flush();
  const rows = await waitFor(
    async () => {
      const rs = await gw.core.h.db
        .selectFrom('logs')
        .selectAll()
        .where('user_id', '=', userId)
        .where('type', '=', 'consume')
        .orderBy('id', 'desc')
        .execute();
      return rs.length >= count ? rs : null;
    },
    5000,
    'consume row',
  );
  return rows[0];
}

test('a 250K-token call on Claude Sonnet 4.5 is priced whole at the long-context rates', async () => {
  const c = await createCaller(gw);
  const before = await balance(gw, c.userId);
  report = () => ({ usage: { input_tokens: 250_000, output_tokens: 2_000 } });
  const client = new Anthropic({ apiKey: c.key, baseURL: gw.url, maxRetries: 0 });
  // A prompt as long as the tokens billed: the reserve bounds it from the body's bytes.
  await client.messages.create({
    model: 'claude-sonnet-4-5',
    max_tokens: 2_000,
    messages: [{ role: 'user', content: ' hello'.repeat(250_000) }],
  });
  const row = await lastCall(c.userId);
  // (250,000 × $6 + 2,000 × $22.50) / 1M = $1.545 → 772,500 units.
  assert.equal(Number(row.quota), 772_500);
  assert.equal(before - (await balance(gw, c.userId)), 772_500);
});

test('a 250K-token call on Gemini 2.5 Pro is priced at the rates above 200K', async () => {
  const c = await createCaller(gw);
  report = () => ({ usage: { promptTokenCount: 250_000, candidatesTokenCount: 1_000, totalTokenCount: 251_000 } });
  const ai = new GoogleGenAI({ apiKey: c.key, httpOptions: { baseUrl: gw.url } });
  await ai.models.generateContent({ model: 'gemini-2.5-pro', contents: ' hello'.repeat(250_000), config: { maxOutputTokens: 1_000 } });
  // 250,000 × $2.50 + 1,000 × $15 = $0.64 → 320,000 units.
  assert.equal(Number((await lastCall(c.userId)).quota), 320_000);
});

test('three web searches the upstream reports are billed at $10 per 1,000 beside the tokens', async () => {
  const c = await createCaller(gw);
  report = () => ({ usage: { input_tokens: 1_000, output_tokens: 500, server_tool_use: { web_search_requests: 3 } } });
  const client = new Anthropic({ apiKey: c.key, baseURL: gw.url, maxRetries: 0 });
  await client.messages.create({
    model: 'claude-sonnet-4-5',
    max_tokens: 500,
    messages: [{ role: 'user', content: 'news today?' }],
    tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
  });
  const row = await lastCall(c.userId);
  // 1,000 × $3 + 500 × $15 = $0.0105, plus 3 × $0.01 → $0.0405 → 20,250 units.
  assert.equal(Number(row.quota), 20_250);
  assert.deepEqual(JSON.parse(row.other!).server_tools, { web_search: 3 });
});

test('a flex call is billed at the flex multiplier, and its upstream cost at the channel cost ratio', async () => {
  const c = await createCaller(gw);
  report = (r) => ({
    usage: { prompt_tokens: 10_000, completion_tokens: 2_000, total_tokens: 12_000 },
    service_tier: r.body.service_tier ?? 'default',
  });
  const client = new OpenAI({ apiKey: c.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  await client.chat.completions.create({
    model: 'gpt-5',
    service_tier: 'flex',
    max_completion_tokens: 2_000,
    messages: [{ role: 'user', content: 'hi' }],
  });
  const flex = await lastCall(c.userId);
  // (10,000 × $1.25 + 2,000 × $10) × 0.5 = $0.01625 → 8,125 units; the operator pays 0.8 of list: 6,500.
  assert.equal(Number(flex.quota), 8_125);
  assert.equal(Number(flex.upstream_cost), 6_500);
  await client.chat.completions.create({ model: 'gpt-5', max_completion_tokens: 2_000, messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(Number((await lastCall(c.userId, 2)).quota), 16_250);
  // The usage report's groups show revenue, upstream cost and margin per channel and per model.
  const now = Date.now();
  const rep = await admin.ok('GET', `/api/usage?from=${now - 3_600_000}&to=${now + 60_000}&group_by=model&user_id=${c.userId}`);
  const g = rep.groups.find((x: { key: string }) => x.key === 'gpt-5');
  assert.deepEqual([g.quota, g.upstream_cost, g.margin], [24_375, 19_500, 4_875]);
});

test('an audio call: audio tokens at the audio prices, the rest at the text prices', async () => {
  const c = await createCaller(gw);
  report = () => ({
    usage: {
      prompt_tokens: 1_000,
      completion_tokens: 500,
      total_tokens: 1_500,
      prompt_tokens_details: { audio_tokens: 600, cached_tokens: 0 },
      completion_tokens_details: { audio_tokens: 400, reasoning_tokens: 0 },
    },
  });
  const client = new OpenAI({ apiKey: c.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  await client.chat.completions.create({
    model: 'gpt-4o-audio-preview',
    max_tokens: 500,
    modalities: ['text', 'audio'],
    audio: { voice: 'alloy', format: 'wav' },
    messages: [{ role: 'user', content: 'say hi' }],
  });
  // 400 × $2.50 + 600 × $40 + 400 × $80 + 100 × $10 = $0.058 → 29,000 units.
  assert.equal(Number((await lastCall(c.userId)).quota), 29_000);
});

/**
 * 50 concurrent calls of `model` on a balance worth about a dozen, against an upstream that bills the
 * most it may (its own count of 50 input tokens, every output token asked for, three searches, the
 * priority tier); `perCall(max_tokens)` is what such a call costs. No call may leave a shortfall, and
 * the balance must end at exactly what the calls were charged.
 */
async function fiftyAtOnce(model: string, perCall: (out: number) => number): Promise<void> {
  report = (r) => ({
    usage: {
      input_tokens: 50,
      output_tokens: r.body.max_tokens,
      server_tool_use: { web_search_requests: 3 },
      service_tier: 'priority',
    },
  });
  const initial = perCall(200) * 12 + 777;
  const c = await createCaller(gw, { quota: initial });
  const client = new Anthropic({ apiKey: c.key, baseURL: gw.url, maxRetries: 0 });
  const sent = up.requests.length;
  const results = await Promise.allSettled(
    Array.from({ length: 50 }, () =>
      client.messages.create({
        model,
        max_tokens: 200,
        messages: [{ role: 'user', content: 'search' }],
        tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
      }),
    ),
  );
  const ok = results.filter((r) => r.status === 'fulfilled').length;
  assert.ok(ok >= 1 && ok < 50, `${ok} calls served`);
  for (const r of results) if (r.status === 'rejected') assert.match(String(r.reason), /quota|balance/i);
  await gw.services.relay.logs.flush();
  const rows = await waitFor(async () => {
    const rs = await gw.core.h.db.selectFrom('logs').selectAll().where('user_id', '=', c.userId).where('type', '=', 'consume').execute();
    return rs.length === ok ? rs : null;
  });
  // What the upstream billed, call by call, from the max_tokens it was sent (lowered when the balance ran short).
  const answered = up.requests.slice(sent).map((r) => perCall(r.body.max_tokens));
  const charged = rows.map((r) => Number(r.quota));
  assert.deepEqual([...charged].sort(), [...answered].sort());
  for (const r of rows) assert.equal(JSON.parse(r.other!).shortfall, undefined);
  const final = await balance(gw, c.userId);
  assert.ok(final >= 0);
  assert.equal(final, initial - charged.reduce((a, b) => a + b, 0));
}

test('50 concurrent calls: the reserve holds every rule at its bound, the balance never goes negative and ends exact', async () => {
  // Every rule at once: a context tier, audio output (bounded, though this upstream bills none), three searches, the priority tier doubling the tokens.
  await admin.ok('PUT', '/api/price', {
    model: 'bounded-claude',
    input: 3,
    output: 15,
    tiers: [{ above_input_tokens: 40, input: 6, output: 20 }],
    audio_output: 80,
    web_search: 10,
    service_tiers: { priority: 2 },
  });
  await fiftyAtOnce('bounded-claude', (out) => Math.round(((50 * 6 + out * 20) * 2 + 30_000) * 0.5));
});

test('50 concurrent calls priced by an expression: its bound is reserved, never a shortfall', async () => {
  await admin.ok('PUT', '/api/price', {
    model: 'expr-claude',
    expression: 'u("len") > 40 ? u("p") * 6 + u("c") * 20 + u("web_search") * 10000 : u("p") * 3 + u("c") * 15',
  });
  await fiftyAtOnce('expr-claude', (out) => Math.round((50 * 6 + out * 20 + 30_000) * 0.5));
});

test('an expression over the usage, a request parameter and a header', async () => {
  await admin.ok('PUT', '/api/price', {
    model: 'expr-gpt',
    expression: 'tier("base", u("p") * 2 + u("c") * 8) * (param("temperature") > 1 ? 2 : 1) + (header("x-tenant") == "vip" ? 0 : 1000)',
  });
  const c = await createCaller(gw);
  report = () => ({ usage: { prompt_tokens: 1_000, completion_tokens: 100, total_tokens: 1_100 } });
  const vip = new OpenAI({ apiKey: c.key, baseURL: `${gw.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-tenant': 'vip' } });
  await vip.chat.completions.create({ model: 'expr-gpt', temperature: 1.5, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
  // (1,000 × 2 + 100 × 8) × 2 per 1M = $0.0056 → 2,800 units.
  assert.equal(Number((await lastCall(c.userId)).quota), 2_800);
  const plain = new OpenAI({ apiKey: c.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  await plain.chat.completions.create({ model: 'expr-gpt', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
  // 2,800 + 1,000 = 3,800 per 1M → 1,900 units.
  assert.equal(Number((await lastCall(c.userId, 2)).quota), 1_900);
});

test("a marked-up price: revenue at the operator's price, upstream cost at the vendor's list price times the cost ratio", async () => {
  // The catalog lists gpt-4.1 at $2 / $8; the operator sells it at $3 / $12.
  await admin.ok('PUT', '/api/price', { model: 'gpt-4.1', input: 3, output: 12 });
  const c = await createCaller(gw);
  report = () => ({ usage: { prompt_tokens: 1_000, completion_tokens: 1_000, total_tokens: 2_000 } });
  const client = new OpenAI({ apiKey: c.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  await client.chat.completions.create({ model: 'gpt-4.1', max_tokens: 1_000, messages: [{ role: 'user', content: 'hi' }] });
  const row = await lastCall(c.userId);
  // Revenue (1,000 × $3 + 1,000 × $12) / 1M = $0.015; cost (1,000 × $2 + 1,000 × $8) / 1M × 0.8 = $0.008.
  assert.deepEqual([Number(row.quota), Number(row.upstream_cost)], [7_500, 4_000]);
});

test("the Responses API's web_search_call items are billed as searches", async () => {
  await admin.ok('PUT', '/api/price', { model: 'resp-search', input: 2, output: 8, web_search: 10 });
  const c = await createCaller(gw);
  report = () => ({ searches: 2, usage: { input_tokens: 100, output_tokens: 50, total_tokens: 150 } });
  const client = new OpenAI({ apiKey: c.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  await client.responses.create({ model: 'resp-search', input: 'news?', tools: [{ type: 'web_search' }], max_output_tokens: 50 });
  const row = await lastCall(c.userId);
  // (100 × $2 + 50 × $8) / 1M = $0.0006, plus 2 × $0.01 → $0.0206 → 10,300 units.
  assert.equal(Number(row.quota), 10_300);
});
