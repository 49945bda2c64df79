/**
 * Honest estimates end to end (relay/input-estimate.ts, docs/limits.md): a call is admitted on the
 * tokenizer's estimate of its input, not its body's bytes, and counted at what the upstream reported
 * once it settles. A loopback upstream counts like OpenAI (o200k_base, 3 tokens a message and its
 * role, 3 for the reply) and answers exactly the max_tokens it was sent: "Say hi" with max_tokens 4 is
 * 9 + 4 = 13 tokens, estimated at 10 + 4 = 14 (its 86-byte body would have counted 102 + 4).
 * Tokens per minute: one node on its own counters, two nodes on Redis's; a budget and a balance spent
 * down to the cost of one call; 50 calls at once never passing a limit nor a balance.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { startFake, type FakeUpstream, type Recorded } from '../fakes/upstreams/common.ts';
import { AdminClient } from '../admin-client.ts';
import { balance, createCaller, createChannel, setPrice, waitFor } from '../relay-fixtures.ts';
import type { KeyPrincipal } from '../../src/accounts/types.ts';

const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const MODEL = 'gpt-4o-mini';
/** One o200k token, so an answer of n of them is n tokens. */
const WORD = ' hello';
/** Input 9 (3 + "user" + "Say hi" + 3) and output 4, as reported; 10 + 4 as estimated. */
const ACTUAL = 13;
const ESTIMATE = 14;

/** An OpenAI chat upstream that reports what OpenAI would bill and answers max_tokens tokens. */
function honest(r: Recorded, res: ServerResponse): void {
  const b = r.body;
  let input = 3;
  for (const m of b.messages as Array<{ role: string; content: string }>) input += 3 + countTokens(m.role) + countTokens(m.content);
  const out = Number(b.max_completion_tokens ?? b.max_tokens);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: 'chatcmpl-e',
      object: 'chat.completion',
      created: 1,
      model: b.model,
      choices: [{ index: 0, message: { role: 'assistant', content: WORD.repeat(out) }, finish_reason: 'length' }],
      usage: { prompt_tokens: input, completion_tokens: out, total_tokens: input + out },
    }),
  );
}

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function sayHi(gw: TestGateway, key: string): Promise<Answer> {
  const r = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, max_tokens: 4, messages: [{ role: 'user', content: 'Say hi' }] }),
  });
  return { status: r.status, headers: r.headers, body: await r.json() };
}

/** Gateways (one, or two sharing a database and Redis) with the honest upstream; $2 per 1M tokens both ways: 1 unit a token. */
async function withNodes(count: 1 | 2, fn: (nodes: TestGateway[], up: FakeUpstream, admin: AdminClient) => Promise<void>): Promise<void> {
  const env = count === 2 ? { REDIS_URL } : undefined;
  const a = await startTestGateway({ env });
  const nodes = [a];
  if (count === 2) nodes.push(await startTestGateway({ db: a.db, env }));
  const up = await startFake(honest);
  try {
    await createChannel(a, { baseUrl: up.url, models: [MODEL] });
    await setPrice(a, MODEL, { input: 2, output: 2 });
    await fn(nodes, up, await AdminClient.login(a.url));
  } finally {
    for (const n of nodes.slice(1)) await n.stop({ keepDb: true });
    await a.stop();
    await up.close();
  }
}

/** Until every node has the key in its cache as `ready` says, and the channel. */
function known(nodes: TestGateway[], key: string, ready: (p: KeyPrincipal) => boolean): Promise<boolean> {
  return waitFor(
    () =>
      nodes.every((g) => {
        try {
          return ready(g.services.accounts.keys.authenticate(key, '127.0.0.1')) && g.services.relay.channels.all().length === 1;
        } catch {
          return false;
        }
      }),
    5000,
    'every node to know the key',
  );
}

/** Until no reserve is open (every call settled) and every node's log rows are written. */
async function settled(nodes: TestGateway[]): Promise<void> {
  const db = nodes[0].core.h.db;
  await waitFor(async () => (await db.selectFrom('open_reserves').select('ref').execute()).length === 0, 5000, 'the settles');
  for (const n of nodes) await n.services.relay.logs.flush();
}

async function tpmSixty(nodes: TestGateway[], up: FakeUpstream, admin: AdminClient): Promise<void> {
  const c = await createCaller(nodes[0], { quota: 10_000_000 });
  await admin.ok('PUT', `/api/token/${c.keyId}`, { tpm: 60 });
  await known(nodes, c.key, (p) => p.keyLimits?.tpm === 60);
  for (let k = 0; k < 4; k++) {
    const r = await sayHi(nodes[k % nodes.length], c.key);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual([r.body.usage.prompt_tokens, r.body.usage.completion_tokens], [9, 4]);
    // The calls before were corrected to what they used (13 each), this one counts its estimate (14).
    assert.equal(r.headers.get('x-ratelimit-limit-tokens'), '60');
    assert.equal(Number(r.headers.get('x-ratelimit-remaining-tokens')), 60 - ACTUAL * k - ESTIMATE, `call ${k + 1}`);
  }
  // 52 used: a fifth call would make 65.
  const fifth = await sayHi(nodes[4 % nodes.length], c.key);
  assert.equal(fifth.status, 429);
  assert.equal(fifth.body.error.code, 'rate_limit_exceeded');
  assert.equal(fifth.body.error.type, 'tokens');
  assert.match(fifth.body.error.message, /tokens per minute \(TPM\): limit 60, used 52/);
  assert.equal(fifth.headers.get('x-ratelimit-remaining-tokens'), '8');
  assert.equal(up.requests.length, 4);
}

