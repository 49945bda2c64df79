/**
 * Gemini CLI (`gemini -p … --yolo`) through the gateway, offline, configured exactly as docs/clients.md says:
 * against a loopback Gemini upstream (its own format) and against OpenAI and Anthropic upstreams (converted).
 * Each run is a whole agent loop: the vendor answers with a shell tool call, Gemini CLI runs it in its
 * folder, sends the output back, and the vendor's final answer quotes it; the call is billed to the key.
 */
import { agentLoopCase, agentOrSkip, agentRig, exportsOf, snippet } from '../agents/run.ts';

const GEMINI = agentOrSkip('gemini');

const rig = agentRig(GEMINI.skip, [
  { type: 24, keys: ['g-key'], models: ['gemini-2.5-flash'], name: 'gemini' },
  { type: 1, keys: ['sk-oa'], models: ['gpt-for-gemini-cli'], name: 'openai' },
  { type: 14, keys: ['sk-ant'], models: ['claude-for-gemini-cli'], name: 'anthropic' },
]);

for (const [model, upstream, path] of [
  ['gemini-2.5-flash', 'a Gemini channel (same format)', /\/v1beta\/models\/gemini-2\.5-flash:streamGenerateContent/],
  ['gpt-for-gemini-cli', 'an OpenAI channel (converted)', /\/chat\/completions$/],
  ['claude-for-gemini-cli', 'an Anthropic channel (converted)', /^\/v1\/messages/],
] as const) {
  agentLoopCase(rig, {
    name: `Gemini CLI through ${upstream}: runs the vendor's tool call, sends its output back, is billed`,
    agent: GEMINI,
    what: 'Gemini CLI',
    folder: 'gemini-cli',
    path,
    env(ws, doc) {
      ws.writeHome('.gemini/settings.json', snippet(doc, 'gemini-cli-settings'));
      return { ...exportsOf(snippet(doc, 'gemini-cli')), GEMINI_CLI_NO_RELAUNCH: 'true', NO_COLOR: '1' };
    },
    args: ['-p', 'What does note.txt say?', '--yolo', '--skip-trust', '-m', model],
  });
}
