/**
 * Prompt-cache analytics end to end: calls through the gateway (Anthropic and OpenAI SDKs, streamed and
 * not, same format and converted) to loopback vendors that report cache reads and writes; then the usage
 * reports (`/api/usage` totals, series and groups by model, user, key and channel, filters, and
 * `/api/usage/self`), the log list and the CSV exports carry the cache reads and writes, the hit rate,
 * what the writes cost and what the reads saved, exact to the unit at the prices of each call (a later
 * price change does not re-price them), with each group's ratio.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { json, startFake, type FakeUpstream } from '../fakes/upstreams/common.ts';
import { startFixedUsageAnthropic } from '../fakes/upstreams/anthropic.ts';
import { consumeLog, createCaller, createChannel, setGroupRatio, setPrice, waitFor, FIXTURE_PASSWORD } from '../relay-fixtures.ts';
import { AdminClient } from '../admin-client.ts';

const Q = 500_000; // quota units per USD
let gw: TestGateway;
let claudeUp: FakeUpstream;
let gptUp: FakeUpstream;
let root: AdminClient;
let claudeChannel: number;
let gptChannel: number;

/** Every Claude answer: 1,000 uncached, 2,000 read from the cache, 400 written for 5 minutes and 600 for 1 hour; 100 out. */
const CLAUDE_USAGE = {
  input_tokens: 1000,
  cache_read_input_tokens: 2000,
  cache_creation_input_tokens: 1000,
  cache_creation: { ephemeral_5m_input_tokens: 400, ephemeral_1h_input_tokens: 600 },
  output_tokens: 100,
};
/** Every GPT answer: 1,000 prompt tokens of which 800 read from the cache; 50 out. */
const GPT_USAGE = { prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050, prompt_tokens_details: { cached_tokens: 800 } };

const units = (usd: number) => Math.round(usd * Q);
// claude-cache at input 3, cached input 0.3 (writes by default 1.25× and 2× input); gpt-cache at input 2, cached input 0.5.
const CLAUDE_WRITE = units((400 * 3.75 + 600 * 6) / 1e6); // 2550
const CLAUDE_SAVING = units((2000 * (3 - 0.3)) / 1e6); // 2700
const GPT_SAVING = units((800 * (2 - 0.5)) / 1e6); // 600

before(async () => {
  claudeUp = await startFixedUsageAnthropic(CLAUDE_USAGE);
  gptUp = await startFake((r, res) =>
    json(res, 200, {
      id: 'chatcmpl-c',
      object: 'chat.completion',
      created: 1,
      model: r.body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'cached' }, finish_reason: 'stop' }],
      usage: GPT_USAGE,
    }),
  );
  gw = await startTestGateway();
  root = await AdminClient.login(gw.url);
  claudeChannel = await createChannel(gw, {
    type: 14,
    baseUrl: claudeUp.url,
    keys: ['sk-ant'],
    models: ['claude-cache'],
    groups: ['default', 'vip'],
    name: 'claude-ch',
  });
  gptChannel = await createChannel(gw, { type: 1, baseUrl: gptUp.url, models: ['gpt-cache'], groups: ['default', 'vip'], name: 'gpt-ch' });
  await setPrice(gw, 'claude-cache', { input: 3, output: 15, cached_input: 0.3 });
  await setPrice(gw, 'gpt-cache', { input: 2, output: 8, cached_input: 0.5 });
  await setGroupRatio(gw, 'vip', 2);
});

after(async () => {
  await gw?.stop();
  await claudeUp?.close();
  await gptUp?.close();
});

const messages: Anthropic.MessageParam[] = [
  { role: 'user', content: [{ type: 'text', text: 'a long shared prefix', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
];

/** The request id of a call (its consume row is then waited for: the roll-ups are written with it). */
async function settled(p: Promise<{ response: Response }>): Promise<string> {
  const id = (await p).response.headers.get('x-request-id')!;
  await consumeLog(gw, id);
  return id;
}

type Figures = {
  prompt_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  cache_write_quota: number;
  cache_saving_quota: number;
  cache_hit_rate: number | null;
};
const figures = (o: Figures) => ({
  prompt_tokens: o.prompt_tokens,
  cached_tokens: o.cached_tokens,
  cache_write_tokens: o.cache_write_tokens,
  cache_write_quota: o.cache_write_quota,
  cache_saving_quota: o.cache_saving_quota,
  cache_hit_rate: o.cache_hit_rate,
});

/** CSV text → rows keyed by the header (no quoted commas in these rows). */
function parseCsv(text: string): Array<Record<string, string>> {
  const [head, ...lines] = text.trim().split('\r\n');
  const cols = head.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i], v])));
}

