import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileIpList } from './ip.ts';

test('allowed IP lists match addresses and CIDR blocks', () => {
  const m = compileIpList(['10.0.0.0/8', '192.168.1.5', '2001:db8::/32']);
  assert.equal(m.matches('10.1.2.3'), true);
  assert.equal(m.matches('::ffff:10.1.2.3'), true);
  assert.equal(m.matches('192.168.1.5'), true);
  assert.equal(m.matches('192.168.1.6'), false);
  assert.equal(m.matches('2001:db8::1'), true);
  assert.equal(m.matches('2001:db9::1'), false);
  assert.equal(m.matches('garbage'), false);
  assert.throws(() => compileIpList(['10.0.0.0/40']), /prefix length/);
  assert.throws(() => compileIpList(['example.com']), /not an IP/);
});
