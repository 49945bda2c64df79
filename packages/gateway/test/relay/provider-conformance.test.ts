/**
 * Provider conformance: every model-call channel type (`ChannelType`, read at run time, task types
 * excepted) passes the same scenarios against answers stored in its vendor's wire format in
 * `test/fakes/conformance/<type name>/`, served by the replay upstream (test/fakes/conformance/replay.ts) through a
 * real gateway, with the official OpenAI SDK as the caller: a plain answer, a stream, a tool call (plain
 * and streamed), the tool result's turn (the upstream got the result in its vendor's shape), an image
 * sent as a data URL (the upstream got it in its shape), cached and cache-write input tokens on the log
 * row and in the charge, and each stored error: a client error answered at once in the caller's
 * envelope, a key or upstream failure retried on a second channel that answers (and, with no second
 * channel, a 502 in the caller's envelope naming the upstream's message). Vendors speaking Anthropic's
 * format are also called through the Anthropic SDK (plain, streamed, each error). A channel type without
 * a complete fixture directory fails, and so does a fixture directory that names no channel type.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { ChannelType, isTaskChannelType } from '../../src/channels/types.ts';
import { channelFormat } from '../../src/relay/providers/endpoint.ts';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { consumeLog, createCaller, createChannel, logsFor, setPrice } from '../relay-fixtures.ts';
import { SCENARIO_HEADER, scenarioFile, startReplay, type ReplayUpstream } from '../fakes/conformance/replay.ts';
import type { Recorded } from '../fakes/upstreams/common.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const FIXTURES = join(HERE, '..', 'fakes', 'conformance');
const REPO = join(HERE, '..', '..', '..', '..');

/** The scenarios every provider records, by file name without extension. */
const REQUIRED = [
  'plain',
  'stream',
  'tool-call',
  'tool-call-stream',
  'tool-result',
  'image-in',
  'usage-cache',
  'error-400',
  'error-401',
  'error-403',
  'error-429',
  'error-500',
  'error-503',
];

/** Prices of every scenario model (USD per million tokens). */
const PRICE = { input: 3, output: 15, cached_input: 0.3 };
const Q = 500_000; // quota units per USD

const TOOL_CALL_ID = 'call_conf_weather_1';
const TOOL_OUTPUT = '{"temperature":18,"unit":"celsius"}';
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const TOOLS: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'The current weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

/** What a provider's `expect.json` says its recorded answers hold and its requests must look like. */
interface Expect {
  /** The upstream model the scenario models are mapped to. */
  model: string;
  /** The channel: `key` is `service-account` for a Google service-account key, else the key itself (default `sk-conformance-upstream`). */
  channel: { key?: string; settings?: Record<string, unknown> };
  /** Patterns of the upstream request path (with query), plain and streamed. */
  path: string;
  streamPath: string;
  /** The auth header the upstream must get and a pattern of its value. */
  auth: { header: string; value: string };
  /** What every upstream request body must contain (Vertex's Anthropic calls: `anthropic_version`). */
  body?: Record<string, unknown>;
  /** Top-level fields no upstream request body may have (Vertex's Anthropic calls name the model in the URL only). */
  bodyWithout?: string[];
  plain: { text: string; usage: { prompt_tokens: number; completion_tokens: number } };
  stream: { text: string; usage: { prompt_tokens: number; completion_tokens: number } };
  'tool-call': { name: string; arguments: unknown; request: unknown };
  'tool-result': { text: string; request: unknown };
  'image-in': { text: string; request: unknown };
  'usage-cache': {
    prompt_tokens: number;
    completion_tokens: number;
    cached_tokens: number;
    cache_write_tokens: number;
    cache_write_1h_tokens?: number;
  };
  /** The upstream's error message in each `error-<status>` file. */
  errors: Record<string, string>;
}

/** The model-call channel types: every entry of `ChannelType` but the task types. */
const PROVIDERS = Object.entries(ChannelType).filter(([, t]) => !isTaskChannelType(t)) as Array<[string, number]>;

