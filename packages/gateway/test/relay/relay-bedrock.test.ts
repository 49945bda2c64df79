/**
 * Amazon Bedrock channels against a loopback Bedrock that recomputes the SigV4 signature of every
 * request (test/fakes/upstreams/bedrock.ts): OpenAI and Anthropic callers through their official SDKs, plain
 * and streamed (ConverseStream's event-stream framing), Gemini-native and Responses callers, thinking and the caller's Anthropic betas carried
 * in additionalModelRequestFields, tool calls and their results, cache reads and writes billed, a wrong
 * secret refused without the secret or the signature reaching the caller, temporary credentials (a
 * session token), a Bedrock API key with settings.region, a throttled channel retried on another, an
 * upstream validation error answered as it is, and channels made through the admin API (a malformed key
 * refused).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { BEDROCK_USAGE, startFakeBedrock, type FakeBedrock } from '../fakes/upstreams/bedrock.ts';
import { balance, consumeLog, createCaller, createChannel, setPrice } from '../relay-fixtures.ts';

const Q = 500_000; // quota units per USD
const AK = { accessKeyId: 'AKIAGATEHOUSETEST001', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYgatehouse01', region: 'us-east-1' };
const TEMP = {
  accessKeyId: 'ASIAGATEHOUSETEST002',
  secretAccessKey: 'temporarySecretKeyForTheGatehouseTests02',
  region: 'eu-west-1',
  sessionToken: 'IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQ+test=',
};
const API_KEY = 'ABSKQmVkcm9ja0FQSUtleS1nYXRlaG91c2UtdGVzdA==';
const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const PRICE = { input: 4, output: 10, cached_input: 0.4 };
/** 20 uncached at $4, 300 read at $0.4, 100 written at 1.25 × $4, 12 out at $10 (per million). */
const COST = Math.round(((20 * 4 + 300 * 0.4 + 100 * 5 + 12 * 10) / 1e6) * Q);

let gw: TestGateway;
let br: FakeBedrock;
let caller: { key: string; userId: number; keyId: number };

const akKey = (c: { accessKeyId: string; secretAccessKey: string; region: string; sessionToken?: string }) =>
  [c.accessKeyId, c.secretAccessKey, c.region, ...(c.sessionToken ? [c.sessionToken] : [])].join('|');

before(async () => {
  gw = await startTestGateway();
  br = await startFakeBedrock();
  br.allow(AK);
  br.allow(TEMP);
  br.allowApiKey(API_KEY, 'us-west-2');
  await createChannel(gw, {
    type: 33,
    baseUrl: br.up.url,
    keys: [akKey(AK)],
    models: ['claude-br', 'nova-br'],
    modelMapping: { 'claude-br': CLAUDE, 'nova-br': 'amazon.nova-pro-v1:0' },
  });
  await createChannel(gw, {
    type: 33,
    baseUrl: br.up.url,
    keys: [akKey(TEMP)],
    models: ['claude-temp'],
    modelMapping: { 'claude-temp': CLAUDE },
  });
  await createChannel(gw, {
    type: 33,
    baseUrl: br.up.url,
    keys: [API_KEY],
    models: ['claude-apikey'],
    modelMapping: { 'claude-apikey': CLAUDE },
    settings: { region: 'us-west-2' },
  });
  await createChannel(gw, {
    type: 33,
    baseUrl: br.up.url,
    keys: [akKey({ ...AK, secretAccessKey: 'TheWrongSecretKeyOfTheGatehouseTests999' })],
    models: ['claude-wrong'],
  });
  // A throttled channel first, a healthy one after it.
  await createChannel(gw, {
    type: 33,
    baseUrl: br.up.url,
    keys: [akKey(AK)],
    models: ['claude-retry'],
    modelMapping: { 'claude-retry': 'anthropic.claude-throttle-v1:0' },
    priority: 10,
  });
  await createChannel(gw, {
    type: 33,
    baseUrl: br.up.url,
    keys: [akKey(AK)],
    models: ['claude-retry'],
    modelMapping: { 'claude-retry': CLAUDE },
  });
  await createChannel(gw, {
    type: 33,
    baseUrl: br.up.url,
    keys: [akKey(AK)],
    models: ['claude-invalid'],
    modelMapping: { 'claude-invalid': 'anthropic.claude-invalid-v1:0' },
  });
  await createChannel(gw, {
    type: 33,
    baseUrl: br.up.url,
    keys: [akKey(AK)],
    models: ['claude-fault'],
    modelMapping: { 'claude-fault': 'anthropic.claude-stream-fault-v1:0' },
  });
  for (const m of [
    'claude-br',
    'nova-br',
    'claude-temp',
    'claude-apikey',
    'claude-wrong',
    'claude-retry',
    'claude-invalid',
    'claude-fault',
  ])
    await setPrice(gw, m, PRICE);
  caller = await createCaller(gw);
});
after(async () => {
  await gw?.stop();
  await br?.close();
});

