import test from 'node:test';
import assert from 'node:assert/strict';
import { sanitizeHookText, scrubKnown } from './hook-text.ts';

test('control characters become spaces and text is capped at 512 characters', () => {
  const s = sanitizeHookText(new Error('bad\u0000input\nline\u0085x' + 'y'.repeat(1000)));
  assert.ok(s.startsWith('bad input line x'));
  assert.equal(Array.from(s).length, 512);
  assert.ok(s.endsWith('…'));
});

test('credential-looking text is replaced', () => {
  const s = sanitizeHookText('upstream said: Authorization: Bearer abcdef123456 key=sk-live-abcdef0123 https://u:p@h.example/x');
  assert.doesNotMatch(s, /abcdef123456|sk-live-abcdef0123|u:p@/);
  assert.match(s, /\[redacted\]/);
  assert.equal(scrubKnown('the key ch-secret-1 leaked', ['ch-secret-1']), 'the key [redacted] leaked');
});

test('empty messages get a readable default', () => {
  assert.equal(sanitizeHookText(new Error('')), 'plugin hook failed');
});

test('stack traces are cut and host paths replaced; URLs are kept', () => {
  const s = sanitizeHookText(
    new Error(
      'failed reading /home/gw/app/plugins/x.js:3 (see https://docs.example/a/b)\n    at run (/srv/gw/sandbox.js:10:2)\n    at node:internal/process:1:1',
    ),
  );
  assert.equal(s, 'failed reading [path] (see https://docs.example/a/b)');
  const flat = sanitizeHookText(
    'boom at decode (/work/x/y.js:1:2) at async run (node:internal/q:1:1) in file:///opt/a.js and C:\\srv\\p.js',
  );
  assert.equal(flat, 'boom in [path] and [path]');
});
