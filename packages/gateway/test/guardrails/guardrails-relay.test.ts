/**
 * Guardrail plugins on model calls (docs/guardrails.md), end to end over HTTP: the example guardrails
 * installed with POST /api/plugin/guardrail and bound with the Guardrails option, blocking and masking
 * input and output in chat completions, Responses, Anthropic messages and Gemini, streamed and not,
 * with a match split across the upstream's chunks; failing guardrails under each on_error; what a
 * blocked call is charged; verdicts on the log row and in the counts.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { consumeLog, createCaller, createChannel, logsFor, setPrice, settledBalance } from '../relay-fixtures.ts';

const EXAMPLES = new URL('../../../../examples/guardrails/', import.meta.url);
const example = (name: string) => readFileSync(new URL(`${name}.js`, EXAMPLES), 'utf8');
const plugin = (key: string, body: string) =>
  `export const meta = { apiVersion: 1, kind: 'guardrail', key: '${key}', name: '${key}', version: '1.0.0', author: { name: 't' } };\n${body}`;

const MODELS = [
  'm-pii-in',
  'm-pii-out',
  'm-deny',
  'm-deny-out',
  'm-secret',
  'm-secret-mask',
  'm-json',
  'm-throw-block',
  'm-throw-allow',
  'm-slow-block',
  'm-slow-allow',
  'm-tag',
  'm-hog',
];

let gw: TestGateway;
let oa: FakeOpenAI;
let root: AdminClient;
let caller: { key: string; userId: number; keyId: number };

before(async () => {
  gw = await startTestGateway({ env: { PLUGIN_CALL_TIMEOUT_MS: '300' } });
  oa = await startFakeOpenAI();
  root = await AdminClient.login(gw.url);
  await createChannel(gw, { type: 1, baseUrl: oa.url, models: MODELS, settings: { responses_api: false } });
  // A channel with the Responses API: its Responses calls would pass through unless an output guardrail checks them.
  await createChannel(gw, { type: 1, baseUrl: oa.url, models: ['m-native'] });
  for (const m of [...MODELS, 'm-native']) await setPrice(gw, m, { input: 2, output: 2 });
  for (const name of ['pii-mask', 'deny-words', 'secret-detect', 'json-schema'])
    await root.ok('POST', '/api/plugin/guardrail', { source: example(name) });
  await root.ok('POST', '/api/plugin/guardrail', {
    source: plugin('thrower', "export function check() { throw new Error('rule store unavailable'); }"),
  });
  await root.ok('POST', '/api/plugin/guardrail', { source: plugin('looper', 'export function check() { for (;;) {} }') });
  await root.ok('POST', '/api/plugin/guardrail', {
    source: plugin('hog', 'export function check() { const a = []; for (;;) a.push(new Array(1e7).fill(1.5)); }'),
  });
  await root.ok('POST', '/api/plugin/guardrail', {
    source: plugin('tagger', "export function check(ctx, input) { return { action: 'annotate', tags: ['stage:' + input.stage] }; }"),
  });
  const bindings = [
    { plugin: 'pii-mask', stage: 'input', models: ['m-pii-in'] },
    { plugin: 'pii-mask', stage: 'output', models: ['m-pii-out', 'm-native'] },
    { plugin: 'deny-words', stage: 'both', models: ['m-deny', 'm-deny-out'], config: { keywords: ['falcon'] } },
    { plugin: 'secret-detect', stage: 'input', models: ['m-secret'] },
    { plugin: 'secret-detect', stage: 'input', models: ['m-secret-mask'], config: { action: 'mask' } },
    { plugin: 'json-schema', stage: 'output', models: ['m-json'], config: { schema: { type: 'object', required: ['city'] } } },
    { plugin: 'thrower', stage: 'input', models: ['m-throw-block'], on_error: 'block' },
    { plugin: 'thrower', stage: 'input', models: ['m-throw-allow'], on_error: 'allow' },
    { plugin: 'looper', stage: 'input', models: ['m-slow-block'], on_error: 'block' },
    { plugin: 'looper', stage: 'input', models: ['m-slow-allow'], on_error: 'allow' },
    { plugin: 'tagger', stage: 'both', models: ['m-tag'] },
    { plugin: 'hog', stage: 'input', models: ['m-hog'], on_error: 'allow' },
  ];
  await root.ok('PUT', '/api/option', { options: { Guardrails: JSON.stringify(bindings) } });
  caller = await createCaller(gw);
});
after(async () => {
  await gw?.stop();
  await oa?.close();
});

interface Answer {
  status: number;
  /** The answer's text (a stream's text deltas joined). */
  text: string;
  /** The whole body as received. */
  raw: string;
  requestId: string;
}

