/** Redaction of the secrets a request carried upstream, in every form they may come back. */
import test from 'node:test';
import assert from 'node:assert/strict';
import { redactSecrets, sentSecrets } from './redact.ts';

test('the secrets of a request: keys, credential headers (scheme removed, Basic decoded), credential query values', () => {
  const s = sentSecrets(
    ['sk-abc/123+=', null, 'x'],
    {
      authorization: 'Bearer tok-bearer-1',
      'x-api-key': 'anth-2',
      'x-goog-api-key': 'goog-3',
      'api-key': 'azure-4',
      'proxy-authorization': `Basic ${Buffer.from('user:pa55word').toString('base64')}`,
      'content-type': 'application/json',
      'x-trace': 'not-secret',
    },
    'https://h.example/v1/models/m:generateContent?key=qkey-5&alt=sse&access_token=qtok-6',
  );
  for (const v of [
    'sk-abc/123+=',
    'tok-bearer-1',
    'Bearer tok-bearer-1',
    'anth-2',
    'goog-3',
    'azure-4',
    'user:pa55word',
    'pa55word',
    'qkey-5',
    'qtok-6',
  ]) {
    assert.ok(s.includes(v), v);
  }
  assert.ok(!s.includes('x') && !s.includes('application/json') && !s.includes('not-secret') && !s.includes('sse'));
});

test('every form of a secret is replaced: raw, URL-encoded, form-encoded, JSON-escaped', () => {
  const key = 'sk-a/b+c d="e"';
  const text = `raw ${key}; url ${encodeURIComponent(key)}; form ${encodeURIComponent(key).replace(/%20/g, '+')}; json ${JSON.stringify({ k: key })}`;
  const out = redactSecrets(text, sentSecrets([key]));
  assert.equal(out, 'raw [redacted]; url [redacted]; form [redacted]; json {"k":"[redacted]"}');
  assert.equal(redactSecrets('nothing here', sentSecrets([key])), 'nothing here');
  assert.equal(redactSecrets('', [key]), '');
});
