/**
 * The SDK examples of docs/clients.md, run as they are written there (address and key replaced) against the
 * gateway: the OpenAI, Anthropic and Google Gen AI SDKs, the Vercel AI SDK and LangChain. Every model they
 * name is served by a loopback upstream of another vendor's format, so each call is also converted; each
 * answer must be printed. The Vercel AI SDK and LangChain come from test/agents' own package.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startToolVendor, FINAL_PREFIX, type ToolVendor } from '../fakes/upstreams/tool-vendor.ts';
import { balance, createCaller, createChannel, setPrice, waitFor } from '../relay-fixtures.ts';
import { clientSnippets, runAgent, snippet } from '../agents/run.ts';
import { AGENTS_DIR, ensureAgents } from '../agents/install.mjs';

const ROOT = join(AGENTS_DIR, '../../../..');

let gw: TestGateway;
let vendor: ToolVendor;

before(async () => {
  ensureAgents();
  vendor = await startToolVendor();
  gw = await startTestGateway();
  await createChannel(gw, { type: 24, baseUrl: vendor.url, keys: ['g-key'], models: ['gpt-4o-mini'], name: 'gemini' });
  await createChannel(gw, { type: 1, baseUrl: vendor.url, keys: ['sk-oa'], models: ['claude-sonnet-4-5'], name: 'openai' });
  await createChannel(gw, { type: 14, baseUrl: vendor.url, keys: ['sk-ant'], models: ['gemini-2.5-flash'], name: 'anthropic' });
  for (const m of ['gpt-4o-mini', 'claude-sonnet-4-5', 'gemini-2.5-flash']) await setPrice(gw, m, { input: 1, output: 2 });
});

after(async () => {
  await gw?.stop();
  await vendor?.close();
});

test('docs/clients.md: every configuration block it names is one a test uses', () => {
  // The agents' blocks are read by gemini-cli, qwen-code, opencode and claude-code-codex-cli.test.ts; the SDKs' below.
  assert.deepEqual([...clientSnippets('', '').keys()].sort(), [
    'anthropic-sdk',
    'claude-code',
    'codex',
    'codex-env',
    'gemini-cli',
    'gemini-cli-settings',
    'google-sdk',
    'langchain',
    'openai-sdk',
    'opencode',
    'opencode-env',
    'opencode-offline',
    'qwen-code',
    'qwen-code-anthropic',
    'qwen-code-settings',
    'vercel-ai-sdk',
  ]);
});

for (const [name, where] of [
  ['openai-sdk', ROOT],
  ['anthropic-sdk', ROOT],
  ['google-sdk', ROOT],
  ['vercel-ai-sdk', AGENTS_DIR],
  ['langchain', AGENTS_DIR],
] as const) {
  test(`docs/clients.md: the ${name} example answers through the gateway`, async () => {
    const caller = await createCaller(gw, { quota: 50_000_000 });
    const before = await balance(gw, caller.userId);
    const code = snippet(clientSnippets(gw.url, caller.key), name);
    // Run from a folder that has the packages it imports; nothing but PATH in its environment.
    const r = await runAgent({ file: process.execPath, args: ['--input-type=module', '-e', code] }, [], where, { HOME: where });
    assert.equal(r.code, 0, `the example failed: ${r.out}\n${r.err}`);
    const printed = r.out.split('\n').filter((l) => l.startsWith(FINAL_PREFIX));
    assert.equal(printed.length, code.match(/console\.log\(/g)!.length, `each answer printed: ${r.out}\n${r.err}`);
    await waitFor(async () => (await balance(gw, caller.userId)) < before, 15_000, 'the charge');
  });
}
