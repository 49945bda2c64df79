import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, TEST_ROOT_PASSWORD } from './harness.ts';

test('root logs in with a session cookie, gets an access token, logs out', async () => {
  const gw = await startTestGateway();
  try {
    const bad = await fetch(`${gw.url}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'root', password: 'wrong-password' }) });
    assert.equal(bad.status, 401);
    assert.equal(((await bad.json()) as { success: boolean }).success, false);

    const res = await fetch(`${gw.url}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'root', password: TEST_ROOT_PASSWORD }) });
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