const openai = () => new OpenAI({ apiKey: caller.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const anthropic = (headers?: Record<string, string>) =>
  new Anthropic({ apiKey: caller.key, baseURL: gw.url, maxRetries: 0, defaultHeaders: headers });
const lastCall = () => br.calls[br.calls.length - 1];

test('OpenAI SDK: plain and streamed, SigV4-signed, the model id in the path, usage with cache reads and writes', async () => {
  const c = await openai().chat.completions.create({
    model: 'claude-br',
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
    ],
  });
  assert.equal(c.choices[0].message.content, 'Hello from Bedrock');
  assert.equal(c.choices[0].finish_reason, 'stop');
  assert.equal(
    c.usage?.prompt_tokens,
    BEDROCK_USAGE.inputTokens + BEDROCK_USAGE.cacheReadInputTokens + BEDROCK_USAGE.cacheWriteInputTokens,
  );
  assert.equal(c.usage?.completion_tokens, BEDROCK_USAGE.outputTokens);
  assert.equal(c.usage?.prompt_tokens_details?.cached_tokens, BEDROCK_USAGE.cacheReadInputTokens);
  const call = lastCall();
  assert.deepEqual(
    [call.model, call.stream, call.auth, call.principal, call.region],
    [CLAUDE, false, 'sigv4', AK.accessKeyId, 'us-east-1'],
  );
  assert.ok(call.signedHeaders!.includes('x-amz-content-sha256') && call.signedHeaders!.includes('host'), call.signedHeaders!.join(';'));
  assert.deepEqual(call.body.system, [{ text: 'be brief' }]);
  assert.deepEqual(call.body.messages, [{ role: 'user', content: [{ text: 'hi' }] }]);
  assert.equal(typeof call.body.inferenceConfig.maxTokens, 'number', 'the reserve caps maxTokens');
  assert.ok(
    br.up.requests.some((r) => r.path === `/model/${encodeURIComponent(CLAUDE)}/converse`),
    'the model id is URL-encoded in the path',
  );

  for (const model of ['claude-br', 'nova-br']) {
    const s = await openai().chat.completions.create({
      model,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    let finish: string | null = null;
    for await (const ch of s) {
      text += ch.choices[0]?.delta?.content ?? '';
      finish = ch.choices[0]?.finish_reason ?? finish;
      if (ch.usage) usage = ch.usage;
    }
    assert.equal(text, 'Hello from Bedrock', model);
    assert.equal(finish, 'stop');
    assert.equal(usage?.prompt_tokens, 420);
    assert.equal(usage?.completion_tokens, 12);
    assert.equal(lastCall().stream, true);
  }
  assert.equal(lastCall().model, 'amazon.nova-pro-v1:0');
  assert.ok(br.up.requests.some((r) => r.path.endsWith('/converse-stream')));
});

test('Anthropic SDK: thinking and the anthropic-beta header reach Bedrock in additionalModelRequestFields; plain and streamed', async () => {
  const client = anthropic({ 'anthropic-beta': 'interleaved-thinking-2025-05-14' });
  const m = await client.messages.create({
    model: 'claude-br',
    max_tokens: 4000,
    thinking: { type: 'enabled', budget_tokens: 2000 },
    messages: [{ role: 'user', content: 'think' }],
  });
  const call = lastCall();
  assert.deepEqual(call.body.additionalModelRequestFields, {
    thinking: { type: 'enabled', budget_tokens: 2000 },
    anthropic_beta: ['interleaved-thinking-2025-05-14'],
  });
  assert.equal(call.body.inferenceConfig.maxTokens, 4000);
  assert.equal(m.content[0].type, 'thinking');
  if (m.content[0].type === 'thinking') {
    assert.equal(m.content[0].thinking, 'Let me think.');
    assert.equal(m.content[0].signature, 'sig-bedrock');
  }
  assert.equal(m.content[1].type === 'text' ? m.content[1].text : '', 'Hello from Bedrock');
  assert.equal(m.stop_reason, 'end_turn');
  assert.deepEqual(
    [m.usage.input_tokens, m.usage.cache_read_input_tokens, m.usage.cache_creation_input_tokens, m.usage.output_tokens],
    [BEDROCK_USAGE.inputTokens, BEDROCK_USAGE.cacheReadInputTokens, BEDROCK_USAGE.cacheWriteInputTokens, BEDROCK_USAGE.outputTokens],
  );

  const s = client.messages.stream({
    model: 'claude-br',
    max_tokens: 4000,
    thinking: { type: 'enabled', budget_tokens: 2000 },
    messages: [{ role: 'user', content: 'think' }],
  });
  const f = await s.finalMessage();
  assert.equal(lastCall().stream, true);
  assert.deepEqual(lastCall().body.additionalModelRequestFields.anthropic_beta, ['interleaved-thinking-2025-05-14']);
  const thinking = f.content.find((b) => b.type === 'thinking');
  assert.ok(
    thinking && thinking.type === 'thinking' && thinking.thinking === 'Let me think.' && thinking.signature === 'sig-bedrock',
    JSON.stringify(f.content),
  );
  const text = f.content.find((b) => b.type === 'text');
  assert.equal(text && text.type === 'text' ? text.text : '', 'Hello from Bedrock');
  assert.equal(f.usage.output_tokens, BEDROCK_USAGE.outputTokens);
  assert.equal(f.usage.cache_read_input_tokens, BEDROCK_USAGE.cacheReadInputTokens);

  // A later turn sends the signed reasoning back as Bedrock's reasoningContent.
  await client.messages.create({
    model: 'claude-br',
    max_tokens: 4000,
    thinking: { type: 'enabled', budget_tokens: 2000 },
    messages: [
      { role: 'user', content: 'think' },
      { role: 'assistant', content: f.content as Anthropic.ContentBlockParam[] },
      { role: 'user', content: 'again' },
    ],
  });
  const back = lastCall().body.messages[1].content;
  assert.deepEqual(back[0], { reasoningContent: { reasoningText: { text: 'Let me think.', signature: 'sig-bedrock' } } });
});

test('Gemini-native and Responses callers reach a Bedrock channel too', async () => {
  const g = await fetch(`${gw.url}/v1beta/models/claude-br:generateContent`, {
    method: 'POST',
    headers: { 'x-goog-api-key': caller.key, 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
  });
  const gj = (await g.json()) as any;
  assert.equal(gj.candidates[0].content.parts[0].text, 'Hello from Bedrock');
  assert.equal(gj.usageMetadata.promptTokenCount, 420);
  const gs = await fetch(`${gw.url}/v1beta/models/claude-br:streamGenerateContent?alt=sse`, {
    method: 'POST',
    headers: { 'x-goog-api-key': caller.key, 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
  });
  const text = [...(await gs.text()).matchAll(/"text":"([^"]*)"/g)].map((m) => m[1]).join('');
  assert.equal(text, 'Hello from Bedrock');
  const r = await openai().responses.create({ model: 'claude-br', input: 'hi' });
  assert.equal(r.output_text, 'Hello from Bedrock');
});

test('tool calls: a call and its result through the OpenAI SDK, and a streamed call', async () => {
  const tools: OpenAI.ChatCompletionTool[] = [
    {
      type: 'function',
      function: { name: 'get_weather', description: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    },
  ];
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'weather in Paris?' }];
  const r1 = await openai().chat.completions.create({ model: 'claude-br', messages, tools, tool_choice: 'required' });
  const tc = r1.choices[0].message.tool_calls?.[0];
  assert.equal(r1.choices[0].finish_reason, 'tool_calls');
  assert.ok(tc && tc.type === 'function');
  assert.equal(tc.function.name, 'get_weather');
  assert.deepEqual(JSON.parse(tc.function.arguments), { city: 'Paris' });
  assert.deepEqual(lastCall().body.toolConfig, {
    tools: [
      {
        toolSpec: {
          name: 'get_weather',
          description: 'weather',
          inputSchema: { json: tools[0].type === 'function' ? tools[0].function.parameters : {} },
        },
      },
    ],
    toolChoice: { any: {} },
  });

  messages.push(r1.choices[0].message, { role: 'tool', tool_call_id: tc.id, content: 'sunny' });
  const r2 = await openai().chat.completions.create({ model: 'claude-br', messages, tools });
  assert.equal(r2.choices[0].message.content, 'tool said: sunny');
  const sent = lastCall().body.messages;
  assert.deepEqual(sent[1], {
    role: 'assistant',
    content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } }],
  });
  assert.deepEqual(sent[2], { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: 'sunny' }] } }] });

  const s = await openai().chat.completions.create({
    model: 'claude-br',
    stream: true,
    messages: [{ role: 'user', content: 'weather?' }],
    tools,
  });
  let name = '';
  let args = '';
  let id = '';
  let finish: string | null = null;
  for await (const ch of s) {
    for (const t of ch.choices[0]?.delta?.tool_calls ?? []) {
      id ||= t.id ?? '';
      name += t.function?.name ?? '';
      args += t.function?.arguments ?? '';
    }
    finish = ch.choices[0]?.finish_reason ?? finish;
  }
  assert.deepEqual([id, name, JSON.parse(args), finish], ['tooluse_1', 'get_weather', { city: 'Paris' }, 'tool_calls']);
});

