/**
 * A loopback vendor for coding-agent command lines that speaks the three model formats at once (OpenAI chat
 * completions, Anthropic messages, Gemini generateContent; the path decides) and plays one agent loop: while
 * the conversation holds no tool result, it answers with a tool call that reads the test's note: the agent's
 * file-reading tool with the note's path (`notePath`), or, for an agent that has none, its shell tool with
 * `cat note.txt` (run in the agent's folder); once a tool result is there, it answers with a final text that
 * quotes it (a test can name another tool call to answer with instead: `call`). Every tool result it saw is
 * kept in `toolResults`, so a test can tell that what the tool read reached the vendor. Streams and plain
 * answers both carry usage, so calls are billed.
 *
 * Reading tools come first because they involve no child process: Qwen Code (and Gemini CLI, whose shell
 * code it shares) settle a one-shot shell command when the process exits, and on a busy machine that can be
 * before its output was read, which would make the test flaky.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { json, sse, startFake, type FakeUpstream, type Recorded } from './common.ts';

/** The file-reading tools of the agents (Gemini CLI and Qwen Code, opencode, Claude Code); the path goes in the
 * first argument whose name says path. */
const READ_TOOLS = ['read_file', 'read', 'Read'];
/** The shell tools of the agents, in the order they are preferred, with the argument that holds the command. */
const SHELL_TOOLS: Array<[name: string, commandField: string]> = [
  ['run_shell_command', 'command'], // Gemini CLI, Qwen Code
  ['bash', 'command'], // opencode
  ['Bash', 'command'], // Claude Code
  ['exec_command', 'cmd'], // Codex
];
/** The command the vendor asks for. */
const COMMAND = 'cat note.txt';
/** Other arguments, sent when the tool's schema declares them. */
const EXTRA_ARGS: Record<string, unknown> = { description: 'Read the note', is_background: false };
/** The start of every final answer. */
export const FINAL_PREFIX = 'Final answer from the loopback vendor:';

export interface ToolVendor extends FakeUpstream {
  /** The text of every tool result the vendor was sent, in order. */
  toolResults: string[];
  /** The tool calls it answered with (the tool's name), in order. */
  toolCalls: string[];
  /** The absolute path of the note to read with a file-reading tool (set by each test; null: shell only). */
  notePath: string | null;
  /** A tool call to answer with instead, when the client offers that tool (null: read the note). */
  call: { name: string; args: Record<string, unknown> } | null;
}

/** Text of a content value in any of the formats (a string, or parts/blocks with `text`). */
function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(textOf).join('');
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o.text === 'string') return o.text;
    if ('content' in o) return textOf(o.content);
    return JSON.stringify(o);
  }
  return '';
}

interface Offered {
  name: string;
  schema: any;
}

/** The tool to call among those offered, with its arguments; null when none fits. */
function pickTool(offered: Offered[], notePath: string | null): { name: string; args: Record<string, unknown> } | null {
  for (const name of notePath ? READ_TOOLS : []) {
    const t = offered.find((o) => o.name === name);
    const field = Object.keys(t?.schema?.properties ?? {}).find((k) => /path/i.test(k));
    if (t && field) return { name, args: { [field]: notePath } };
  }
  for (const [name, field] of SHELL_TOOLS) {
    const t = offered.find((o) => o.name === name);
    if (!t) continue;
    const props = t.schema?.properties ?? {};
    const extra = Object.entries(EXTRA_ARGS).filter(([k]) => k in props);
    return { name, args: { [field]: COMMAND, ...Object.fromEntries(extra) } };
  }
  return null;
}
const final = (result: string) => `${FINAL_PREFIX} ${result.replace(/\s+/g, ' ').trim().slice(0, 300)}`;
const USAGE = { input: 1500, output: 20 };

