import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway } from '../harness.ts';

test('gateway starts, migrates and answers health checks', async () => {
  const gw = await startTestGateway();
  try {
    const res = await fetch(`${gw.url}/healthz`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ok: true });
    assert.match(res.headers.get('x-request-id') ?? '', /^req_/);
    const nf = await fetch(`${gw.url}/v1/nope`);
    assert.equal(nf.status, 404);
    const body = (await nf.json()) as { error: { code: string } };
    assert.equal(body.error.code, 'not_found');
  } finally {
    await gw.stop();
  }
});
