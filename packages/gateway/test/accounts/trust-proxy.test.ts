/**
 * TRUST_PROXY takes a hop count or a list of proxies, never "every hop": a client that puts an
 * address of its own choosing at the left of X-Forwarded-For does not pass a key's IP allow-list nor
 * escape the failed-login limit, and only the listed proxies' X-Forwarded-For is believed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, TEST_ROOT_PASSWORD, type TestGateway } from '../harness.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { createUser } from '../fakes/vendor/fixtures.ts';

test('TRUST_PROXY: true is refused naming the alternatives; hop counts and proxy lists are read', () => {
  const base = { DATABASE_URL: 'sqlite::memory:' };
  assert.throws(
    () => loadConfig({ ...base, TRUST_PROXY: 'true' }),
    /TRUST_PROXY=true is not accepted.*TRUST_PROXY=1.*10\.0\.0\.0\/8,127\.0\.0\.1/s,
  );
  assert.equal(loadConfig({ ...base }).trustProxy, false);
  assert.equal(loadConfig({ ...base, TRUST_PROXY: 'false' }).trustProxy, false);
  assert.equal(loadConfig({ ...base, TRUST_PROXY: '0' }).trustProxy, false);
  assert.equal(loadConfig({ ...base, TRUST_PROXY: '2' }).trustProxy, 2);
  assert.deepEqual(loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1,fd00::/8,loopback' }).trustProxy, [
    '10.0.0.0/8',
    '127.0.0.1',
    '::1',
    'fd00::/8',
    'loopback',
  ]);
  for (const bad of ['10.0.0.0/33', 'proxy.example.com', '10.0.0.1/8/1', '-1']) {
    assert.throws(() => loadConfig({ ...base, TRUST_PROXY: bad }), /TRUST_PROXY/, bad);
  }
});

async function restrictKey(gw: TestGateway, keyId: number, ips: string[]): Promise<void> {
  const keys = gw.services.admin.keys;
  await keys.update(keyId, keys.parse({ allowed_ips: ips }, 'update'), null);
}

async function models(gw: TestGateway, key: string, xff: string): Promise<number> {
  const r = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': xff } });
  await r.arrayBuffer();
  return r.status;
}

async function login(gw: TestGateway, xff: string, password: string): Promise<number> {
  const r = await fetch(`${gw.url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': xff },
    body: JSON.stringify({ username: 'root', password }),
  });
  await r.arrayBuffer();
  return r.status;
}

/** Waits until the key cache has the allow-list (the cache reloads on the revision bump). */
async function until(fn: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('timed out');
}

test('TRUST_PROXY=1: a spoofed leftmost X-Forwarded-For entry neither passes a key IP allow-list nor resets the login limit', async () => {
  const gw = await startTestGateway({ env: { TRUST_PROXY: '1' } });
  try {
    const u = await createUser(gw, { name: 'ipuser', quota: 1000 });
    await restrictKey(gw, u.keyId, ['203.0.113.7']);
    // The proxy (this loopback connection) appends the address it saw: the last entry is the client.
    await until(async () => (await models(gw, u.key, '198.51.100.9')) === 403);
    assert.equal(await models(gw, u.key, '203.0.113.7, 198.51.100.9'), 403, "the allowed address at the left is the client's own claim");
    assert.equal(await models(gw, u.key, '198.51.100.9, 203.0.113.7'), 200, 'the client the proxy saw is allowed');

    await gw.services.admin.options.set('LoginAttemptLimit', 2);
    await gw.services.admin.options.set('LoginAttemptWindowSeconds', 600);
    const client = '198.51.100.20';
    assert.equal(await login(gw, client, 'guess-1'), 401);
    assert.equal(await login(gw, `192.0.2.1, ${client}`, 'guess-2'), 401);
    assert.equal(await login(gw, client, TEST_ROOT_PASSWORD), 429, 'both failures counted against the client');
    for (let i = 0; i < 3; i++) {
      assert.equal(await login(gw, `192.0.2.${100 + i}, ${client}`, TEST_ROOT_PASSWORD), 429, 'a new leftmost address is no new client');
    }
    assert.equal(await login(gw, '198.51.100.21', TEST_ROOT_PASSWORD), 200, 'another client is not affected');
  } finally {
    await gw.stop();
  }
});

test("TRUST_PROXY as a list: only the listed proxies' X-Forwarded-For is believed", async () => {
  // Loopback (this connection) is a listed proxy, and so is 10.0.0.0/8.
  const listed = await startTestGateway({ env: { TRUST_PROXY: '10.0.0.0/8,127.0.0.1,::1' } });
  try {
    const u = await createUser(listed, { name: 'ipuser', quota: 1000 });
    await restrictKey(listed, u.keyId, ['203.0.113.7']);
    await until(async () => (await models(listed, u.key, '198.51.100.9')) === 403);
    assert.equal(await models(listed, u.key, '203.0.113.7'), 200);
    assert.equal(await models(listed, u.key, '203.0.113.7, 10.1.2.3'), 200, 'a listed proxy further in is skipped too');
    assert.equal(await models(listed, u.key, '203.0.113.7, 198.51.100.9'), 403, 'an unlisted hop is the client');
    assert.equal(await models(listed, u.key, '203.0.113.7, 198.51.100.9, 10.1.2.3'), 403);
  } finally {
    await listed.stop();
  }
  // Loopback is not listed: the connection itself is the client and X-Forwarded-For is ignored.
  const other = await startTestGateway({ env: { TRUST_PROXY: '10.0.0.0/8' } });
  try {
    const u = await createUser(other, { name: 'ipuser', quota: 1000 });
    await restrictKey(other, u.keyId, ['203.0.113.7']);
    await until(async () => (await models(other, u.key, '198.51.100.9')) === 403);
    assert.equal(await models(other, u.key, '203.0.113.7'), 403, 'X-Forwarded-For from an unlisted peer is not believed');
    await restrictKey(other, u.keyId, ['127.0.0.1', '::1', '::ffff:127.0.0.1']);
    await until(async () => (await models(other, u.key, '203.0.113.7')) === 200);
  } finally {
    await other.stop();
  }
});