interface Family {
  name: string;
  call(model: string, prompt: string, stream: boolean): Promise<Answer>;
  /** The blocked call's error message, from the family's envelope. */
  errorMessage(raw: string): string;
  /** Whether a stream carries the family's error event. */
  streamError(raw: string): boolean;
}

const dataLines = (raw: string) =>
  raw
    .split('\n')
    .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
    .map((l) => JSON.parse(l.slice(6)));

async function post(
  path: string,
  headers: Record<string, string>,
  body: unknown,
  pick: (raw: string, stream: boolean) => string,
  stream: boolean,
) {
  const r = await fetch(gw.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const raw = await r.text();
  let text = '';
  if (r.status === 200) text = pick(raw, stream);
  return { status: r.status, raw, text, requestId: r.headers.get('x-request-id') ?? '' };
}

const FAMILIES: Family[] = [
  {
    name: 'chat completions',
    call: (model, prompt, stream) =>
      post(
        '/v1/chat/completions',
        { authorization: `Bearer ${caller.key}` },
        { model, stream, messages: [{ role: 'user', content: prompt }] },
        (raw, s) =>
          s
            ? dataLines(raw)
                .map((j) => j.choices?.[0]?.delta?.content ?? '')
                .join('')
            : JSON.parse(raw).choices[0].message.content,
        stream,
      ),
    errorMessage: (raw) => {
      const j = JSON.parse(raw);
      assert.equal(j.error.code, 'guardrail_blocked');
      return j.error.message;
    },
    streamError: (raw) => dataLines(raw).some((j) => j.error),
  },
  {
    name: 'Responses',
    call: (model, prompt, stream) =>
      post(
        '/v1/responses',
        { authorization: `Bearer ${caller.key}` },
        { model, stream, input: prompt },
        (raw, s) =>
          s
            ? dataLines(raw)
                .filter((j) => j.type === 'response.output_text.delta')
                .map((j) => j.delta)
                .join('')
            : JSON.parse(raw)
                .output.filter((o: any) => o.type === 'message')
                .flatMap((o: any) => o.content.map((c: any) => c.text))
                .join(''),
        stream,
      ),
    errorMessage: (raw) => {
      const j = JSON.parse(raw);
      assert.equal(j.error.code, 'guardrail_blocked');
      return j.error.message;
    },
    streamError: (raw) => dataLines(raw).some((j) => j.type === 'error' || j.type === 'response.failed'),
  },
  {
    name: 'Anthropic messages',
    call: (model, prompt, stream) =>
      post(
        '/v1/messages',
        { 'x-api-key': caller.key, 'anthropic-version': '2023-06-01' },
        { model, stream, max_tokens: 200, messages: [{ role: 'user', content: prompt }] },
        (raw, s) =>
          s
            ? dataLines(raw)
                .filter((j) => j.type === 'content_block_delta' && j.delta.type === 'text_delta')
                .map((j) => j.delta.text)
                .join('')
            : JSON.parse(raw).content[0].text,
        stream,
      ),
    errorMessage: (raw) => {
      const j = JSON.parse(raw);
      assert.equal(j.type, 'error');
      return j.error.message;
    },
    streamError: (raw) => dataLines(raw).some((j) => j.type === 'error'),
  },
  {
    name: 'Gemini',
    call: (model, prompt, stream) =>
      post(
        `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        { 'x-goog-api-key': caller.key },
        { contents: [{ role: 'user', parts: [{ text: prompt }] }] },
        (raw, s) =>
          (s ? dataLines(raw) : [JSON.parse(raw)])
            .flatMap((j) => j.candidates?.[0]?.content?.parts ?? [])
            .map((p: any) => p.text ?? '')
            .join(''),
        stream,
      ),
    errorMessage: (raw) => {
      const j = JSON.parse(raw);
      assert.equal(j.error.code, 400);
      return j.error.message;
    },
    streamError: (raw) => dataLines(raw).some((j) => j.error),
  },
];

const sentPrompt = () => JSON.stringify(oa.requests.at(-1)?.body ?? null);

for (const f of FAMILIES) {
  for (const stream of [false, true]) {
    const how = `${f.name}, ${stream ? 'streamed' : 'not streamed'}`;

    test(`${how}: PII masking rewrites the input before it goes upstream`, async () => {
      const a = await f.call('m-pii-in', 'echo:mail john@example.com or call +1 415-555-0134', stream);
      assert.equal(a.status, 200, a.raw);
      assert.ok(sentPrompt().includes('echo:mail [EMAIL] or call [PHONE]'), sentPrompt());
      assert.ok(!sentPrompt().includes('john@'));
      assert.equal(a.text, 'mail [EMAIL] or call [PHONE]');
    });

    test(`${how}: PII masking rewrites the output, an address split across chunks included`, async () => {
      const a = await f.call('m-pii-out', 'echo:write to john@exa¦mple.com today', stream);
      assert.equal(a.status, 200, a.raw);
      assert.ok(sentPrompt().includes('john@exa¦mple.com'), 'the input is not checked by an output binding');
      assert.equal(a.text, 'write to [EMAIL] today');
      assert.ok(!a.raw.includes('john@exa'), 'no part of the address reaches the caller');
    });

    test(`${how}: a denied keyword in the input is refused in the family's envelope and not charged`, async () => {
      const before = await settledBalance(gw, caller.userId);
      const sent = oa.requests.length;
      const a = await f.call('m-deny', 'tell me about Falcon', stream);
      assert.equal(a.status, 400, a.raw);
      assert.match(f.errorMessage(a.raw), /blocked by guardrail deny-words: the text contains a denied keyword "falcon"/);
      assert.equal(oa.requests.length, sent, 'nothing went upstream');
      assert.equal(await settledBalance(gw, caller.userId), before, 'nothing was charged');
      const rows = await logsFor(gw, a.requestId);
      const row = rows.find((r) => r.type === 'error');
      assert.ok(row, 'the refusal is logged');
      assert.equal(JSON.parse(row.other!).guardrails[0].action, 'block');
    });

    test(`${how}: a denied keyword in the output (split across chunks) is blocked before the caller sees it`, async () => {
      const a = await f.call('m-deny-out', 'echo:the fal¦con flies', stream);
      if (!stream) {
        assert.equal(a.status, 400, a.raw);
        assert.match(f.errorMessage(a.raw), /blocked by guardrail deny-words/);
      } else {
        assert.equal(a.status, 200);
        assert.ok(f.streamError(a.raw), `the stream ends with the family's error event: ${a.raw}`);
        assert.ok(!/fal/i.test(a.text), 'the blocked text is never sent');
        assert.match(a.raw, /blocked by guardrail deny-words/);
        const row = await consumeLog(gw, a.requestId);
        const other = JSON.parse(row.other!);
        assert.deepEqual(
          other.guardrails.map((g: any) => [g.stage, g.action]),
          [
            ['input', 'allow'],
            ['output', 'block'],
          ],
        );
        assert.equal(Number(row.completion_tokens), 0, 'no output text was served, none is charged');
      }
    });

    test(`${how}: secret detection blocks an API key in the prompt, or masks it when configured`, async () => {
      const key = 'sk-abcdefghijklmnopqrstuvwxyz012345';
      const blocked = await f.call('m-secret', `echo:use ${key}`, stream);
      assert.equal(blocked.status, 400, blocked.raw);
      assert.match(f.errorMessage(blocked.raw), /an API key/);
      assert.ok(!blocked.raw.includes(key), 'the error does not repeat the secret');
      const masked = await f.call('m-secret-mask', `echo:use ${key}`, stream);
      assert.equal(masked.status, 200, masked.raw);
      assert.equal(masked.text, 'use [SECRET]');
      assert.ok(!sentPrompt().includes(key));
    });

    test(`${how}: the JSON-schema check blocks an answer without the required property`, async () => {
      const ok = await f.call('m-json', 'echo:{"city":"Paris"}', stream);
      assert.equal(ok.status, 200, ok.raw);
      assert.equal(ok.text, '{"city":"Paris"}');
      const bad = await f.call('m-json', 'echo:{"town":"Paris"}', stream);
      if (!stream) {
        assert.equal(bad.status, 400, bad.raw);
        assert.match(f.errorMessage(bad.raw), /\$\.city is required/);
      } else {
        assert.ok(f.streamError(bad.raw), bad.raw);
        assert.equal(bad.text, '');
      }
    });
  }
}