/** Where an actual value fails to contain `expected` (objects: every key; arrays: every element matched by some element), or null. */
function mismatch(actual: unknown, expected: unknown, at = '$'): string | null {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${at}: expected an array, got ${JSON.stringify(actual)}`;
    for (const [i, e] of expected.entries()) {
      if (!actual.some((a) => mismatch(a, e) === null))
        return `${at}[${i}]: no element contains ${JSON.stringify(e)} in ${JSON.stringify(actual)}`;
    }
    return null;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return `${at}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [k, e] of Object.entries(expected)) {
      const m = mismatch((actual as Record<string, unknown>)[k], e, `${at}.${k}`);
      if (m) return m;
    }
    return null;
  }
  return actual === expected ? null : `${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

function assertContains(actual: unknown, expected: unknown, what: string): void {
  const m = mismatch(actual, expected);
  assert.equal(m, null, `${what}: ${m}`);
}

/** The error scenarios a provider recorded: the required ones and any further `error-<status>` files. */
function errorStatuses(dir: string): number[] {
  return readdirSync(dir)
    .map((f) => /^error-(\d{3})\.json$/.exec(f)?.[1])
    .filter((s): s is string => !!s)
    .map(Number)
    .sort((a, b) => a - b);
}

/** The relay's policy: a key or upstream failure is tried on another channel; other 4xx are the request's fault. */
const retried = (s: number) => s === 401 || s === 403 || s === 408 || s === 429 || s >= 500;

/** One provider's gateway, replay upstream and caller, made on its first scenario. */
interface Rig {
  gw: TestGateway;
  replay: ReplayUpstream;
  key: string;
  openai: OpenAI;
  expect: Expect;
}

const rigs: Rig[] = [];
after(async () => {
  for (const r of rigs) {
    await r.gw.stop();
    await r.replay.close();
  }
});

async function startRig(type: number, dir: string, expect: Expect): Promise<Rig> {
  const replay = await startReplay(dir);
  const gw = await startTestGateway();
  const rig: Rig = { gw, replay, key: '', openai: null as never, expect };
  rigs.push(rig);
  const key = expect.channel.key === 'service-account' ? replay.serviceAccount : (expect.channel.key ?? 'sk-conformance-upstream');
  const models: string[] = [];
  const channel = async (model: string, scenario: string, priority = 0) => {
    await createChannel(gw, {
      type,
      baseUrl: replay.url,
      keys: [key],
      models: [model],
      priority,
      name: `${model}-${scenario}-${priority}`,
      modelMapping: { [model]: expect.model },
      settings: expect.channel.settings ?? {},
      headerOverride: { [SCENARIO_HEADER]: scenario },
    });
    models.push(model);
  };
  for (const s of ['plain', 'stream', 'tool-call', 'tool-call-stream', 'tool-result', 'image-in', 'usage-cache'])
    await channel(`conf-${s}`, s);
  // Each caller's error scenarios have their own channels: a failure cools a key down for the next call.
  const prefixes = channelFormat(type, expect.model) === 'anthropic' ? ['conf', 'conf-a'] : ['conf'];
  for (const p of prefixes) {
    for (const s of errorStatuses(dir)) {
      // With a second channel that answers, and alone.
      await channel(`${p}-error-${s}`, `error-${s}`, 10);
      await channel(`${p}-error-${s}`, 'plain', 0);
      await channel(`${p}-error-${s}-alone`, `error-${s}`);
    }
  }
  for (const m of new Set(models)) await setPrice(gw, m, PRICE);
  const caller = await createCaller(gw, { quota: 1000 * Q });
  rig.key = caller.key;
  rig.openai = new OpenAI({ apiKey: caller.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  return rig;
}

/** The one model request a call made (the replay's requests since `from`). */
function onlyRequest(rig: Rig, from: number, path: string): Recorded {
  const got = rig.replay.requests.slice(from);
  assert.equal(got.length, 1, `one upstream request, got ${got.map((r) => r.path).join(', ')}`);
  const r = got[0];
  assert.match(r.path, new RegExp(path), 'the upstream path');
  assert.match(
    String(r.headers[rig.expect.auth.header] ?? ''),
    new RegExp(rig.expect.auth.value),
    `the upstream's ${rig.expect.auth.header} header`,
  );
  if (rig.expect.body) assertContains(r.body, rig.expect.body, 'the upstream request body');
  for (const k of rig.expect.bodyWithout ?? []) assert.ok(!(k in r.body), `the upstream request body has no "${k}"`);
  return r;
}