test('cache reads and writes are charged at their prices, plain and streamed', async () => {
  for (const stream of [false, true]) {
    const c = await createCaller(gw, { quota: 100 * Q });
    const client = new Anthropic({ apiKey: c.key, baseURL: gw.url, maxRetries: 0 });
    const before = await balance(gw, c.userId);
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'a long shared prefix', cache_control: { type: 'ephemeral' } }] },
    ];
    let requestId: string;
    if (stream) {
      const s = client.messages.stream({ model: 'claude-br', max_tokens: 100, messages });
      await s.finalMessage();
      requestId = (await s.withResponse()).response.headers.get('x-request-id')!;
    } else {
      const { response } = await client.messages.create({ model: 'claude-br', max_tokens: 100, messages }).withResponse();
      requestId = response.headers.get('x-request-id')!;
    }
    // The caller's cache breakpoint became a cachePoint after its block.
    assert.deepEqual(lastCall().body.messages[0].content, [{ text: 'a long shared prefix' }, { cachePoint: { type: 'default' } }]);
    const log = await consumeLog(gw, requestId);
    assert.equal(Number(log.quota), COST, `stream ${stream}`);
    assert.equal(log.prompt_tokens, 420);
    assert.equal(log.cached_tokens, 300);
    assert.equal(JSON.parse(log.other ?? '{}').cache_write_tokens, 100);
    assert.equal(before - (await balance(gw, c.userId)), COST, `stream ${stream}: the balance pays the exact cost`);
  }
});

