/**
 * Gemini-native model actions with the official @google/genai SDK: pass-through to a Gemini upstream,
 * conversion to an OpenAI upstream, embeddings, countTokens, the JSON-array stream, model lists in the
 * three shapes, and errors in the Gemini envelope.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, GoogleGenAI, Type } from '@google/genai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import type { FakeUpstream } from '../fakes/upstreams/common.ts';
import { startFakeGemini, GEMINI_USAGE } from '../fakes/upstreams/gemini.ts';
import { startFakeOpenAI, USAGE, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { balance, consumeLog, createCaller, createChannel, setPrice } from '../relay-fixtures.ts';

let gw: TestGateway;
let gem: FakeUpstream;
let oa: FakeOpenAI;
let caller: { key: string; userId: number; keyId: number };

before(async () => {
  gw = await startTestGateway();
  gem = await startFakeGemini();
  oa = await startFakeOpenAI();
  await createChannel(gw, { type: 24, baseUrl: gem.url, keys: ['g-key'], models: ['gemini-pass', 'gemini-embed'] });
  await createChannel(gw, { baseUrl: oa.url, models: ['gpt-g', 'text-embed-g'] });
  for (const m of ['gemini-pass', 'gemini-embed', 'gpt-g', 'text-embed-g']) await setPrice(gw, m, { input: 2, output: 2 }); // 1 unit per token
  caller = await createCaller(gw);
});
after(async () => {
  await gw?.stop();
  await gem?.close();
  await oa?.close();
});

const sdk = (key = caller.key) => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } });
const rid = (r: { sdkHttpResponse?: { headers?: Record<string, string> } }) => r.sdkHttpResponse?.headers?.['x-request-id'] ?? '';

test('generateContent, Gemini upstream: passed through as received, usage billed', async () => {
  gem.requests.length = 0;
  const before = await balance(gw, caller.userId);
  const r = await sdk().models.generateContent({
    model: 'gemini-pass',
    contents: 'hi',
    config: { systemInstruction: 'be brief', maxOutputTokens: 50 },
  });
  assert.equal(r.text, 'Hello from Gemini');
  assert.equal(r.usageMetadata?.promptTokenCount, GEMINI_USAGE.promptTokenCount);
  const up = gem.requests[0];
  assert.equal(up.path, '/v1beta/models/gemini-pass:generateContent');
  assert.equal(up.headers['x-goog-api-key'], 'g-key');
  assert.equal(up.body.systemInstruction.parts[0].text, 'be brief');
  assert.ok(Number(r.sdkHttpResponse?.headers?.['x-gatehouse-time-ms']) >= 0);
  const log = await consumeLog(gw, rid(r));
  assert.equal(log.endpoint, '/v1beta/models/{model}:generateContent');
  assert.equal(Number(log.quota), GEMINI_USAGE.totalTokenCount);
  assert.equal(await balance(gw, caller.userId), before - GEMINI_USAGE.totalTokenCount);
});

test('generateContentStream, Gemini upstream: SSE passed through, usage billed', async () => {
  let text = '';
  let id = '';
  for await (const ch of await sdk().models.generateContentStream({ model: 'gemini-pass', contents: 'hi' })) {
    text += ch.text ?? '';
    id ||= rid(ch);
  }
  assert.equal(text, 'Hello from Gemini');
  const log = await consumeLog(gw, id);
  assert.equal(Number(log.is_stream), 1);
  assert.equal(Number(log.quota), GEMINI_USAGE.totalTokenCount);
});

test('generateContent and stream, OpenAI upstream: converted both ways, usage billed', async () => {
  oa.requests.length = 0;
  const r = await sdk().models.generateContent({
    model: 'gpt-g',
    contents: 'hi',
    config: { systemInstruction: 'be brief', temperature: 0.2 },
  });
  assert.equal(r.text, 'Hello world');
  assert.equal(r.usageMetadata?.promptTokenCount, USAGE.prompt_tokens);
  assert.equal(r.usageMetadata?.candidatesTokenCount, USAGE.completion_tokens);
  const b = oa.requests[0].body;
  assert.equal(b.model, 'gpt-g');
  assert.deepEqual(
    b.messages.map((m: any) => m.role),
    ['system', 'user'],
  );
  assert.equal(b.temperature, 0.2);
  assert.equal(Number((await consumeLog(gw, rid(r))).quota), USAGE.total_tokens);

  let text = '';
  let id = '';
  let usage: any = null;
  for await (const ch of await sdk().models.generateContentStream({ model: 'gpt-g', contents: 'echo:one two three' })) {
    text += ch.text ?? '';
    id ||= rid(ch);
    usage = ch.usageMetadata ?? usage;
  }
  assert.equal(text, 'one two three');
  assert.equal(usage?.promptTokenCount, USAGE.prompt_tokens);
  assert.equal(Number((await consumeLog(gw, id)).quota), USAGE.total_tokens);
});

test('function calling round trip through an OpenAI upstream', async () => {
  const ai = sdk();
  const tools = [
    { functionDeclarations: [{ name: 'get_weather', parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } } } }] },
  ];
  const r1 = await ai.models.generateContent({ model: 'gpt-g', contents: 'weather?', config: { tools } });
  const call = r1.functionCalls?.[0];
  assert.ok(call);
  assert.equal(call.name, 'get_weather');
  assert.deepEqual(call.args, { city: 'Paris' });
  const r2 = await ai.models.generateContent({
    model: 'gpt-g',
    config: { tools },
    contents: [
      { role: 'user', parts: [{ text: 'weather?' }] },
      { role: 'model', parts: [{ functionCall: call }] },
      { role: 'user', parts: [{ functionResponse: { id: call.id, name: 'get_weather', response: { temp: 'sunny' } } }] },
    ],
  });
  assert.match(r2.text ?? '', /tool said: .*sunny/);
});

test('streamGenerateContent without alt=sse answers one JSON array; /v1/models/{model}:action works too', async () => {
  const r = await fetch(`${gw.url}/v1beta/models/gemini-pass:streamGenerateContent?key=${caller.key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
  });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /application\/json/);
  const arr = (await r.json()) as any[];
  assert.ok(Array.isArray(arr) && arr.length > 1);
  assert.equal(arr.map((c) => c.candidates[0].content.parts.map((p: any) => p.text).join('')).join(''), 'Hello from Gemini');
  const conv = await fetch(`${gw.url}/v1beta/models/gpt-g:streamGenerateContent`, {
    method: 'POST',
    headers: { 'x-goog-api-key': caller.key, 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [{ parts: [{ text: 'echo:a b' }] }] }),
  });
  const carr = (await conv.json()) as any[];
  assert.equal(carr.map((c) => (c.candidates?.[0]?.content?.parts ?? []).map((p: any) => p.text ?? '').join('')).join(''), 'a b');
  assert.equal(carr[carr.length - 1].usageMetadata.promptTokenCount, USAGE.prompt_tokens);

  const v1 = await fetch(`${gw.url}/v1/models/gemini-pass:generateContent?key=${caller.key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
  });
  assert.equal(((await v1.json()) as any).candidates[0].content.parts[0].text, 'Hello from Gemini');
  const detail = await fetch(`${gw.url}/v1/models/gpt-g`, { headers: { authorization: `Bearer ${caller.key}` } });
  assert.equal(((await detail.json()) as any).id, 'gpt-g');
});

test('countTokens: counted locally, no upstream call, nothing billed', async () => {
  gem.requests.length = 0;
  const c = await createCaller(gw, { quota: 1000 });
  const r = await sdk(c.key).models.countTokens({ model: 'gemini-pass', contents: 'hello there, how are you today?' });
  assert.ok((r.totalTokens ?? 0) > 5 && (r.totalTokens ?? 0) < 20, `got ${r.totalTokens}`);
  const r2 = await sdk(c.key).models.countTokens({ model: 'gpt-g', contents: 'hello there, how are you today? and more words here' });
  assert.ok((r2.totalTokens ?? 0) > (r.totalTokens ?? 0));
  assert.equal(gem.requests.length, 0);
  assert.equal(await balance(gw, c.userId), 1000);
});

test('embedContent: Gemini upstream passes through (input counted), OpenAI upstream through the embeddings call', async () => {
  gem.requests.length = 0;
  const g = await sdk().models.embedContent({ model: 'gemini-embed', contents: ['hello', 'world'] });
  assert.deepEqual(
    g.embeddings?.map((e) => e.values),
    [
      [0.5, 0.25, 0],
      [0.5, 0.25, 1],
    ],
  );
  assert.equal(gem.requests[0].path, '/v1beta/models/gemini-embed:batchEmbedContents');
  const glog = await consumeLog(gw, rid(g));
  assert.ok(Number(glog.prompt_tokens) >= 2 && Number(glog.quota) >= 2, 'Gemini reports no usage: the input is counted');

  oa.requests.length = 0;
  const o = await sdk().models.embedContent({ model: 'text-embed-g', contents: ['hello', 'world'], config: { outputDimensionality: 3 } });
  assert.deepEqual(
    o.embeddings?.map((e) => e.values),
    [
      [0.1, 0.2, 0.3],
      [0.1, 0.2, 0.3],
    ],
  );
  assert.deepEqual(oa.requests[0].body, { model: 'text-embed-g', input: ['hello', 'world'], dimensions: 3 });
  assert.equal(Number((await consumeLog(gw, rid(o))).quota), 5);

  const single = await fetch(`${gw.url}/v1beta/models/text-embed-g:embedContent?key=${caller.key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ content: { parts: [{ text: 'hi' }] } }),
  });
  assert.deepEqual(((await single.json()) as any).embedding.values, [0.1, 0.2, 0.3]);
});

test('model lists: OpenAI by default, Gemini-style by key placement, /v1beta paging, detail 404', async () => {
  const limited = await createCaller(gw, { models: ['gemini-pass', 'gpt-g', 'text-embed-g'] });
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const r = await fetch(`${gw.url}${path}`, { headers });
    return { status: r.status, body: (await r.json()) as any };
  };
  const oaList = await get('/v1/models', { authorization: `Bearer ${limited.key}` });
  assert.equal(oaList.body.object, 'list');
  assert.deepEqual(
    oaList.body.data.map((m: any) => m.id),
    ['gemini-pass', 'gpt-g', 'text-embed-g'],
  );
  for (const [path, headers] of [
    [`/v1/models`, { 'x-goog-api-key': limited.key }],
    [`/v1/models?key=${limited.key}`, {}],
  ] as const) {
    const g = await get(path, headers);
    assert.deepEqual(
      g.body.models.map((m: any) => m.name),
      ['models/gemini-pass', 'models/gpt-g', 'models/text-embed-g'],
    );
    assert.ok(g.body.models[0].supportedGenerationMethods.includes('generateContent'));
    assert.ok(g.body.models[2].supportedGenerationMethods.includes('embedContent'));
  }
  const p1 = await get(`/v1beta/models?pageSize=2&key=${limited.key}`);
  assert.equal(p1.body.models.length, 2);
  assert.ok(p1.body.nextPageToken);
  const p2 = await get(`/v1beta/models?pageSize=2&pageToken=${p1.body.nextPageToken}&key=${limited.key}`);
  assert.deepEqual(
    p2.body.models.map((m: any) => m.name),
    ['models/text-embed-g'],
  );
  assert.equal(p2.body.nextPageToken, undefined);
  // The SDK pager walks every page.
  const names: string[] = [];
  for await (const m of await sdk(limited.key).models.list({ config: { pageSize: 1 } })) names.push(m.name!);
  assert.deepEqual(names, ['models/gemini-pass', 'models/gpt-g', 'models/text-embed-g']);
  const one = await sdk(limited.key).models.get({ model: 'gpt-g' });
  assert.equal(one.name, 'models/gpt-g');
  const missing = await get(`/v1beta/models/gemini-embed?key=${limited.key}`);
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.status, 'NOT_FOUND');
  assert.equal(missing.body.error.details[0].reason, 'model_not_found');
  const oaNs = await get('/v1beta/openai/models', { authorization: `Bearer ${limited.key}` });
  assert.deepEqual(
    oaNs.body.data.map((m: any) => m.id),
    ['gemini-pass', 'gpt-g', 'text-embed-g'],
  );
});

test('errors in the Gemini envelope: bad key, unknown model, quota exhausted, bad action', async () => {
  const expectApi = async (p: Promise<unknown>, status: number, gstatus: string) => {
    await assert.rejects(p, (e: unknown) => {
      assert.ok(e instanceof ApiError, String(e));
      assert.equal(e.status, status);
      assert.match(e.message, new RegExp(gstatus));
      return true;
    });
  };
  await expectApi(sdk('sk-wrong').models.generateContent({ model: 'gemini-pass', contents: 'hi' }), 401, 'UNAUTHENTICATED');
  await expectApi(sdk().models.generateContent({ model: 'no-such-model', contents: 'hi' }), 404, 'NOT_FOUND');
  const poor = await createCaller(gw, { quota: 5 });
  await expectApi(sdk(poor.key).models.generateContent({ model: 'gemini-pass', contents: 'hi' }), 429, 'RESOURCE_EXHAUSTED');
  const r = await fetch(`${gw.url}/v1beta/models/gemini-pass:explode?key=${caller.key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(r.status, 404);
  const j = (await r.json()) as any;
  assert.equal(j.error.code, 404);
  assert.equal(j.error.status, 'NOT_FOUND');
  assert.ok(r.headers.get('x-request-id') && r.headers.get('x-gatehouse-time-ms'));
});
