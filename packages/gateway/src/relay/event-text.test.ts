/**
 * The delta readers that skip JSON.parse (relay/event-text.ts): on the usual text deltas they read the
 * text parsing gives, and on every other event (escapes, usage, tool calls, reasoning, several
 * choices, nested keys, a type that differs from the event's name) they decline, so the caller parses;
 * checked on fixed cases and on generated variants of each shape.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chatDeltaText, typedDeltaText } from './event-text.ts';

/** The text the chat stream counts of a chunk, read by parsing it. */
function chatParsed(data: string): string {
  const j = JSON.parse(data);
  let t = '';
  for (const c of j.choices ?? []) {
    const dl = c?.delta;
    if (dl) {
      if (typeof dl.content === 'string') t += dl.content;
      if (typeof dl.reasoning_content === 'string') t += dl.reasoning_content;
      if (Array.isArray(dl.tool_calls))
        for (const x of dl.tool_calls) t += String(x?.function?.name ?? '') + String(x?.function?.arguments ?? '');
    } else if (typeof c?.text === 'string') t += c.text;
  }
  return t;
}

const chunk = (delta: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
    ...extra,
  });

test('chat: the usual text chunks are read as parsing reads them', () => {
  for (const content of ['tok1 ', '', 'a}b{c', 'naïve 日本 🙂', ' "', 'x":"y', 'choices":[{']) {
    for (const delta of [{ content }, { role: 'assistant', content }]) {
      const data = chunk(delta);
      const fast = chatDeltaText(data);
      // Text with a quote is written escaped: the reader declines it, parsing reads it.
      if (data.includes('\\')) assert.equal(fast, null, data);
      else assert.equal(fast, chatParsed(data), data);
    }
  }
  // The bench upstream's chunk, byte for byte.
  const bench =
    '{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1795651200,"model":"bench-model","choices":[{"index":0,"delta":{"content":"tok3@17 "},"logprobs":null,"finish_reason":null}]}';
  assert.equal(chatDeltaText(bench), 'tok3@17 ');
});

test('chat: anything else is left to parsing', () => {
  const declined = [
    chunk({ content: 'a\nb' }),
    chunk({ content: 'a', reasoning_content: 'b' }),
    chunk({ reasoning_content: 'b' }),
    chunk({ content: null, tool_calls: [{ index: 0, function: { name: 'f', arguments: '{}' } }] }),
    chunk({ content: 'a' }, { usage: { prompt_tokens: 1, completion_tokens: 2 } }),
    chunk({ content: 'a' }, { usage: null }),
    chunk({}),
    chunk({ role: 'assistant' }),
    chunk({ content: 'a', refusal: 'b' }),
    JSON.stringify({
      choices: [
        { index: 0, text: 'x' },
        { index: 1, delta: { content: 'y' } },
      ],
    }),
    JSON.stringify({
      choices: [
        { index: 0, delta: { content: 'x' } },
        { index: 1, delta: { content: 'y' } },
      ],
    }),
    JSON.stringify({ wrap: { choices: [{ index: 0, delta: { content: 'x' } }] } }),
    JSON.stringify({ choices: [{ index: 0, extra: { delta: { content: 'x' } } }] }),
    JSON.stringify({ choices: [{ index: 0, text: 'completion' }] }),
  ];
  for (const data of declined) assert.equal(chatDeltaText(data), null, data);
});

test('chat: generated chunks never disagree with parsing', () => {
  const parts = ['tok', ' ', '}', '{', '"', '\\', 'é', '🙂', ',', ':', '[', ']', 'content', 'delta', '\n'];
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  for (let i = 0; i < 2000; i++) {
    let content = '';
    for (let k = rnd(6); k > 0; k--) content += parts[rnd(parts.length)];
    const shape = rnd(4);
    const delta =
      shape === 0
        ? { content }
        : shape === 1
          ? { role: 'assistant', content }
          : shape === 2
            ? { content, reasoning_content: content }
            : { content: null };
    const data = chunk(delta, rnd(5) === 0 ? { usage: { completion_tokens: 1 } } : {});
    const fast = chatDeltaText(data);
    if (fast !== null) assert.equal(fast, chatParsed(data), data);
  }
});

/** The text the pass-through counts of a `*.delta` event, read by parsing it. */
function typedParsed(name: string, data: string): string {
  const j = JSON.parse(data);
  const type = (typeof j.type === 'string' && j.type) || name;
  return type.endsWith('.delta') && typeof j.delta === 'string' ? j.delta : '';
}

test('responses: the usual text deltas are read as parsing reads them; anything else is left to parsing', () => {
  const t = 'response.output_text.delta';
  const ev = (delta: unknown, extra: Record<string, unknown> = {}, type = t) =>
    JSON.stringify({ type, sequence_number: 4, item_id: 'msg_1', output_index: 0, content_index: 0, delta, ...extra });
  for (const delta of ['tok4 ', '', 'a}b{', 'ü 🙂', ' "q" ']) {
    const data = ev(delta);
    const fast = typedDeltaText(t, data);
    if (data.includes('\\')) assert.equal(fast, null, data);
    else assert.equal(fast, typedParsed(t, data), data);
    // Fields after the delta (OpenAI's logprobs and obfuscation) change nothing.
    const more = ev(delta, { logprobs: [], obfuscation: 'abc' });
    if (!more.includes('\\')) assert.equal(typedDeltaText(t, more), delta);
  }
  const bench =
    '{"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_bench","output_index":0,"content_index":0,"delta":"tok2@99 "}';
  assert.equal(typedDeltaText(t, bench), 'tok2@99 ');
  const declined: [string, string][] = [
    [t, ev('a\nb')],
    [t, ev('a', { usage: { output_tokens: 1 } })],
    [t, ev('a', { response: { id: 'resp_1' } })],
    [t, JSON.stringify({ type: t, part: { delta: 'nested' } })],
    [t, JSON.stringify({ type: t, part: { x: 1 }, delta: 'after an object' })],
    [t, JSON.stringify({ type: t, delta: 'a', again: { delta: 'b' } })],
    [t, JSON.stringify({ type: t, delta: { text: 'not a string' } })],
    [t, ev('a', {}, 'response.other.delta')],
    ['response.function_call_arguments.delta', ev('a')],
    [t, JSON.stringify({ sequence_number: 1, type: t, delta: 'type not first' })],
  ];
  for (const [name, data] of declined) assert.equal(typedDeltaText(name, data), null, data);
});