test('a wrong secret is refused by the signature check; the caller sees neither the secret nor the signature', async () => {
  const before = br.refused.length;
  const r = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${caller.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-wrong', messages: [{ role: 'user', content: 'hi' }] }),
  });
  const text = await r.text();
  assert.ok(r.status >= 400, text);
  assert.deepEqual(
    br.refused.slice(before).map((x) => x.type),
    ['InvalidSignatureException'],
  );
  assert.match(text, /InvalidSignatureException/);
  assert.doesNotMatch(text, /TheWrongSecretKey|wJalrXUtnFEMI/, 'no secret');
  assert.doesNotMatch(text, /Signature=[0-9a-f]{64}/, 'no signature');
});

test('temporary credentials: the session token is sent and signed', async () => {
  const c = await openai().chat.completions.create({ model: 'claude-temp', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(c.choices[0].message.content, 'Hello from Bedrock');
  const call = lastCall();
  assert.deepEqual([call.auth, call.principal, call.region], ['sigv4', TEMP.accessKeyId, 'eu-west-1']);
  assert.ok(call.signedHeaders!.includes('x-amz-security-token'));
  const s = await openai().chat.completions.create({ model: 'claude-temp', stream: true, messages: [{ role: 'user', content: 'hi' }] });
  let text = '';
  for await (const ch of s) text += ch.choices[0]?.delta?.content ?? '';
  assert.equal(text, 'Hello from Bedrock');
});

test('a Bedrock API key is sent as a bearer token; its region comes from settings.region', async () => {
  const m = await anthropic().messages.create({ model: 'claude-apikey', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(m.content[0].type === 'text' ? m.content[0].text : '', 'Hello from Bedrock');
  const call = lastCall();
  assert.deepEqual([call.auth, call.principal, call.region], ['api_key', API_KEY, 'us-west-2']);
  const r = br.up.requests[br.up.requests.length - 1];
  assert.equal(r.headers['x-amz-date'], undefined, 'no signature with an API key');
});

test('a throttled channel (429) is retried on another channel', async () => {
  const before = br.calls.length;
  const c = await openai().chat.completions.create({ model: 'claude-retry', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(c.choices[0].message.content, 'Hello from Bedrock');
  assert.deepEqual(
    br.calls.slice(before).map((x) => x.model),
    ['anthropic.claude-throttle-v1:0', CLAUDE],
  );
});

test("an upstream validation error (400) reaches the caller with Bedrock's message, in the caller's format", async () => {
  const r = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': caller.key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-invalid', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(r.status, 400);
  const j = (await r.json()) as { type: string; error: { message: string } };
  assert.equal(j.type, 'error');
  assert.match(j.error.message, /ValidationException: The provided model identifier is invalid/);
});

test('an exception inside the event stream ends the stream with an error event', async () => {
  const r = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': caller.key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-fault', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const text = await r.text();
  assert.match(text, /"text_delta","text":"Bedrock"/, 'the text before the exception');
  assert.match(text, /event: error\ndata: .*The model stream failed/);
});

test('bedrock channels through the admin API: the channel test signs its call; a malformed key is refused', async () => {
  const root = await AdminClient.login(gw.url);
  const made = await root.ok('POST', '/api/channel', {
    name: 'br-admin',
    type: 'bedrock',
    base_url: br.up.url,
    keys: [akKey(AK)],
    models: ['claude-admin'],
    model_mapping: { 'claude-admin': CLAUDE },
  });
  assert.equal(made.type, 33);
  const t = await root.ok('POST', `/api/channel/${made.id}/test`, {});
  assert.equal(t.status, 200, JSON.stringify(t));
  assert.equal(lastCall().model, CLAUDE);
  const key = await root.ok('POST', '/api/channel', {
    name: 'br-admin-key',
    type: 'bedrock',
    base_url: br.up.url,
    keys: [API_KEY],
    models: ['claude-admin-key'],
    settings: { region: 'us-west-2' },
  });
  const t2 = await root.ok('POST', `/api/channel/${key.id}/test`, {});
  assert.equal(t2.status, 200, JSON.stringify(t2));

  const bad = async (keys: string[], settings?: Record<string, unknown>, field = 'keys[0]') => {
    const r = await root.fails(
      400,
      'POST',
      '/api/channel',
      { name: `br-bad-${Math.random()}`, type: 'bedrock', keys, models: ['x'], ...(settings ? { settings } : {}) },
      field,
    );
    assert.doesNotMatch(r.text, /wJalrXUtnFEMI|SECRETPART/, 'the refusal does not repeat the key');
    return r;
  };
  await bad(['AKIAGATEHOUSETEST001|SECRETPART']);
  await bad(['AKIAGATEHOUSETEST001|SECRETPART|not a region']);
  await bad([`${akKey(AK)}|`]);
  await bad([API_KEY]); // an API key without settings.region
  await bad([API_KEY], { region: 'Mars' }, 'settings.region');
});
