/**
 * Bodies nested deeper than the gateway walks: every route that takes a body, with valid credentials
 * (an access token of root for /api, a model key elsewhere, a plugin serving the protocol routes),
 * answers a JSON body of 5,000 levels with a 400 in its family's envelope — never a 500 from a
 * recursive walk (JSON.stringify, structuredClone, a codec) that ran out of stack.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { createCaller } from '../relay-fixtures.ts';
import { installPlugins } from '../fakes/vendor/fixtures.ts';

// Built as text: the value is deeper than JSON.stringify itself can take.
const DEEP = '{"a":'.repeat(5000) + '"x"' + '}'.repeat(5000);

test('every route answers a body nested 5,000 levels deep with 400, never 500', async () => {
  const gw = await startTestGateway();
  try {
    const root = await AdminClient.login(gw.url);
    await installPlugins(gw, ['example-image.js', 'example-video.js', 'native-demo.js']);
    const { key } = await createCaller(gw, { quota: 1_000_000_000 });
    const routes = gw.app.routeTable.filter((r) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method));
    assert.ok(routes.length > 50, `${routes.length} routes`);
    const seen = new Set<string>();
    const failures: string[] = [];
    for (const r of routes) {
      const path = r.url.replace(/\*$/, 'x').replace(/:[A-Za-z_]+/g, '1');
      if (seen.has(`${r.method} ${path}`)) continue;
      seen.add(`${r.method} ${path}`);
      const api = path.startsWith('/api/');
      const body = JSON.stringify({ model: 'mint-image', prompt: 'p', input: 'i', name: 'n', x: 'DEEP' }).replace('"DEEP"', DEEP);
      const res = await fetch(gw.url + path, {
        method: r.method,
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${api ? root.token : key}`,
          'x-api-key': key,
          'anthropic-version': '2023-06-01',
        },
        body,
      });
      const text = await res.text();
      if (res.status >= 500) failures.push(`${r.method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    }
    assert.deepEqual(failures, []);
    // The two the probe found, and their envelopes.
    for (const path of ['/v1/responses', '/v1/images/generations']) {
      const res = await fetch(gw.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'mint-image', prompt: 'p', input: 'DEEP' }).replace('"DEEP"', DEEP),
      });
      const out = (await res.json()) as { error: { message: string; type: string } };
      assert.equal(res.status, 400, JSON.stringify(out));
      assert.equal(out.error.type, 'invalid_request_error');
      assert.match(out.error.message, /deeper than 128/);
    }
    const api = await root.call('POST', '/api/channel', JSON.parse('{"name":"x"}'));
    assert.notEqual(api.status, 500);
    const deepApi = await fetch(`${gw.url}/api/channel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${root.token}` },
      body: `{"name":"x","models":${DEEP}}`,
    });
    const apiOut = (await deepApi.json()) as { success: boolean; message: string };
    assert.equal(deepApi.status, 400);
    assert.equal(apiOut.success, false);
    assert.match(apiOut.message, /deeper than 128/);
  } finally {
    await gw.stop();
  }
});
