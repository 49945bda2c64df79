/**
 * Fallbacks across models (docs/relay.md#fallbacks-across-models), against loopback vendors: a prompt
 * too long for one model goes on with a larger one (billed at its price, the `x-gatehouse-model` header
 * and the log row telling the chain), a content-policy refusal moves to another vendor, rate limits
 * spent on every channel move on, a class the model does not fall back on reaches the caller, and a
 * stream never falls back once its first byte was written.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { startFakeAnthropic } from '../fakes/upstreams/anthropic.ts';
import { json, type FakeUpstream } from '../fakes/upstreams/common.ts';
import { balance, consumeLog, createCaller, createChannel, setPrice, waitFor } from '../relay-fixtures.ts';

let gw: TestGateway;
let root: AdminClient;
const fakes: FakeUpstream[] = [];

before(async () => {
  gw = await startTestGateway();
  root = await AdminClient.login(gw.url);
});
after(async () => {
  await gw?.stop();
  await Promise.all(fakes.map((f) => f.close()));
});

async function fake(): Promise<FakeOpenAI> {
  const f = await startFakeOpenAI();
  fakes.push(f);
  return f;
}

/** Adds fallbacks through the admin API (the whole option, as the configuration file's `fallbacks:` would). */
const fallbacks: Record<string, unknown> = {};
async function addFallbacks(model: string, rules: Array<{ model: string; on: string[] }>): Promise<void> {
  fallbacks[model] = rules;
  await root.ok('PUT', '/api/option', { options: { ModelFallbacks: fallbacks } });
}

const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });

function refuse(up: FakeUpstream, status: number, error: Record<string, unknown>): void {
  up.override = (_r, res) => {
    json(res, status, { error });
    return true;
  };
}

test('a prompt too long for its model falls back to the larger one: billed at its price, header and log row tell the chain', async () => {
  const small = await fake();
  const large = await fake();
  refuse(small, 400, {
    message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
    type: 'invalid_request_error',
    param: 'messages',
    code: 'context_length_exceeded',
  });
  await createChannel(gw, { baseUrl: small.url, models: ['fb-small'] });
  await createChannel(gw, { baseUrl: large.url, models: ['fb-large'] });
  await setPrice(gw, 'fb-small', { input: 1, output: 1 });
  await setPrice(gw, 'fb-large', { input: 10, output: 20 });
  await addFallbacks('fb-small', [{ model: 'fb-large', on: ['context_length'] }]);
  const c = await createCaller(gw, { quota: 1_000_000 });
  const { data, response, request_id } = await client(c.key)
    .chat.completions.create({ model: 'fb-small', messages: [{ role: 'user', content: 'a long story' }] })
    .withResponse();
  assert.equal(data.choices[0].message.content, 'Hello world');
  assert.equal(data.model, 'fb-large', "the response's model is the upstream's");
  assert.equal(response.headers.get('x-gatehouse-model'), 'fb-large');
  assert.equal(small.requests.length, 1);
  assert.equal(large.requests.length, 1);
  assert.equal(large.requests[0].body.model, 'fb-large');
  const log = await consumeLog(gw, request_id!);
  assert.equal(log.model, 'fb-large');
  // 11 input tokens at $10/M and 7 output at $20/M, 500,000 units a dollar: 55 + 70.
  assert.equal(Number(log.quota), 125);
  const other = JSON.parse(String(log.other));
  assert.equal(other.requested_model, 'fb-small');
  assert.deepEqual(other.fallbacks, [{ from: 'fb-small', model: 'fb-large', on: 'context_length' }]);
  await waitFor(async () => (await balance(gw, c.userId)) === 1_000_000 - 125, 3000, 'the settle at the served price');
});

test('a content-policy refusal moves to a model of another vendor, converted for it', async () => {
  const strict = await fake();
  const claude = await startFakeAnthropic();
  fakes.push(claude);
  refuse(strict, 400, {
    message: 'Your request was rejected as a result of our safety system.',
    type: 'invalid_request_error',
    code: 'content_policy_violation',
  });
  await createChannel(gw, { baseUrl: strict.url, models: ['fb-cp-gpt'] });
  await createChannel(gw, { type: 14, baseUrl: claude.url, keys: ['sk-ant'], models: ['fb-cp-claude'] });
  await setPrice(gw, 'fb-cp-gpt', { input: 1, output: 1 });
  await setPrice(gw, 'fb-cp-claude', { input: 3, output: 15 });
  await addFallbacks('fb-cp-gpt', [
    { model: 'fb-small', on: ['context_length'] },
    { model: 'fb-cp-claude', on: ['content_policy'] },
  ]);
  const c = await createCaller(gw);
  const { data, response, request_id } = await client(c.key)
    .chat.completions.create({ model: 'fb-cp-gpt', messages: [{ role: 'user', content: 'something edgy' }] })
    .withResponse();
  assert.equal(data.choices[0].message.content, 'Hello from Claude');
  assert.equal(response.headers.get('x-gatehouse-model'), 'fb-cp-claude');
  assert.equal(claude.requests.length, 1);
  assert.equal(claude.requests[0].body.model, 'fb-cp-claude');
  const log = await consumeLog(gw, request_id!);
  assert.deepEqual(JSON.parse(String(log.other)).fallbacks, [{ from: 'fb-cp-gpt', model: 'fb-cp-claude', on: 'content_policy' }]);
});