export async function startToolVendor(): Promise<ToolVendor> {
  const toolResults: string[] = [];
  const toolCalls: string[] = [];
  const up = (await startFake((r, res) => {
    if (r.path.includes('/chat/completions')) return openai(r, res);
    if (r.path.startsWith('/v1/messages')) return anthropic(r, res);
    if (/:(stream)?generateContent/i.test(r.path)) return gemini(r, res);
    return json(res, 404, { error: { message: `no such path ${r.path}` } });
  })) as ToolVendor;
  up.toolResults = toolResults;
  up.toolCalls = toolCalls;
  up.notePath = null;
  up.call = null;
  const choose = (offered: Offered[]) =>
    up.call && offered.some((o) => o.name === up.call!.name) ? up.call : pickTool(offered, up.notePath);

  function openai(r: Recorded, res: ServerResponse) {
    const b = r.body;
    const last = b.messages.at(-1);
    const offered = (b.tools ?? []).map((t: any) => ({ name: t.function?.name, schema: t.function?.parameters }));
    const tool = last.role === 'tool' ? null : choose(offered);
    if (last.role === 'tool') toolResults.push(textOf(last.content));
    if (tool) toolCalls.push(tool.name);
    const text = tool ? null : final(last.role === 'tool' ? textOf(last.content) : 'no tool was run');
    const call = {
      id: `call_${toolCalls.length}`,
      type: 'function',
      function: { name: tool?.name, arguments: JSON.stringify(tool?.args) },
    };
    const usage = { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output };
    const finish = tool ? 'tool_calls' : 'stop';
    if (!b.stream) {
      const message = tool ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: text };
      return json(res, 200, {
        id: 'chatcmpl-tv',
        object: 'chat.completion',
        created: 1,
        model: b.model,
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      });
    }
    const base = { id: 'chatcmpl-tv', object: 'chat.completion.chunk', created: 1, model: b.model };
    const delta = tool ? { role: 'assistant', tool_calls: [{ index: 0, ...call }] } : { role: 'assistant', content: text };
    return sse(
      res,
      [
        { data: { ...base, choices: [{ index: 0, delta, finish_reason: null }] } },
        { data: { ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] } },
        { data: { ...base, choices: [], usage } },
        { data: '[DONE]' },
      ],
      0,
    );
  }

  function anthropic(r: Recorded, res: ServerResponse) {
    const b = r.body;
    const last = b.messages.at(-1);
    const results = Array.isArray(last.content) ? last.content.filter((c: any) => c.type === 'tool_result') : [];
    for (const c of results) toolResults.push(textOf(c.content));
    const tool = results.length ? null : choose((b.tools ?? []).map((t: any) => ({ name: t.name, schema: t.input_schema })));
    if (tool) toolCalls.push(tool.name);
    const block = tool
      ? { type: 'tool_use', id: `toolu_${toolCalls.length}`, name: tool.name, input: tool.args }
      : { type: 'text', text: final(results.length ? textOf(results[0].content) : 'no tool was run') };
    const stop = tool ? 'tool_use' : 'end_turn';
    if (!b.stream)
      return json(res, 200, {
        id: 'msg_tv',
        type: 'message',
        role: 'assistant',
        model: b.model,
        content: [block],
        stop_reason: stop,
        stop_sequence: null,
        usage: { input_tokens: USAGE.input, output_tokens: USAGE.output },
      });
    const ev = (event: string, data: Record<string, unknown>) => ({ event, data: { type: event, ...data } });
    const start = tool ? { ...block, input: {} } : { type: 'text', text: '' };
    const delta = tool
      ? { type: 'input_json_delta', partial_json: JSON.stringify(tool.args) }
      : { type: 'text_delta', text: (block as { text: string }).text };
    return sse(
      res,
      [
        ev('message_start', {
          message: {
            id: 'msg_tv',
            type: 'message',
            role: 'assistant',
            model: b.model,
            content: [],
            stop_reason: null,
            usage: { input_tokens: USAGE.input, output_tokens: 1 },
          },
        }),
        ev('content_block_start', { index: 0, content_block: start }),
        ev('content_block_delta', { index: 0, delta }),
        ev('content_block_stop', { index: 0 }),
        ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: USAGE.output } }),
        ev('message_stop', {}),
      ],
      0,
    );
  }

  function gemini(r: Recorded, res: ServerResponse) {
    const b = r.body;
    const last = b.contents.at(-1);
    const responses = (last.parts ?? []).filter((p: any) => p.functionResponse);
    for (const p of responses) toolResults.push(textOf(p.functionResponse.response));
    const offered = (b.tools ?? []).flatMap((t: any) =>
      (t.functionDeclarations ?? []).map((f: any) => ({ name: f.name, schema: f.parametersJsonSchema ?? f.parameters })),
    );
    const tool = responses.length ? null : choose(offered);
    if (tool) toolCalls.push(tool.name);
    const part = tool
      ? { functionCall: { name: tool.name, args: tool.args } }
      : { text: final(responses.length ? textOf(responses[0].functionResponse.response) : 'no tool was run') };
    const chunk = {
      candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: USAGE.input, candidatesTokenCount: USAGE.output, totalTokenCount: USAGE.input + USAGE.output },
      modelVersion: r.path.split('/models/')[1]?.split(':')[0],
    };
    if (r.path.includes(':streamGenerateContent')) return sse(res, [{ data: chunk }], 0);
    return json(res, 200, chunk);
  }

  return up;
}

