import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idWithSignature, splitSignedId } from './canonical.ts';

test('thought signatures ride in tool-call ids and come back byte for byte', () => {
  for (const sig of ['CsUCAXLI2nyTnU+Ypx/Vr1Ba2zU=', 'abc', 'not base64 at all!', 'Cp8BAXLI2nw+sig/1==']) {
    const id = idWithSignature('call_1', sig);
    assert.match(id, /^call_1__tsu?__[A-Za-z0-9_-]+$/);
    assert.deepEqual(splitSignedId(id), { id: 'call_1', signature: sig });
  }
  assert.equal(idWithSignature('call_2'), 'call_2');
  assert.deepEqual(splitSignedId('toolu_01A09q90qw90lq917835lq9'), { id: 'toolu_01A09q90qw90lq917835lq9' });
});
