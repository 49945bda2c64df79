/**
 * OpenTelemetry traces: a loopback OTLP/HTTP receiver gets the gateway's spans with the caller's
 * `traceparent` as the root's parent — request → routing → one span per upstream attempt (channel,
 * status, retry reason), ledger movements, plugin hook calls and task polls — and upstreams receive
 * the attempt's trace context. Without OTEL_* variables nothing is traced and no trace context is sent.
 * Tracing is per process, so the untraced gateway runs first.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { json, startFake, type FakeUpstream } from '../fakes/upstreams/common.ts';
import { createCaller, createChannel, setPrice, waitFor } from '../relay-fixtures.ts';
import { startVendor, type Vendor } from '../fakes/vendor/server.ts';
import { api, createTaskChannel, createUser, installPlugins, setTaskPrice } from '../fakes/vendor/fixtures.ts';

interface OtlpAttr {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: OtlpAttr[];
  status?: { code?: number };
}

/** A loopback OTLP/HTTP (JSON) trace receiver. */
async function startReceiver(): Promise<{
  url: string;
  spans: OtlpSpan[];
  resources: Array<Record<string, unknown>>;
  close(): Promise<void>;
}> {
  const spans: OtlpSpan[] = [];
  const resources: Array<Record<string, unknown>> = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      if (req.url !== '/v1/traces' || req.method !== 'POST' || !/json/.test(req.headers['content-type'] ?? '')) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as {
        resourceSpans: Array<{ resource: { attributes: OtlpAttr[] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
      };
      for (const rs of body.resourceSpans) {
        resources.push(Object.fromEntries(rs.resource.attributes.map((a) => [a.key, attrValue(a)])));
        for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    resources,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function attrValue(a: OtlpAttr): unknown {
  const v = a.value;
  return v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue);
}
const attrs = (s: OtlpSpan): Record<string, unknown> => Object.fromEntries(s.attributes.map((a) => [a.key, attrValue(a)]));
const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let good: FakeOpenAI;
let bad: FakeUpstream;
let vendor: Vendor;

before(async () => {
  receiver = await startReceiver();
  good = await startFakeOpenAI();
  bad = await startFake((_r, res) => json(res, 500, { error: { message: 'upstream is down', type: 'server_error' } }));
  vendor = await startVendor();
});

after(async () => {
  await receiver?.close();
  await good?.close();
  await bad?.close();
  await vendor?.close();
});

async function setUp(gw: TestGateway) {
  await createChannel(gw, { baseUrl: bad.url, models: ['tr-model'], priority: 10, name: 'tr-bad' });
  const goodId = await createChannel(gw, { baseUrl: good.url, models: ['tr-model'], priority: 0, name: 'tr-good' });
  await setPrice(gw, 'tr-model', { input: 1, output: 1 });
  const caller = await createCaller(gw, { quota: 10_000_000 });
  return { goodId, caller };
}

test('without OTEL_* variables nothing is exported and upstreams get no trace context', async () => {
  const gw = await startTestGateway({ env: { RELAY_PROBE_INTERVAL_SECONDS: '3600' } });
  try {
    const { caller } = await setUp(gw);
    const traceparent = `00-${hex(32)}-${hex(16)}-01`;
    const client = new OpenAI({ apiKey: caller.key, baseURL: `${gw.url}/v1`, maxRetries: 0, defaultHeaders: { traceparent } });
    const r = await client.chat.completions.create({ model: 'tr-model', messages: [{ role: 'user', content: 'hi' }] });
    assert.ok(r.choices[0].message.content);
    assert.ok(good.requests.length >= 1);
    for (const req of [...good.requests, ...bad.requests])
      assert.equal(req.headers.traceparent, undefined, 'no trace context leaves an untraced gateway');
  } finally {
    await gw.stop();
  }
  assert.equal(receiver.spans.length, 0);
  good.requests.length = 0;
  bad.requests.length = 0;
});

test('a model call with failover: request → routing → attempts, ledger movements, trace context to upstreams', async () => {
  const gw = await startTestGateway({
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_SERVICE_NAME: 'gatehouse-under-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
      RELAY_PROBE_INTERVAL_SECONDS: '3600',
      TASK_POLL_INTERVAL_SECONDS: '0.05',
      CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true',
    },
  });
  try {
    const { goodId, caller } = await setUp(gw);
    const traceId = hex(32);
    const callerSpan = hex(16);
    const client = new OpenAI({
      apiKey: caller.key,
      baseURL: `${gw.url}/v1`,
      maxRetries: 0,
      defaultHeaders: { traceparent: `00-${traceId}-${callerSpan}-01` },
    });
    const r = await client.chat.completions.create({ model: 'tr-model', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    assert.ok(r.data.choices[0].message.content);
    const requestId = r.response.headers.get('x-request-id')!;

    // The settle follows the answer; wait for its span too.
    const inTrace = () => receiver.spans.filter((s) => s.traceId === traceId);
    await waitFor(
      () => inTrace().some((s) => s.name === 'gatehouse.ledger' && attrs(s)['gatehouse.ledger.movement'] === 'settle'),
      10_000,
      'the settle span',
    );
    const spans = inTrace();
    const byName = (n: string) => spans.filter((s) => s.name === n);

    const [server] = byName('POST /v1/chat/completions');
    assert.ok(server, `a server span (have: ${spans.map((s) => s.name).join(', ')})`);
    assert.equal(server.parentSpanId, callerSpan, "the caller's traceparent is the request's parent");
    assert.equal(server.kind, 2, 'SERVER');
    assert.equal(attrs(server)['http.route'], '/v1/chat/completions');
    assert.equal(attrs(server)['http.response.status_code'], 200);
    assert.equal(attrs(server)['gatehouse.request_id'], requestId);

    const [routing] = byName('gatehouse.routing');
    assert.equal(routing.parentSpanId, server.spanId);
    assert.equal(attrs(routing)['gen_ai.request.model'], 'tr-model');
    assert.equal(attrs(routing)['gatehouse.attempts'], 2);
    assert.equal(attrs(routing)['gatehouse.channel.id'], goodId);
    assert.equal(attrs(routing)['gatehouse.routing.strategy'], 'priority');

    const attempts = byName('gatehouse.upstream_attempt').sort(
      (a, b) => Number(attrs(a)['gatehouse.attempt']) - Number(attrs(b)['gatehouse.attempt']),
    );
    assert.equal(attempts.length, 2);
    for (const a of attempts) {
      assert.equal(a.parentSpanId, routing.spanId);
      assert.equal(a.kind, 3, 'CLIENT');
    }
    assert.equal(attrs(attempts[0])['gatehouse.channel.name'], 'tr-bad');
    assert.equal(attrs(attempts[0])['gatehouse.attempt.outcome'], 'retry');
    assert.equal(attrs(attempts[0])['http.response.status_code'], 500);
    assert.match(String(attrs(attempts[0])['gatehouse.retry_reason']), /upstream is down/);
    assert.equal(attempts[0].status?.code, 2, 'ERROR');
    assert.equal(attrs(attempts[1])['gatehouse.channel.id'], goodId);
    assert.equal(attrs(attempts[1])['gatehouse.attempt.outcome'], 'done');

    // Each upstream got the trace context of its own attempt.
    assert.equal(bad.requests.at(-1)!.headers.traceparent, `00-${traceId}-${attempts[0].spanId}-01`);
    assert.equal(good.requests.at(-1)!.headers.traceparent, `00-${traceId}-${attempts[1].spanId}-01`);

    const ledger = byName('gatehouse.ledger').map((s) => ({
      movement: attrs(s)['gatehouse.ledger.movement'],
      ref: attrs(s)['gatehouse.ledger.ref'],
      parent: s.parentSpanId,
    }));
    const reserve = ledger.find((l) => l.movement === 'reserve');
    const settle = ledger.find((l) => l.movement === 'settle');
    assert.ok(reserve && settle, `reserve and settle spans (have ${JSON.stringify(ledger)})`);
    assert.equal(reserve.ref, requestId);
    assert.equal(settle.ref, requestId);
    assert.ok([server.spanId, routing.spanId, attempts[1].spanId].includes(reserve.parent!), 'the reserve is inside the request');

    const res = receiver.resources.at(-1)!;
    assert.equal(res['service.name'], 'gatehouse-under-test');
    assert.equal(res['deployment.environment'], 'test');

    // A task: the submit's plugin hook calls are children of its request; polls have their own traces.
    await installPlugins(gw, ['loopback-video.js']);
    await createTaskChannel(gw, { name: 'lv', plugin: 'loopback-video', baseUrl: vendor.url });
    await setTaskPrice(gw, 'loopback-video::lv-1', { perRequest: 0.1 });
    const user = await createUser(gw, { name: 'tracer', quota: 10_000_000 });
    const taskTrace = hex(32);
    const sub = await api(
      gw.url,
      user.key,
      'POST',
      '/v1/tasks/loopback-video',
      { model: 'lv-1', prompt: 'a cat', seconds: 1 },
      { traceparent: `00-${taskTrace}-${hex(16)}-01` },
    );
    assert.equal(sub.status, 200, JSON.stringify(sub.body));
    await waitFor(() => receiver.spans.some((s) => s.name === 'gatehouse.task_poll'), 10_000, 'a task poll span');
    await waitFor(
      () => receiver.spans.some((s) => s.traceId === taskTrace && s.name === 'gatehouse.plugin_hook'),
      10_000,
      'the submit hook spans',
    );
    const taskSpans = receiver.spans.filter((s) => s.traceId === taskTrace);
    const submitSpan = taskSpans.find((s) => s.kind === 2)!;
    const hooks = taskSpans.filter((s) => s.name === 'gatehouse.plugin_hook');
    assert.ok(
      hooks.some((h) => attrs(h)['gatehouse.plugin.hook'] === 'buildSubmitRequest'),
      JSON.stringify(hooks.map(attrs)),
    );
    for (const h of hooks) assert.equal(attrs(h)['gatehouse.plugin'], 'loopback-video');
    const ids = new Set(taskSpans.map((s) => s.spanId));
    for (const h of hooks) assert.ok(ids.has(h.parentSpanId!), 'hook spans hang under the submit request');
    assert.ok(submitSpan);
    const poll = receiver.spans.find((s) => s.name === 'gatehouse.task_poll')!;
    assert.equal(poll.parentSpanId || undefined, undefined, 'a poll starts its own trace');
    await waitFor(
      () => receiver.spans.some((s) => s.traceId === poll.traceId && s.name === 'gatehouse.plugin_hook'),
      10_000,
      'hook spans under a poll',
    );
  } finally {
    await gw.stop();
  }
});
