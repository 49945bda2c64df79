/**
 * opencode (`opencode run …`) through the gateway, offline, configured exactly as docs/clients.md says: its
 * OpenAI-compatible provider against loopback OpenAI (same format) and Gemini (converted) upstreams, its
 * Anthropic provider against Anthropic (same format) and OpenAI (converted) upstreams, its Google provider
 * against an Anthropic upstream (converted). Each run is a whole
 * agent loop: the vendor answers with a shell tool call, opencode runs it in its folder, sends the output
 * back, and the vendor's final answer quotes it; the calls are billed to the key.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { assertAgentLoop, startToolVendor, type ToolVendor } from '../fakes/upstreams/tool-vendor.ts';
import { balance, createCaller, createChannel, setPrice, waitFor } from '../relay-fixtures.ts';
import { refused, startTap, type Tap } from '../agents/tap.ts';
import { agentOrSkip, clientSnippets, exportsOf, runAgent, snippet, workspace } from '../agents/run.ts';

const OPENCODE = agentOrSkip('opencode');

let gw: TestGateway;
let vendor: ToolVendor;
let tap: Tap;

/** A model the page does not list, added to its Anthropic provider: served by an OpenAI channel. */
const CROSS = 'gpt-for-opencode';

before(async () => {
  if (OPENCODE.skip) return;
  vendor = await startToolVendor();
  gw = await startTestGateway();
  tap = await startTap(gw.url);
  await createChannel(gw, { type: 1, baseUrl: vendor.url, keys: ['sk-oa'], models: ['gpt-5.1', CROSS], name: 'openai' });
  await createChannel(gw, { type: 24, baseUrl: vendor.url, keys: ['g-key'], models: ['gemini-2.5-pro'], name: 'gemini' });
  await createChannel(gw, {
    type: 14,
    baseUrl: vendor.url,
    keys: ['sk-ant'],
    models: ['claude-sonnet-4-5', 'gemini-2.5-flash'],
    name: 'anthropic',
  });
  for (const m of ['gpt-5.1', CROSS, 'gemini-2.5-pro', 'claude-sonnet-4-5', 'gemini-2.5-flash'])
    await setPrice(gw, m, { input: 1, output: 2 });
});

after(async () => {
  await tap?.close();
  await gw?.stop();
  await vendor?.close();
});

for (const [model, upstream, path] of [
  ['gatehouse/gpt-5.1', 'an OpenAI channel (same format)', /^\/v1\/chat\/completions$/],
  ['gatehouse/gemini-2.5-pro', 'a Gemini channel (converted)', /\/v1beta\/models\/gemini-2\.5-pro:/],
  ['gatehouse-anthropic/claude-sonnet-4-5', 'an Anthropic channel (same format)', /^\/v1\/messages/],
  [`gatehouse-anthropic/${CROSS}`, 'an OpenAI channel (converted)', /^\/v1\/chat\/completions$/],
  ['gatehouse-google/gemini-2.5-flash', 'an Anthropic channel (converted)', /^\/v1\/messages/],
] as const) {
  test(
    `opencode ${model} through ${upstream}: runs the vendor's tool call, sends its output back, is billed`,
    { skip: OPENCODE.skip },
    async () => {
      const caller = await createCaller(gw, { quota: 50_000_000 });
      const before = await balance(gw, caller.userId);
      const ws = workspace('opencode');
      vendor.notePath = ws.note;
      try {
        const doc = clientSnippets(tap.url, caller.key);
        const config = JSON.parse(snippet(doc, 'opencode'));
        config.provider['gatehouse-anthropic'].models[CROSS] = { name: 'GPT through the Anthropic format' };
        const file = ws.writeHome('opencode.json', JSON.stringify(config));
        const env = {
          HOME: ws.home,
          OPENCODE_CONFIG: file,
          ...exportsOf(snippet(doc, 'opencode-env')),
          ...exportsOf(snippet(doc, 'opencode-offline')),
        };
        const sentBefore = vendor.requests.length;
        const tappedBefore = tap.calls.length;
        const r = await runAgent(OPENCODE.cmd!, ['run', '-m', model, 'What does note.txt say?'], ws.dir, env);
        assert.equal(r.code, 0, `opencode failed: ${r.out}\n${r.err}`);
        assertAgentLoop(vendor, {
          what: 'opencode',
          refused: refused(tap, tappedBefore),
          callerKey: caller.key,
          sent: vendor.requests.slice(sentBefore),
          path,
          token: ws.token,
          out: r.out,
          err: r.err,
        });
        await waitFor(async () => (await balance(gw, caller.userId)) < before, 15_000, 'the charge');
      } finally {
        ws.remove();
      }
    },
  );
}
