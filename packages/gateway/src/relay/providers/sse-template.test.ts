import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sse, type CanonicalStreamEvent, type StreamEncoder, type Usage } from './canonical.ts';
import { createStreamEncoder } from './index.ts';
import * as responses from './responses/codec.ts';
import { parseSse } from './fixtures/load.ts';
import { HOLE, jsonString, sseTemplate } from './sse-template.ts';

/** Texts the templates must escape exactly as `JSON.stringify` of the whole event would. */
const TRICKY = [
  'plain',
  'say "hi"',
  'back\\slash \\" \\\\',
  'line\nbreak\r\nand\ttab',
  'control \u0000\u0001\u001f\u007f',
  'unicode: é ü 中文 😀',
  'lone surrogates \ud800 and \udfff',
  'line separators \u2028\u2029',
  '</script><!-- "\'',
  '{"json":"inside"}',
  JSON.stringify(HOLE),
];

test('a template joined with a JSON-escaped string gives the bytes of the whole event stringified', () => {
  const data = { type: 'content_block_delta', index: HOLE, delta: { type: 'text_delta', text: HOLE } };
  const t = sseTemplate(data, 'content_block_delta', 2);
  assert.equal(t.length, 3);
  for (const text of [...TRICKY, '']) {
    const got = t[0] + 7 + t[1] + jsonString(text) + t[2];
    const want = sse({ type: 'content_block_delta', index: 7, delta: { type: 'text_delta', text } }, 'content_block_delta');
    assert.equal(got, want);
    const [ev] = parseSse(got);
    assert.equal(ev.event, 'content_block_delta');
    assert.equal(JSON.parse(ev.data).delta.text, text);
  }
  // Without an event name, and with the hole first.
  const u = sseTemplate({ a: HOLE, b: [null, { c: 1 }] }, undefined, 1);
  assert.equal(u[0] + jsonString('x"y') + u[1], sse({ a: 'x"y', b: [null, { c: 1 }] }));
});

test('a template refuses values holding its placeholder and a wrong count of holes', () => {
  assert.throws(() => sseTemplate({ model: HOLE, text: HOLE }, undefined, 1), /2 placeholders, not 1/);
  assert.throws(() => sseTemplate({ text: HOLE }, undefined, 2), /1 placeholders, not 2/);
  // Only a value that is the placeholder is one: one that holds it or its JSON text is escaped apart from it.
  for (const model of [`m${HOLE}`, `${HOLE}"`, `"${HOLE}"`, JSON.stringify(HOLE)])
    assert.equal(sseTemplate({ model, text: HOLE }, undefined, 1).length, 2);
});

const usage: Usage = { inputTokens: 11, outputTokens: 7, cachedInputTokens: 2, cacheWriteTokens: 0, reasoningTokens: 3 };

/** A stream with every event the templates write: text (empty deltas among them), reasoning, two tool calls' argument deltas, usage at the end. */
function transcript(): CanonicalStreamEvent[] {
  const evs: CanonicalStreamEvent[] = [{ type: 'start', id: 'up', model: 'up-model' }];
  evs.push({ type: 'thinking', index: 0, text: 'think "hard"\n' }, { type: 'thinking', index: 0, text: 'still \\ thinking' });
  for (const text of TRICKY) evs.push({ type: 'text', index: 0, text }, { type: 'text', index: 0, text: '' });
  evs.push({ type: 'tool_call_start', index: 0, toolIndex: 0, id: 'call_1', name: 'lookup' });
  for (const delta of ['{"q":', '"a \\"quoted\\" \\u00e9 😀', '\\n"}', ''])
    evs.push({ type: 'tool_call_args', index: 0, toolIndex: 0, delta });
  evs.push({ type: 'tool_call_start', index: 0, toolIndex: 1, id: 'call_2', name: 'other' });
  evs.push({ type: 'tool_call_args', index: 0, toolIndex: 1, delta: '{}' });
  evs.push({ type: 'finish', index: 0, reason: 'tool_calls' }, { type: 'usage', usage });
  return evs;
}

/** The stream's events, each checked to be the canonical `JSON.stringify` of its data (as an encoder building objects wrote them). */
function encode(enc: StreamEncoder): { event?: string; j: any }[] {
  let out = '';
  for (const e of transcript()) out += enc.push(e);
  out += enc.end();
  assert.ok(out.endsWith('\n\n'));
  return parseSse(out)
    .filter((e) => e.data !== '[DONE]')
    .map((e) => {
      assert.equal(JSON.stringify(JSON.parse(e.data)), e.data);
      return { event: e.event, j: JSON.parse(e.data) };
    });
}

const allText = TRICKY.join('');
const args0 = '{"q":"a \\"quoted\\" \\u00e9 😀\\n"}';

