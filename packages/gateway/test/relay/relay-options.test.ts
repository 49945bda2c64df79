/**
 * The relay follows the admin options at run time: RetryTimes, the auto-disable threshold, codes and
 * keywords, AutoDisableEnabled, CooldownOn429Seconds, the probe switch and the log switches.
 */
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { json, sleep } from '../fakes/upstreams/common.ts';
import { balance, channelRow, consumeLog, createCaller, createChannel, logsFor, setPrice, waitFor } from '../relay-fixtures.ts';

let gw: TestGateway;
let root: AdminClient;
const fakes: FakeOpenAI[] = [];
const changed = new Set<string>();

before(async () => {
  gw = await startTestGateway();
  root = await AdminClient.login(gw.url);
});
after(async () => {
  await gw?.stop();
  await Promise.all(fakes.map((f) => f.close()));
});
afterEach(async () => {
  for (const k of changed) await gw.services.admin.options.reset(k);
  changed.clear();
});

/** Sets options through the admin API (they are reset after each test). */
async function setOptions(options: Record<string, unknown>): Promise<void> {
  for (const k of Object.keys(options)) changed.add(k);
  await root.ok('PUT', '/api/option', { options });
}

async function fake(keys?: string[]) {
  const f = await startFakeOpenAI({ keys });
  fakes.push(f);
  return f;
}

const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const ask = (key: string, model: string) =>
  client(key)
    .chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
const post = (key: string, model: string) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
/** Requests the relay sent (probes send max_tokens 1). */
const relayed = (f: FakeOpenAI) => f.requests.filter((r) => r.body.max_tokens !== 1).length;

/** A refusing single-key channel in front of a working one. */
async function pair(model: string) {
  const bad = await fake(['ok']);
  const good = await fake();
  const badId = await createChannel(gw, { baseUrl: bad.url, models: [model], keys: ['revoked'], priority: 10 });
  await createChannel(gw, { baseUrl: good.url, models: [model], priority: 0 });
  await setPrice(gw, model, { input: 1, output: 1 });
  return { bad, good, badId, c: await createCaller(gw) };
}

test('a key is disabled only at the threshold of qualifying failures in the window; a success resets the count', async () => {
  const { bad, good, badId, c } = await pair('op-threshold');
  const failures = () => gw.services.relay.policy.failureCount(badId, 0);
  for (let i = 1; i <= 2; i++) {
    const { data } = await ask(c.key, 'op-threshold');
    assert.equal(data.choices[0].message.content, 'Hello world', 'a refused key moves the request on at once');
    assert.equal((await channelRow(gw, badId)).status, 1, `${i} failure(s) do not disable`);
    assert.equal(failures(), i);
  }
  assert.equal(relayed(bad), 2);
  assert.equal(relayed(good), 2);
  // The key works once: the count starts again.
  bad.keys!.add('revoked');
  await ask(c.key, 'op-threshold');
  assert.equal(relayed(bad), 3);
  assert.equal(relayed(good), 2, 'served by the refusing channel this time');
  assert.equal(failures(), 0);
  bad.keys!.delete('revoked');
  for (let i = 0; i < 2; i++) await ask(c.key, 'op-threshold');
  assert.equal((await channelRow(gw, badId)).status, 1, 'two failures after the success are below the threshold');
  await ask(c.key, 'op-threshold');
  const row = await channelRow(gw, badId);
  assert.equal(row.status, 3, 'the third failure within the window disables');
  assert.match(row.status_reason ?? '', /401/);
  const n = relayed(bad);
  await ask(c.key, 'op-threshold');
  assert.equal(relayed(bad), n, 'no traffic to the disabled channel');
});

test('failures older than the window are not counted', async () => {
  await setOptions({ AutoDisableFailureThreshold: 2, AutoDisableWindowSeconds: 1 });
  const { badId, c } = await pair('op-window');
  await ask(c.key, 'op-window');
  await sleep(1100);
  await ask(c.key, 'op-window');
  assert.equal((await channelRow(gw, badId)).status, 1, 'the first failure fell out of the window');
  await ask(c.key, 'op-window');
  assert.equal((await channelRow(gw, badId)).status, 3);
});

test('a keyword in the upstream error text qualifies a non-401 status (case-insensitive); other 4xx reach the caller', async () => {
  await setOptions({ AutoDisableKeywords: 'Credit Balance is too LOW\naccount suspended', AutoDisableFailureThreshold: 1 });
  const bad = await fake();
  const good = await fake();
  let message = 'Your credit balance is too low to access the API';
  bad.override = (_r, res) => {
    json(res, 400, { error: { message, type: 'invalid_request_error' } });
    return true;
  };
  const badId = await createChannel(gw, { baseUrl: bad.url, models: ['op-kw'], priority: 10 });
  await createChannel(gw, { baseUrl: good.url, models: ['op-kw'], priority: 0 });
  await setPrice(gw, 'op-kw', { input: 1, output: 1 });
  const c = await createCaller(gw);
  // Another 400 is the request's fault: returned as it is, nothing counted.
  message = 'max_tokens is too large';
  const r400 = await post(c.key, 'op-kw');
  assert.equal(r400.status, 400);
  assert.match(await r400.text(), /max_tokens is too large/);
  assert.equal(relayed(good), 0);
  assert.equal((await channelRow(gw, badId)).status, 1);
  message = 'Your credit balance is too low to access the API';
  const { data } = await ask(c.key, 'op-kw');
  assert.equal(data.choices[0].message.content, 'Hello world', 'failed over');
  const row = await channelRow(gw, badId);
  assert.equal(row.status, 3);
  assert.match(row.status_reason ?? '', /400.*credit balance/);
});

