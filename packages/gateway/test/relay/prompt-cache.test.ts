/**
 * Prompt caches that hit for callers who cannot mark them: a ten-turn agent session with tool calls,
 * replayed through the gateway by the official OpenAI SDK (chat completions, streamed; Responses) and
 * the official Gemini SDK, against a loopback Anthropic vendor that caches honestly (entries only for
 * prefixes marked earlier, per key, within their TTL). The same session is replayed on a channel with
 * `settings.prompt_cache: off`: with breakpoints it is billed at most 0.3× the input cost, with the
 * same answers, and every call of a session stays on one channel and key (of two channels with two
 * keys each). An entry read after its five minutes is written again; a client that rewrites its
 * newest message still reads the conversation back. An Anthropic caller's own breakpoints reach the
 * vendor as it placed them, and none is added to its request. Claude on Vertex AI and Bedrock
 * channels gets the breakpoints too (`cache_control`, `cachePoint`), with the channel's one-hour
 * lifetime.
 */
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type Content } from '@google/genai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startCachingAnthropic, type CachingAnthropic } from '../fakes/upstreams/anthropic-cache.ts';
import { startFakeBedrock, type FakeBedrock } from '../fakes/upstreams/bedrock.ts';
import { startFakeVertex, type FakeVertex } from '../fakes/upstreams/vertex.ts';
import { createCaller, createChannel, setPrice, waitFor } from '../relay-fixtures.ts';