test('anthropic encoder: text, thinking and tool-call deltas escaped exactly, no events for empty deltas, usage at the end', () => {
  const evs = encode(createStreamEncoder('anthropic', { model: 'claude "x"', requestId: 'r1', includeUsage: true }));
  for (const e of evs) assert.equal(e.event, e.j.type);
  const deltas = evs.filter((e) => e.j.type === 'content_block_delta');
  const of = (type: string, key: string) =>
    deltas
      .filter((e) => e.j.delta.type === type)
      .map((e) => e.j.delta[key])
      .join('');
  assert.equal(of('thinking_delta', 'thinking'), 'think "hard"\nstill \\ thinking');
  assert.equal(of('text_delta', 'text'), allText);
  assert.equal(deltas.filter((e) => e.j.delta.type === 'text_delta').length, TRICKY.length, 'no delta for an empty text');
  const json = deltas.filter((e) => e.j.delta.type === 'input_json_delta');
  assert.deepEqual(
    json.map((e) => [e.j.index, e.j.delta.partial_json]),
    [
      [2, '{"q":'],
      [2, '"a \\"quoted\\" \\u00e9 😀'],
      [2, '\\n"}'],
      [3, '{}'],
    ],
  );
  assert.deepEqual(JSON.parse(args0), { q: 'a "quoted" é 😀\n' });
  assert.deepEqual(
    deltas.map((e) => e.j.index),
    [0, 0, ...TRICKY.map(() => 1), 2, 2, 2, 3],
  );
  const last = evs.slice(-2);
  assert.deepEqual(last[0].j, {
    type: 'message_delta',
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { input_tokens: 9, output_tokens: 7, cache_read_input_tokens: 2, cache_creation_input_tokens: 0 },
  });
  assert.deepEqual(last[1].j, { type: 'message_stop' });
  assert.equal(evs[0].j.message.model, 'claude "x"');
});

for (const includeUsage of [true, false]) {
  test(`openai encoder (include_usage ${includeUsage}): chunks escaped exactly, role on the first, empty deltas dropped, usage chunk at the end`, () => {
    const enc = createStreamEncoder('openai', { model: 'gpt "q" \\', requestId: 'r2', includeUsage, created: 42 });
    const evs = encode(enc);
    for (const e of evs) {
      assert.equal(e.j.id, 'chatcmpl-r2');
      assert.equal(e.j.object, 'chat.completion.chunk');
      assert.equal(e.j.created, 42);
      assert.equal(e.j.model, 'gpt "q" \\');
      assert.deepEqual(Object.keys(e.j), ['id', 'object', 'created', 'model', 'choices', ...(includeUsage ? ['usage'] : [])]);
    }
    const choices = evs.filter((e) => e.j.choices.length).map((e) => e.j.choices[0]);
    assert.deepEqual(choices[0].delta, { role: 'assistant', reasoning_content: 'think "hard"\n' });
    assert.equal(choices.filter((c) => c.delta.role).length, 1);
    for (const c of choices) assert.deepEqual(Object.keys(c), ['index', 'delta', 'logprobs', 'finish_reason']);
    assert.equal(choices.map((c) => c.delta.reasoning_content ?? '').join(''), 'think "hard"\nstill \\ thinking');
    const texts = choices.filter((c) => c.delta.content !== undefined).map((c) => c.delta.content);
    assert.deepEqual(texts, TRICKY);
    const calls = choices.filter((c) => c.delta.tool_calls).map((c) => c.delta.tool_calls[0]);
    assert.deepEqual(calls[0], { index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } });
    assert.equal(
      calls
        .filter((t) => t.index === 0)
        .map((t) => t.function.arguments)
        .join(''),
      args0,
    );
    assert.deepEqual(calls.at(-1), { index: 1, function: { arguments: '{}' } });
    assert.equal(choices.at(-1).finish_reason, 'tool_calls');
    const tail = evs.at(-1)!.j;
    if (includeUsage) {
      assert.deepEqual(tail.choices, []);
      assert.equal(tail.usage.prompt_tokens, 11);
      assert.equal(tail.usage.completion_tokens, 7);
      assert.equal(
        evs.slice(0, -1).every((e) => e.j.usage === null),
        true,
      );
    } else assert.equal(tail.usage, undefined);
  });
}

test('responses encoder: deltas escaped exactly with consecutive sequence numbers, done texts whole, usage at the end', () => {
  let kept: unknown[] = [];
  const enc = responses.createStreamEncoder({ model: 'm "r"', requestId: 'r3', includeUsage: true, created: 9 }, {}, (o) => (kept = o));
  const evs = encode(enc);
  assert.deepEqual(
    evs.map((e) => e.j.sequence_number),
    evs.map((_, i) => i),
  );
  for (const e of evs) assert.equal(e.event, e.j.type);
  const of = (type: string) => evs.filter((e) => e.j.type === type).map((e) => e.j);
  const text = of('response.output_text.delta');
  assert.equal(text.length, TRICKY.length);
  assert.equal(text.map((d) => d.delta).join(''), allText);
  assert.deepEqual(Object.keys(text[0]), ['type', 'sequence_number', 'item_id', 'output_index', 'content_index', 'delta', 'logprobs']);
  assert.deepEqual([text[0].item_id, text[0].output_index, text[0].content_index, text[0].logprobs], ['msg_r3_1', 1, 0, []]);
  assert.equal(of('response.output_text.done')[0].text, allText);
  const reasoning = of('response.reasoning_summary_text.delta');
  assert.deepEqual(
    reasoning.map((d) => [d.item_id, d.output_index, d.summary_index, d.delta]),
    [
      ['rs_r3_0', 0, 0, 'think "hard"\n'],
      ['rs_r3_0', 0, 0, 'still \\ thinking'],
    ],
  );
  const args = of('response.function_call_arguments.delta');
  assert.deepEqual(Object.keys(args[0]), ['type', 'sequence_number', 'item_id', 'output_index', 'delta']);
  assert.equal(
    args
      .filter((d) => d.item_id === 'fc_r3_2')
      .map((d) => d.delta)
      .join(''),
    args0,
  );
  assert.deepEqual(
    of('response.function_call_arguments.done').map((d) => d.arguments),
    [args0, '{}'],
  );
  const done = evs.at(-1)!.j;
  assert.equal(done.type, 'response.completed');
  assert.equal(done.response.usage.input_tokens, 11);
  assert.equal(done.response.usage.output_tokens, 7);
  assert.equal(kept.length, 4);
});
