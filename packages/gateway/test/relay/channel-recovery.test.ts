/**
 * Active recovery on two nodes over one database: a channel disabled automatically is probed by one
 * node at a time, on a back-off that doubles up to AutoEnableMaxBackoffSeconds while the vendor still
 * refuses (and is not enabled then), and enabled again once the vendor answers; each change is in
 * the audit log (the system as actor) and reaches the operator's webhook.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { channelRow, createCaller, createChannel, setPrice, waitFor } from '../relay-fixtures.ts';

let a: TestGateway;
let b: TestGateway;
let root: AdminClient;
let vendor: FakeOpenAI;
let hook: { url: string; kinds: string[]; server: Server };

const FAST = { CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true', CACHE_SYNC_INTERVAL_SECONDS: '0.1' };

before(async () => {
  vendor = await startFakeOpenAI({ keys: ['ok'] });
  const kinds: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      kinds.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { kind: string }).kind);
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  hook = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, kinds, server };
  a = await startTestGateway({ env: { ...FAST, NODE_ID: 'node-a' } });
  b = await startTestGateway({ db: a.db, env: { ...FAST, NODE_ID: 'node-b' } });
  root = await AdminClient.login(a.url);
  await root.ok('PUT', '/api/option', {
    options: {
      AutoDisableFailureThreshold: 1,
      AutoEnableProbeSeconds: 1,
      AutoEnableMaxBackoffSeconds: 4,
      AlertWebhookUrl: hook.url,
      AlertDeliveryIntervalSeconds: 1,
    },
  });
});

after(async () => {
  await b?.stop({ keepDb: true });
  await a?.stop();
  await vendor?.close();
  await new Promise((ok) => hook?.server.close(ok));
});

interface AuditRow {
  action: string;
  actor: string;
  diff: Record<string, { before?: unknown; after?: unknown }>;
}

/** The channel's audit rows, once they hold every action of `want`. */
async function auditOf(id: number, want: string[]): Promise<AuditRow[]> {
  const rows = async () => (await root.ok('GET', `/api/audit?target_type=channel&target_id=${id}`)).items as AuditRow[];
  return waitFor(
    async () => {
      const r = await rows();
      return want.every((w) => r.some((e) => e.action === w)) ? r : null;
    },
    10_000,
    `audit rows ${want.join(', ')}`,
  );
}

/** The probes the vendor received (one-token tests). */
const probes = () => vendor.requests.filter((r) => r.body?.max_tokens === 1);

