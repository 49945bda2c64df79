import { test } from 'node:test';
import assert from 'node:assert/strict';
import { affinityKey, formatAffinity, parseAffinity } from './affinity.ts';

test('an affinity record is stored as channel:key and read back; anything else is no record', () => {
  assert.equal(formatAffinity({ channelId: 12, keyIndex: 3 }), '12:3');
  assert.deepEqual(parseAffinity('12:3'), { channelId: 12, keyIndex: 3 });
  for (const v of [null, undefined, '', '12', '12:', ':3', '12:3:4', 'a:b', '-1:2']) assert.equal(parseAffinity(v), null, String(v));
});

test('the conversation key: per user and model, from prompt_cache_key, then session_id, then metadata.user_id; no caller text kept', () => {
  const k = affinityKey(1, 'm', { prompt_cache_key: 'conv' });
  assert.ok(k && k.length === 32 && !k.includes('conv'));
  assert.notEqual(affinityKey(2, 'm', { prompt_cache_key: 'conv' }), k);
  assert.notEqual(affinityKey(1, 'n', { prompt_cache_key: 'conv' }), k);
  assert.equal(affinityKey(1, 'm', { prompt_cache_key: 'conv' }, { session_id: 's' }), k);
  assert.equal(affinityKey(1, 'm', {}, { session_id: 's' }), affinityKey(1, 'm', {}, { 'session-id': 's' }));
  assert.ok(affinityKey(1, 'm', { metadata: { user_id: 'u' } }));
  assert.equal(affinityKey(1, 'm', {}), null);
});

test("a prompt's head names the conversation only when the caller names none", () => {
  let asked = 0;
  const head = () => {
    asked++;
    return '["tools","system","first question"]';
  };
  const named = affinityKey(1, 'm', { prompt_cache_key: 'conv' }, undefined, head);
  assert.equal(named, affinityKey(1, 'm', { prompt_cache_key: 'conv' }));
  assert.equal(asked, 0, 'not even computed when the caller names its conversation');
  const k = affinityKey(1, 'm', {}, undefined, head);
  assert.ok(k && !k.includes('first question'));
  assert.equal(affinityKey(1, 'm', {}, undefined, head), k, 'the same head, the same conversation');
  assert.notEqual(affinityKey(2, 'm', {}, undefined, head), k, 'per user');
  assert.equal(
    affinityKey(1, 'm', {}, undefined, () => null),
    null,
    'a short prompt: no conversation',
  );
});