const MODEL = 'claude-sonnet-4-5';
const KEYS = ['sk-cache-a', 'sk-cache-b'];
/** The keys of a second channel of the same vendor and model: a session sticks to one channel and one key. */
const KEYS_2 = ['sk-cache-c', 'sk-cache-d'];
/** About 6,000 tokens of standing instructions, as coding agents send (each client its own: no session reads another's entries). */
const SYSTEM_RULES = Array.from(
  { length: 120 },
  (_, i) => `Rule ${i + 1}: read the code before changing it, keep each change small, and run the tests that cover it.`,
).join('\n');
const system = (client: string) => `You are ${client}, a coding assistant.\n${SYSTEM_RULES}`;
const TURNS = [
  'run: ls',
  'What does the listing show?',
  'run: cat README.md',
  'Summarise the readme in one line.',
  'run: cat package.json',
  'Which test runner is used?',
  'run: grep -r TODO src',
  'Is anything left to do?',
  'run: git status',
  'Thanks, that is all.',
];
const SHELL = {
  name: 'run_shell',
  description: 'Runs a shell command in the repository and returns its output.',
  parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
};
const READ = {
  name: 'read_file',
  description: 'Reads a file of the repository.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};
/** What the tool prints: a few hundred tokens, the same for the same command. */
const toolOutput = (command: string) =>
  Array.from({ length: 30 }, (_, i) => `${command} | line ${i + 1}: src/module-${i}.ts 4096 bytes`).join('\n');

const AWS = { accessKeyId: 'AKIAGATEHOUSECACHE01', secretAccessKey: 'cacheTestSecretKeyForTheGatehouseTests01', region: 'us-east-1' };

let gw: TestGateway;
let vendor: CachingAnthropic;
let vertex: FakeVertex;
let bedrock: FakeBedrock;
let cached: { key: string; userId: number };
let uncached: { key: string; userId: number };

before(async () => {
  gw = await startTestGateway();
  vendor = await startCachingAnthropic([...KEYS, ...KEYS_2]);
  await createChannel(gw, { type: 14, baseUrl: vendor.url, keys: KEYS, models: [MODEL], groups: ['cache'] });
  await createChannel(gw, { type: 14, baseUrl: vendor.url, keys: KEYS_2, models: [MODEL], groups: ['cache'] });
  await createChannel(gw, {
    type: 14,
    baseUrl: vendor.url,
    keys: KEYS,
    models: [MODEL],
    groups: ['nocache'],
    settings: { prompt_cache: 'off' },
  });
  // Output is free here, so a call's charge is its input cost: fresh 3, cache reads 0.3, 5-minute writes 3.75 USD per 1M.
  await setPrice(gw, MODEL, { input: 3, output: 0, cached_input: 0.3 });
  vertex = await startFakeVertex();
  bedrock = await startFakeBedrock();
  bedrock.allow(AWS);
  const hour = { prompt_cache_ttl: '1h' };
  await createChannel(gw, {
    type: 41,
    baseUrl: vertex.up.url,
    keys: [vertex.serviceAccount],
    models: ['claude-vx'],
    modelMapping: { 'claude-vx': MODEL },
    groups: ['cache'],
    settings: { region: 'us-east5', ...hour },
  });
  await createChannel(gw, {
    type: 33,
    baseUrl: bedrock.up.url,
    keys: [`${AWS.accessKeyId}|${AWS.secretAccessKey}|${AWS.region}`],
    models: ['claude-br'],
    modelMapping: { 'claude-br': 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' },
    groups: ['cache'],
    settings: hour,
  });
  for (const m of ['claude-vx', 'claude-br']) await setPrice(gw, m, { input: 3, output: 15, cached_input: 0.3 });
  cached = await createCaller(gw, { group: 'cache' });
  uncached = await createCaller(gw, { group: 'nocache' });
});
after(async () => {
  await gw?.stop();
  await vendor?.close();
  await vertex?.close();
  await bedrock?.close();
});

/** The consume rows of a user since log row `fromId`. */
async function charges(userId: number, fromId: number) {
  await gw.services.relay.logs.flush();
  return gw.core.h.db
    .selectFrom('logs')
    .select(['id', 'quota', 'prompt_tokens', 'cached_tokens', 'status_code'])
    .where('user_id', '=', userId)
    .where('type', '=', 'consume')
    .where('id', '>', fromId)
    .execute();
}

async function lastLogId(): Promise<number> {
  await gw.services.relay.logs.flush();
  const r = await gw.core.h.db
    .selectFrom('logs')
    .select((e) => e.fn.max('id').as('m'))
    .executeTakeFirst();
  return Number(r?.m ?? 0);
}

interface Replay {
  answers: string[];
  cost: number;
  calls: number;
  keys: Set<string>;
  reads: number;
}

/** Replays `session` for a caller and measures it: the answers, the input billed, the keys the vendor saw. */
async function measure(who: { key: string; userId: number }, session: (key: string) => Promise<string[]>): Promise<Replay> {
  const from = await lastLogId();
  const firstReport = vendor.reports.length;
  const answers = await session(who.key);
  const reports = vendor.reports.slice(firstReport);
  // A call is settled and logged just after its answer: the last rows may come a moment later.
  const rows = await waitFor(async () => {
    const r = await charges(who.userId, from);
    return r.length >= reports.length ? r : null;
  });
  assert.equal(rows.length, reports.length, 'one consume row per upstream call');
  assert.ok(rows.every((r) => r.status_code === 200));
  return {
    answers,
    cost: rows.reduce((s, r) => s + Number(r.quota), 0),
    calls: rows.length,
    keys: new Set(reports.map((r) => r.key)),
    reads: reports.reduce((s, r) => s + r.cacheRead, 0),
  };
}

/** Both replays: same answers, at most 0.3× the input cost with breakpoints, one key per session. */
async function compare(t: TestContext, session: (key: string) => Promise<string[]>): Promise<void> {
  const off = await measure(uncached, session);
  const on = await measure(cached, session);
  assert.ok(on.calls >= 15, `a session of tool calls and answers (${on.calls} calls)`);
  assert.deepEqual(on.answers, off.answers, 'the same answers with and without breakpoints');
  assert.equal(off.reads, 0, 'nothing is read from the cache without breakpoints');
  assert.ok(on.reads > 0);
  assert.ok(
    on.cost <= 0.3 * off.cost,
    `billed ${on.cost} with breakpoints against ${off.cost} without: ${(on.cost / off.cost).toFixed(3)}×`,
  );
  assert.equal(on.keys.size, 1, 'every call of the session went to the same channel and key (of two channels with two keys each)');
  t.diagnostic(`${on.calls} calls: ${on.cost} units with breakpoints, ${off.cost} without (${(on.cost / off.cost).toFixed(3)}×)`);
}

test('an OpenAI chat session (streamed) is billed at most 0.3× its input cost, with the same answers', async (t) => {
  await compare(t, async (key) => {
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const tools = [SHELL, READ].map((f) => ({ type: 'function' as const, function: f }));
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'system', content: system('the chat client') }];
    const answers: string[] = [];
    for (const turn of TURNS) {
      messages.push({ role: 'user', content: turn });
      for (;;) {
        const s = client.chat.completions.stream({
          model: MODEL,
          messages,
          tools,
          max_tokens: 256,
          stream_options: { include_usage: true },
        });
        const msg = (await s.finalChatCompletion()).choices[0].message;
        const calls = (msg.tool_calls ?? []).filter((c) => c.type === 'function');
        answers.push(calls.length ? JSON.stringify(calls.map((c) => [c.function.name, c.function.arguments])) : (msg.content ?? ''));
        messages.push({ role: 'assistant', content: msg.content, ...(calls.length ? { tool_calls: calls } : {}) });
        if (!calls.length) break;
        for (const c of calls) {
          messages.push({ role: 'tool', tool_call_id: c.id, content: toolOutput(JSON.parse(c.function.arguments).command) });
        }
      }
    }
    return answers;
  });
});

