/**
 * Qwen Code (`qwen -p … --yolo`) through the gateway, offline, configured exactly as docs/clients.md says:
 * OpenAI-compatible, against a loopback OpenAI upstream (its own format) and against Gemini and Anthropic
 * upstreams (converted); in Anthropic's format, against the OpenAI upstream (converted). Each run is a whole agent loop: the vendor answers with a shell tool call, Qwen Code
 * runs it in its folder, sends the output back, and the vendor's final answer quotes it; the call is billed.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { assertAgentLoop, startToolVendor, type ToolVendor } from '../fakes/upstreams/tool-vendor.ts';
import { balance, createCaller, createChannel, setPrice, waitFor } from '../relay-fixtures.ts';
import { refused, startTap, type Tap } from '../agents/tap.ts';
import { agentOrSkip, clientSnippets, exportsOf, runAgent, snippet, workspace } from '../agents/run.ts';

const QWEN = agentOrSkip('qwen');

let gw: TestGateway;
let vendor: ToolVendor;
let tap: Tap;

before(async () => {
  if (QWEN.skip) return;
  vendor = await startToolVendor();
  gw = await startTestGateway();
  tap = await startTap(gw.url);
  await createChannel(gw, { type: 1, baseUrl: vendor.url, keys: ['sk-oa'], models: ['qwen3-coder-plus'], name: 'openai' });
  await createChannel(gw, { type: 24, baseUrl: vendor.url, keys: ['g-key'], models: ['gemini-for-qwen'], name: 'gemini' });
  await createChannel(gw, { type: 14, baseUrl: vendor.url, keys: ['sk-ant'], models: ['claude-for-qwen'], name: 'anthropic' });
  for (const m of ['qwen3-coder-plus', 'gemini-for-qwen', 'claude-for-qwen']) await setPrice(gw, m, { input: 1, output: 2 });
});

after(async () => {
  await tap?.close();
  await gw?.stop();
  await vendor?.close();
});

for (const [model, upstream, path, format] of [
  [null, 'an OpenAI channel (same format, the model of docs/clients.md)', /^\/v1\/chat\/completions$/, 'openai'],
  ['gemini-for-qwen', 'a Gemini channel (converted)', /\/v1beta\/models\/gemini-for-qwen:/, 'openai'],
  ['claude-for-qwen', 'an Anthropic channel (converted)', /^\/v1\/messages/, 'openai'],
  [null, 'an OpenAI channel (converted)', /^\/v1\/chat\/completions$/, 'anthropic'],
] as const) {
  test(
    `Qwen Code (${format} format) through ${upstream}: runs the vendor's tool call, sends its output back, is billed`,
    { skip: QWEN.skip },
    async () => {
      const caller = await createCaller(gw, { quota: 50_000_000 });
      const before = await balance(gw, caller.userId);
      const ws = workspace('qwen-code');
      vendor.notePath = ws.note;
      try {
        const doc = clientSnippets(tap.url, caller.key);
        ws.writeHome('.qwen/settings.json', snippet(doc, 'qwen-code-settings'));
        const vars = exportsOf(snippet(doc, format === 'openai' ? 'qwen-code' : 'qwen-code-anthropic'));
        const env = { HOME: ws.home, ...vars, QWEN_CODE_NO_RELAUNCH: 'true', NO_COLOR: '1' };
        const sentBefore = vendor.requests.length;
        const tappedBefore = tap.calls.length;
        const args = ['-p', 'What does note.txt say?', '--yolo', ...(model ? ['-m', model] : [])];
        if (format === 'anthropic') args.push('--auth-type', 'anthropic');
        const r = await runAgent(QWEN.cmd!, args, ws.dir, env);
        assert.equal(r.code, 0, `qwen failed: ${r.out}\n${r.err}`);
        const called = tap.calls.slice(tappedBefore).map((c) => c.path);
        assert.ok(
          called.length > 0 && called.every((p) => p.startsWith(format === 'openai' ? '/v1/chat/completions' : '/v1/messages')),
          `Qwen Code called the gateway in the ${format} format: ${called.join(', ')}`,
        );
        assertAgentLoop(vendor, {
          what: 'Qwen Code',
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
