/**
 * Routes that declare their schemas (http/route-docs.ts, the plans area): every schema compiles; a request the schema
 * refuses gets the /api envelope with `invalid_field`, the field named (message, `field`,
 * X-Error-Code); the document built from the routes carries their operations and shared schemas; and
 * the harness's check of answers against the document refuses an answer that differs from it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { answerProblem } from '../api-conformance.ts';
import { compileRouteSchemas } from '../../src/http/route-docs.ts';

test('route schemas: refusals name the field in the /api envelope; the document and the answer check come from them', async () => {
  const gw = await startTestGateway();
  try {
    const admin = await AdminClient.login(gw.url);
    const post = (body: unknown) =>
      fetch(`${gw.url}/api/plan`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin.token}` },
        body: JSON.stringify(body),
      });

    // An unknown field, a wrong type, a wrong type inside a list: refused by the schema, field named.
    for (const [body, field, problem] of [
      [{ name: 'x', price_usd: 1, bogus: 1 }, 'bogus', 'unknown field'],
      [{ name: 5, price_usd: 1 }, 'name', 'must be a string'],
      [{ name: 'x', price_usd: 1, windows: [{ every: 5 }] }, 'windows[0].every', 'must be a string'],
      [{ name: 'x', price_usd: 1, overflow: 'later' }, 'overflow', ''],
    ] as const) {
      const r = await post(body);
      assert.equal(r.status, 400);
      assert.equal(r.headers.get('x-error-code'), 'invalid_field');
      const b = (await r.json()) as { success: boolean; message: string; data: null; field: string };
      assert.equal(b.success, false);
      assert.equal(b.data, null);
      assert.equal(b.field, field);
      assert.ok(b.message.startsWith(`${field}: ${problem}`), b.message);
    }
    // A path id that is not a number.
    const bad = await fetch(`${gw.url}/api/plan/abc`, { headers: { authorization: `Bearer ${admin.token}` } });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { field: string }).field, 'id');

    // The document: the plan operations with their schemas, the shared ones as components.
    const doc = (await (await fetch(`${gw.url}/api/openapi.json`)).json()) as any;
    const create = doc.paths['/api/plan'].post;
    assert.deepEqual(create.tags, ['plans']);
    assert.equal(create.requestBody.content['application/json'].schema.$ref, '#/components/schemas/PlanInput');
    assert.equal(create.responses['200'].content['application/json'].schema.properties.data.$ref, '#/components/schemas/Plan');
    assert.equal(create['x-described-only'], undefined);
    assert.equal(doc.paths['/v1/models'].get['x-described-only'], true);
    for (const name of ['Plan', 'PlanInput', 'MyPlan', 'AdminError', 'User']) assert.ok(doc.components.schemas[name], name);

    // The answer check: a plan as the route answers it passes, one without its id does not.
    const plan = await admin.ok('POST', '/api/plan', { name: 'Basic', price_usd: 1, windows: [{ every: '5h', quota_usd: 1 }] });
    assert.equal(await answerProblem(gw.url, 'GET', `/api/plan/${plan.id}`, 200, { success: true, message: '', data: plan }), null);
    const { id: _id, ...noId } = plan;
    const problem = await answerProblem(gw.url, 'GET', `/api/plan/${plan.id}`, 200, { success: true, message: '', data: noId });
    assert.match(problem ?? '', /\/api\/plan\/\{id\} answered 200 .*required property 'id'/);
    assert.match((await answerProblem(gw.url, 'GET', '/api/nowhere', 200, {})) ?? '', /not in the OpenAPI document/);
  } finally {
    await gw.stop();
  }
});

test('every route schema compiles: validators and serializers are made on first use, and all of them can be', async () => {
  const gw = await startTestGateway();
  try {
    // Made lazily at a route's first call; made here all at once, so a schema that cannot compile fails now.
    const made = compileRouteSchemas();
    assert.ok(made > 200, `only ${made} compilations were pending`);
    assert.equal(compileRouteSchemas(), 0);
  } finally {
    await gw.stop();
  }
});
