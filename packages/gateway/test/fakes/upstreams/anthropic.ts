/**
 * A fake Anthropic Messages upstream (POST /v1/messages), stream and not, with tool use when tools are
 * offered on a user turn, a thinking block when `thinking` is enabled, and a text answer that quotes a
 * tool result; and one that answers every call alike with a fixed usage (cache reads and writes).
 */
import type { ServerResponse } from 'node:http';
import { json, sse, startFake, type FakeUpstream, type Recorded } from './common.ts';

export const ANTHROPIC_USAGE = { input_tokens: 21, output_tokens: 9 };

export function startFakeAnthropic(): Promise<FakeUpstream> {
  return startFake(handle);
}

function handle(r: Recorded, res: ServerResponse, up: FakeUpstream): void | Promise<void> {
  if (!r.path.startsWith('/v1/messages'))
    return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'not found' } });
  if (r.headers['x-api-key'] !== 'sk-ant' || !r.headers['anthropic-version']) {
    return json(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
  }
  const b = r.body;
  if (typeof b.max_tokens !== 'number')
    return json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } });
  const last = b.messages[b.messages.length - 1];
  const toolResult = Array.isArray(last.content) ? last.content.find((c: any) => c.type === 'tool_result') : null;
  const wantsTool = Array.isArray(b.tools) && b.tools.length > 0 && !toolResult;
  const text = toolResult
    ? `tool said: ${typeof toolResult.content === 'string' ? toolResult.content : toolResult.content?.[0]?.text}`
    : 'Hello from Claude';
  const thinking = b.thinking?.type === 'enabled';
  if (!b.stream) {
    const content = thinking ? [{ type: 'thinking', thinking: 'Let me think.', signature: 'sig-abc' }] : [];
    content.push(
      ...((wantsTool
        ? [{ type: 'tool_use', id: 'toolu_1', name: b.tools[0].name, input: { city: 'Paris' } }]
        : [{ type: 'text', text }]) as any[]),
    );
    return json(res, 200, {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: b.model,
      content,
      stop_reason: wantsTool ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: ANTHROPIC_USAGE,
    });
  }
  const ev = (event: string, data: Record<string, unknown>) => ({ event, data: { type: event, ...data } });
  const events = [
    ev('message_start', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: b.model,
        content: [],
        stop_reason: null,
        usage: { input_tokens: ANTHROPIC_USAGE.input_tokens, output_tokens: 1 },
      },
    }),
  ];
  const at = thinking ? 1 : 0;
  if (thinking) {
    events.push(ev('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }));
    events.push(ev('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'Let me think.' } }));
    events.push(ev('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'sig-abc' } }));
    events.push(ev('content_block_stop', { index: 0 }));
  }
  if (wantsTool) {
    events.push(
      ev('content_block_start', { index: at, content_block: { type: 'tool_use', id: 'toolu_1', name: b.tools[0].name, input: {} } }),
    );
    events.push(ev('content_block_delta', { index: at, delta: { type: 'input_json_delta', partial_json: '{"city":' } }));
    events.push(ev('content_block_delta', { index: at, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } }));
  } else {
    events.push(ev('content_block_start', { index: at, content_block: { type: 'text', text: '' } }));
    for (const piece of text.split(/(?<= )/))
      events.push(ev('content_block_delta', { index: at, delta: { type: 'text_delta', text: piece } }));
  }
  events.push(ev('content_block_stop', { index: at }));
  events.push(
    ev('message_delta', {
      delta: { stop_reason: wantsTool ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: ANTHROPIC_USAGE.output_tokens },
    }),
  );
  events.push(ev('message_stop', {}));
  return sse(res, events, up.delayMs);
}

/**
 * A Messages upstream that answers every call with the text `cached` and the given usage (its cache reads and
 * writes included), streamed or not; the stream's `message_start` carries the usage but for the output.
 */
export function startFixedUsageAnthropic(usage: { output_tokens: number } & Record<string, unknown>): Promise<FakeUpstream> {
  return startFake((r, res) => {
    const b = r.body;
    if (!b.stream) {
      return json(res, 200, {
        id: 'msg_c',
        type: 'message',
        role: 'assistant',
        model: b.model,
        content: [{ type: 'text', text: 'cached' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage,
      });
    }
    const ev = (event: string, data: Record<string, unknown>) => ({ event, data: { type: event, ...data } });
    const { output_tokens, ...start } = usage;
    return sse(
      res,
      [
        ev('message_start', {
          message: {
            id: 'msg_c',
            type: 'message',
            role: 'assistant',
            model: b.model,
            content: [],
            stop_reason: null,
            usage: { ...start, output_tokens: 1 },
          },
        }),
        ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
        ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'cached' } }),
        ev('content_block_stop', { index: 0 }),
        ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens } }),
        ev('message_stop', {}),
      ],
      0,
    );
  });
}