test('a Responses session (whole input each turn, nothing stored) is billed at most 0.3× its input cost', async (t) => {
  await compare(t, async (key) => {
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const tools = [SHELL, READ].map((f) => ({ type: 'function' as const, strict: false, ...f }));
    const input: OpenAI.Responses.ResponseInputItem[] = [];
    const answers: string[] = [];
    for (const turn of TURNS) {
      input.push({ role: 'user', content: turn });
      for (;;) {
        const r = await client.responses.create({
          model: MODEL,
          instructions: system('the Responses client'),
          input,
          tools,
          store: false,
          max_output_tokens: 256,
        });
        const calls = r.output.filter((o) => o.type === 'function_call');
        answers.push(calls.length ? JSON.stringify(calls.map((c) => [c.name, c.arguments])) : r.output_text);
        if (!calls.length) {
          input.push({ role: 'assistant', content: r.output_text });
          break;
        }
        for (const c of calls) {
          input.push({ type: 'function_call', call_id: c.call_id, name: c.name, arguments: c.arguments });
          input.push({ type: 'function_call_output', call_id: c.call_id, output: toolOutput(JSON.parse(c.arguments).command) });
        }
      }
    }
    return answers;
  });
});

test('a Gemini session through the Google Gen AI SDK is billed at most 0.3× its input cost', async (t) => {
  await compare(t, async (key) => {
    const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } });
    const contents: Content[] = [];
    const answers: string[] = [];
    const config = {
      systemInstruction: system('the Gemini client'),
      maxOutputTokens: 256,
      tools: [{ functionDeclarations: [SHELL, READ].map((f) => ({ ...f, parametersJsonSchema: f.parameters, parameters: undefined })) }],
    };
    for (const turn of TURNS) {
      contents.push({ role: 'user', parts: [{ text: turn }] });
      for (;;) {
        const r = await ai.models.generateContent({ model: MODEL, contents, config });
        const calls = r.functionCalls ?? [];
        answers.push(calls.length ? JSON.stringify(calls.map((c) => [c.name, JSON.stringify(c.args)])) : (r.text ?? ''));
        contents.push(r.candidates![0].content!);
        if (!calls.length) break;
        contents.push({
          role: 'user',
          parts: calls.map((c) => ({ functionResponse: { name: c.name, response: { output: toolOutput(String(c.args?.command)) } } })),
        });
      }
    }
    return answers;
  });
});

test('a turn after the five minutes of its entries writes the prefix again', async () => {
  const client = new OpenAI({ apiKey: cached.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: 'system', content: system('a slow client') },
    { role: 'user', content: 'Hello.' },
  ];
  const turn = async () => {
    const r = await client.chat.completions.create({ model: MODEL, messages });
    messages.push({ role: 'assistant', content: r.choices[0].message.content }, { role: 'user', content: 'Go on.' });
    return vendor.reports.at(-1)!;
  };
  assert.equal((await turn()).cacheRead, 0);
  assert.ok((await turn()).cacheRead > 1000, 'read within the five minutes');
  vendor.advance(6 * 60_000);
  const late = await turn();
  assert.equal(late.cacheRead, 0, 'nothing is read after them');
  assert.ok(late.cacheCreation > 1000, 'the prefix is written again');
});

