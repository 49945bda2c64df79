/**
 * Qwen Code (`qwen -p … --yolo`) through the gateway, offline, configured exactly as docs/clients.md says:
 * OpenAI-compatible, against a loopback OpenAI upstream (its own format) and against Gemini and Anthropic
 * upstreams (converted); in Anthropic's format, against the OpenAI upstream (converted). Each run is a whole agent loop: the vendor answers with a shell tool call, Qwen Code
 * runs it in its folder, sends the output back, and the vendor's final answer quotes it; the call is billed.
 */
import assert from 'node:assert/strict';
import { agentLoopCase, agentOrSkip, agentRig, exportsOf, snippet } from '../agents/run.ts';

const QWEN = agentOrSkip('qwen');

const rig = agentRig(QWEN.skip, [
  { type: 1, keys: ['sk-oa'], models: ['qwen3-coder-plus'], name: 'openai' },
  { type: 24, keys: ['g-key'], models: ['gemini-for-qwen'], name: 'gemini' },
  { type: 14, keys: ['sk-ant'], models: ['claude-for-qwen'], name: 'anthropic' },
]);

for (const [model, upstream, path, format] of [
  [null, 'an OpenAI channel (same format, the model of docs/clients.md)', /^\/v1\/chat\/completions$/, 'openai'],
  ['gemini-for-qwen', 'a Gemini channel (converted)', /\/v1beta\/models\/gemini-for-qwen:/, 'openai'],
  ['claude-for-qwen', 'an Anthropic channel (converted)', /^\/v1\/messages/, 'openai'],
  [null, 'an OpenAI channel (converted)', /^\/v1\/chat\/completions$/, 'anthropic'],
] as const) {
  agentLoopCase(rig, {
    name: `Qwen Code (${format} format) through ${upstream}: runs the vendor's tool call, sends its output back, is billed`,
    agent: QWEN,
    what: 'Qwen Code',
    folder: 'qwen-code',
    path,
    env(ws, doc) {
      ws.writeHome('.qwen/settings.json', snippet(doc, 'qwen-code-settings'));
      const vars = exportsOf(snippet(doc, format === 'openai' ? 'qwen-code' : 'qwen-code-anthropic'));
      return { ...vars, QWEN_CODE_NO_RELAUNCH: 'true', NO_COLOR: '1' };
    },
    args: [
      '-p',
      'What does note.txt say?',
      '--yolo',
      ...(model ? ['-m', model] : []),
      ...(format === 'anthropic' ? ['--auth-type', 'anthropic'] : []),
    ],
    check(_run, at) {
      const called = rig.tap.calls.slice(at.tapped).map((c) => c.path);
      assert.ok(
        called.length > 0 && called.every((p) => p.startsWith(format === 'openai' ? '/v1/chat/completions' : '/v1/messages')),
        `Qwen Code called the gateway in the ${format} format: ${called.join(', ')}`,
      );
    },
  });
}
