/** The audit log's diff: only changed fields, and no secret in any form. */
import test from 'node:test';
import assert from 'node:assert/strict';
import { auditDiff, redactValue, REDACTED } from './audit.ts';

test('a diff lists the changed fields with both sides; a create has only after, a delete only before', () => {
  assert.deepEqual(auditDiff({ name: 'a', priority: 1, models: ['x'] }, { name: 'b', priority: 1, models: ['x'] }), {
    name: { before: 'a', after: 'b' },
  });
  assert.deepEqual(auditDiff(null, { name: 'a' }), { name: { after: 'a' } });
  assert.deepEqual(auditDiff({ name: 'a' }, null), { name: { before: 'a' } });
  assert.deepEqual(auditDiff({ o: { b: 1, a: 2 } }, { o: { a: 2, b: 1 } }), {}, 'key order is no change');
  assert.deepEqual(auditDiff({ x: 1 }, { x: 1, y: undefined }), {});
});

test('secrets are redacted by name at any depth, header values always, key-shaped text anywhere', () => {
  const d = auditDiff(
    {
      password: 'old-pass',
      settings: { api_key: 'k1', region: 'eu' },
      header_override: { 'x-org': 'acme' },
      note: 'rotated sk-abcdefghijklmnop today',
    },
    {
      password: 'new-pass',
      settings: { api_key: 'k2', region: 'us' },
      header_override: { 'x-org': 'other' },
      note: 'Bearer abcdefghijkl0123',
    },
  );
  assert.deepEqual(d.password, { before: REDACTED, after: REDACTED });
  assert.deepEqual(d.settings, { before: { api_key: REDACTED, region: 'eu' }, after: { api_key: REDACTED, region: 'us' } });
  assert.deepEqual(d.header_override, { before: { 'x-org': REDACTED }, after: { 'x-org': REDACTED } });
  assert.deepEqual(d.note, { before: `rotated ${REDACTED} today`, after: REDACTED });
  const text = JSON.stringify(d);
  for (const s of ['old-pass', 'new-pass', 'k1', 'k2', 'acme', 'sk-abcdefghijklmnop', 'abcdefghijkl0123'])
    assert.ok(!text.includes(`"${s}`) && !text.includes(s + '"'), s);
  assert.deepEqual(auditDiff({ AlertWebhookSecret: '' }, { AlertWebhookSecret: 's3cret-value' }), {
    AlertWebhookSecret: { before: REDACTED, after: REDACTED },
  });
  assert.equal(redactValue(null, 'password'), null, 'an absent secret stays absent');
  assert.deepEqual(redactValue({ keys: ['a', 'b'], key_mode: 'random', key_list: [{ hint: 'sk-ab…wxyz' }] }), {
    keys: REDACTED,
    key_mode: 'random',
    key_list: [{ hint: 'sk-ab…wxyz' }],
  });
});