test(
  'an auto-disabled channel is probed on a doubling back-off by one node, and enabled again when the vendor answers',
  { timeout: 60_000 },
  async () => {
    const id = await createChannel(a, { baseUrl: vendor.url, keys: ['revoked'], models: ['rec-model'] });
    await setPrice(a, 'rec-model', { input: 1, output: 1 });
    const c = await createCaller(a);
    const client = new OpenAI({ apiKey: c.key, baseURL: `${a.url}/v1`, maxRetries: 0 });
    // When each probe reached the vendor.
    const at: number[] = [];
    vendor.override = (r) => {
      if (r.body?.max_tokens === 1 && r.body.model === 'rec-model') at.push(Date.now());
      return false;
    };
    await assert.rejects(client.chat.completions.create({ model: 'rec-model', messages: [{ role: 'user', content: 'hi' }] }));
    await waitFor(async () => Number((await channelRow(a, id)).status) === 3, 5000, 'the channel auto-disabled');

    // While the vendor still refuses: failures 1, 2, 3 with waits of 2 s, 4 s and 4 s (capped), never enabled.
    const backoff = async () =>
      JSON.parse((await channelRow(a, id)).recovery ?? '{}')['0'] as { failures: number; last_at: number; next_at: number };
    const seen: Array<{ failures: number; wait: number }> = [];
    for (let n = 1; n <= 3; n++) {
      const s = await waitFor(
        async () => {
          const v = await backoff();
          return v && v.failures >= n ? v : null;
        },
        15_000,
        `failed probe ${n}`,
      );
      seen.push({ failures: s.failures, wait: s.next_at - s.last_at });
      assert.equal(Number((await channelRow(a, id)).status), 3, 'not enabled while the vendor refuses');
    }
    assert.deepEqual(seen, [
      { failures: 1, wait: 2000 },
      { failures: 2, wait: 4000 },
      { failures: 3, wait: 4000 },
    ]);

    vendor.keys!.add('revoked');
    await waitFor(async () => Number((await channelRow(a, id)).status) === 1, 15_000, 'enabled again by the probe');
    assert.equal((await channelRow(a, id)).recovery, null, 'the back-off is cleared');
    // No probe came before its due time — one node probes, and each wait is the back-off (2 s, 4 s, then 4 s).
    assert.ok(at.length >= 4, `${at.length} probes`);
    for (let i = 1; i < at.length; i++) {
      const wait = Math.min(1000 * 2 ** i, 4000);
      assert.ok(at[i] - at[i - 1] >= wait, `probe ${i + 1} came ${at[i] - at[i - 1]} ms after the one before, not ${wait} ms`);
    }
    // Node a serves it once its channels reloaded (the probe may have run on node b).
    await waitFor(() => a.services.relay.channels.get(id)?.status === 1, 10_000, 'node a sees the channel enabled');
    const served = await client.chat.completions.create({ model: 'rec-model', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(served.choices[0].message.content, 'Hello world');

    // Audited with the system as actor (written after the change); the operator heard both changes.
    const audit = await auditOf(id, ['channel.auto_disable', 'channel.auto_enable']);
    const enabled = audit.find((e) => e.action === 'channel.auto_enable')!;
    assert.deepEqual(enabled.diff.status, { before: 'auto_disabled', after: 'enabled' });
    assert.equal(enabled.actor, 'system');
    await waitFor(() => hook.kinds.includes('channel.enabled') && hook.kinds.includes('channel.auto_disabled'), 10_000, 'both alerts');
  },
);

test(
  'one refused key of a multi-key channel is probed alone and enabled again; the channel serves throughout',
  { timeout: 60_000 },
  async () => {
    const id = await createChannel(a, { baseUrl: vendor.url, keys: ['ok', 'revoked-2'], keyMode: 'round_robin', models: ['rec-multi'] });
    await setPrice(a, 'rec-multi', { input: 1, output: 1 });
    const c = await createCaller(a);
    const client = new OpenAI({ apiKey: c.key, baseURL: `${a.url}/v1`, maxRetries: 0 });
    // Round robin reaches the refused key within two calls; the call moves to the other key and is served.
    for (let i = 0; i < 2; i++) {
      const r = await client.chat.completions.create({ model: 'rec-multi', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(r.choices[0].message.content, 'Hello world');
    }
    const state = async () => JSON.parse((await channelRow(a, id)).key_state) as Record<string, { status: string }>;
    await waitFor(async () => (await state())['1']?.status === 'auto_disabled', 5000, 'key 1 auto-disabled');
    assert.equal(Number((await channelRow(a, id)).status), 1, 'the channel stays enabled with its other key');
    const probed = () => probes().filter((r) => r.headers.authorization === 'Bearer revoked-2').length;
    await waitFor(
      async () => JSON.parse((await channelRow(a, id)).recovery ?? '{}')['1']?.failures === 1,
      15_000,
      'a failed probe of key 1',
    );
    assert.equal(
      probes().filter((r) => r.body.model === 'rec-multi' && r.headers.authorization === 'Bearer ok').length,
      0,
      'the working key is not probed',
    );

    vendor.keys!.add('revoked-2');
    await waitFor(async () => (await state())['1'] === undefined, 15_000, 'key 1 enabled again');
    assert.ok(probed() >= 2);
    const audit = await auditOf(id, ['channel.key_auto_disable', 'channel.key_auto_enable']);
    assert.ok(!audit.some((e) => e.action === 'channel.auto_disable'), 'the channel itself was never disabled');
    await waitFor(() => hook.kinds.includes('channel.key_enabled'), 10_000, 'the key alert');
  },
);