async function expectLogUsage(rig: Rig, requestId: string, usage: { prompt_tokens: number; completion_tokens: number }) {
  const row = await consumeLog(rig.gw, requestId);
  assert.equal(Number(row.prompt_tokens), usage.prompt_tokens, 'prompt tokens on the log row');
  assert.equal(Number(row.completion_tokens), usage.completion_tokens, 'completion tokens on the log row');
  return row;
}

type Scenario = (rig: Rig) => Promise<void>;

const SCENARIOS: Record<string, Scenario> = {
  async plain(rig) {
    const from = rig.replay.requests.length;
    const { data, response } = await rig.openai.chat.completions
      .create({ model: 'conf-plain', messages: [{ role: 'user', content: 'Say hello.' }] })
      .withResponse();
    const e = rig.expect.plain;
    assert.equal(data.choices[0].message.content, e.text);
    assert.equal(data.choices[0].finish_reason, 'stop');
    assert.equal(data.usage?.prompt_tokens, e.usage.prompt_tokens);
    assert.equal(data.usage?.completion_tokens, e.usage.completion_tokens);
    onlyRequest(rig, from, rig.expect.path);
    await expectLogUsage(rig, response.headers.get('x-request-id')!, e.usage);
  },

  async stream(rig) {
    const from = rig.replay.requests.length;
    const { data: s, response } = await rig.openai.chat.completions
      .create({
        model: 'conf-stream',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Say hello.' }],
      })
      .withResponse();
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null = null;
    let chunks = 0;
    for await (const c of s) {
      chunks++;
      text += c.choices[0]?.delta?.content ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
      if (c.usage) usage = c.usage;
    }
    const e = rig.expect.stream;
    assert.equal(text, e.text);
    assert.ok(chunks > 2, `the answer came in pieces (${chunks} chunks)`);
    assert.equal(finish, 'stop');
    assert.equal(usage?.prompt_tokens, e.usage.prompt_tokens);
    assert.equal(usage?.completion_tokens, e.usage.completion_tokens);
    onlyRequest(rig, from, rig.expect.streamPath);
    await expectLogUsage(rig, response.headers.get('x-request-id')!, e.usage);
  },

  async 'tool-call'(rig) {
    const from = rig.replay.requests.length;
    const r = await rig.openai.chat.completions.create({
      model: 'conf-tool-call',
      tools: TOOLS,
      messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
    });
    const e = rig.expect['tool-call'];
    assert.equal(r.choices[0].finish_reason, 'tool_calls');
    const call = r.choices[0].message.tool_calls?.[0];
    assert.ok(call && call.type === 'function', JSON.stringify(r.choices[0].message));
    assert.equal(call.function.name, e.name);
    assert.deepEqual(JSON.parse(call.function.arguments), e.arguments);
    assert.ok(call.id, 'the tool call has an id');
    assertContains(onlyRequest(rig, from, rig.expect.path).body, e.request, 'the tools the upstream got');
  },

  async 'tool-call-stream'(rig) {
    const from = rig.replay.requests.length;
    const s = await rig.openai.chat.completions.create({
      model: 'conf-tool-call-stream',
      stream: true,
      tools: TOOLS,
      messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
    });
    const e = rig.expect['tool-call'];
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    let finish: string | null = null;
    for await (const c of s) {
      for (const d of c.choices[0]?.delta?.tool_calls ?? []) {
        const t = (calls[d.index] ??= { id: '', name: '', arguments: '' });
        if (d.id) t.id = d.id;
        if (d.function?.name) t.name += d.function.name;
        if (d.function?.arguments) t.arguments += d.function.arguments;
      }
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(calls.length, 1, JSON.stringify(calls));
    assert.ok(calls[0].id, 'the tool call has an id');
    assert.equal(calls[0].name, e.name);
    assert.deepEqual(JSON.parse(calls[0].arguments), e.arguments);
    assert.equal(finish, 'tool_calls');
    assertContains(onlyRequest(rig, from, rig.expect.streamPath).body, e.request, 'the tools the upstream got');
  },

  async 'tool-result'(rig) {
    const from = rig.replay.requests.length;
    const r = await rig.openai.chat.completions.create({
      model: 'conf-tool-result',
      tools: TOOLS,
      messages: [
        { role: 'user', content: 'What is the weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: TOOL_CALL_ID, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: TOOL_CALL_ID, content: TOOL_OUTPUT },
      ],
    });
    const e = rig.expect['tool-result'];
    assert.equal(r.choices[0].message.content, e.text);
    assertContains(onlyRequest(rig, from, rig.expect.path).body, e.request, 'the tool call and its result in the upstream request');
  },

  async 'image-in'(rig) {
    const from = rig.replay.requests.length;
    const r = await rig.openai.chat.completions.create({
      model: 'conf-image-in',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this image?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          ],
        },
      ],
    });
    const e = rig.expect['image-in'];
    assert.equal(r.choices[0].message.content, e.text);
    assertContains(onlyRequest(rig, from, rig.expect.path).body, e.request, 'the image in the upstream request');
  },

  async 'usage-cache'(rig) {
    const e = rig.expect['usage-cache'];
    assert.ok(e.cached_tokens > 0, 'the recorded answer reports cached input tokens');
    const { data, response } = await rig.openai.chat.completions
      .create({ model: 'conf-usage-cache', messages: [{ role: 'user', content: 'When does the contract renew?' }] })
      .withResponse();
    assert.equal(data.usage?.prompt_tokens, e.prompt_tokens, 'prompt tokens include cache reads and writes');
    assert.equal(data.usage?.prompt_tokens_details?.cached_tokens, e.cached_tokens, 'cached tokens reach the caller');
    const row = await expectLogUsage(rig, response.headers.get('x-request-id')!, e);
    assert.equal(Number(row.cached_tokens), e.cached_tokens, 'cached tokens on the log row');
    const other = JSON.parse(String(row.other)) as Record<string, unknown>;
    assert.equal(other.cache_write_tokens, e.cache_write_tokens, 'cache-write tokens on the log row');
    assert.equal(other.cache_write_1h_tokens, e.cache_write_1h_tokens, 'one-hour cache-write tokens on the log row');
    // Uncached input at the input price, reads at the cached price, 5-minute writes at 1.25× and 1-hour writes at 2× input.
    const w1h = e.cache_write_1h_tokens ?? 0;
    const uncached = e.prompt_tokens - e.cached_tokens - e.cache_write_tokens;
    const usd =
      (uncached * PRICE.input +
        e.cached_tokens * PRICE.cached_input +
        (e.cache_write_tokens - w1h) * PRICE.input * 1.25 +
        w1h * PRICE.input * 2 +
        e.completion_tokens * PRICE.output) /
      1e6;
    assert.equal(Number(row.quota), Math.round(usd * Q), 'the charge prices reads and writes at their own prices');
  },
};

