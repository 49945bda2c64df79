import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { loadConfigFile } from '../../src/config-file/load.ts';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-config-'));
const UPSTREAM_KEY = 'sk-fromTheEnvironment-0123456789abcdefXYZ';
process.env.GH_TEST_UPSTREAM_KEY = UPSTREAM_KEY;

const CONFIG = `
users:
  - username: alice
    password: alice-password
    group: vip
    quota_usd: 5
  - username: ops
    password: ops-password
    role: admin
keys:
  - user: alice
    name: laptop
    key: sk-aliceFixedKey0123456789abcdefghij
    models: [gpt-4o-mini, claude-sonnet-4]
    quota_usd: 2
    expires_at: 2099-12-31T00:00:00Z
    allowed_ips: [127.0.0.1, 10.0.0.0/8]
  - user: alice
    name: ci
channels:
  - name: deepseek
    type: openai
    preset: deepseek
    keys: ["\${GH_TEST_UPSTREAM_KEY}", sk-secondKeyForDeepseek-abcdefghijkl]
    key_mode: round_robin
    models: [deepseek-chat]
    groups: [default, vip]
    priority: 10
    weight: 2
    model_mapping: { gpt-4o-mini: deepseek-chat }
  - name: azure-east
    type: azure
    base_url: https://acme.openai.azure.com
    api_version: 2024-10-21
    keys: [azure-key-0123456789abcdef]
    models: [gpt-4o]
    model_mapping: { gpt-4o: prod-gpt4o }
  - name: claude
    type: anthropic
    keys: [sk-ant-0123456789abcdefghijklmnop]
    models: [claude-sonnet-4]
  - name: gemini
    type: gemini
    keys: [AIza0123456789abcdefghijklmnop]
    models: [gemini-2.5-flash]
  - name: video
    type: task_plugin
    plugin: kling
  - name: peer
    type: gateway
    base_url: https://peer.example.com
    keys: [sk-peer-0123456789abcdefghijklmnop]
    plugins: [kling, sora]
prices:
  gpt-4o: { input: 2.5, output: 10, cached_input: 1.25 }
  deepseek-chat: { input: 0.27, output: 1.1 }
  dall-e-3: { per_request: 0.04 }
  kling-v2: { expression: 'u("seconds") * 0.1' }
group_ratios:
  default: 1
  vip: 0.8
options:
  RetryTimes: 3
  AutoDisableEnabled: true
  ServerAddress: https://gw.example.com
`;

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

const TABLES = ['users', 'api_keys', 'channels', 'prices', 'group_ratios', 'options', 'ledger', 'revisions'] as const;

async function snapshot(gw: TestGateway): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of TABLES) {
    let rows = await (gw.core.h.db.selectFrom(t) as any).selectAll().execute();
    if (t === 'revisions') rows = rows.filter((r: any) => ['keys', 'channels', 'prices', 'options'].includes(r.name));
    out[t] = rows
      .map((r: any) => JSON.stringify(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]))))
      .sort();
  }
  return out;
}

