/**
 * opencode (`opencode run …`) through the gateway, offline, configured exactly as docs/clients.md says: its
 * OpenAI-compatible provider against loopback OpenAI (same format) and Gemini (converted) upstreams, its
 * Anthropic provider against Anthropic (same format) and OpenAI (converted) upstreams, its Google provider
 * against an Anthropic upstream (converted). Each run is a whole
 * agent loop: the vendor answers with a shell tool call, opencode runs it in its folder, sends the output
 * back, and the vendor's final answer quotes it; the calls are billed to the key.
 */
import { agentLoopCase, agentOrSkip, agentRig, exportsOf, snippet } from '../agents/run.ts';

const OPENCODE = agentOrSkip('opencode');

/** A model the page does not list, added to its Anthropic provider: served by an OpenAI channel. */
const CROSS = 'gpt-for-opencode';

const rig = agentRig(OPENCODE.skip, [
  { type: 1, keys: ['sk-oa'], models: ['gpt-5.1', CROSS], name: 'openai' },
  { type: 24, keys: ['g-key'], models: ['gemini-2.5-pro'], name: 'gemini' },
  { type: 14, keys: ['sk-ant'], models: ['claude-sonnet-4-5', 'gemini-2.5-flash'], name: 'anthropic' },
]);

for (const [model, upstream, path] of [
  ['gatehouse/gpt-5.1', 'an OpenAI channel (same format)', /^\/v1\/chat\/completions$/],
  ['gatehouse/gemini-2.5-pro', 'a Gemini channel (converted)', /\/v1beta\/models\/gemini-2\.5-pro:/],
  ['gatehouse-anthropic/claude-sonnet-4-5', 'an Anthropic channel (same format)', /^\/v1\/messages/],
  [`gatehouse-anthropic/${CROSS}`, 'an OpenAI channel (converted)', /^\/v1\/chat\/completions$/],
  ['gatehouse-google/gemini-2.5-flash', 'an Anthropic channel (converted)', /^\/v1\/messages/],
] as const) {
  agentLoopCase(rig, {
    name: `opencode ${model} through ${upstream}: runs the vendor's tool call, sends its output back, is billed`,
    agent: OPENCODE,
    what: 'opencode',
    folder: 'opencode',
    path,
    env(ws, doc) {
      const config = JSON.parse(snippet(doc, 'opencode'));
      config.provider['gatehouse-anthropic'].models[CROSS] = { name: 'GPT through the Anthropic format' };
      const file = ws.writeHome('opencode.json', JSON.stringify(config));
      return { OPENCODE_CONFIG: file, ...exportsOf(snippet(doc, 'opencode-env')), ...exportsOf(snippet(doc, 'opencode-offline')) };
    },
    args: ['run', '-m', model, 'What does note.txt say?'],
  });
}
