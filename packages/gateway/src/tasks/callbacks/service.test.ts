/** Callback signatures, URL checks and the retry schedule. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { GatewayError } from '../../platform/errors.ts';
import { parseCallbackUrl, retryDelay, signBody } from './service.ts';

test('the signature is sha256=<hex HMAC-SHA256 of the raw body>', () => {
  const body = '{"task_id":"task_x","status":"SUCCESS"}';
  assert.equal(signBody('whsec_abc', body), `sha256=${createHmac('sha256', 'whsec_abc').update(body).digest('hex')}`);
});

test('retries double from the base delay up to the ceiling', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5].map((n) => retryDelay(n, 10_000, 3_600_000)),
    [10_000, 20_000, 40_000, 80_000, 160_000],
  );
  assert.equal(retryDelay(20, 10_000, 3_600_000), 3_600_000);
  assert.equal(retryDelay(1000, 10_000, 3_600_000), 3_600_000, 'no overflow on long runs');
});

test('callback URLs: http(s) only, no credentials, bounded', () => {
  assert.equal(parseCallbackUrl(' https://hooks.example.com/a?b=1 ').toString(), 'https://hooks.example.com/a?b=1');
  for (const bad of [
    'ftp://example.com/',
    'not a url',
    'https://u:p@example.com/',
    `https://example.com/${'a'.repeat(2100)}`,
    'javascript:alert(1)',
    'https://exa mple.com/',
  ]) {
    assert.throws(
      () => parseCallbackUrl(bad),
      (e: unknown) => e instanceof GatewayError && e.code === 'callback_url_invalid',
      bad,
    );
  }
});