test('a client that rewrites its newest message once it is answered still reads the conversation back', async () => {
  const client = new OpenAI({ apiKey: cached.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const history: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'system', content: system('a rewriting client') }];
  const reads: number[] = [];
  for (let i = 0; i < 4; i++) {
    // The newest message carries a note that is left out of the history afterwards.
    const ask = `Question ${i}.`;
    const r = await client.chat.completions.create({
      model: MODEL,
      messages: [...history, { role: 'user', content: `${ask}\n(note: the time is 12:0${i})` }],
    });
    history.push({ role: 'user', content: ask }, { role: 'assistant', content: r.choices[0].message.content });
    reads.push(vendor.reports.at(-1)!.cacheRead);
  }
  // From the third turn the entry written at the last answer of the turn before is read.
  assert.ok(reads[3] > reads[2] && reads[2] > reads[1], `reads grow with the conversation: ${reads.join(', ')}`);
});

test("an Anthropic caller's own breakpoints reach the vendor untouched, and none is added", async () => {
  const client = new Anthropic({ apiKey: cached.key, baseURL: gw.url, maxRetries: 0 });
  const first = vendor.up.requests.length;
  const mine = { type: 'ephemeral' as const, ttl: '1h' as const };
  const sent = {
    model: MODEL,
    max_tokens: 100,
    tools: [{ name: SHELL.name, description: SHELL.description, input_schema: SHELL.parameters as any, cache_control: mine }],
    system: [{ type: 'text' as const, text: system('the Anthropic client') }],
    messages: [
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'run: ls', cache_control: { type: 'ephemeral' as const } }] },
      { role: 'assistant' as const, content: 'Listing.' },
      { role: 'user' as const, content: 'And now?' },
    ],
  };
  await client.messages.create(sent);
  // The same long conversation without breakpoints: sent without any.
  const { cache_control: _t, ...tool } = sent.tools[0];
  await client.messages.create({ ...sent, tools: [tool], messages: [{ role: 'user', content: 'run: ls' }, ...sent.messages.slice(1)] });
  const [withMine, without] = vendor.up.requests.slice(first);
  assert.deepEqual(withMine.body.tools[0].cache_control, mine);
  assert.deepEqual(withMine.body.system, sent.system);
  assert.deepEqual(withMine.body.messages, sent.messages);
  assert.equal(without.raw.includes('cache_control'), false);
  assert.equal(vendor.reports.at(-2)!.breakpoints, 2);
  assert.equal(vendor.reports.at(-1)!.breakpoints, 0);
});

test('Claude on Vertex AI and on Bedrock gets the breakpoints too, with the channel lifetime of one hour', async () => {
  const client = new OpenAI({ apiKey: cached.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: 'system', content: system('a Vertex and Bedrock client') },
    { role: 'user', content: 'What is in the repository?' },
    { role: 'assistant', content: 'A gateway.' },
    { role: 'user', content: 'Which language?' },
  ];
  const hour = { type: 'ephemeral', ttl: '1h' };
  await client.chat.completions.create({ model: 'claude-vx', messages });
  const vx = vertex.up.requests.findLast((r) => r.path.includes(':rawPredict'))!.body;
  assert.deepEqual(vx.system.at(-1).cache_control, hour, 'Vertex: system');
  assert.deepEqual(vx.messages.at(-1).content.at(-1).cache_control, hour, 'Vertex: newest message');
  assert.deepEqual(vx.messages[0].content.at(-1).cache_control, hour, 'Vertex: the end of the previous turn');
  await client.chat.completions.create({ model: 'claude-br', messages });
  const br = bedrock.calls.at(-1)!.body;
  const point = { cachePoint: { type: 'default', ttl: '1h' } };
  assert.deepEqual(br.system.at(-1), point, 'Bedrock: system');
  assert.deepEqual(br.messages.at(-1).content.at(-1), point, 'Bedrock: newest message');
  assert.deepEqual(br.messages[0].content.at(-1), point, 'Bedrock: the end of the previous turn');
});

test('the channel settings are checked: prompt_cache auto or off, prompt_cache_ttl 5m or 1h', async () => {
  await assert.rejects(
    createChannel(gw, { type: 14, baseUrl: vendor.url, keys: KEYS, models: [MODEL], settings: { prompt_cache: 'always' } }),
    /settings\.prompt_cache.*auto, off/,
  );
  await assert.rejects(
    createChannel(gw, {
      type: 33,
      baseUrl: vendor.url,
      keys: ['AKIAIOSFODNN7EXAMPLE|secret|us-east-1'],
      models: [MODEL],
      settings: { prompt_cache_ttl: '10m' },
    }),
    /settings\.prompt_cache_ttl.*5m, 1h/,
  );
});