test('the configuration file is applied at start, twice changes nothing, restart keeps everything, API and file share the data', async () => {
  const path = file('gatehouse.yaml', CONFIG);
  const db = await createTestDatabase();
  let gw = await startTestGateway({ db, env: { GATEHOUSE_CONFIG: path } });
  try {
    const first = await snapshot(gw);
    assert.equal(first.users.length, 3);
    assert.equal(first.api_keys.length, 2);
    assert.equal(first.channels.length, 6);
    assert.equal(first.prices.length, 4);
    assert.equal(first.group_ratios.length, 2);
    assert.equal(first.options.length, 3);

    const alice = await gw.core.h.db.selectFrom('users').selectAll().where('username', '=', 'alice').executeTakeFirstOrThrow();
    assert.equal(Number(alice.quota), 5 * 500_000);
    assert.equal(alice.group_name, 'vip');
    const p = gw.services.accounts.keys.authenticate('sk-aliceFixedKey0123456789abcdefghij', '10.1.2.3');
    assert.equal(p.username, 'alice');
    assert.deepEqual([...p.models!].sort(), ['claude-sonnet-4', 'gpt-4o-mini']);
    assert.equal(gw.services.admin.options.get('RetryTimes'), '3');

    const root = await AdminClient.login(gw.url);
    const chans = await root.ok('GET', '/api/channel?page_size=100');
    const ds = chans.items.find((c: any) => c.name === 'deepseek');
    assert.deepEqual(ds.settings, { preset: 'deepseek' });
    assert.equal(ds.key_count, 2);
    assert.equal(ds.key_mode, 'round_robin');
    const row = await gw.core.h.db.selectFrom('channels').select('keys_sealed').where('name', '=', 'deepseek').executeTakeFirstOrThrow();
    assert.equal(JSON.parse(gw.core.secrets.open(row.keys_sealed))[0], UPSTREAM_KEY, '${VAR} comes from the environment');
    assert.deepEqual(chans.items.find((c: any) => c.name === 'peer').settings, { plugins: ['kling', 'sora'] });
    assert.deepEqual(chans.items.find((c: any) => c.name === 'azure-east').settings, { api_version: '2024-10-21' });
    const ops = await AdminClient.login(gw.url, 'ops', 'ops-password');
    await ops.ok('GET', '/api/user');

    // Second start with the same file: nothing changes (sessions and tokens from the logins aside).
    const beforeRestart = await snapshot(gw);
    await gw.stop({ keepDb: true });
    gw = await startTestGateway({ db, env: { GATEHOUSE_CONFIG: path } });
    assert.deepEqual(await snapshot(gw), beforeRestart);

    // The admin API changes the same rows the file declares; data made through the API survives restarts.
    const root2 = await AdminClient.login(gw.url);
    const made = await root2.ok('POST', '/api/user', { username: 'apiuser', password: 'apiuser-password', quota_usd: 1 });
    await root2.ok('POST', `/api/user/${alice.id}/quota`, { amount_usd: 1 });
    await root2.ok('PUT', `/api/channel/${ds.id}`, { priority: 1, status: 'disabled', status_reason: 'by hand' });
    await root2.ok('PUT', '/api/price', { model: 'gpt-4o', input: 3, output: 12 });
    await gw.stop({ keepDb: true });
    gw = await startTestGateway({ db, env: { GATEHOUSE_CONFIG: path } });
    const root3 = await AdminClient.login(gw.url);
    assert.equal((await root3.ok('GET', `/api/user/${made.id}`)).username, 'apiuser');
    assert.equal((await root3.ok('GET', `/api/user/${alice.id}`)).quota, 6 * 500_000, 'quota_usd is not applied again');
    const ds3 = await root3.ok('GET', `/api/channel/${ds.id}`);
    assert.equal(ds3.priority, 10, 'declared fields follow the file again');
    assert.equal(ds3.status, 'disabled', 'status is not declared, so the manual change stays');
    assert.equal(ds3.key_count, 2, 'keys still decrypt after restart');
    assert.equal((await root3.ok('GET', '/api/price/gpt-4o')).input, 2.5);
  } finally {
    await gw.stop();
  }
});

test('an invalid configuration file fails the start, naming the field', async () => {
  const cases: [string, string][] = [
    [
      'channels:\n  - name: a\n    type: openai\n    keys: [k-0123456789]\n    models: [m]\n  - name: b\n    type: teleport\n',
      'channels[1].type',
    ],
    ['users:\n  - username: x\n    password: short\n', 'users[0].password'],
    ['keys:\n  - user: alice\n    name: k\n    allowed_ips: [not-an-ip]\n', 'keys[0].allowed_ips'],
    ['prices:\n  gpt-4o: { input: -1 }\n', 'prices.gpt-4o.input'],
    ['options:\n  RetryTimes: lots\n', 'options.RetryTimes'],
    ['channels:\n  - name: v\n    type: task_plugin\n', 'channels[0].plugin'],
    [
      'channels:\n  - name: v\n    type: openai\n    keys: [k]\n    models: [m]\n    base_url: "' + '${GH_TEST_SURELY_UNSET}"\n',
      'channels[0].base_url',
    ],
    ['colour: blue\n', 'colour'],
    ['users: [\n', 'not valid YAML'],
  ];
  for (const [text, field] of cases) {
    const p = file('bad.yaml', text);
    assert.throws(
      () => loadConfigFile(p, { quotaPerUsd: 500_000 }),
      (e: Error) => e.message.includes(p) && e.message.includes(field),
      `${field}`,
    );
  }
  // At start: the gateway refuses to start and names the field; a reference to an unknown user too.
  const db = await createTestDatabase();
  try {
    await assert.rejects(
      startTestGateway({ db, env: { GATEHOUSE_CONFIG: file('bad1.yaml', cases[0][0]) } }),
      /bad1\.yaml: channels\[1\]\.type/,
    );
    await assert.rejects(
      startTestGateway({ db, env: { GATEHOUSE_CONFIG: file('bad2.yaml', 'keys:\n  - user: nobody\n    name: k\n') } }),
      /bad2\.yaml: keys\[0\]\.user: no user "nobody"/,
    );
  } finally {
    await db.drop();
  }
});

