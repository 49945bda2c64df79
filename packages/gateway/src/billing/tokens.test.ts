/** Token counting: long texts are counted by the worker pool, with the same result as in place. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens, INLINE_MAX, loadTokenizer, TokenizerPool } from './tokens.ts';

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
