/**
 * Upstream events read from templates (event-template.ts): what a template reads is exactly what the whole
 * event's parse gives, and anything that is not the learned event with another string is parsed whole;
 * the OpenAI chat and Anthropic stream decoders and the same-format chat read give the same events and
 * text with templates as each event parsed whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventTemplate } from './event-template.ts';
import { createStreamDecoder } from './index.ts';
import type { CanonicalStreamEvent } from './canonical.ts';
import type { SseEvent } from '../sse.ts';
import { ChatStream } from '../chat-stream.ts';

/** String literals as upstreams may write them: escapes of every kind, unicode, lone surrogates, empty. */
const LITERALS = [
  '"Hi"',
  '""',
  '" "',
  '"say \\"hi\\""',
  '"back\\\\slash \\\\\\" end"',
  '"line\\nbreak\\r\\n\\ttab\\b\\f\\/"',
  '"\\u0000\\u001f\\u007f control"',
  '"unicode é ü 中文 😀"',
  '"escaped \\u00e9 \\u4e2d \\ud83d\\ude00"',
  '"lone \\ud800 and \\udfff"',
  '"\\u2028\\u2029"',
  '"{\\"json\\":\\"inside\\"}"',
  '"\\"content\\":\\""',
  '"raw lone \ud800 \udfff and \u007f"',
];

const chunk = (lit: string, id = 'chatcmpl-1') =>
  `{"id":"${id}","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":${lit}},"finish_reason":null}]}`;
const content = (data: string): unknown => JSON.parse(data).choices[0].delta.content;

test('a learned template reads the string of every event like it, exactly as the whole parse', () => {
  const t = new EventTemplate();
  assert.equal(t.match(chunk('"x"')), undefined);
  t.learn(chunk('"Hi"'), 'Hi', (j) => j?.choices?.[0]?.delta?.content);
  assert.ok(t.ready);
  for (const lit of LITERALS) {
    const data = chunk(lit);
    assert.equal(t.match(data), content(data), lit);
  }
  // A lone surrogate comes out as the same string.
  assert.equal(t.match(chunk('"\\ud800"')), '\ud800');
});

test('anything but the learned event with another single string literal is not read from the template', () => {
  const t = new EventTemplate();
  t.learn(chunk('"Hi"'), 'Hi', (j) => j?.choices?.[0]?.delta?.content);
  const not = [
    chunk('"a"', 'chatcmpl-2'), // another id
    chunk('"a","refusal":"b"'), // an extra field after the string
    chunk('"a" '), // white space
    chunk(' "a"'),
    chunk('null'),
    chunk('1'),
    chunk('"a\\"'), // an escaped last quote
    chunk('"a"+"b"'),
    chunk('"a\n"'), // a raw line break or control character is not JSON
    chunk('"a\u0001b"'),
    chunk('"a\\x"'),
    `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`,
    `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`,
    `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]},"finish_reason":null}]}`,
    '[DONE]',
    '',
    '"',
  ];
  for (const data of not) assert.equal(t.match(data), undefined, data);
});

test('a template is dropped when another is learned, and none is kept after the last one a stream may learn', () => {
  const at = (j: any) => j?.choices?.[0]?.delta?.content;
  const t = new EventTemplate();
  for (let i = 0; i < 16; i++) {
    t.learn(chunk('"Hi"', `id-${i}`), 'Hi', at);
    assert.ok(t.ready);
    assert.equal(t.match(chunk('"a"', `id-${i}`)), 'a');
  }
  t.learn(chunk('"Hi"', 'id-16'), 'Hi', at);
  assert.equal(t.ready, false);
  assert.equal(t.match(chunk('"a"', 'id-15')), undefined);
  assert.equal(t.match(chunk('"a"', 'id-16')), undefined);
});