test('what users may change never breaks the next start: a declared key renamed or disabled by its user', async () => {
  const path = file(
    'user-changes.yaml',
    `
users:
  - username: carol
    password: carol-password
keys:
  - user: carol
    name: laptop
    key: sk-carolFixedKey0123456789abcdefghij
  - user: carol
    name: ci
`,
  );
  const db = await createTestDatabase();
  let gw = await startTestGateway({ db, env: { GATEHOUSE_CONFIG: path } });
  try {
    const carol = await AdminClient.login(gw.url, 'carol', 'carol-password');
    const mine = (await carol.ok('GET', '/api/token')).items as any[];
    const laptop = mine.find((k) => k.name === 'laptop');
    const ci = mine.find((k) => k.name === 'ci');
    await carol.ok('PUT', `/api/token/${laptop.id}`, { name: 'my laptop' });
    await carol.ok('PUT', `/api/token/${ci.id}`, { status: 'disabled' });
    await gw.stop({ keepDb: true });

    gw = await startTestGateway({ db, env: { GATEHOUSE_CONFIG: path } });
    const p = gw.services.accounts.keys.authenticate('sk-carolFixedKey0123456789abcdefghij', '127.0.0.1');
    assert.equal(p.username, 'carol');
    assert.equal(p.keyId, laptop.id, 'the same key, found by its value');
    const after = await gw.core.h.db
      .selectFrom('api_keys')
      .select(['id', 'name', 'status'])
      .where('user_id', '=', laptop.user_id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      after.map((k) => [Number(k.id), k.name, Number(k.status)]),
      [
        [laptop.id, 'my laptop', 1],
        [ci.id, 'ci', 2],
      ],
      'nothing inserted again; the name and the undeclared status stay as the user set them',
    );
  } finally {
    await gw.stop();
  }
});

