import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emailAddress, parseEmailAddress } from './validate.ts';

test('an e-mail address is one bare address, kept in lower case', () => {
  assert.equal(parseEmailAddress('alice@example.com'), 'alice@example.com');
  assert.equal(parseEmailAddress(' Alice.Liddell+tag@Mail.Example.COM '), 'alice.liddell+tag@mail.example.com');
  assert.equal(parseEmailAddress('ünï@exämple.com'), 'ünï@exämple.com');
  for (const bad of [
    '<alice@example.com>',
    'Alice <alice@example.com>',
    'alice(c)@example.com',
    'alice@example.com (c)',
    '"a b"@example.com',
    'alice@example.com, bob@example.com',
    'alice@[127.0.0.1]',
    'alice@localhost',
    'a..b@example.com',
    'alice',
    '',
    `${'a'.repeat(65)}@example.com`,
    `a@${'b'.repeat(250)}.com`,
    'alice@example.com\nBcc: x@example.com',
    42,
    null,
  ])
    assert.equal(parseEmailAddress(bad), null, JSON.stringify(bad));
  assert.throws(() => emailAddress('<a@example.com>', 'notify'), /^GatewayError: notify: must be one e-mail address/);
});
