import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, TEST_ROOT_PASSWORD } from '../harness.ts';

test('root logs in with a session cookie, gets an access token, logs out', async () => {
  const gw = await startTestGateway();
  try {
    const bad = await fetch(`${gw.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'root', password: 'wrong-password' }),
    });
    assert.equal(bad.status, 401);
    assert.equal(((await bad.json()) as { success: boolean }).success, false);

    const res = await fetch(`${gw.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'root', password: TEST_ROOT_PASSWORD }),
    });
    assert.equal(res.status, 200);
    const cookie = res.headers.get('set-cookie')!.split(';')[0];
    const self = await fetch(`${gw.url}/api/user/self`, { headers: { cookie } });
    assert.equal(self.status, 200);
    const me = (await self.json()) as { data: { username: string; role: string } };
    assert.equal(me.data.username, 'root');
    assert.equal(me.data.role, 'root');

    const tampered = await fetch(`${gw.url}/api/user/self`, { headers: { cookie: cookie.slice(0, -2) + 'xx' } });
    assert.equal(tampered.status, 401);

    const tok = await fetch(`${gw.url}/api/user/token`, { method: 'POST', headers: { cookie } });
    const token = ((await tok.json()) as { data: { access_token: string } }).data.access_token;
    const viaToken = await fetch(`${gw.url}/api/user/self`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(viaToken.status, 200);

    await fetch(`${gw.url}/api/user/logout`, { method: 'POST', headers: { cookie } });
    const after = await fetch(`${gw.url}/api/user/self`, { headers: { cookie } });
    assert.equal(after.status, 401);
  } finally {
    await gw.stop();
  }
});

const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

async function login(url: string, from: string, username: string, password: string) {
  const r = await fetch(`${url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify({ username, password }),
  });
  return { status: r.status, retryAfter: r.headers.get('retry-after'), body: (await r.json()) as { success: boolean; message: string } };
}

test('failed logins are limited per client address: 429 with Retry-After, even with the right password, until the window ends', async () => {
  const gw = await startTestGateway({ env: { TRUST_PROXY: '1' } });
  try {
    await gw.services.admin.options.set('LoginAttemptLimit', 3);
    await gw.services.admin.options.set('LoginAttemptWindowSeconds', 2);
    const a = '203.0.113.7';
    assert.equal((await login(gw.url, a, 'root', 'guess-1')).status, 401);
    assert.equal((await login(gw.url, a, 'nobody', 'guess-2')).status, 401, 'an unknown name counts too');
    assert.equal((await login(gw.url, a, 'root', TEST_ROOT_PASSWORD)).status, 200, 'a success before the limit works');
    assert.equal((await login(gw.url, a, 'root', 'guess-3')).status, 401);
    const blocked = await login(gw.url, a, 'root', TEST_ROOT_PASSWORD);
    assert.equal(blocked.status, 429);
    assert.equal(blocked.body.success, false);
    assert.match(blocked.body.message, /too many failed logins/);
    assert.ok(Number(blocked.retryAfter) >= 1 && Number(blocked.retryAfter) <= 2, String(blocked.retryAfter));
    // Another address is not affected.
    assert.equal((await login(gw.url, '203.0.113.8', 'root', TEST_ROOT_PASSWORD)).status, 200);
    // The window ends.
    await new Promise((r) => setTimeout(r, Number(blocked.retryAfter) * 1000 + 100));
    assert.equal((await login(gw.url, a, 'root', TEST_ROOT_PASSWORD)).status, 200);
    // 0 turns the limit off.
    await gw.services.admin.options.set('LoginAttemptLimit', 0);
    for (let i = 0; i < 5; i++) assert.equal((await login(gw.url, a, 'root', `again-${i}`)).status, 401);
  } finally {
    await gw.stop();
  }
});

test('with Redis, failed logins on one node count on the other', async () => {
  const env = { TRUST_PROXY: '1', REDIS_URL };
  const a = await startTestGateway({ env });
  const b = await startTestGateway({ db: a.db, env });
  try {
    await a.services.admin.options.set('LoginAttemptLimit', 2);
    const from = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    assert.equal((await login(a.url, from, 'root', 'guess-1')).status, 401);
    assert.equal((await login(b.url, from, 'root', 'guess-2')).status, 401);
    for (let i = 0; i < 100 && b.services.admin.options.get('LoginAttemptLimit') !== '2'; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(b.services.admin.options.get('LoginAttemptLimit'), '2', 'the option reached node b');
    assert.equal((await login(b.url, from, 'root', TEST_ROOT_PASSWORD)).status, 429);
    assert.equal((await login(a.url, from, 'root', TEST_ROOT_PASSWORD)).status, 429);
  } finally {
    await b.stop({ keepDb: true });
    await a.stop();
  }
});