test('a string found elsewhere in the event than the place read is not learned', () => {
  const at = (j: any) => j?.choices?.[0]?.delta?.content;
  // The content's text is also a later value: the last occurrence is not the content.
  const t = new EventTemplate();
  t.learn(`{"choices":[{"delta":{"content":"x"}}],"system_fingerprint":"x"}`, 'x', at);
  assert.equal(t.ready, false);
  // Or a key: `"content":"` inside another string.
  const u = new EventTemplate();
  u.learn(`{"choices":[{"delta":{"content":"a"}}],"note":"\\"content\\":\\"a"}`, 'a', at);
  assert.equal(u.ready, false);
  // Read by a later duplicate key: the parse keeps the last one.
  const v = new EventTemplate();
  v.learn(`{"choices":[{"delta":{"content":"a","content":"b"}}]}`, 'b', at);
  assert.ok(v.ready);
  assert.equal(v.match(`{"choices":[{"delta":{"content":"a","content":"zz"}}]}`), 'zz');
  const w = new EventTemplate();
  w.learn(`{"choices":[{"delta":{"content":"a","content":"a"}}]}`, 'a', at);
  assert.equal(w.match(`{"choices":[{"delta":{"content":"a","content":"q"}}]}`), 'q');
  assert.equal(content(`{"choices":[{"delta":{"content":"a","content":"q"}}]}`), 'q');
});

/** The events of a stream: as they come, and each made unlike every other (i trailing spaces) so that none is read from a template. */
function twins(datas: string[]): [SseEvent[], SseEvent[]] {
  const ev = (data: string): SseEvent => ({ raw: `data: ${data}\n\n`, data });
  return [datas.map(ev), datas.map((d, i) => ev(d + ' '.repeat(i + 1)))];
}

/** JSON.parse calls of `fn` (a template reads its string with one of a few characters). */
function parses<T>(fn: () => T): { value: T; whole: number } {
  const parse = JSON.parse;
  let whole = 0;
  JSON.parse = ((text: string, r?: any) => {
    if (text.length > 40) whole++;
    return parse(text, r);
  }) as typeof JSON.parse;
  try {
    return { value: fn(), whole };
  } finally {
    JSON.parse = parse;
  }
}

const oa = (delta: string, extra = '', id = 'chatcmpl-1', finish = 'null') =>
  `{"id":"${id}","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}]${extra}}`;

const OPENAI_STREAM = [
  oa('{"role":"assistant","content":""}'),
  ...LITERALS.map((l) => oa(`{"content":${l}}`)),
  oa('{"content":"extra"}', ',"system_fingerprint":"fp"'),
  oa('{"content":"after the extra field"}'),
  oa('{"content":"new id"}', '', 'chatcmpl-2'),
  oa('{"content":"same new id"}', '', 'chatcmpl-2'),
  oa('{"reasoning_content":"think"}'),
  oa('{"reasoning_content":"more \\"thought\\""}'),
  oa('{"reasoning_content":""}'),
  oa('{"reasoning":"other name"}'),
  oa('{"reasoning":"other name again"}'),
  oa('{"refusal":"no"}'),
  oa('{"refusal":"no again"}'),
  oa('{"content":null}'),
  oa('{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}'),
  oa('{"tool_calls":[{"index":0,"function":{"arguments":"{\\"a\\""}}]}'),
  oa('{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}'),
  oa('{"content":"back to text"}'),
  oa('{"content":"and more"}'),
  oa('{"content":""}'),
  oa('{}', '', 'chatcmpl-2', '"stop"'),
  `{"id":"chatcmpl-2","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":9,"total_tokens":12}}`,
  '[DONE]',
];

const decodeAll = (fmt: 'openai' | 'anthropic', evs: SseEvent[]): CanonicalStreamEvent[][] => {
  const d = createStreamDecoder(fmt);
  return [...evs.map((e) => d.push(e)), d.end()];
};

test('the OpenAI chat decoder gives with templates what it gives parsing every chunk whole', () => {
  const [evs, whole] = twins(OPENAI_STREAM);
  const got = parses(() => decodeAll('openai', evs));
  assert.deepEqual(got.value, decodeAll('openai', whole));
  assert.ok(got.whole < evs.length - 10, `${got.whole} chunks of ${evs.length} parsed whole`);
});