/** An error scenario: what the caller gets for an upstream answering `status`. */
function errorScenario(status: number): Scenario {
  return async (rig) => {
    const upstreamMessage = rig.expect.errors[status]?.trim();
    assert.ok(upstreamMessage, `expect.json names the message of error-${status}`);
    const ask = (model: string) =>
      rig.openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Say hello.' }] }).withResponse();
    const fails = async (model: string) => {
      const err = await ask(model).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(err instanceof OpenAI.APIError, `the call fails with an API error, got ${String(err)}`);
      return err;
    };
    let from = rig.replay.requests.length;
    if (!retried(status)) {
      const err = await fails(`conf-error-${status}`);
      assert.equal(err.status, status, 'the upstream status reaches the caller');
      const body = err.error as { message?: unknown; type?: unknown } | undefined;
      assert.equal(typeof body?.message, 'string', `an OpenAI error envelope: ${JSON.stringify(err.error)}`);
      assert.ok(String(body!.message).includes(upstreamMessage), `the upstream's message in the envelope: ${JSON.stringify(err.error)}`);
      assert.equal(typeof body?.type, 'string', 'the envelope has a type');
      const sent = rig.replay.requests.slice(from).map((r) => r.headers[SCENARIO_HEADER]);
      assert.deepEqual(sent, [`error-${status}`], 'not retried on the second channel');
      return;
    }
    const { data, response } = await ask(`conf-error-${status}`);
    assert.equal(data.choices[0].message.content, rig.expect.plain.text, 'the second channel answered');
    assert.deepEqual(
      rig.replay.requests.slice(from).map((r) => r.headers[SCENARIO_HEADER]),
      [`error-${status}`, 'plain'],
      'retried once on the second channel',
    );
    const requestId = response.headers.get('x-request-id')!;
    const row = await consumeLog(rig.gw, requestId);
    assert.equal(Number(row.attempts), 2);
    const failed = (await logsFor(rig.gw, requestId)).find((r) => r.type === 'error');
    assert.equal(Number(failed?.status_code), status, 'the failed attempt is logged with its status');
    // With no channel left the caller gets 502 in its envelope, naming the upstream's message.
    from = rig.replay.requests.length;
    const err = await fails(`conf-error-${status}-alone`);
    assert.equal(err.status, 502);
    const body = err.error as { message?: unknown; code?: unknown };
    assert.equal(body.code, 'upstream_error', JSON.stringify(err.error));
    assert.ok(String(body.message).includes(upstreamMessage), `the upstream's message in the envelope: ${JSON.stringify(err.error)}`);
    assert.equal(rig.replay.requests.length - from, 1, 'one attempt on the one channel');
  };
}