test('with auto-disable off a refused key is only cooled down', async () => {
  await setOptions({ AutoDisableEnabled: false, AutoDisableFailureThreshold: 1, CooldownOn429Seconds: 1 });
  const { bad, good, badId, c } = await pair('op-off');
  await ask(c.key, 'op-off');
  assert.equal(relayed(bad), 1);
  assert.equal(relayed(good), 1);
  assert.equal((await channelRow(gw, badId)).status, 1);
  assert.equal(JSON.parse((await channelRow(gw, badId)).key_state)['0'], undefined);
  await ask(c.key, 'op-off');
  assert.equal(relayed(bad), 1, 'cooling: skipped');
  await sleep(1100);
  await ask(c.key, 'op-off');
  assert.equal(relayed(bad), 2, 'tried again after the cooldown');
  assert.equal((await channelRow(gw, badId)).status, 1, 'still enabled');
});

test('RetryTimes 0 means no failover; raising it brings failover back', async () => {
  await setOptions({ RetryTimes: 0 });
  const bad = await fake();
  const good = await fake();
  bad.override = (_r, res) => {
    json(res, 500, { error: { message: 'boom' } });
    return true;
  };
  await createChannel(gw, { baseUrl: bad.url, models: ['op-retry'], priority: 10 });
  await createChannel(gw, { baseUrl: good.url, models: ['op-retry'], priority: 0 });
  await setPrice(gw, 'op-retry', { input: 1, output: 1 });
  const c = await createCaller(gw);
  const r = await post(c.key, 'op-retry');
  assert.equal(r.status, 502);
  assert.match(((await r.json()) as { error: { message: string } }).error.message, /after 1 attempt\(s\): boom/);
  assert.equal(bad.requests.length, 1);
  assert.equal(good.requests.length, 0, 'no further channel tried');
  await setOptions({ RetryTimes: 1 });
  const { data } = await ask(c.key, 'op-retry');
  assert.equal(data.choices[0].message.content, 'Hello world');
  assert.equal(good.requests.length, 1);
});

test('a 429 without Retry-After cools the key for CooldownOn429Seconds and never disables', async () => {
  await setOptions({ CooldownOn429Seconds: 1, AutoDisableFailureThreshold: 1 });
  const a = await fake();
  const b = await fake();
  let limited = true;
  a.override = (_r, res) => {
    if (!limited) return false;
    json(res, 429, { error: { message: 'rate limit reached', type: 'requests' } });
    return true;
  };
  const aId = await createChannel(gw, { baseUrl: a.url, models: ['op-429'], priority: 10 });
  await createChannel(gw, { baseUrl: b.url, models: ['op-429'], priority: 0 });
  await setPrice(gw, 'op-429', { input: 1, output: 1 });
  const c = await createCaller(gw);
  const t0 = Date.now();
  await ask(c.key, 'op-429');
  const t1 = Date.now();
  // The 429 arrived between t0 and t1, so the cooldown ends 1 s after a moment in that interval.
  const until = gw.services.relay.channels.coolingUntil(aId, 0);
  assert.ok(
    until !== null && until >= t0 + 1000 && until <= t1 + 1000,
    `cooldown of 1 s from the 429 (${until === null ? 'none' : `${until - t0} ms after the call began, ${t1 - t0} ms call`})`,
  );
  await ask(c.key, 'op-429');
  assert.equal(a.requests.length, 1, 'cooling channel skipped');
  assert.equal((await channelRow(gw, aId)).status, 1, '429 does not disable');
  limited = false;
  await sleep(1100);
  await ask(c.key, 'op-429');
  assert.equal(a.requests.length, 2, 'back after CooldownOn429Seconds');
});

test('with the log switches off no consume or error rows are written, and the call is still billed', async () => {
  await setOptions({ LogConsumeEnabled: false, LogErrorEnabled: false, AutoDisableFailureThreshold: 1 });
  const { c } = await pair('op-logs');
  const before = await balance(gw, c.userId);
  const { request_id } = await ask(c.key, 'op-logs');
  await waitFor(async () => (await balance(gw, c.userId)) < before, 3000, 'charge');
  await sleep(100);
  assert.deepEqual(await logsFor(gw, request_id!), [], 'neither the failed attempt nor the call is logged');
  const charged = before - (await balance(gw, c.userId));
  assert.ok(charged > 0);
  // Error rows back on, consume rows still off.
  await setOptions({ LogErrorEnabled: true });
  const { c: c2 } = await pair('op-logs2');
  const second = await ask(c2.key, 'op-logs2');
  const err = await consumeLog(gw, second.request_id!, 'error');
  assert.equal(Number(err.status_code), 401);
  await sleep(100);
  assert.equal((await logsFor(gw, second.request_id!)).filter((r) => r.type === 'consume').length, 0);
  // Both on: the consume row carries the charge.
  await setOptions({ LogConsumeEnabled: true });
  const third = await ask(c2.key, 'op-logs2');
  const log = await consumeLog(gw, third.request_id!);
  assert.ok(Number(log.quota) > 0);
});

test('the probe follows AutoEnableEnabled and AutoEnableProbeSeconds', async () => {
  await setOptions({ AutoDisableFailureThreshold: 1, AutoEnableEnabled: false, AutoEnableProbeSeconds: 1 });
  const { bad, badId, c } = await pair('op-probe');
  await ask(c.key, 'op-probe');
  assert.equal((await channelRow(gw, badId)).status, 3);
  bad.keys!.add('revoked');
  await sleep(2200);
  assert.equal(bad.requests.filter((r) => r.body.max_tokens === 1).length, 0, 'no probe while AutoEnableEnabled is off');
  assert.equal((await channelRow(gw, badId)).status, 3);
  await setOptions({ AutoEnableEnabled: true });
  await waitFor(async () => (await channelRow(gw, badId)).status === 1, 4000, 'recovery by the probe');
});