test('a tpm: 60 key admits a 9-token call, counts each call at its usage once settled, and refuses the call that would pass 60 (one node)', () =>
  withNodes(1, tpmSixty));

test('the same on two nodes sharing Redis: one count, corrected at settle, whichever node served the call', () => withNodes(2, tpmSixty));

test('50 calls at once on two nodes under tpm: 60 never use more than 60 tokens between them', () =>
  withNodes(2, async (nodes, up, admin) => {
    const c = await createCaller(nodes[0], { quota: 10_000_000 });
    await admin.ok('PUT', `/api/token/${c.keyId}`, { tpm: 60 });
    await known(nodes, c.key, (p) => p.keyLimits?.tpm === 60);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => sayHi(nodes[i % 2], c.key)));
    const ok = answers.filter((a) => a.status === 200);
    for (const a of answers) if (a.status !== 200) assert.equal(a.body.error.code, 'rate_limit_exceeded');
    const used = ok.reduce((s, a) => s + a.body.usage.total_tokens, 0);
    assert.ok(ok.length >= 4 && used <= 60, `${ok.length} calls used ${used} tokens`);
    assert.equal(up.requests.length, ok.length);
  }));

/** Sequential calls until one is refused; the answers that were served. */
async function spendDown(gw: TestGateway, key: string): Promise<{ served: number; refusal: Answer }> {
  for (let served = 0; served < 50; served++) {
    const r = await sayHi(gw, key);
    if (r.status !== 200) return { served, refusal: r };
    assert.equal(r.body.usage.total_tokens, ACTUAL);
  }
  assert.fail('never refused');
}

test("a small balance and a key's small budget are spent down to the cost of one call", () =>
  withNodes(1, async ([gw], _up, admin) => {
    // Balance: 100 units pay seven calls of 13 and leave 9, less than one call. (On the byte bound, 102
    // input tokens and 4 output, not even the first would have been served.)
    const poor = await createCaller(gw, { quota: 100 });
    const b = await spendDown(gw, poor.key);
    assert.equal(b.served, 7);
    assert.equal(b.refusal.status, 429);
    assert.equal(b.refusal.body.error.code, 'insufficient_quota');
    await settled([gw]);
    assert.equal(await balance(gw, poor.userId), 100 - 7 * ACTUAL);

    // A budget of 100 units a day on a key of a rich user: the same seven calls.
    const rich = await createCaller(gw, { quota: 10_000_000 });
    await admin.ok('PUT', `/api/token/${rich.keyId}`, { budget: 100, budget_period: 'day' });
    await known([gw], rich.key, (p) => p.budgets !== null);
    const g = await spendDown(gw, rich.key);
    assert.equal(g.served, 7);
    assert.equal(g.refusal.status, 429);
    assert.equal(g.refusal.body.error.code, 'insufficient_quota');
    assert.match(g.refusal.body.error.message, /budget/);
    await settled([gw]);
    const view = await admin.ok('GET', `/api/token/${rich.keyId}`);
    assert.equal(view.budget_spent, 7 * ACTUAL);
    assert.equal(await balance(gw, rich.userId), 10_000_000 - 7 * ACTUAL);
  }));

async function fiftyOnASmallBalance(nodes: TestGateway[]): Promise<void> {
  const gw = nodes[0];
  const c = await createCaller(gw, { quota: 100 });
  await known(nodes, c.key, () => true);
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => sayHi(nodes[i % nodes.length], c.key)));
  const ok = answers.filter((a) => a.status === 200);
  for (const a of answers) if (a.status !== 200) assert.equal(a.body.error.code, 'insufficient_quota', JSON.stringify(a.body));
  assert.ok(ok.length >= 1 && ok.length <= 7, `${ok.length} served`);
  await settled(nodes);
  const left = await balance(gw, c.userId);
  assert.equal(left, 100 - ok.length * ACTUAL);
  assert.ok(left >= 0);
  // One consume row per served call, whichever node wrote it.
  const rows = await waitFor(
    async () => {
      for (const n of nodes) await n.services.relay.logs.flush();
      const r = await gw.core.h.db
        .selectFrom('logs')
        .select(['quota', 'other'])
        .where('user_id', '=', c.userId)
        .where('type', '=', 'consume')
        .execute();
      return r.length === ok.length ? r : null;
    },
    5000,
    'a log row of every served call',
  );
  for (const r of rows) {
    assert.equal(Number(r.quota), ACTUAL);
    assert.ok(!String(r.other ?? '').includes('shortfall'), String(r.other));
  }
}

test('50 calls at once on a balance of 100 units: charged exactly, never below zero (one node)', () => withNodes(1, fiftyOnASmallBalance));

test('50 calls at once on a balance of 100 units: charged exactly, never below zero (two nodes)', () => withNodes(2, fiftyOnASmallBalance));