test('a refusal of a class the model does not fall back on reaches the caller as it is', async () => {
  const strict = await fake();
  const other = await fake();
  refuse(strict, 400, { message: 'Your request was rejected as a result of our safety system.', code: 'content_policy_violation' });
  await createChannel(gw, { baseUrl: strict.url, models: ['fb-only-ctx'] });
  await createChannel(gw, { baseUrl: other.url, models: ['fb-only-ctx-big'] });
  await setPrice(gw, 'fb-only-ctx', { input: 1, output: 1 });
  await setPrice(gw, 'fb-only-ctx-big', { input: 1, output: 1 });
  await addFallbacks('fb-only-ctx', [{ model: 'fb-only-ctx-big', on: ['context_length'] }]);
  const c = await createCaller(gw, { quota: 100_000 });
  const err = await client(c.key)
    .chat.completions.create({ model: 'fb-only-ctx', messages: [{ role: 'user', content: 'x' }] })
    .catch((e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
  assert.ok(err instanceof OpenAI.APIError);
  assert.equal(err.status, 400);
  assert.match(err.message, /safety system/);
  assert.equal(other.requests.length, 0);
  await waitFor(async () => (await balance(gw, c.userId)) === 100_000, 3000, 'the refund');
});

test('rate limits on every channel of a model move the call on (a stream, before its first byte)', async () => {
  const busy = await fake();
  const spare = await fake();
  refuse(busy, 429, { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' });
  await createChannel(gw, { baseUrl: busy.url, models: ['fb-rl'] });
  await createChannel(gw, { baseUrl: spare.url, models: ['fb-rl-spare'] });
  await setPrice(gw, 'fb-rl', { input: 1, output: 1 });
  await setPrice(gw, 'fb-rl-spare', { input: 2, output: 2 });
  await addFallbacks('fb-rl', [{ model: 'fb-rl-spare', on: ['rate_limit', 'unavailable'] }]);
  const c = await createCaller(gw);
  const { data: stream, response } = await client(c.key)
    .chat.completions.create({ model: 'fb-rl', stream: true, messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  assert.equal(text, 'Hello world');
  assert.equal(response.headers.get('x-gatehouse-model'), 'fb-rl-spare');
  assert.equal(busy.requests.length, 1);
  assert.equal(spare.requests.length, 1);
});

test('a stream that failed after its first byte does not fall back', async () => {
  const flaky = await fake();
  const spare = await fake();
  flaky.override = (r, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: r.body.model, choices: [{ index: 0, delta: { content: 'partial ' }, finish_reason: null }] })}\n\n`,
    );
    setTimeout(() => res.socket?.destroy(), 50);
    return true;
  };
  await createChannel(gw, { baseUrl: flaky.url, models: ['fb-cut'] });
  await createChannel(gw, { baseUrl: spare.url, models: ['fb-cut-spare'] });
  await setPrice(gw, 'fb-cut', { input: 1, output: 1 });
  await setPrice(gw, 'fb-cut-spare', { input: 1, output: 1 });
  await addFallbacks('fb-cut', [{ model: 'fb-cut-spare', on: ['unavailable', 'rate_limit', 'context_length', 'content_policy'] }]);
  const c = await createCaller(gw);
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fb-cut', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-gatehouse-model'), 'fb-cut');
  const body = await res.text();
  assert.match(body, /partial/);
  assert.doesNotMatch(body, /Hello world/);
  assert.equal(flaky.requests.length, 1);
  assert.equal(spare.requests.length, 0, 'nothing falls back once bytes reached the caller');
});

test('fallbacks are checked when set: unknown classes and a model naming itself are refused', async () => {
  const r = await root.call('PUT', '/api/option', { options: { ModelFallbacks: { a: [{ model: 'b', on: ['timeout'] }] } } });
  assert.equal(r.status, 400);
  assert.match(r.text, /on: must be a list of context_length, content_policy, rate_limit, unavailable/);
  const self = await root.call('PUT', '/api/option', { options: { ModelFallbacks: { a: [{ model: 'a' }] } } });
  assert.equal(self.status, 400);
  assert.match(self.text, /cannot fall back to itself/);
});