test('a streamed answer longer than a window: an address split across the window boundary is masked by the hold-back', async () => {
  const lead = 'word '.repeat(50); // 250 characters: the window is checked once "john@exa" has arrived
  for (const f of FAMILIES) {
    const a = await f.call('m-pii-out', `echo:${lead}john@exa¦mple.com ${'tail '.repeat(80)}end`, true);
    assert.equal(a.status, 200, a.raw);
    assert.equal(a.text, `${lead}[EMAIL] ${'tail '.repeat(80)}end`, f.name);
    assert.ok(!a.raw.includes('john@'), f.name);
  }
});

test('a Responses call whose answer a guardrail checks is served by conversion, so the answer is checked', async () => {
  const a = await FAMILIES[1].call('m-native', 'echo:mail john@example.com', false);
  assert.equal(a.status, 200, a.raw);
  assert.equal(a.text, 'mail [EMAIL]');
  assert.match(oa.requests.at(-1)!.path, /\/chat\/completions$/);
});

test('a guardrail that throws or runs out of time: on_error block refuses the call, allow lets it through', async () => {
  for (const [model, what] of [
    ['m-throw', /rule store unavailable/],
    ['m-slow', /timed out after 300 ms/],
  ] as const) {
    const refused = await FAMILIES[0].call(`${model}-block`, 'echo:hello', false);
    assert.equal(refused.status, 400, refused.raw);
    assert.match(FAMILIES[0].errorMessage(refused.raw), what);
    const allowed = await FAMILIES[0].call(`${model}-allow`, 'echo:hello', false);
    assert.equal(allowed.status, 200, allowed.raw);
    assert.equal(allowed.text, 'hello');
    const log = await consumeLog(gw, allowed.requestId);
    const g = JSON.parse(log.other!).guardrails;
    assert.equal(g[0].action, 'error');
    assert.match(g[0].error, what);
  }
});

