/**
 * /healthz and /readyz: readiness follows the database. The gateway reaches PostgreSQL or MySQL through
 * a TCP relay the test controls, so "the database stops" is the relay refusing connections and cutting
 * the open ones, and "it returns" is the relay listening again on the same port.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, startTestGateway, TEST_DB } from '../harness.ts';

class TcpRelay {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  async listen(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    for (const sock of this.sockets) sock.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}

async function readyz(
  url: string,
): Promise<{ status: number; body: { ready: boolean; checks: Record<string, string>; errors?: string[] } }> {
  const r = await fetch(`${url}/readyz`);
  return { status: r.status, body: (await r.json()) as { ready: boolean; checks: Record<string, string>; errors?: string[] } };
}

/** Polls /readyz until it reports `ready` (bounded: at most 60 probes). */
async function until(url: string, ready: boolean) {
  let last = await readyz(url);
  for (let i = 0; i < 60 && last.body.ready !== ready; i++) {
    await new Promise((r) => setTimeout(r, 250));
    last = await readyz(url);
  }
  return last;
}

test('/healthz answers and /readyz reports every check', async () => {
  const gw = await startTestGateway();
  try {
    const h = await fetch(`${gw.url}/healthz`);
    assert.equal(h.status, 200);
    assert.deepEqual(await h.json(), { ok: true });
    // Without the console (as here), the root answers too: a client's reachability probe (Claude Code's HEAD /).
    assert.equal((await fetch(`${gw.url}/`, { method: 'HEAD' })).status, 200);
    assert.deepEqual(await (await fetch(`${gw.url}/`)).json(), { ok: true });
    const r = await readyz(gw.url);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { ready: true, checks: { database: 'ok', redis: 'not configured', plugins: 'ok', shutdown: 'ok' } });
  } finally {
    await gw.stop();
  }
});

test(
  '/readyz turns unready when the database stops and ready again when it returns',
  { skip: TEST_DB === 'sqlite' && 'needs a database server' },
  async () => {
    const db = await createTestDatabase();
    const real = new URL(db.url);
    const relay = new TcpRelay({ host: real.hostname, port: Number(real.port || (TEST_DB === 'postgres' ? 5432 : 3306)) });
    await relay.listen();
    const viaRelay = new URL(db.url);
    viaRelay.port = String(relay.port);
    const gw = await startTestGateway({ db: { url: viaRelay.toString(), drop: db.drop } });
    try {
      assert.equal((await readyz(gw.url)).status, 200);
      await relay.stop();
      const down = await until(gw.url, false);
      assert.equal(down.status, 503);
      assert.equal(down.body.checks.database, 'failed');
      assert.equal(down.body.checks.plugins, 'ok');
      assert.ok(down.body.errors?.[0]?.startsWith('database: '), JSON.stringify(down.body));
      assert.doesNotMatch(JSON.stringify(down.body), /:\/\/[^*]/, 'no connection string in the answer');
      // Liveness does not depend on the database.
      assert.equal((await fetch(`${gw.url}/healthz`)).status, 200);
      await relay.listen();
      const up = await until(gw.url, true);
      assert.equal(up.status, 200, JSON.stringify(up.body));
    } finally {
      await relay.listen();
      await gw.stop();
      await relay.stop();
    }
  },
);