test('cache reads, writes, hit rate, write spend and saving per model, user, key and channel, at the prices of each call; CSV and log rows too', async () => {
  const ann = await createCaller(gw, { quota: 100 * Q });
  const bob = await createCaller(gw, { quota: 100 * Q, group: 'vip' });
  const annClaude = new Anthropic({ apiKey: ann.key, baseURL: gw.url, maxRetries: 0 });
  const annOpenai = new OpenAI({ apiKey: ann.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const bobClaude = new Anthropic({ apiKey: bob.key, baseURL: gw.url, maxRetries: 0 });
  const from = Date.now() - 3_600_000;
  const to = Date.now() + 3_600_000;
  const range = `from=${from}&to=${to}&bucket=hour`;

  // ann: Claude in its own format, Claude from an OpenAI caller (converted, streamed), GPT; bob (ratio 2): Claude streamed.
  const annRow = await settled(annClaude.messages.create({ model: 'claude-cache', max_tokens: 200, messages }).withResponse());
  await settled(
    annOpenai.chat.completions
      .create({ model: 'claude-cache', max_tokens: 200, stream: true, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse()
      .then(async (r) => {
        for await (const _ of r.data);
        return r;
      }),
  );
  await settled(annOpenai.chat.completions.create({ model: 'gpt-cache', messages: [{ role: 'user', content: 'hi' }] }).withResponse());
  const s = bobClaude.messages.stream({ model: 'claude-cache', max_tokens: 200, messages });
  await s.finalMessage();
  await settled(s.withResponse());

  // The log row records the figures.
  const row = await consumeLog(gw, annRow);
  assert.deepEqual([row.cached_tokens, row.cache_write_tokens, row.cache_write_quota, row.cache_saving_quota].map(Number), [
    2000,
    1000,
    CLAUDE_WRITE,
    CLAUDE_SAVING,
  ]);

  const all = await root.ok('GET', `/api/usage?${range}`);
  const totals = {
    prompt_tokens: 4000 * 3 + 1000,
    cached_tokens: 2000 * 3 + 800,
    cache_write_tokens: 1000 * 3,
    cache_write_quota: CLAUDE_WRITE * 2 + CLAUDE_WRITE * 2,
    cache_saving_quota: CLAUDE_SAVING * 2 + CLAUDE_SAVING * 2 + GPT_SAVING,
    cache_hit_rate: 6800 / 13000,
  };
  assert.deepEqual(figures(all.totals), totals);
  assert.equal(all.totals.cache_write_usd, totals.cache_write_quota / Q);
  assert.equal(all.totals.cache_saving_usd, totals.cache_saving_quota / Q);
  // The series carries them in the bucket of the calls; the other buckets are empty.
  const busy = all.series.filter((p: { requests: number }) => p.requests > 0);
  assert.equal(busy.length, 1);
  assert.deepEqual(figures(busy[0]), totals);
  const idle = all.series.find((p: { requests: number }) => p.requests === 0);
  assert.deepEqual(figures(idle), {
    prompt_tokens: 0,
    cached_tokens: 0,
    cache_write_tokens: 0,
    cache_write_quota: 0,
    cache_saving_quota: 0,
    cache_hit_rate: null,
  });

  const claudeAnn = {
    prompt_tokens: 8000,
    cached_tokens: 4000,
    cache_write_tokens: 2000,
    cache_write_quota: 2 * CLAUDE_WRITE,
    cache_saving_quota: 2 * CLAUDE_SAVING,
    cache_hit_rate: 0.5,
  };
  const claudeBob = {
    prompt_tokens: 4000,
    cached_tokens: 2000,
    cache_write_tokens: 1000,
    cache_write_quota: 2 * CLAUDE_WRITE,
    cache_saving_quota: 2 * CLAUDE_SAVING,
    cache_hit_rate: 0.5,
  };
  const gpt = {
    prompt_tokens: 1000,
    cached_tokens: 800,
    cache_write_tokens: 0,
    cache_write_quota: 0,
    cache_saving_quota: GPT_SAVING,
    cache_hit_rate: 0.8,
  };
  const sum = (...xs: Array<typeof gpt>) => {
    const out = { ...xs[0] };
    for (const x of xs.slice(1)) for (const k of Object.keys(out) as Array<keyof typeof gpt>) out[k] += x[k];
    out.cache_hit_rate = out.cached_tokens / out.prompt_tokens;
    return out;
  };
  const groups = async (by: string, q = '') =>
    Object.fromEntries(
      ((await root.ok('GET', `/api/usage?${range}&group_by=${by}${q}`)).groups as Array<Figures & { label: string }>).map((g) => [
        g.label,
        figures(g),
      ]),
    );
  assert.deepEqual(await groups('model'), { 'claude-cache': sum(claudeAnn, claudeBob), 'gpt-cache': gpt });
  assert.deepEqual(await groups('channel'), { 'claude-ch': sum(claudeAnn, claudeBob), 'gpt-ch': gpt });
  const users = await groups('user');
  assert.deepEqual(
    Object.values(users).sort((a, b) => a.prompt_tokens - b.prompt_tokens),
    [claudeBob, sum(claudeAnn, gpt)],
  );
  const keys = await groups('key');
  assert.deepEqual(
    Object.values(keys).sort((a, b) => a.prompt_tokens - b.prompt_tokens),
    [claudeBob, sum(claudeAnn, gpt)],
  );
  // A filter on one dimension, and on two (the full-key rows).
  assert.deepEqual(figures((await root.ok('GET', `/api/usage?${range}&channel_id=${gptChannel}`)).totals), gpt);
  assert.deepEqual(
    figures((await root.ok('GET', `/api/usage?${range}&user_id=${ann.userId}&channel_id=${claudeChannel}`)).totals),
    claudeAnn,
  );
  assert.deepEqual(await groups('model', `&key_id=${ann.keyId}`), { 'claude-cache': claudeAnn, 'gpt-cache': gpt });

  // A user's own report: their calls alone, by key and model.
  const bobClient = await AdminClient.login(gw.url, await username(bob.userId), FIXTURE_PASSWORD);
  const mine = await bobClient.ok('GET', `/api/usage/self?${range}&group_by=model`);
  assert.deepEqual(figures(mine.totals), claudeBob);
  assert.deepEqual(
    mine.groups.map((g: Figures & { key: string }) => [g.key, figures(g)]),
    [['claude-cache', claudeBob]],
  );
  const mineByKey = await bobClient.ok('GET', `/api/usage/self?${range}&group_by=key`);
  assert.deepEqual(mineByKey.groups.map(figures), [claudeBob]);

  // The CSV exports: the administrator's and the user's own.
  const adminCsv = await fetch(`${gw.url}/api/log/export?model=claude-cache&user_id=${ann.userId}`, {
    headers: { authorization: `Bearer ${root.token}` },
  });
  assert.equal(adminCsv.status, 200);
  const annRows = parseCsv(await adminCsv.text());
  assert.equal(annRows.length, 2);
  for (const r of annRows) {
    assert.deepEqual(
      [r.prompt_tokens, r.cached_tokens, r.cache_write_tokens, r.cache_write_quota, r.cache_saving_quota],
      ['4000', '2000', '1000', String(CLAUDE_WRITE), String(CLAUDE_SAVING)],
    );
  }
  const selfCsv = await fetch(`${gw.url}/api/log/self/export`, { headers: { authorization: `Bearer ${bobClient.token}` } });
  const bobRows = parseCsv(await selfCsv.text()).filter((r) => r.type === 'consume');
  assert.deepEqual(
    bobRows.map((r) => [r.cached_tokens, r.cache_write_tokens, r.cache_write_quota, r.cache_saving_quota]),
    [['2000', '1000', String(2 * CLAUDE_WRITE), String(2 * CLAUDE_SAVING)]],
  );
  // The log list shows them too.
  const list = await bobClient.ok('GET', '/api/log/self?type=consume');
  assert.deepEqual(
    [list.items[0].cached_tokens, list.items[0].cache_write_tokens, list.items[0].cache_write_quota, list.items[0].cache_saving_quota],
    [2000, 1000, 2 * CLAUDE_WRITE, 2 * CLAUDE_SAVING],
  );

  // A new price counts from the next call on: what was reported stays as it was priced.
  await setPrice(gw, 'claude-cache', { input: 10, output: 15, cached_input: 0.5 });
  await waitFor(() => gw.services.billing.prices.get('claude-cache')?.input === 10, 5000, 'the new price');
  await settled(annClaude.messages.create({ model: 'claude-cache', max_tokens: 200, messages }).withResponse());
  const NEW_WRITE = units((400 * 12.5 + 600 * 20) / 1e6);
  const NEW_SAVING = units((2000 * (10 - 0.5)) / 1e6);
  const later = await root.ok('GET', `/api/usage?${range}&model=claude-cache`);
  assert.equal(later.totals.cache_write_quota, 4 * CLAUDE_WRITE + NEW_WRITE);
  assert.equal(later.totals.cache_saving_quota, 4 * CLAUDE_SAVING + NEW_SAVING);
  assert.equal(later.totals.cached_tokens, 8000);
});

async function username(id: number): Promise<string> {
  const u = await root.ok('GET', `/api/user/${id}`);
  return u.username;
}