const an = (type: string, key: string, lit: string, index = 0) =>
  `{"type":"content_block_delta","index":${index},"delta":{"type":"${type}","${key}":${lit}}}`;

const ANTHROPIC_STREAM = [
  `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}`,
  `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
  ...LITERALS.map((l) => an('thinking_delta', 'thinking', l)),
  an('signature_delta', 'signature', '"sig"'),
  `{"type":"content_block_stop","index":0}`,
  `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
  ...LITERALS.map((l) => an('text_delta', 'text', l, 1)),
  `{"type":"ping"}`,
  an('text_delta', 'text', '"after a ping"', 1),
  `{"type":"content_block_stop","index":1}`,
  `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`,
  ...LITERALS.map((l) => an('input_json_delta', 'partial_json', l, 2)),
  an('input_json_delta', 'partial_json', '"no tool at this block"', 5),
  an('input_json_delta', 'partial_json', '"nor here"', 5),
  `{"type":"content_block_stop","index":2}`,
  `{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_2","name":"g","input":{}}}`,
  an('input_json_delta', 'partial_json', '"{\\"b\\":"', 3),
  an('input_json_delta', 'partial_json', '"2}"', 3),
  `{"type":"content_block_stop","index":3}`,
  // Blocks of every kind in turn, more than a stream learns templates for.
  ...Array.from({ length: 40 }, (_, i) => [
    an('text_delta', 'text', `"text ${i}"`, 9),
    an('text_delta', 'text', `"more text ${i}"`, 9),
    an('thinking_delta', 'thinking', `"thought ${i}"`, 9),
    an('thinking_delta', 'thinking', `"more thought ${i}"`, 9),
    an('input_json_delta', 'partial_json', `"{}"`, i % 2 ? 3 : 2),
    an('input_json_delta', 'partial_json', `"{ }"`, i % 2 ? 3 : 2),
  ]).flat(),
  `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":40}}`,
  `{"type":"message_stop"}`,
];

test('the Anthropic decoder gives with templates what it gives parsing every event whole', () => {
  const [evs, whole] = twins(ANTHROPIC_STREAM);
  const got = parses(() => decodeAll('anthropic', evs));
  assert.deepEqual(got.value, decodeAll('anthropic', whole));
  assert.ok(got.whole < evs.length - 20, `${got.whole} events of ${evs.length} parsed whole`);
});

test('the same-format chat read counts with templates the text and usage it counts parsing every chunk whole', async () => {
  const read = (evs: SseEvent[], includeUsage: boolean) => {
    const ctx = {
      cf: 'openai',
      model: 'm',
      call: { requestId: 'r', body: { stream: true, ...(includeUsage ? { stream_options: { include_usage: true } } : {}) } },
      canonical: null,
      sent: null,
      promptText: 'p',
    } as any;
    const s = new ChatStream(ctx, 'openai', null, () => []);
    const out = evs.map((e) => {
      const o = s.event(e);
      const t = s.text;
      s.text = '';
      return [o === e.raw ? 'raw' : o, t];
    });
    return { s, out };
  };
  for (const includeUsage of [true, false]) {
    const [evs, whole] = twins(OPENAI_STREAM);
    const got = parses(() => read(evs, includeUsage));
    const want = read(whole, includeUsage);
    assert.deepEqual(got.value.out, want.out);
    // The thirteen content chunks after the first are read from its template; every other shape is parsed whole.
    assert.ok(got.whole <= evs.length - 10, `${got.whole} chunks of ${evs.length} parsed whole`);
    const u = (x: ChatStream) => x.usage({ ...({} as any), cf: 'openai', promptText: 'p' }, null, false, { total: async () => 0 } as any);
    assert.deepEqual(await u(got.value.s), await u(want.s));
  }
});
