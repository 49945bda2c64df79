/**
 * The real coding agents through the gateway, offline. Claude Code (`claude -p`): against a loopback
 * Anthropic upstream (same format: the caller's `anthropic-version` and `anthropic-beta` reach the
 * vendor, and the body with its system entries inside `messages` passes unchanged) and against a
 * loopback OpenAI chat upstream (converted). Codex (`codex exec`, which speaks only the Responses API):
 * against the same Anthropic upstream and a chat-only OpenAI-compatible upstream, both converted.
 * Each call is billed to the key that made it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentCommand } from '../agents/clis.ts';
import { runAgent, type Run } from '../agents/run.ts';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { sse, startFake, type FakeUpstream, type Recorded } from '../fakes/upstreams/common.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { balance, createCaller, createChannel, setPrice, waitFor } from '../relay-fixtures.ts';

/** The command lines, from the optional package of test/agents (installed on first use). */
const CLAUDE = agentCommand('claude');
const CODEX = agentCommand('codex');

let gw: TestGateway;
let anthropic: FakeUpstream;
let openai: FakeOpenAI;
let chatOnly: FakeUpstream;
let home: string;

/** A loopback Messages API that answers every turn with one streamed text. */
function answerText(r: Recorded, res: import('node:http').ServerResponse) {
  const ev = (event: string, data: Record<string, unknown>) => ({ event, data: { type: event, ...data } });
  return sse(
    res,
    [
      ev('message_start', {
        message: {
          id: 'msg_cc',
          type: 'message',
          role: 'assistant',
          model: r.body.model,
          content: [],
          stop_reason: null,
          usage: { input_tokens: 1200, output_tokens: 1 },
        },
      }),
      ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hello from the loopback vendor.' } }),
      ev('content_block_stop', { index: 0 }),
      ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 8 } }),
      ev('message_stop', {}),
    ],
    0,
  );
}

before(async () => {
  anthropic = await startFake((r, res) => {
    if (!r.path.startsWith('/v1/messages')) {
      res.writeHead(404).end();
      return;
    }
    return answerText(r, res);
  });
  openai = await startFakeOpenAI();
  // A chat-only vendor that always answers with text (Codex offers tools on every turn).
  chatOnly = await startFake((r, res) => {
    const base = { id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 1, model: r.body.model };
    return sse(
      res,
      [
        {
          data: {
            ...base,
            choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello from the chat vendor.' }, finish_reason: null }],
          },
        },
        { data: { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] } },
        { data: { ...base, choices: [], usage: { prompt_tokens: 900, completion_tokens: 6, total_tokens: 906 } } },
        { data: '[DONE]' },
      ],
      0,
    );
  });
  gw = await startTestGateway();
  await createChannel(gw, { type: 14, baseUrl: anthropic.url, keys: ['sk-ant'], models: ['claude-sonnet-5'], name: 'anthropic' });
  await createChannel(gw, { type: 1, baseUrl: openai.url, models: ['claude-haiku-4-5-20251001'], name: 'openai' });
  await createChannel(gw, { type: 14, baseUrl: anthropic.url, keys: ['sk-ant'], models: ['claude-for-codex'], name: 'anthropic-codex' });
  await createChannel(gw, {
    type: 1,
    baseUrl: chatOnly.url,
    models: ['chat-for-codex'],
    name: 'chat-only',
    settings: { responses_api: false },
  });
  await setPrice(gw, 'claude-for-codex', { input: 3, output: 15 });
  await setPrice(gw, 'chat-for-codex', { input: 1, output: 2 });
  await setPrice(gw, 'claude-sonnet-5', { input: 3, output: 15 });
  await setPrice(gw, 'claude-haiku-4-5-20251001', { input: 1, output: 5 });
  home = mkdtempSync(join(tmpdir(), 'gatehouse-claude-'));
});

