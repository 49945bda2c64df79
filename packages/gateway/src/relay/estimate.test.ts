/** Unit tests of the reserve's bounds: the body walk, the input bound, fitting the output to a balance, quotaUnits, and which errors are the upstream's. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { quotaUnits } from '../billing/prices.ts';
import { isUpstreamFailure } from './attempts.ts';
import { MAX_JSON_DEPTH, scanBody } from './body-scan.ts';
import { BASE_OVERHEAD_TOKENS, fitOutput, INPUT_TOKENS_PER_IMAGE, inputBound } from './estimate.ts';
import type { PriceBook } from '../billing/prices.ts';

test('scanBody refuses deep nesting without recursing and accepts the limit', () => {
  let ok: unknown = 'x';
  for (let i = 1; i < MAX_JSON_DEPTH; i++) ok = [ok];
  assert.doesNotThrow(() => scanBody({ a: ok }));
  const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
  assert.throws(
    () => scanBody(deep),
    (e: { status?: number }) => e.status === 400,
  );
});

test('scanBody finds inline and referenced media in every family', () => {
  const png = 'iVBORw0KGgo' + 'A'.repeat(4000);
  const wav = 'UklGR' + 'B'.repeat(16_000);
  const s = scanBody({
    messages: [
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
          { type: 'image_url', image_url: { url: 'https://x/y.png' } },
        ],
      },
      { role: 'user', content: [{ type: 'input_audio', input_audio: { data: wav, format: 'wav' } }] },
      { role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'C'.repeat(3000) } }] },
      { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'D'.repeat(3000) } }] },
    ],
    contents: [
      {
        parts: [
          { inlineData: { mimeType: 'video/mp4', data: 'E'.repeat(1600) } },
          { fileData: { fileUri: 'gs://b/f', mimeType: 'audio/mp3' } },
        ],
      },
    ],
  });
  assert.equal(s.images, 3);
  assert.equal(s.avChars, 16_005 + 1600);
  assert.equal(s.fileChars, 3000);
  assert.equal(s.refs, 1);
  assert.equal(s.inlineChars, `data:image/png;base64,${png}`.length + 16_005 + 3000 + 3000 + 1600);
});

test('the input bound is at least the tokens of any text, CJK included', () => {
  const cjk = Array.from({ length: 3000 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20000))).join('');
  const raw = Buffer.from(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: cjk }] }));
  const bound = inputBound(raw.length, scanBody(JSON.parse(raw.toString())), false);
  assert.ok(bound >= countTokens(cjk) + 6, `${bound} ≥ ${countTokens(cjk)}`);
  assert.equal(
    inputBound(10, { inlineChars: 0, images: 1, avChars: 0, fileChars: 0, refs: 0 }, false),
    10 + INPUT_TOKENS_PER_IMAGE + BASE_OVERHEAD_TOKENS,
  );
});

test('fitOutput gives the most output the balance covers, or null below the minimum', () => {
  // 1 unit an input token, 5 an output token.
  const prices = {
    cost: (_p: unknown, u: { inputTokens: number; outputTokens: number }) => u.inputTokens + 5 * u.outputTokens,
    bound: (_p: unknown, u: { inputTokens: number; outputTokens: number }) => u.inputTokens + 5 * u.outputTokens,
  } as unknown as PriceBook;
  const price = { model: 'm', input: 2, output: 10, cachedInput: 2, cacheWrite5m: 2.5, cacheWrite1h: 4, perRequest: null };
  assert.equal(fitOutput(prices, price, 'g', 100, 1, 4096, 16, 100 + 5 * 1000), 1000);
  assert.equal(fitOutput(prices, price, 'g', 100, 2, 4096, 16, 100 + 5 * 1001), 500);
  assert.equal(fitOutput(prices, price, 'g', 100, 1, 4096, 16, 100 + 5 * 15), null);
  assert.equal(fitOutput(prices, price, 'g', 100, 1, 8, 16, 100 + 5 * 8), 8, 'a caller asking less than the minimum gets what it asked');
  assert.equal(fitOutput(prices, price, 'g', 100, 1, 4096, 16, 10 ** 9), 4096);
});

test('quotaUnits never turns a huge or non-finite cost into 0', () => {
  assert.equal(quotaUnits(Infinity, 1, 500_000), Number.MAX_SAFE_INTEGER);
  assert.equal(quotaUnits(1e308, 10, 500_000), Number.MAX_SAFE_INTEGER);
  assert.throws(() => quotaUnits(NaN, 1, 500_000));
  assert.equal(quotaUnits(0.001, 1, 500_000), 500);
  assert.equal(quotaUnits(0, 1, 500_000), 0);
});

test("only connection failures are the upstream's; the gateway's own errors are not", () => {
  assert.equal(isUpstreamFailure(new RangeError('Maximum call stack size exceeded')), false);
  assert.equal(isUpstreamFailure(new TypeError('x is undefined')), false);
  assert.equal(isUpstreamFailure(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })), true);
  assert.equal(isUpstreamFailure(Object.assign(new Error('timeout'), { code: 'UND_ERR_HEADERS_TIMEOUT' })), true);
  assert.equal(isUpstreamFailure(Object.assign(new Error('fetch failed'), { cause: { code: 'ENOTFOUND' } })), true);
});