/** Plain and streamed calls through the Anthropic SDK, for vendors that speak Anthropic's format. */
const ANTHROPIC_CALLER: Record<string, Scenario> = {
  async 'anthropic caller plain'(rig) {
    const client = new Anthropic({ apiKey: rig.key, baseURL: rig.gw.url, maxRetries: 0 });
    const from = rig.replay.requests.length;
    const m = await client.messages.create({ model: 'conf-plain', max_tokens: 256, messages: [{ role: 'user', content: 'Say hello.' }] });
    const e = rig.expect.plain;
    assert.equal(m.content[0].type === 'text' ? m.content[0].text : '', e.text);
    assert.equal(m.stop_reason, 'end_turn');
    assert.equal(m.usage.input_tokens, e.usage.prompt_tokens);
    assert.equal(m.usage.output_tokens, e.usage.completion_tokens);
    onlyRequest(rig, from, rig.expect.path);
  },
  async 'anthropic caller stream'(rig) {
    const client = new Anthropic({ apiKey: rig.key, baseURL: rig.gw.url, maxRetries: 0 });
    const from = rig.replay.requests.length;
    const s = client.messages.stream({ model: 'conf-stream', max_tokens: 256, messages: [{ role: 'user', content: 'Say hello.' }] });
    let deltas = 0;
    s.on('text', () => deltas++);
    const m = await s.finalMessage();
    const e = rig.expect.stream;
    assert.equal(m.content[0].type === 'text' ? m.content[0].text : '', e.text);
    assert.ok(deltas > 1, `the text came in pieces (${deltas})`);
    assert.equal(m.usage.input_tokens, e.usage.prompt_tokens);
    assert.equal(m.usage.output_tokens, e.usage.completion_tokens);
    onlyRequest(rig, from, rig.expect.streamPath);
  },
};

