/**
 * The SSE framer: events as the SSE rules read them (LF, CRLF and CR line ends, comments, named events,
 * multi-line data, a field without a value), whatever the reads' sizes, checked against a plain
 * reading of the same rules on generated streams cut at random places; and the framer never holds more
 * than the event in progress.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseFramer, type SseEvent } from './sse.ts';

/** The rules read plainly: split on blank lines, then on line ends. */
function reference(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  const re = /\r\n\r\n|\n\n|\r\r/g;
  let start = 0;
  const parse = (raw: string): SseEvent => {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of raw.split(/\r\n|\n|\r/)) {
      if (!line || line.startsWith(':')) continue;
      const i = line.indexOf(':');
      const field = i < 0 ? line : line.slice(0, i);
      let value = i < 0 ? '' : line.slice(i + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') data.push(value);
      else if (field === 'event') event = value;
    }
    return { raw, event, data: data.join('\n') };
  };
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push(parse(text.slice(start, m.index + m[0].length)));
    start = m.index + m[0].length;
  }
  if (text.slice(start).trim()) out.push(parse(text.slice(start)));
  return out;
}

function frame(text: string, cuts: number[]): SseEvent[] {
  const bytes = Buffer.from(text);
  const f = new SseFramer();
  const out: SseEvent[] = [];
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    out.push(...f.push(bytes.subarray(at, c)));
    at = c;
  }
  out.push(...f.end());
  return out;
}

test('OpenAI and Anthropic streams: one event per blank line, data and names read', () => {
  const text =
    'data: {"a":1}\n\n: keep-alive\n\nevent: content_block_delta\ndata: {"b":"x: y"}\n\ndata: line one\ndata: line two\n\ndata\n\ndata:no-space\nevent:e2\n\ndata: [DONE]\n\n';
  const evs = frame(text, []);
  assert.deepEqual(
    evs.map((e) => [e.event, e.data]),
    [
      [undefined, '{"a":1}'],
      [undefined, ''],
      ['content_block_delta', '{"b":"x: y"}'],
      [undefined, 'line one\nline two'],
      [undefined, ''],
      ['e2', 'no-space'],
      [undefined, '[DONE]'],
    ],
  );
  assert.equal(evs.map((e) => e.raw).join(''), text, 'the raw texts are the stream, byte for byte');
});

test('every read size, every line end: the same events as the plain reading of the rules', () => {
  let seed = 7;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  for (const eol of ['\n', '\r\n', '\r']) {
    for (let round = 0; round < 40; round++) {
      let text = '';
      for (let i = 0; i < 20; i++) {
        const kind = Math.floor(rnd() * 5);
        if (kind === 0) text += `: comment ${i}${eol}`;
        if (kind <= 1) text += `event: ev${i}${eol}`;
        text += `data: {"n":${i},"t":"é ✓ 中"}${eol}`;
        if (kind === 2) text += `data: more${eol}id: ${i}${eol}`;
        text += eol;
      }
      if (round % 3 === 0) text += `data: unterminated ${round}`;
      const cuts: number[] = [];
      const bytes = Buffer.byteLength(text);
      for (let c = Math.floor(rnd() * 9); c < bytes; c += 1 + Math.floor(rnd() * (round < 10 ? 3 : 60))) cuts.push(c);
      assert.deepEqual(frame(text, cuts), reference(text), `line end ${JSON.stringify(eol)}, round ${round}`);
    }
  }
});

test('a blank line split across reads, and a stream that turns to CR line ends half-way', () => {
  const text = 'data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d\n\n';
  for (let cut = 1; cut < text.length; cut++) {
    assert.deepEqual(frame(text, [cut]), reference(text), `cut at ${cut}`);
    assert.deepEqual(frame(text, [cut - 1, cut]), reference(text), `cuts at ${cut - 1} and ${cut}`);
  }
});

test('only the event in progress is held', () => {
  const f = new SseFramer();
  for (let i = 0; i < 1000; i++) f.push(Buffer.from(`data: {"i":${i}}\n\n`));
  assert.equal(f.pending, '');
  f.push(Buffer.from('data: {"partial":'));
  assert.equal(f.pending, 'data: {"partial":');
  assert.deepEqual(
    f.push(Buffer.from('1}\n\n')).map((e) => e.data),
    ['{"partial":1}'],
  );
  assert.equal(f.pending, '');
});
