/**
 * Relay reserves stranded by a crash: a gateway process killed (SIGKILL) in the middle of streams
 * leaves their reserves open; the next process on the same database closes them within the recovery
 * interval — refunded when nothing proves what was produced, settled at what a log row proves — and
 * leaves alone the long streams of a live node. Every balance stays the sum of its ledger rows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, startTestGateway, type TestGateway } from '../harness.ts';
import { prepareStreamingDb, startChild, stopChild, type Child } from '../child-gateway.ts';
import { beginStream, startGatedUpstream } from '../fakes/upstreams/gated.ts';
import { waitFor } from '../relay-fixtures.ts';
import { openDb, type DbHandle } from '../../src/store/db.ts';
import { insertLogs } from '../../src/logs/writer.ts';

/** Short leases and rounds for the test (defaults: 30 s and 10 s). */
const FAST = { NODE_LEASE_SECONDS: '1', RELAY_RECOVERY_INTERVAL_SECONDS: '0.2' };

const money = (h: DbHandle, userId: number) =>
  Promise.all([
    h.db
      .selectFrom('users')
      .select('quota')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.quota)),
    h.db
      .selectFrom('ledger')
      .select(['amount', 'kind'])
      .where('user_id', '=', userId)
      .execute()
      .then((rows) => rows.filter((r) => r.kind !== 'spend').reduce((s, r) => s - Number(r.amount), 0)),
  ]);

const movements = async (h: DbHandle, ref: string) =>
  Object.fromEntries(
    (await h.db.selectFrom('ledger').select(['kind', 'amount']).where('ref', '=', ref).execute()).map((r) => [r.kind, Number(r.amount)]),
  );

test(
  "a gateway killed mid-stream: the next process on the database closes the stranded reserves (refund, or the logged charge); a live node's long stream is untouched",
  { timeout: 120_000 },
  async () => {
    const slow = await startGatedUpstream();
    const dbx = await createTestDatabase();
    let a: Child | undefined;
    let b: Child | undefined;
    let c: TestGateway | undefined;
    let h: DbHandle | undefined;
    try {
      const { userId, key } = await prepareStreamingDb(dbx, slow.up.url);
      h = await openDb(dbx.url);
      const full = 100 * 500_000;

      a = await startChild(dbx, 'node-a', FAST);
      const s1 = await beginStream(a.url, key, 'refunded', 'slow-model');
      const s2 = await beginStream(a.url, key, 'logged', 'slow-model');
      const open = await h.db.selectFrom('open_reserves').select(['ref', 'node']).execute();
      assert.deepEqual(open.map((o) => o.ref).sort(), [s1.requestId, s2.requestId].sort(), 'both reserves are recorded as open');
      assert.match(open[0].node, /^node-a\./);
      const r1 = (await movements(h, s1.requestId)).reserve;
      const r2 = (await movements(h, s2.requestId)).reserve;
      assert.ok(r1 > 0 && r2 > 0);
      assert.deepEqual(await money(h, userId), [full - r1 - r2, full - r1 - r2]);

      await stopChild(a, 'SIGKILL');
      await s1.rest;
      await s2.rest;
      assert.equal((await h.db.selectFrom('open_reserves').select('ref').execute()).length, 2, 'a killed process closes nothing');
      // What a log row proves was produced (a row with usage whose settle failed): 300,000 + 200,000 tokens at $1/M.
      // Written through the log writer, as the node would have before it was killed.
      await insertLogs(h, [
        {
          created_at: Date.now(),
          type: 'consume',
          request_id: s2.requestId,
          user_id: userId,
          username: 'streamer',
          key_id: null,
          key_name: 'k',
          group_name: 'default',
          model: 'slow-model',
          upstream_model: 'slow-model',
          channel_id: null,
          endpoint: '/v1/chat/completions',
          status_code: 200,
          prompt_tokens: 300_000,
          completion_tokens: 200_000,
          cached_tokens: 0,
          quota: 0,
          latency_ms: 1,
          first_byte_ms: 1,
          is_stream: 1,
          attempts: 1,
          content: null,
          other: JSON.stringify({ settle_error: 'connection lost' }),
        },
      ]);

      // The node restarts under the same NODE_ID: a new process, which recovers its previous process's reserves.
      b = await startChild(dbx, 'node-a', FAST);
      await waitFor(
        async () => (await h!.db.selectFrom('open_reserves').select('ref').execute()).length === 0,
        30_000,
        'the stranded reserves closed',
      );
      assert.deepEqual(await movements(h, s1.requestId), { reserve: r1, close: 0, refund: -r1 });
      const m2 = await movements(h, s2.requestId);
      assert.equal(m2.close, 0);
      assert.equal(m2.reserve + m2.settle, 250_000, 'charged what the log proves: 500,000 tokens at $1 per million');
      let [bal, sum] = await money(h, userId);
      assert.equal(bal, full - 250_000);
      assert.equal(bal, sum, 'the balance is the sum of the ledger rows');

      // A long stream on a live node c (in this process; it runs no recovery rounds of its own) outlasts
      // two of its leases while b's rounds look at its open reserve: untouched, its lease is renewed.
      // The lease is 6 s, renewed every 2 s: a test process starved of CPU for a few seconds keeps it.
      c = await startTestGateway({ db: dbx, env: { NODE_ID: 'node-c', NODE_LEASE_SECONDS: '6', RELAY_RECOVERY_INTERVAL_SECONDS: '600' } });
      const s3 = await beginStream(c.url, key, 'long', 'slow-model');
      const recoveryLease = () =>
        h!.db
          .selectFrom('node_leases')
          .select(['holder', 'expires_at'])
          .where('name', '=', 'relay-reserve-recovery')
          .executeTakeFirstOrThrow();
      const from = Number((await recoveryLease()).expires_at);
      await waitFor(
        async () => Number((await recoveryLease()).expires_at) > from + 12_000,
        40_000,
        'recovery rounds over two leases of node c',
      );
      assert.match((await recoveryLease()).holder, /^node-a\./, 'node b ran the rounds');
      assert.equal(
        (await h.db.selectFrom('open_reserves').select('node').where('ref', '=', s3.requestId).executeTakeFirstOrThrow()).node,
        c.services.billing.ledger.node,
      );
      const r3 = (await movements(h, s3.requestId)).reserve;
      assert.deepEqual(await movements(h, s3.requestId), { reserve: r3 });
      slow.open('long');
      assert.match(await s3.rest, /\[DONE\]/);
      await waitFor(async () => (await movements(h!, s3.requestId)).close === 0, 10_000, 'the long stream settled by its node');
      const m3 = await movements(h, s3.requestId);
      assert.equal(m3.reserve + m3.settle, 1_500, 'charged its usage: 3,000 tokens at $1 per million');
      assert.equal((await h.db.selectFrom('open_reserves').select('ref').execute()).length, 0);
      [bal, sum] = await money(h, userId);
      assert.equal(bal, full - 250_000 - 1_500);
      assert.equal(bal, sum);
    } finally {
      await stopChild(a, 'SIGKILL');
      await stopChild(b);
      await c?.stop({ keepDb: true });
      await h?.close();
      await slow.up.close();
      await dbx.drop();
    }
  },
);
