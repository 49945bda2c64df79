/**
 * Claude Code (`claude -p`) and Codex (`codex exec`) through the gateway, offline, configured exactly as
 * docs/clients.md says, each running a whole agent loop: the vendor answers with a shell tool call, the agent
 * runs it in its folder, sends the output back, and the vendor's final answer quotes it. Claude Code against
 * an Anthropic upstream (its own format) and a Gemini one (converted); Codex, which speaks only the Responses
 * API, against a chat-only OpenAI-compatible upstream and an Anthropic one (both converted; the tools of its
 * namespace groups are offered one by one).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { turnOf } from '../fakes/upstreams/tool-vendor.ts';
import { createCaller } from '../relay-fixtures.ts';
import { agentLoopCase, agentOrSkip, agentRig, clientSnippets, exportsOf, runAgent, snippet, workspace } from '../agents/run.ts';

const CLAUDE = agentOrSkip('claude');
const CODEX = agentOrSkip('codex');

const rig = agentRig(CLAUDE.skip && CODEX.skip, [
  { type: 14, keys: ['sk-ant'], models: ['claude-sonnet-5', 'claude-for-codex'], name: 'anthropic' },
  { type: 24, keys: ['g-key'], models: ['gemini-for-claude-code'], name: 'gemini' },
  { type: 1, keys: ['sk-oa'], models: ['gpt-5.1'], name: 'chat-only', settings: { responses_api: false } },
]);

/** The page's Codex provider with `model`, and retries off so that a refusal shows at once. */
function codexConfig(doc: Map<string, string>, model: string): string {
  return `${snippet(doc, 'codex').replace(/^model = .*$/m, `model = "${model}"`)}request_max_retries = 0\nstream_max_retries = 0\n`;
}

for (const [model, upstream, path] of [
  ['claude-sonnet-5', 'an Anthropic channel (same format)', /^\/v1\/messages/],
  ['gemini-for-claude-code', 'a Gemini channel (converted)', /\/v1beta\/models\/gemini-for-claude-code:/],
] as const) {
  agentLoopCase(rig, {
    name: `Claude Code through ${upstream}: runs the vendor's tool call, sends its output back, is billed`,
    agent: CLAUDE,
    what: 'Claude Code',
    folder: 'claude-code',
    path,
    env: (_ws, doc) => ({ ...exportsOf(snippet(doc, 'claude-code')), DISABLE_AUTOUPDATER: '1', CI: 'true' }),
    args: ['-p', 'What does note.txt say?', '--model', model, '--allowedTools', 'Read,Bash'],
  });
}

for (const [model, upstream, path] of [
  ['gpt-5.1', 'a chat-only OpenAI channel (converted, the model of docs/clients.md)', /^\/v1\/chat\/completions$/],
  ['claude-for-codex', 'an Anthropic channel (converted)', /^\/v1\/messages/],
] as const) {
  agentLoopCase(rig, {
    name: `Codex through ${upstream}: runs the vendor's tool call, sends its output back, is billed`,
    agent: CODEX,
    what: 'Codex',
    folder: 'codex',
    path,
    env(ws, doc) {
      ws.writeHome('.codex/config.toml', codexConfig(doc, model));
      return { CODEX_HOME: `${ws.home}/.codex`, ...exportsOf(snippet(doc, 'codex-env')) };
    },
    args: ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', 'What does note.txt say?'],
    check(_run, at) {
      // Its sub-agent tools come in a namespace group, offered one by one to vendors without namespaces.
      const offered = turnOf(rig.vendor.requests[at.sent]!).tools;
      assert.ok(
        offered.some((n) => n.endsWith('__spawn_agent')),
        `the tools of Codex's namespace groups reach the vendor: ${offered.join(', ')}`,
      );
    },
  });
}

test(
  "Codex through an Anthropic channel: the vendor's call of a tool of a namespace group reaches Codex's own handler",
  { skip: CODEX.skip },
  async () => {
    const { gw, vendor, tap } = rig;
    const caller = await createCaller(gw, { quota: 50_000_000 });
    const ws = workspace('codex');
    // close_agent of Codex's multi_agent_v1 group, offered as multi_agent_v1__close_agent: answered with the
    // namespace apart, Codex runs its handler (which knows no such agent); a call it did not recognise would be
    // answered "unsupported call".
    vendor.call = { name: 'multi_agent_v1__close_agent', args: { target: 'no-such-agent' } };
    try {
      const doc = clientSnippets(tap.url, caller.key);
      ws.writeHome('.codex/config.toml', codexConfig(doc, 'claude-for-codex'));
      const env = { HOME: ws.home, CODEX_HOME: `${ws.home}/.codex`, ...exportsOf(snippet(doc, 'codex-env')) };
      const sentBefore = vendor.requests.length;
      const args = ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', 'Close the sub-agent.'];
      const r = await runAgent(CODEX.cmd!, args, ws.dir, env);
      assert.equal(r.code, 0, `codex failed: ${r.out}\n${r.err}`);
      const result = vendor.toolResults.at(-1) ?? '';
      assert.match(result, /no-such-agent/, `Codex's close_agent answered: ${result}`);
      assert.doesNotMatch(result, /unsupported call/);
      // The call comes back in the next turn's history under the name it was offered as.
      const next = vendor.requests.slice(sentBefore).at(-1)!.body.messages.at(-2);
      assert.equal(next.content[0].name, 'multi_agent_v1__close_agent');
    } finally {
      vendor.call = null;
      ws.remove();
    }
  },
);