/** What one turn sent to the vendor carried, in whichever format: the tools offered and the system text. */
export function turnOf(r: Recorded): { tools: string[]; system: string } {
  const b = r.body ?? {};
  if (Array.isArray(b.contents))
    return {
      tools: (b.tools ?? []).flatMap((t: any) => (t.functionDeclarations ?? []).map((f: any) => f.name)),
      system: textOf(b.systemInstruction?.parts ?? ''),
    };
  const inMessages = (b.messages ?? [])
    .filter((m: any) => m.role === 'system' || m.role === 'developer')
    .map((m: any) => textOf(m.content));
  return {
    tools: (b.tools ?? []).map((t: any) => t.function?.name ?? t.name),
    system: [textOf(b.system ?? ''), ...inMessages].join('\n'),
  };
}

/**
 * The checks every agent run ends with: the gateway refused none of the agent's requests (`refused`, as the
 * tap in front of it saw them), the caller's gateway key reached the vendor nowhere, the agent's turns (`sent`) all went to the upstream format `path`
 * names, the first carried its tools and system prompt, the output of the command it ran reached the vendor,
 * and the vendor's final answer was printed (`out`).
 */
export function assertAgentLoop(
  vendor: ToolVendor,
  o: { what: string; refused: string[]; sent: Recorded[]; path: RegExp; token: string; out: string; err: string; callerKey: string },
) {
  const seen = `\nvendor calls: ${o.sent.map((q) => q.path).join(', ')}\n${o.out}\n${o.err}`;
  assert.deepEqual(o.refused, [], `the gateway refused nothing ${o.what} sent${seen}`);
  assert.ok(
    o.sent.every((q) => !JSON.stringify(q.headers).includes(o.callerKey) && !q.path.includes(o.callerKey) && !q.raw.includes(o.callerKey)),
    `the caller's gateway key never reaches the vendor${seen}`,
  );
  assert.ok(
    o.sent.every((q) => o.path.test(q.path)),
    `every turn of ${o.what} went to the channel's own format${seen}`,
  );
  const first = o.sent.map(turnOf).find((t) => t.tools.length > 0);
  assert.ok(first, `the tools of ${o.what} reached the vendor${seen}`);
  assert.ok(
    [...READ_TOOLS, ...SHELL_TOOLS.map(([name]) => name)].some((name) => first.tools.includes(name)),
    `its file or shell tool is among them: ${first.tools.join(', ')}`,
  );
  assert.ok(first.system.length > 200, `its system prompt reached the vendor: ${JSON.stringify(first.system.slice(0, 200))}`);
  assert.ok(
    vendor.toolResults.some((t) => t.includes(o.token)),
    `what the tool ${o.what} ran read reached the vendor (${JSON.stringify(vendor.toolResults)})${seen}`,
  );
  assert.ok(o.out.includes(FINAL_PREFIX) && o.out.includes(o.token), `the final answer is printed${seen}`);
}
