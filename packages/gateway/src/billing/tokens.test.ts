/** Token counting: long texts are counted by the worker pool, with the same result as in place; a stream's counter and its bound. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens as wholeCount } from 'gpt-tokenizer/encoding/o200k_base';
import {
  countInRuns,
  countTokens,
  countTokensSync,
  INLINE_MAX,
  loadTokenizer,
  measureText,
  MAX_RUN,
  TokenCounter,
  TokenizerPool,
} from './tokens.ts';

test('a long text is counted off the event loop with the same result as in place', async () => {
  const inline = await loadTokenizer();
  const text = 'The quick brown fox 跳过了 lazy dogs, 12345 times. '.repeat(Math.ceil((INLINE_MAX * 3) / 45));
  assert.ok(text.length > INLINE_MAX);
  const expected = inline(text);
  // While the pool counts, this thread keeps running: a timer scheduled now fires before the count ends.
  let ticks = 0;
  const timer = setInterval(() => {
    ticks++;
  }, 0);
  const pool = new TokenizerPool(1);
  const big = text.repeat(40);
  const [a, b, n] = await Promise.all([pool.count(text), pool.count(text), pool.count(big)]);
  clearInterval(timer);
  assert.equal(a, expected);
  assert.equal(b, expected);
  assert.equal(n, inline(big));
  assert.ok(ticks > 0, 'the event loop turned while the worker counted');
  assert.equal(await countTokens(text), expected);
  assert.equal(await countTokens('hello'), inline('hello'));
});

test("a stream's UTF-8 bytes bound its tokens, and its count is exact whether or not its text was tokenized on the way", async () => {
  const count = await loadTokenizer();
  const pieces = ['Hello', ' world', ', 跳过了', ' 🦊🦊', ' lazy\n', 'dogs ×3 ', 'naïve café', '\u0000\t', 'tok12@345678'];
  const short = new TokenCounter();
  let text = '';
  for (const p of pieces) {
    short.add(p);
    text += p;
  }
  assert.equal(short.length, text.length);
  assert.equal(short.utf8Bytes, Buffer.byteLength(text));
  assert.ok(count(text) <= short.utf8Bytes, 'tokens never outnumber bytes');
  assert.equal(short.exact(), count(text));
  // Long enough to be tokenized in pieces as it grows (16 K characters a piece): the same total.
  const long = new TokenCounter();
  let all = '';
  for (let i = 0; i < 8000; i++) {
    const p = pieces[i % pieces.length];
    long.add(p);
    all += p;
  }
  assert.ok(all.length > 3 * 16 * 1024);
  assert.equal(long.utf8Bytes, Buffer.byteLength(all));
  assert.ok((await long.total()) <= long.utf8Bytes);
  // Pieces are counted one by one where they were cut, so the sum may differ from the whole text's count
  // by the tokens that would have merged across a cut: a few at most.
  assert.ok(Math.abs(long.exact()! - count(all)) <= 4, `${long.exact()} against ${count(all)}`);
});

test(
  'every count takes a run without white space in pieces: a prompt or an output cannot hold the event loop',
  { timeout: 20_000 },
  async () => {
    await loadTokenizer();
    // Whole, "abc" × 100 is 100 tokens; cut after 200 characters it is 101: each path below cuts it.
    const run = 'abc'.repeat(100);
    assert.ok(run.length > MAX_RUN);
    assert.equal(wholeCount(run), 100);
    const inPieces = countInRuns(wholeCount, run);
    assert.equal(inPieces, 101);
    assert.equal(await countTokens(run), inPieces, 'countTokens');
    assert.equal(countTokensSync(run), inPieces, 'countTokensSync (a stream event past its bound)');
    assert.equal((await measureText(run)).tokens, inPieces, 'measureText');
    const counter = new TokenCounter();
    counter.add(run);
    assert.equal(counter.exact(), inPieces, 'a stream counter');
    // Off the event loop too, and for a text long enough to go there.
    const long = `${run} `.repeat(Math.ceil(INLINE_MAX / run.length) + 1);
    assert.ok(long.length > INLINE_MAX);
    assert.equal(await new TokenizerPool(1).count(long), countInRuns(wholeCount, long), 'the worker pool');
    // A run of 64,000 CJK characters without punctuation takes o200k_base about half a minute whole here;
    // in pieces it is counted at once (the test's time-out stands for the stall it would be).
    const cjk = '啊'.repeat(64_000);
    assert.equal(await countTokens(cjk), countInRuns(wholeCount, cjk));
    const stream = new TokenCounter();
    for (let i = 0; i < 20; i++) stream.add('啊'.repeat(1000));
    assert.equal(stream.exact(), countInRuns(wholeCount, '啊'.repeat(20_000)));
  },
);
