/**
 * A graceful stop: SIGTERM in the middle of a stream stops new connections and makes `/readyz` say so,
 * lets the stream finish (the client receives all of it) and settles it exactly, then the process exits
 * 0 with nothing left open; past SHUTDOWN_TIMEOUT_SECONDS a stream still running is cut and charged for
 * what it produced.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { createTestDatabase, startTestGateway } from '../harness.ts';
import { startChild, type Child } from '../child-gateway.ts';
import { AdminClient } from '../admin-client.ts';
import { beginStream, startGatedUpstream } from '../fakes/upstreams/gated.ts';
import { createChannel, setPrice, waitFor } from '../relay-fixtures.ts';
import { openDb } from '../../src/store/db.ts';

const exited = (c: Child) =>
  new Promise<number | null>((r) => {
    if (c.proc.exitCode !== null) r(c.proc.exitCode);
    else c.proc.once('exit', (code) => r(code));
  });

async function prepare() {
  const gated = await startGatedUpstream();
  const db = await createTestDatabase();
  const setup = await startTestGateway({ db });
  const root = await AdminClient.login(setup.url);
  await createChannel(setup, { baseUrl: gated.up.url, models: ['gs-model'] });
  await setPrice(setup, 'gs-model', { input: 1, output: 1 });
  const user = await root.ok('POST', '/api/user', { username: 'streamer', password: 'streamer-password', quota_usd: 100 });
  const { key } = await root.ok('POST', '/api/token', { user_id: user.id, name: 'k' });
  await setup.stop({ keepDb: true });
  return { gated, db, key: key as string, userId: user.id as number };
}

test('SIGTERM mid-stream: no new connections, the stream finishes whole and is settled exactly, exit 0', { timeout: 120_000 }, async () => {
  const { gated, db, key, userId } = await prepare();
  const h = await openDb(db.url);
  let child: Child | undefined;
  try {
    child = await startChild(db, 'node-g', { SHUTDOWN_TIMEOUT_SECONDS: '60' });
    assert.equal((await request(`${child.url}/readyz`)).statusCode, 200);
    const s = await beginStream(child.url, key, 'whole', 'gs-model');
    const code = exited(child);
    child.proc.kill('SIGTERM');
    // New connections are refused at once.
    await waitFor(
      async () => {
        try {
          await fetch(`${child!.url}/healthz`);
          return false;
        } catch {
          return true;
        }
      },
      10_000,
      'the listener closed',
    );
    assert.equal(child.proc.exitCode, null, 'the process waits for the stream');
    gated.open('whole');
    const text = await s.rest;
    assert.match(text, /last/);
    assert.match(text, /\[DONE\]/, 'the client received the whole stream');
    assert.equal(await code, 0);
    // Settled at its usage (3,000 tokens at $1 per million = 1,500 units), nothing left open.
    const rows = await h.db.selectFrom('ledger').select(['kind', 'amount']).where('ref', '=', s.requestId).execute();
    const m = Object.fromEntries(rows.map((r) => [r.kind, Number(r.amount)]));
    assert.equal(m.reserve + m.settle, 1_500);
    assert.equal((await h.db.selectFrom('open_reserves').select('ref').execute()).length, 0);
    const bal = Number((await h.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow()).quota);
    assert.equal(bal, 100 * 500_000 - 1_500);
  } finally {
    if (child && child.proc.exitCode === null) child.proc.kill('SIGKILL');
    await h.close();
    await gated.up.close();
    await db.drop();
  }
});

test(
  'past SHUTDOWN_TIMEOUT_SECONDS a stream still running is cut, charged what it produced, and the process exits 0',
  { timeout: 120_000 },
  async () => {
    const { gated, db, key } = await prepare();
    const h = await openDb(db.url);
    let child: Child | undefined;
    try {
      child = await startChild(db, 'node-t', { SHUTDOWN_TIMEOUT_SECONDS: '1' });
      const s = await beginStream(child.url, key, 'never', 'gs-model');
      const code = exited(child);
      child.proc.kill('SIGTERM');
      assert.equal(await code, 0);
      const text = await s.rest;
      assert.doesNotMatch(text, /\[DONE\]/);
      const rows = await h.db.selectFrom('ledger').select(['kind', 'amount']).where('ref', '=', s.requestId).execute();
      const kinds = rows.map((r) => r.kind).sort();
      assert.ok(kinds.includes('close'), `the reserve was closed before the exit (${kinds})`);
      const log = await h.db
        .selectFrom('logs')
        .select(['status_code', 'quota'])
        .where('request_id', '=', s.requestId)
        .executeTakeFirstOrThrow();
      assert.equal(log.status_code, 499, 'logged as cut');
      assert.equal(
        Number(rows.find((r) => r.kind === 'reserve')!.amount) + Number(rows.find((r) => r.kind === 'settle')!.amount),
        Number(log.quota),
        'charged what it produced',
      );
      assert.equal((await h.db.selectFrom('open_reserves').select('ref').execute()).length, 0);
    } finally {
      if (child && child.proc.exitCode === null) child.proc.kill('SIGKILL');
      gated.open('never');
      await h.close();
      await gated.up.close();
      await db.drop();
    }
  },
);

test('while a graceful stop waits for a stream, /readyz answers 503 shutting down', { timeout: 60_000 }, async () => {
  const { gated, db, key } = await prepare();
  const gw = await startTestGateway({ db });
  try {
    const s = await beginStream(gw.url, key, 'probe', 'gs-model');
    const stopping = gw.shutdown(30_000);
    const r = await gw.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(r.statusCode, 503);
    assert.equal(r.json().checks.shutdown, 'shutting down');
    gated.open('probe');
    assert.match(await s.rest, /\[DONE\]/);
    await stopping;
  } finally {
    await gw.close();
    await gated.up.close();
    await db.drop();
  }
});