after(async () => {
  await gw?.stop();
  await anthropic?.close();
  await openai?.close();
  await chatOnly?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** Runs `claude -p <prompt>` against the gateway with `key`, offline and quiet. */
function claude(key: string, args: string[]): Promise<Run> {
  return runAgent(
    CLAUDE,
    ['-p', ...args],
    home,
    {
      HOME: home,
      ANTHROPIC_BASE_URL: gw.url,
      ANTHROPIC_API_KEY: key,
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      CI: 'true',
    },
    90_000,
  );
}

test('Claude Code through an Anthropic channel: its headers and body reach the vendor, the call is billed', async () => {
  const caller = await createCaller(gw, { quota: 50_000_000 });
  const before = await balance(gw, caller.userId);
  const r = await claude(caller.key, ['--model', 'sonnet', 'Say hello.']);
  assert.equal(r.code, 0, `claude failed: ${r.out}\n${r.err}`);
  assert.match(r.out, /Hello from the loopback vendor/);
  const sent = anthropic.requests.filter((q) => q.path.startsWith('/v1/messages'));
  assert.ok(sent.length >= 1);
  const last = sent.at(-1)!;
  assert.equal(last.headers['x-api-key'], 'sk-ant', "the channel's key, never the caller's");
  assert.ok(last.headers['anthropic-version'], 'anthropic-version forwarded');
  assert.match(
    String(last.headers['anthropic-beta'] ?? ''),
    /interleaved-thinking-2025-05-14/,
    'the betas Claude Code asked for reach the vendor',
  );
  assert.match(String(last.headers['anthropic-beta'] ?? ''), /mid-conversation-system/);
  assert.ok(
    last.body.messages.some((m: { role: string }) => m.role === 'system'),
    'system entries inside messages pass unchanged',
  );
  assert.equal(last.body.thinking?.type, 'adaptive');
  assert.equal(last.body.model, 'claude-sonnet-5');
  assert.ok(Array.isArray(last.body.tools) && last.body.tools.length > 0, 'the tools pass');
  await waitFor(async () => (await balance(gw, caller.userId)) < before, 5000, 'the charge');
});

test('Claude Code through an OpenAI chat channel: converted, answered and billed', async () => {
  const caller = await createCaller(gw, { quota: 50_000_000 });
  const before = await balance(gw, caller.userId);
  const r = await claude(caller.key, ['--model', 'haiku', 'Say hello.']);
  assert.equal(r.code, 0, `claude failed: ${r.out}\n${r.err}`);
  const sent = openai.requests.filter((q) => q.path.endsWith('/chat/completions'));
  assert.ok(sent.length >= 1, 'the OpenAI upstream was called');
  const body = sent.at(-1)!.body;
  assert.equal(body.model, 'claude-haiku-4-5-20251001');
  assert.equal(body.messages[0].role, 'system', 'the system prompt leads the converted messages');
  assert.ok(
    typeof body.reasoning_effort === 'string',
    `output_config.effort becomes reasoning_effort (${JSON.stringify(body.reasoning_effort)})`,
  );
  assert.ok(r.out.trim().length > 0);
  await waitFor(async () => (await balance(gw, caller.userId)) < before, 5000, 'the charge');
});

/**
 * Runs `codex exec <prompt>` against the gateway with a provider of its own (Responses API over HTTPS,
 * no retries). Codex's built-in OpenAI provider speaks Responses over a WebSocket (codex-websocket.test.ts).
 */
function codex(key: string, model: string, prompt: string): Promise<Run> {
  const codexHome = mkdtempSync(join(tmpdir(), 'gatehouse-codex-'));
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      `model_provider = "gw"`,
      `model = "${model}"`,
      '[model_providers.gw]',
      'name = "gw"',
      `base_url = "${gw.url}/v1"`,
      'env_key = "GW_KEY"',
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n'),
  );
  const env = { HOME: codexHome, CODEX_HOME: codexHome, GW_KEY: key };
  return runAgent(CODEX, ['exec', '--skip-git-repo-check', prompt], codexHome, env, 90_000).finally(() =>
    rmSync(codexHome, { recursive: true, force: true }),
  );
}

for (const [model, upstream, answer] of [
  ['claude-for-codex', 'Anthropic', /Hello from the loopback vendor/],
  ['chat-for-codex', 'chat-only', /Hello from the chat vendor/],
] as const) {
  test(`Codex through ${upstream === 'Anthropic' ? 'an Anthropic' : 'a chat-only'} channel: its Responses calls are converted, answered and billed`, async () => {
    const caller = await createCaller(gw, { quota: 50_000_000 });
    const before = await balance(gw, caller.userId);
    const r = await codex(caller.key, model, 'Say hello.');
    assert.equal(r.code, 0, `codex failed: ${r.out}\n${r.err}`);
    assert.match(r.out + r.err, answer);
    const up = upstream === 'Anthropic' ? anthropic : chatOnly;
    const sent = up.requests.filter((q) => q.body?.model === model);
    assert.ok(sent.length >= 1, 'the upstream was called');
    assert.ok(Array.isArray(sent.at(-1)!.body.tools) && sent.at(-1)!.body.tools.length > 0, "Codex's tools reach the vendor");
    await waitFor(async () => (await balance(gw, caller.userId)) < before, 5000, 'the charge');
  });
}
