/**
 * The content address filter: a table of addresses and URL spellings, decided on the parsed address,
 * and the same spellings sent through the `content` dispatcher to a loopback service (refused) and
 * through the ordinary agent (reached: the spelling really points at the service).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { isPrivateAddress } from './ssrf.ts';
import { Outbound } from './outbound.ts';

const PRIVATE = [
  '0.0.0.0',
  '0.1.2.3',
  '10.0.0.1',
  '100.64.0.1',
  '100.127.255.255',
  '127.0.0.1',
  '127.255.255.254',
  '169.254.169.254',
  '172.16.0.1',
  '172.31.255.255',
  '192.0.0.8',
  '192.0.2.1',
  '192.88.99.1',
  '192.168.1.1',
  '198.18.0.1',
  '198.19.255.255',
  '198.51.100.7',
  '203.0.113.9',
  '224.0.0.1',
  '239.255.255.250',
  '240.0.0.1',
  '255.255.255.255',
  '::',
  '::1',
  '[::1]',
  '::ffff:7f00:1',
  '[::ffff:7f00:1]',
  '::ffff:127.0.0.1',
  '0:0:0:0:0:ffff:7f00:0001',
  '::ffff:a9fe:a9fe',
  '::ffff:10.1.2.3',
  '::7f00:1',
  '::127.0.0.1',
  '::ffff:0:7f00:1',
  '::ffff:0.0.0.0',
  '64:ff9b::7f00:1',
  '64:ff9b::10.0.0.1',
  '64:ff9b:1::1',
  '2002:7f00:1::',
  '2002:c0a8:101::1',
  '2001::1',
  '2001:0:4136:e378:8000:63bf:3fff:fdd2',
  '2001:db8::1',
  '3fff::1',
  'fc00::1',
  'fd12:3456::1',
  'fe80::1',
  'fe80::1%eth0',
  'febf::1',
  'fec0::1',
  'ff02::1',
  'ff0e::1',
  '100::1',
  '5f00::1',
  'localhost',
  'example.com',
  '',
  'not an address',
];
const PUBLIC = [
  '1.1.1.1',
  '8.8.8.8',
  '93.184.215.14',
  '100.63.255.255',
  '100.128.0.1',
  '172.15.255.255',
  '172.32.0.1',
  '192.0.1.1',
  '192.167.1.1',
  '198.17.255.255',
  '198.20.0.1',
  '223.255.255.255',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::808:808',
  '2002:808:808::1',
  '2001:4860:4860::8888',
  '2606:4700:4700::1111',
  '2a00:1450:4001::1',
  '[2606:4700::1]',
];

test('non-public addresses are refused in every form, public ones pass', () => {
  for (const a of PRIVATE) assert.equal(isPrivateAddress(a), true, `${a} must be refused`);
  for (const a of PUBLIC) assert.equal(isPrivateAddress(a), false, `${a} must pass`);
});

/** Hosts the WHATWG URL parser turns into loopback (or unspecified) addresses, with what it makes of them. */
const LOOPBACK_SPELLINGS: Array<[string, string]> = [
  ['127.0.0.1', '127.0.0.1'],
  ['127.1', '127.0.0.1'],
  ['2130706433', '127.0.0.1'],
  ['0x7f000001', '127.0.0.1'],
  ['0x7f.1', '127.0.0.1'],
  ['0177.0.0.1', '127.0.0.1'],
  ['017700000001', '127.0.0.1'],
  ['0.0.0.0', '0.0.0.0'],
  ['0', '0.0.0.0'],
  ['[::1]', '[::1]'],
  ['[::]', '[::]'],
  ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]'],
  ['[::ffff:7f00:1]', '[::ffff:7f00:1]'],
  ['[0:0:0:0:0:ffff:127.0.0.1]', '[::ffff:7f00:1]'],
  ['localhost', 'localhost'],
  ['localhost.', 'localhost.'],
];

test('URL spellings of loopback: refused by the content dispatcher, reached by the plain agent', async () => {
  // A loopback service on every local address (dual stack: 127.0.0.1, ::1 and ::ffff:127.0.0.1).
  const srv = createServer((_req, res) => res.end('internal secret'));
  await new Promise<void>((r) => srv.listen(0, '::', r));
  const port = (srv.address() as AddressInfo).port;
  const out = new Outbound({ relayTimeoutMs: 5000, allowPrivateContent: false });
  try {
    for (const [spelling, parsed] of LOOPBACK_SPELLINGS) {
      const url = new URL(`http://${spelling}:${port}/`);
      assert.equal(url.hostname, parsed, `the URL parser's reading of ${spelling}`);
      // (`localhost.` does not resolve with every resolver; the others must reach the service.)
      const direct = await request(url, { dispatcher: out.agent }).catch((e: { code?: string }) => e);
      if (!(spelling === 'localhost.' && 'code' in direct && direct.code === 'ENOTFOUND')) {
        assert.ok('statusCode' in direct, `${spelling} reaches the loopback service`);
        assert.equal(await direct.body.text(), 'internal secret', `${spelling} reaches the loopback service`);
      }
      await assert.rejects(
        request(url, { dispatcher: out.content }),
        (e: Error & { code?: string }) => {
          assert.equal(e.code, 'ERR_BLOCKED_ADDRESS', `${spelling}: ${e.message}`);
          return true;
        },
        `${spelling} must be refused`,
      );
    }
  } finally {
    await out.close();
    await new Promise((r) => srv.close(r));
  }
});

test('with private addresses allowed, the content dispatcher reaches loopback', async () => {
  const srv = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const out = new Outbound({ relayTimeoutMs: 5000, allowPrivateContent: true });
  try {
    const res = await request(`http://[::ffff:127.0.0.1]:${(srv.address() as AddressInfo).port}/`, { dispatcher: out.content });
    assert.equal(await res.body.text(), 'ok');
  } finally {
    await out.close();
    await new Promise((r) => srv.close(r));
  }
});
