/** GET /metrics: off without METRICS_TOKEN, the token required, and model calls counted as they happen. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startTestGateway } from '../harness.ts';
import { startFakeOpenAI } from '../fakes/upstreams/openai.ts';
import { json, startFake } from '../fakes/upstreams/common.ts';
import { createCaller, createChannel, setPrice } from '../relay-fixtures.ts';

const TOKEN = 'metrics-test-token';

test('metrics: off by default; with METRICS_TOKEN the scrape needs it and counts calls, failures, tokens and quota', async () => {
  const off = await startTestGateway();
  try {
    assert.equal((await fetch(`${off.url}/metrics`)).status, 404);
  } finally {
    await off.stop();
  }

  const gw = await startTestGateway({ env: { METRICS_TOKEN: TOKEN } });
  const up = await startFakeOpenAI();
  const broken = await startFake((_r, res) => json(res, 500, { error: { message: 'boom', type: 'server_error' } }));
  try {
    await createChannel(gw, { baseUrl: up.url, models: ['mx-model'] });
    const brokenId = await createChannel(gw, { baseUrl: broken.url, models: ['mx-broken'] });
    await setPrice(gw, 'mx-model', { input: 1, output: 1 });
    await setPrice(gw, 'mx-broken', { input: 1, output: 1 });
    const c = await createCaller(gw, { quota: 10_000_000 });
    const oa = new OpenAI({ apiKey: c.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    await oa.chat.completions.create({ model: 'mx-model', messages: [{ role: 'user', content: 'hi' }] });
    const s = await oa.chat.completions.create({ model: 'mx-model', messages: [{ role: 'user', content: 'hi' }], stream: true });
    for await (const _ of s) {
      /* drain */
    }
    await assert.rejects(oa.chat.completions.create({ model: 'mx-broken', messages: [{ role: 'user', content: 'hi' }] }));

    assert.equal((await fetch(`${gw.url}/metrics`)).status, 401);
    assert.equal((await fetch(`${gw.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status, 401);
    const res = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const t = await res.text();
    assert.match(t, /^gatehouse_requests_total\{endpoint="\/v1\/chat\/completions",model="mx-model",status="200"\} 2$/m);
    assert.match(t, /^gatehouse_requests_total\{endpoint="\/v1\/chat\/completions",model="mx-broken",status="500"\} 1$/m);
    assert.match(t, new RegExp(`^gatehouse_channel_requests_total\\{channel="${brokenId}",status="500"\\} 1$`, 'm'));
    assert.match(t, /^gatehouse_request_duration_seconds_count\{endpoint="\/v1\/chat\/completions"\} 3$/m);
    assert.match(t, /^gatehouse_time_to_first_byte_seconds_count\{endpoint="\/v1\/chat\/completions"\} [12]$/m);
    assert.match(t, /^gatehouse_tokens_total\{model="mx-model",kind="prompt"\} \d+$/m);
    assert.match(t, /^gatehouse_quota_used_total\{model="mx-model"\} \d+$/m);
    assert.ok(!t.includes(TOKEN) && !t.includes(c.key), 'no secret in the scrape');
  } finally {
    await gw.stop();
    await up.close();
    await broken.close();
  }
});
