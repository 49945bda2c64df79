/**
 * `/v1/responses` served by every channel type: a Responses call for a model that only an Anthropic,
 * a Gemini or a chat-only OpenAI-compatible channel serves is converted (instructions, input items,
 * function tools and their outputs, `previous_response_id`), streamed with the Responses event names in
 * their order, and billed like chat — checked with the official `openai` SDK.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startFakeAnthropic } from '../fakes/upstreams/anthropic.ts';
import { startFakeGemini } from '../fakes/upstreams/gemini.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import type { FakeUpstream } from '../fakes/upstreams/common.ts';
import { balance, consumeLog, createCaller, createChannel, setPrice, settledBalance, waitFor } from '../relay-fixtures.ts';

let gw: TestGateway;
let ant: FakeUpstream;
let gem: FakeUpstream;
let chat: FakeOpenAI;
let client: OpenAI;
let userId: number;

const weather: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather of a city',
  strict: false,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

before(async () => {
  ant = await startFakeAnthropic();
  gem = await startFakeGemini();
  chat = await startFakeOpenAI();
  gw = await startTestGateway();
  await createChannel(gw, { type: 14, baseUrl: ant.url, keys: ['sk-ant'], models: ['claude-r'] });
  await createChannel(gw, { type: 24, baseUrl: gem.url, keys: ['g-key'], models: ['gemini-r'] });
  // An OpenAI-compatible vendor without the Responses API.
  await createChannel(gw, { type: 1, baseUrl: chat.url, models: ['chat-r'], settings: { responses_api: false } });
  for (const m of ['claude-r', 'gemini-r', 'chat-r']) await setPrice(gw, m, { input: 1, output: 2 });
  const c = await createCaller(gw, { quota: 50_000_000 });
  userId = c.userId;
  client = new OpenAI({ apiKey: c.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await gw?.stop();
  for (const u of [ant, gem, chat]) await u?.close();
});

for (const model of ['claude-r', 'gemini-r', 'chat-r']) {
  test(`${model}: a function call and its output over two turns, not streamed, billed`, async () => {
    // Once the previous test's stream has settled: its reserve given back after this read would lift the balance above `before`.
    const before = await settledBalance(gw, userId);
    const first = await client.responses.create({
      model,
      instructions: 'Be brief.',
      input: 'Weather in Paris?',
      tools: [weather],
      store: false,
    });
    assert.equal(first.object, 'response');
    assert.equal(first.status, 'completed');
    const call = first.output.find((o) => o.type === 'function_call');
    assert.ok(call && call.type === 'function_call', JSON.stringify(first.output));
    assert.equal(call.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris' });
    assert.ok(first.usage && first.usage.input_tokens > 0);
    // The next turn sends the whole conversation, as Codex does.
    const second = await client.responses.create({
      model,
      instructions: 'Be brief.',
      tools: [weather],
      store: false,
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
      ],
    });
    assert.match(second.output_text, /tool said: .*sunny/);
    await waitFor(async () => (await balance(gw, userId)) < before, 5000, 'the charge');
    const log = await consumeLog(gw, second._request_id ?? '');
    assert.equal(JSON.parse(String(log.other)).inbound, 'responses');
    const hosted = await client.responses.create({ model, input: 'hi', tools: [{ type: 'web_search' }], store: false });
    const other = JSON.parse(String((await consumeLog(gw, hosted._request_id ?? '')).other));
    assert.deepEqual(other.dropped, ['tools[0] (web_search)'], 'a hosted tool is left out and named in the log');
  });

  test(`${model}: streamed with the Responses events in their order`, async () => {
    const stream = client.responses.stream({ model, input: 'Weather in Paris?', tools: [weather], store: false });
    const types: string[] = [];
    for await (const e of stream) types.push(e.type);
    const final = await stream.finalResponse();
    assert.equal(types[0], 'response.created');
    assert.equal(types[1], 'response.in_progress');
    assert.equal(types.at(-1), 'response.completed');
    const added = types.indexOf('response.output_item.added');
    const done = types.lastIndexOf('response.output_item.done');
    assert.ok(added > 1 && done > added && done < types.length - 1, types.join(' '));
    assert.ok(types.includes('response.function_call_arguments.done'), types.join(' '));
    const call = final.output.find((o) => o.type === 'function_call');
    assert.ok(call && call.type === 'function_call' && JSON.parse(call.arguments).city === 'Paris');
    assert.ok(final.usage && final.usage.output_tokens > 0);

    const text = client.responses.stream({ model, input: 'Say hello' });
    const deltas: string[] = [];
    text.on('response.output_text.delta', (e) => deltas.push(e.delta));
    const r = await text.finalResponse();
    assert.ok(deltas.length > 0);
    const msg = r.output.find((o) => o.type === 'message');
    assert.ok(msg && msg.type === 'message');
    assert.equal(deltas.join(''), msg.content.map((c) => (c.type === 'output_text' ? c.text : '')).join(''));
    assert.match(deltas.join(''), /Hello/);
  });
}

test('previous_response_id continues a converted conversation; another user cannot', async () => {
  const first = await client.responses.create({ model: 'claude-r', input: 'Weather in Paris?', tools: [weather] });
  const call = first.output.find((o) => o.type === 'function_call');
  assert.ok(call && call.type === 'function_call');
  const n = ant.requests.length;
  const second = await client.responses.create({
    model: 'claude-r',
    previous_response_id: first.id,
    tools: [weather],
    input: [{ type: 'function_call_output', call_id: call.call_id, output: 'rainy' }],
  });
  assert.match(second.output_text, /rainy/);
  const sent = ant.requests[n].body;
  assert.equal(sent.messages.length, 3, 'the first turn, its tool call and the output reach the upstream');
  assert.equal(sent.messages[0].content[0].text ?? sent.messages[0].content, 'Weather in Paris?');

  const other = await createCaller(gw, { quota: 1_000_000 });
  const stranger = new OpenAI({ apiKey: other.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  await assert.rejects(
    stranger.responses.create({ model: 'claude-r', previous_response_id: first.id, input: 'hi' }),
    (e: { status?: number; code?: string }) => e.status === 404 && e.code === 'previous_response_not_found',
  );
});

test('a model no channel serves is a 404 a client does not retry, not a 503', async () => {
  await assert.rejects(
    client.responses.create({ model: 'nowhere-model', input: 'hi' }),
    (e: { status?: number; code?: string }) => e.status === 404 && e.code === 'model_not_found',
  );
});

test('a freeform (custom) tool reaches a converted upstream as a function of one string, and its call comes back as custom_tool_call', async () => {
  const n = ant.requests.length;
  const r = await client.responses.create({
    model: 'claude-r',
    input: 'patch it',
    store: false,
    tools: [{ type: 'custom', name: 'apply_patch', description: 'Apply a patch' }],
  });
  const sent = ant.requests[n].body;
  assert.deepEqual(
    sent.tools.map((t: { name: string }) => t.name),
    ['apply_patch'],
  );
  assert.deepEqual(sent.tools[0].input_schema.required, ['input']);
  const call = r.output.find((o) => o.type === 'custom_tool_call');
  assert.ok(call && call.type === 'custom_tool_call', JSON.stringify(r.output));
  assert.equal(call.name, 'apply_patch');
});
