/**
 * Gemini CLI (`gemini -p … --yolo`) through the gateway, offline, configured exactly as docs/clients.md says:
 * against a loopback Gemini upstream (its own format) and against OpenAI and Anthropic upstreams (converted).
 * Each run is a whole agent loop: the vendor answers with a shell tool call, Gemini CLI runs it in its
 * folder, sends the output back, and the vendor's final answer quotes it; the call is billed to the key.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { assertAgentLoop, startToolVendor, type ToolVendor } from '../fakes/upstreams/tool-vendor.ts';
import { balance, createCaller, createChannel, setPrice, waitFor } from '../relay-fixtures.ts';
import { refused, startTap, type Tap } from '../agents/tap.ts';
import { agentOrSkip, clientSnippets, exportsOf, runAgent, snippet, workspace } from '../agents/run.ts';

const GEMINI = agentOrSkip('gemini');

let gw: TestGateway;
let vendor: ToolVendor;
let tap: Tap;

before(async () => {
  if (GEMINI.skip) return;
  vendor = await startToolVendor();
  gw = await startTestGateway();
  tap = await startTap(gw.url);
  await createChannel(gw, { type: 24, baseUrl: vendor.url, keys: ['g-key'], models: ['gemini-2.5-flash'], name: 'gemini' });
  await createChannel(gw, { type: 1, baseUrl: vendor.url, keys: ['sk-oa'], models: ['gpt-for-gemini-cli'], name: 'openai' });
  await createChannel(gw, { type: 14, baseUrl: vendor.url, keys: ['sk-ant'], models: ['claude-for-gemini-cli'], name: 'anthropic' });
  for (const m of ['gemini-2.5-flash', 'gpt-for-gemini-cli', 'claude-for-gemini-cli']) await setPrice(gw, m, { input: 1, output: 2 });
});

after(async () => {
  await tap?.close();
  await gw?.stop();
  await vendor?.close();
});

for (const [model, upstream, path] of [
  ['gemini-2.5-flash', 'a Gemini channel (same format)', /\/v1beta\/models\/gemini-2\.5-flash:streamGenerateContent/],
  ['gpt-for-gemini-cli', 'an OpenAI channel (converted)', /\/chat\/completions$/],
  ['claude-for-gemini-cli', 'an Anthropic channel (converted)', /^\/v1\/messages/],
] as const) {
  test(`Gemini CLI through ${upstream}: runs the vendor's tool call, sends its output back, is billed`, { skip: GEMINI.skip }, async () => {
    const caller = await createCaller(gw, { quota: 50_000_000 });
    const before = await balance(gw, caller.userId);
    const ws = workspace('gemini-cli');
    vendor.notePath = ws.note;
    try {
      const doc = clientSnippets(tap.url, caller.key);
      ws.writeHome('.gemini/settings.json', snippet(doc, 'gemini-cli-settings'));
      const env = { HOME: ws.home, ...exportsOf(snippet(doc, 'gemini-cli')), GEMINI_CLI_NO_RELAUNCH: 'true', NO_COLOR: '1' };
      const sentBefore = vendor.requests.length;
      const tappedBefore = tap.calls.length;
      const r = await runAgent(GEMINI.cmd!, ['-p', 'What does note.txt say?', '--yolo', '--skip-trust', '-m', model], ws.dir, env);
      assert.equal(r.code, 0, `gemini failed: ${r.out}\n${r.err}`);
      assertAgentLoop(vendor, {
        what: 'Gemini CLI',
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
  });
}
