/**
 * The operator areas declare their route schemas (channels, prices and group ratios, options, alerts,
 * MCP servers, plugins, task administration, the public pricing list): the document carries their
 * operations (none only described), a refusal names the field in the /api envelope, answers keep
 * every field their handlers give (a price's rules only when set), and the harness's answer check
 * holds them to the document (a plugin's 409 may be the in-use answer or the plain error body).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { answerProblem } from '../api-conformance.ts';

test('operator areas: schemas in the document, refusals name the field, answers as the document says', async () => {
  const gw = await startTestGateway();
  try {
    const root = await AdminClient.login(gw.url);
    const doc = (await (await fetch(`${gw.url}/api/openapi.json`)).json()) as any;
    const mine = /^\/api\/(channel|price|pricing|group_ratio|option|alert|mcp\/|plugin\/|task)/;
    const paths = Object.keys(doc.paths).filter((p) => mine.test(p));
    assert.ok(paths.length > 40, `${paths.length} operator paths`);
    for (const p of paths)
      for (const [m, op] of Object.entries<any>(doc.paths[p])) assert.equal(op['x-described-only'], undefined, `${m} ${p}`);
    // The wildcard route of one price is documented with its `model` parameter.
    const one = doc.paths['/api/price/{model}'].get;
    assert.deepEqual(
      one.parameters.map((x: any) => [x.name, x.in, x.required]),
      [['model', 'path', true]],
    );
    assert.equal(doc.paths['/api/channel'].post.requestBody.content['application/json'].schema.$ref, '#/components/schemas/ChannelInput');

    // Refusals by the schemas: invalid_field, the field named.
    for (const [method, path, body, field] of [
      ['PUT', '/api/price', { model: 'm', input: 'cheap' }, 'input'],
      ['PUT', '/api/price', { model: 'm', input: 1, bogus: 1 }, 'bogus'],
      ['PUT', '/api/group_ratio', { group: 'vip' }, 'ratio'],
      ['POST', '/api/channel', { name: 'c', type: 'openai', keys: ['k'], models: ['m'], priority: 'high' }, 'priority'],
      ['PUT', '/api/channel/1/keys/x', { enabled: true }, 'index'],
      ['POST', '/api/channel/batch', { ids: 'all' }, 'ids'],
      ['PUT', '/api/mcp/servers/x', { enabled: 'yes' }, 'enabled'],
      ['POST', '/api/task/task_x/resolve', { action: 'later' }, 'action'],
      ['POST', '/api/plugin/task/x/status', {}, 'enabled'],
    ] as const) {
      const r = await fetch(`${gw.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${root.token}` },
        body: JSON.stringify(body),
      });
      assert.equal(r.status, 400, `${method} ${path}`);
      assert.equal(r.headers.get('x-error-code'), 'invalid_field', `${method} ${path}`);
      const b = (await r.json()) as { success: boolean; data: null; field: string; message: string };
      assert.equal(b.field, field, `${method} ${path}: ${b.message}`);
      assert.ok(b.message.startsWith(`${field}: `), b.message);
    }
    const bad = await fetch(`${gw.url}/api/alert?status=lost`, { headers: { authorization: `Bearer ${root.token}` } });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { field: string }).field, 'status');

    // Answers keep their fields: a price without rules has none, one with rules keeps them all.
    const flat = await root.ok('PUT', '/api/price', { model: 'flat-model', input: 1, output: 2 });
    assert.equal(flat.tiers, undefined);
    assert.equal(flat.input, 1);
    const rules = {
      model: 'vendor/ruled-model',
      input: 1,
      output: 2,
      tiers: [{ above_input_tokens: 200000, input: 2, output: 4 }],
      audio_input: 3,
      web_search: 10,
      service_tiers: { flex: 0.5 },
      server_tools: { code_interpreter: 30 },
    };
    const ruled = await root.ok('PUT', '/api/price', rules);
    for (const [k, v] of Object.entries(rules)) assert.deepEqual(ruled[k], v, k);
    const got = await root.ok('GET', '/api/price/vendor%2Fruled-model');
    assert.deepEqual(got.tiers, rules.tiers);
    const listed = await root.ok('GET', '/api/price?keyword=ruled');
    assert.deepEqual(listed.items[0].service_tiers, { flex: 0.5 });
    const options = await root.ok('GET', '/api/option');
    assert.ok(options.some((o: any) => typeof o.doc === 'string' && o.unit !== undefined));

    // The answer check: a price without rules passes; a plugin's 409 may carry null data or the in-use data.
    const ok = { success: true, message: '', data: flat };
    assert.equal(await answerProblem(gw.url, 'GET', '/api/price/flat-model', 200, ok), null);
    assert.match(
      (await answerProblem(gw.url, 'GET', '/api/price/flat-model', 200, { ...ok, data: { model: 'x' } })) ?? '',
      /required property/,
    );
    const conflict = { success: false, message: 'conflicts with the running plugins', data: null };
    assert.equal(await answerProblem(gw.url, 'POST', '/api/plugin/task/x/status', 409, conflict), null);
    const inUse = {
      success: false,
      message: 'in use',
      data: { channels: [{ id: 1, name: 'c', type: 61, status: 1, via: 'channel_type' }], in_flight_count: 0 },
    };
    assert.equal(await answerProblem(gw.url, 'POST', '/api/plugin/task/x/status', 409, inUse), null);
  } finally {
    await gw.stop();
  }
});