/** An error scenario through the Anthropic SDK: the same outcomes, in Anthropic's envelope. */
function anthropicErrorScenario(status: number): Scenario {
  return async (rig) => {
    const upstreamMessage = rig.expect.errors[status]?.trim();
    assert.ok(upstreamMessage, `expect.json names the message of error-${status}`);
    const client = new Anthropic({ apiKey: rig.key, baseURL: rig.gw.url, maxRetries: 0 });
    const ask = (model: string) => client.messages.create({ model, max_tokens: 256, messages: [{ role: 'user', content: 'Say hello.' }] });
    const fails = async (model: string, want: number) => {
      const err = await ask(model).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(err instanceof Anthropic.APIError, `the call fails with an API error, got ${String(err)}`);
      assert.equal(err.status, want);
      const body = err.error as { type?: unknown; error?: { type?: unknown; message?: unknown } };
      assert.equal(body.type, 'error', `an Anthropic error envelope: ${JSON.stringify(err.error)}`);
      assert.equal(typeof body.error?.type, 'string', 'the envelope names an error type');
      assert.ok(
        String(body.error?.message).includes(upstreamMessage),
        `the upstream's message in the envelope: ${JSON.stringify(err.error)}`,
      );
    };
    const from = rig.replay.requests.length;
    if (!retried(status)) {
      await fails(`conf-a-error-${status}`, status);
      assert.deepEqual(
        rig.replay.requests.slice(from).map((r) => r.headers[SCENARIO_HEADER]),
        [`error-${status}`],
        'not retried on the second channel',
      );
      return;
    }
    const m = await ask(`conf-a-error-${status}`);
    assert.equal(m.content[0].type === 'text' ? m.content[0].text : '', rig.expect.plain.text, 'the second channel answered');
    await fails(`conf-a-error-${status}-alone`, 502);
    assert.deepEqual(
      rig.replay.requests.slice(from).map((r) => r.headers[SCENARIO_HEADER]),
      [`error-${status}`, 'plain', `error-${status}`],
    );
  };
}

assert.ok(PROVIDERS.length >= 5, 'the provider channel types are read from ChannelType');

test('conformance: every fixture directory names a provider channel type', () => {
  const names = new Set(PROVIDERS.map(([n]) => n));
  const dirs = readdirSync(FIXTURES, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  assert.deepEqual(
    dirs.filter((d) => !names.has(d)),
    [],
    `fixture directories in ${relative(REPO, FIXTURES)}/ that name no channel type of ChannelType`,
  );
});

/**
 * The fixture sets of a channel type: its directory, and each subdirectory with an `expect.json` (a
 * variant: Vertex's Claude models speak Anthropic's format).
 */
function fixtureSets(name: string): Array<{ label: string; dir: string }> {
  const dir = join(FIXTURES, name);
  const sets = [{ label: name, dir }];
  if (existsSync(dir)) {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      if (d.isDirectory() && existsSync(join(dir, d.name, 'expect.json')))
        sets.push({ label: `${name}/${d.name}`, dir: join(dir, d.name) });
    }
  }
  return sets;
}

for (const [name, type] of PROVIDERS) {
  for (const { label, dir } of fixtureSets(name)) {
    const where = `${relative(REPO, dir)}/`;
    const missing = existsSync(dir)
      ? [...REQUIRED.filter((s) => !scenarioFile(dir, s)), ...(existsSync(join(dir, 'expect.json')) ? [] : ['expect'])]
      : null;
    test(`conformance ${label}: fixtures`, () => {
      assert.ok(
        missing !== null,
        `channel type ${name} has no conformance fixtures in ${where} (docs/relay.md, "Provider conformance", says how to record them)`,
      );
      assert.deepEqual(missing, [], `channel type ${label} is missing conformance fixtures in ${where}: ${missing.join(', ')}`);
    });
    if (missing === null || missing.length) continue;

    const expect = JSON.parse(readFileSync(join(dir, 'expect.json'), 'utf8')) as Expect;
    let rig: Promise<Rig> | null = null;
    const run = (fn: Scenario) => async () => fn(await (rig ??= startRig(type, dir, expect)));
    for (const [s, fn] of Object.entries(SCENARIOS)) test(`conformance ${label}: ${s}`, run(fn));
    for (const status of errorStatuses(dir)) test(`conformance ${label}: error ${status}`, run(errorScenario(status)));
    if (channelFormat(type, expect.model) === 'anthropic') {
      for (const [s, fn] of Object.entries(ANTHROPIC_CALLER)) test(`conformance ${label}: ${s}`, run(fn));
      for (const status of errorStatuses(dir))
        test(`conformance ${label}: anthropic caller error ${status}`, run(anthropicErrorScenario(status)));
    }
  }
}
