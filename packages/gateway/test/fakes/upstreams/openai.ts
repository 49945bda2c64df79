/**
 * A fake OpenAI upstream: chat completions (stream and not, tools, n), completions, embeddings.
 * `keys` (optional) are the accepted Bearer keys; others get 401. Replies say "Hello world" unless the
 * last user message is `echo:<text>`, then <text> is echoed (streamed in pieces split after spaces and
 * at each `¦`, which is not sent); `long:<n>` streams n chunks.
 */
import type { ServerResponse } from 'node:http';
import { json, sse, startFake, lastUserText, type FakeUpstream, type Recorded } from './common.ts';

export interface FakeOpenAI extends FakeUpstream {
  keys: Set<string> | null;
}

export const USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };

export async function startFakeOpenAI(opts: { keys?: string[] } = {}): Promise<FakeOpenAI> {
  const fake = (await startFake(handle)) as FakeOpenAI;
  fake.keys = opts.keys ? new Set(opts.keys) : null;
  function handle(r: Recorded, res: ServerResponse, up: FakeUpstream): void | Promise<void> {
    const auth = String(r.headers.authorization ?? r.headers['api-key'] ?? '').replace(/^Bearer /, '');
    if (fake.keys && !fake.keys.has(auth)) {
      return json(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
    }
    const p = r.path.split('?')[0];
    if (p.endsWith('/chat/completions')) return chat(r, res, up);
    if (p.endsWith('/completions')) {
      return json(res, 200, {
        id: 'cmpl-1',
        object: 'text_completion',
        created: 1,
        model: r.body.model,
        choices: [{ index: 0, text: 'Hello world', finish_reason: 'stop' }],
        usage: USAGE,
      });
    }
    if (p.endsWith('/embeddings')) {
      const inputs = Array.isArray(r.body.input) ? r.body.input : [r.body.input];
      return json(res, 200, {
        object: 'list',
        model: r.body.model,
        data: inputs.map((_: unknown, i: number) => ({
          object: 'embedding',
          index: i,
          embedding:
            r.body.encoding_format === 'base64'
              ? Buffer.from(new Float32Array([0.1, 0.2, 0.3]).buffer).toString('base64')
              : [0.1, 0.2, 0.3],
        })),
        usage: { prompt_tokens: 5, total_tokens: 5 },
      });
    }
    return json(res, 404, { error: { message: 'not found' } });
  }
  return fake;
}

function replyText(body: any): string {
  const t = lastUserText(body.messages ?? []);
  if (t.startsWith('echo:')) return t.slice(5);
  return 'Hello world';
}

async function chat(r: Recorded, res: ServerResponse, up: FakeUpstream): Promise<void> {
  const b = r.body;
  const model = b.model;
  const last = b.messages[b.messages.length - 1];
  const wantsTool = Array.isArray(b.tools) && b.tools.length > 0 && last.role === 'user';
  const text = last.role === 'tool' ? `tool said: ${last.content}` : replyText(b);
  const n = b.n ?? 1;
  if (!b.stream) {
    const choices = Array.from({ length: n }, (_, i) =>
      wantsTool
        ? {
            index: i,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'call_1', type: 'function', function: { name: b.tools[0].function.name, arguments: '{"city":"Paris"}' } }],
            },
            finish_reason: 'tool_calls',
          }
        : { index: i, message: { role: 'assistant', content: text.replace(/¦/g, '') }, finish_reason: 'stop' },
    );
    return json(res, 200, { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model, choices, usage: USAGE });
  }
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model };
  const events: Array<{ data: unknown }> = [
    { data: { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] } },
  ];
  const long = /^long:(\d+)/.exec(lastUserText(b.messages));
  if (wantsTool) {
    events.push({
      data: {
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: b.tools[0].function.name, arguments: '' } }],
            },
            finish_reason: null,
          },
        ],
      },
    });
    events.push({
      data: {
        ...base,
        choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] }, finish_reason: null }],
      },
    });
    events.push({ data: { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] } });
  } else {
    const pieces = long ? Array.from({ length: Number(long[1]) }, (_, i) => `word${i} `) : text.split(/(?<= )|¦/);
    for (const piece of pieces) events.push({ data: { ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] } });
    events.push({ data: { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] } });
  }
  if (b.stream_options?.include_usage) events.push({ data: { ...base, choices: [], usage: USAGE } });
  events.push({ data: '[DONE]' });
  await sse(res, events, up.delayMs);
}
