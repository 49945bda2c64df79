/**
 * `forwarder-workers` (bench/forwarder.ts --workers 2): one port, streams held and relayed by both
 * workers (two sockets each per open stream, none kept by the primary), every event in order, and no
 * worker left once it stops.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { openFds } from './proc.ts';
import { forwarderWorkersTarget } from './targets.ts';

const STREAMS = 16;
const EVENTS = 5;

/** Sockets a process holds (its /proc/<pid>/fd entries that are sockets). */
function sockets(pid: number): number {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) n++;
    } catch {
      // closed while read
    }
  }
  return n;
}

/** The forwarder's workers: the primary's child processes running forwarder.ts (tsx's esbuild service is left out). */
function workerPids(primary: number): number[] {
  return [...openFds(primary).keys()].filter((p) => p !== primary && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('forwarder.ts'));
}

test('forwarder-workers: two workers on one port hold and relay streams, every event in order', { timeout: 60_000 }, async () => {
  // An upstream whose streams send one event, then wait for the test to release them.
  let seen = 0;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const upstream = http.createServer((req, res) => {
    req.resume();
    seen++;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: {"choices":[{"delta":{"content":"tok0 "}}]}\n\n`);
    void released.then(() => {
      for (let i = 1; i < EVENTS; i++) res.write(`data: {"choices":[{"delta":{"content":"tok${i} "}}]}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const running = await forwarderWorkersTarget(2).start({
    upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    installPortkey: false,
    log: () => {},
  });
  const primary = running.pid!;
  let workers: number[] = [];
  try {
    workers = workerPids(primary);
    assert.equal(workers.length, 2, `workers of ${primary}: ${workers.join(', ')}`);
    const before = workers.map(sockets);
    // Every stream on a connection of its own, as the load generator opens them.
    const bodies = Array.from(
      { length: STREAMS },
      () =>
        new Promise<{ status: number; text: string; first: Promise<void> }>((resolve, reject) => {
          const req = http.request(`${running.url}/v1/chat/completions`, { method: 'POST', agent: false, headers: running.headers });
          req.on('error', reject);
          req.on('response', (res) => {
            let text = '';
            let gotFirst!: () => void;
            const first = new Promise<void>((r) => (gotFirst = r));
            res.setEncoding('utf8');
            res.on('data', (d: string) => {
              text += d;
              gotFirst();
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text, first }));
            res.on('error', reject);
          });
          req.end('{"model":"m","stream":true}');
        }),
    );
    // Wait until every stream is open through the proxy (the upstream has all of them).
    for (let i = 0; i < 200 && seen < STREAMS; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(seen, STREAMS, 'every stream reached the upstream');
    await new Promise((r) => setTimeout(r, 200));
    // Each open stream holds two sockets in the worker that has it: the caller's and the upstream's.
    const held = workers.map((p, i) => sockets(p) - before[i]);
    assert.equal(held[0] + held[1], 2 * STREAMS, `sockets held by the workers: ${held.join(' + ')}`);
    assert.ok(
      held.every((h) => h >= 2),
      `both workers hold streams: ${held.join(', ')}`,
    );
    // The primary hands connections on and keeps none of them.
    assert.ok(sockets(primary) < STREAMS, `the primary holds ${sockets(primary)} sockets`);
    release();
    for (const b of await Promise.all(bodies)) {
      assert.equal(b.status, 200);
      const toks = [...b.text.matchAll(/tok(\d+)/g)].map((m) => Number(m[1]));
      assert.deepEqual(
        toks,
        Array.from({ length: EVENTS }, (_, i) => i),
      );
      assert.ok(b.text.trimEnd().endsWith('data: [DONE]'), b.text.slice(-80));
    }
  } finally {
    release();
    await running.stop();
    upstream.closeAllConnections();
    upstream.close();
  }
  // SIGTERM to the primary stops its workers before it exits.
  assert.deepEqual(
    workers.filter((p) => existsSync(`/proc/${p}`) && !readFileSync(`/proc/${p}/stat`, 'utf8').includes(') Z ')),
    [],
  );
});