test('limits and budgets in the file: on keys and users, per-model options as mappings; a second start changes nothing', async () => {
  const path = file(
    'limits.yaml',
    `
users:
  - username: dana
    password: dana-password
    rpm: 100
    max_concurrency: 3
    budget_usd: 20
    budget_period: month
keys:
  - user: dana
    name: bot
    key: sk-danaFixedKey0123456789abcdefghijk
    rpm: 10
    tpm: 20000
    budget_usd: 1.5
    budget_period: day
options:
  RateLimitModels: { gpt-4o: { rpm: 60, tpm: 100000 }, "*": { max_concurrency: 2 } }
  RateLimitGroups:
    vip: { "*": {} }
`,
  );
  assert.throws(
    () =>
      loadConfigFile(file('bad-budget.yaml', 'users:\n  - username: x\n    password: x-password\n    budget_usd: 3\n'), {
        quotaPerUsd: 500_000,
      }),
    /users\[0\]\.budget_period: is required with a budget/,
  );
  assert.throws(
    () => loadConfigFile(file('bad-rpm.yaml', 'keys:\n  - user: x\n    name: k\n    rpm: -1\n'), { quotaPerUsd: 500_000 }),
    /keys\[0\]\.rpm: must be at least 0/,
  );
  assert.throws(
    () => loadConfigFile(file('bad-opt.yaml', 'options:\n  RateLimitModels: { m: { rpm: fast } }\n'), { quotaPerUsd: 500_000 }),
    /options\.RateLimitModels: m\.rpm/,
  );
  const db = await createTestDatabase();
  let gw = await startTestGateway({ db, env: { GATEHOUSE_CONFIG: path } });
  try {
    const p = gw.services.accounts.keys.authenticate('sk-danaFixedKey0123456789abcdefghijk', '127.0.0.1');
    assert.deepEqual(p.keyLimits, { rpm: 10, tpm: 20000, maxConcurrency: 0 });
    assert.deepEqual(p.userLimits, { rpm: 100, tpm: 0, maxConcurrency: 3 });
    assert.deepEqual(
      p.budgets?.map((b) => [b.who, b.quota, b.period]),
      [
        ['key', 750_000, 'day'],
        ['user', 10_000_000, 'month'],
      ],
    );
    assert.deepEqual(gw.services.accounts.rateLimits.modelLimits('default', 'gpt-4o'), { rpm: 60, tpm: 100000, maxConcurrency: 0 });
    assert.deepEqual(gw.services.accounts.rateLimits.modelLimits('default', 'other'), { rpm: 0, tpm: 0, maxConcurrency: 2 });
    assert.equal(gw.services.accounts.rateLimits.modelLimits('vip', 'gpt-4o'), null);
    const admin = await AdminClient.login(gw.url);
    const key = await admin.ok('GET', `/api/token/${p.keyId}`);
    assert.equal(key.budget_usd, 1.5);
    assert.equal(key.budget_period, 'day');
    assert.equal(key.budget_spent, 0);
    const before = await snapshot(gw);
    await gw.stop({ keepDb: true });
    gw = await startTestGateway({ db, env: { GATEHOUSE_CONFIG: path } });
    assert.deepEqual(await snapshot(gw), before, 'applying the same file again changes nothing');
  } finally {
    await gw.stop();
  }
});

test('routing and fallbacks at the top level of the file are the routing options; channel caps are channel fields', async () => {
  const path = file(
    'routing.yaml',
    `
channels:
  - name: capped
    type: openai
    base_url: http://127.0.0.1:9
    keys: [sk-x]
    models: [m-small, m-large]
    max_concurrency: 8
    max_input_tokens: 32000
routing:
  "*": { "*": priority, m-small: latency }
  vip: { m-large: cost }
fallbacks:
  m-small:
    - { model: m-large, on: [context_length, unavailable] }
`,
  );
  assert.throws(
    () => loadConfigFile(file('bad-routing.yaml', 'routing:\n  "*": { m: fastest }\n'), { quotaPerUsd: 500_000 }),
    /routing: \*\.m: must be one of priority, least_busy, latency, cost/,
  );
  assert.throws(
    () => loadConfigFile(file('bad-fallbacks.yaml', 'fallbacks:\n  a: [{ model: b, on: [sometimes] }]\n'), { quotaPerUsd: 500_000 }),
    /fallbacks: a\[0\]\.on: must be a list of/,
  );
  assert.throws(
    () =>
      loadConfigFile(file('twice.yaml', 'routing: { "*": { "*": cost } }\noptions:\n  ChannelRouting: { "*": { "*": cost } }\n'), {
        quotaPerUsd: 500_000,
      }),
    /routing: is given twice/,
  );
  const gw = await startTestGateway({ env: { GATEHOUSE_CONFIG: path } });
  try {
    const admin = await AdminClient.login(gw.url);
    const opts = await admin.ok<Array<{ key: string; value: string; type: string }>>('GET', '/api/option');
    const routing = opts.find((o) => o.key === 'ChannelRouting')!;
    assert.equal(routing.type, 'routing');
    assert.deepEqual(JSON.parse(routing.value), { '*': { '*': 'priority', 'm-small': 'latency' }, vip: { 'm-large': 'cost' } });
    const fallbacks = opts.find((o) => o.key === 'ModelFallbacks')!;
    assert.deepEqual(JSON.parse(fallbacks.value), { 'm-small': [{ model: 'm-large', on: ['context_length', 'unavailable'] }] });
    const list = await admin.ok<{ items: Array<{ name: string; max_concurrency: number; max_input_tokens: number }> }>(
      'GET',
      '/api/channel',
    );
    const ch = list.items.find((c) => c.name === 'capped')!;
    assert.equal(ch.max_concurrency, 8);
    assert.equal(ch.max_input_tokens, 32000);
  } finally {
    await gw.stop();
  }
});