test('a guardrail that exhausts its memory is contained: the call goes on under on_error allow, and the next check works', async () => {
  for (let i = 0; i < 2; i++) {
    const a = await FAMILIES[0].call('m-hog', 'echo:still here', false);
    assert.equal(a.status, 200, a.raw);
    assert.equal(a.text, 'still here');
    const g = JSON.parse((await consumeLog(gw, a.requestId)).other!).guardrails;
    assert.equal(g[0].action, 'error');
    assert.match(g[0].error, /memory limit/);
  }
  const pii = await FAMILIES[0].call('m-pii-in', 'echo:mail a@b.io', false);
  assert.equal(pii.text, 'mail [EMAIL]', 'other guardrails are not affected');
});

test('an output block is charged for the input only; annotations go on the log row; verdicts are counted', async () => {
  const before = await settledBalance(gw, caller.userId);
  const a = await FAMILIES[0].call('m-deny-out', 'echo:fal¦con', false);
  assert.equal(a.status, 400);
  const log = await consumeLog(gw, a.requestId);
  assert.equal(Number(log.completion_tokens), 0, 'the output that was not served is not charged');
  assert.ok(Number(log.prompt_tokens) > 0);
  assert.equal(await settledBalance(gw, caller.userId), before - Number(log.quota));

  const t = await FAMILIES[0].call('m-tag', 'echo:hi', false);
  const row = await consumeLog(gw, t.requestId);
  assert.deepEqual(
    JSON.parse(row.other!).guardrails.map((g: any) => [g.stage, g.action, g.tags]),
    [
      ['input', 'annotate', ['stage:input']],
      ['output', 'annotate', ['stage:output']],
    ],
  );
  const stats = await root.ok('GET', '/api/plugin/guardrail/stats');
  assert.ok(stats.tagger.annotate >= 2);
  assert.ok(stats['deny-words'].block >= 1);
});
