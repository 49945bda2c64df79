/**
 * The SQLite checkpointer (sqlite-checkpointer.ts) through openDb: the gateway's connection never
 * checkpoints itself while the worker runs, the worker copies the log into the database file, and
 * the connection checkpoints automatically again once the worker is stopped; other handles keep
 * SQLite's default.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDb } from './db.ts';
import { startCheckpointer } from './sqlite-checkpointer.ts';

const dir = mkdtempSync(join(tmpdir(), 'gh-ckpt-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** Writes about `mb` megabytes in transactions of 64 rows of 4 KB. */
function write(conn: import('better-sqlite3').Database, mb: number): void {
  conn.exec('create table if not exists t (id integer primary key, b blob)');
  const ins = conn.prepare('insert into t (b) values (?)');
  const blob = Buffer.alloc(4000, 7);
  const many = conn.transaction((n: number) => {
    for (let i = 0; i < n; i++) ins.run(blob);
  });
  for (let i = 0; i < mb * 4; i++) many(64);
}

test('the gateway handle: the worker copies the log into the database file', async () => {
  const file = join(dir, 'a.db');
  const h = await openDb(`sqlite:${file}`, { checkpointer: true });
  const conn = h.sqlite!;
  assert.equal(conn.pragma('wal_autocheckpoint', { simple: true }), 0);
  await sleep(1200);
  assert.equal(h.checkpointer!.started, false, 'no worker while the log is short');
  write(conn, 12); // three times SQLite's automatic threshold of 1,000 pages
  // The connection never copies the log into the file: only the worker can make the file grow.
  for (let i = 0; i < 100 && statSync(file).size < 12e6; i++) await sleep(50);
  assert.equal(h.checkpointer!.started, true);
  assert.ok(statSync(file).size > 12e6, `the database file holds the rows (${statSync(file).size} bytes)`);
  assert.equal(Number((conn.prepare('select count(*) as n from t').get() as { n: number }).n), 12 * 4 * 64);
  await h.close();
});

test('no commit of the connection checkpoints while the worker runs; stopped, the worker copies the rest and the connection checkpoints again', async () => {
  const file = join(dir, 'd.db');
  const h = await openDb(`sqlite:${file}`);
  const conn = h.sqlite!;
  const c = startCheckpointer(conn, file, 60_000, 0); // started at once, no tick during the test: only the last checkpoint, at stop
  const before = statSync(file).size;
  write(conn, 12);
  assert.ok(statSync(`${file}-wal`).size > 12e6, 'the log holds the writes');
  assert.ok(statSync(file).size - before < 1e6, 'no commit copied the log into the file');
  await c.stop();
  assert.ok(statSync(file).size > 12e6, 'the last checkpoint copied the log into the file');
  assert.equal(conn.pragma('wal_autocheckpoint', { simple: true }), 1000);
  await h.close();
});

test('other handles, and memory databases, keep the automatic checkpoint', async () => {
  const h = await openDb(`sqlite:${join(dir, 'b.db')}`);
  assert.equal(h.checkpointer, undefined);
  assert.equal(h.sqlite!.pragma('wal_autocheckpoint', { simple: true }), 1000);
  await h.close();
  const m = await openDb('sqlite::memory:', { checkpointer: true });
  assert.equal(m.checkpointer, undefined);
  await m.close();
});

test('a worker that cannot open the file gives the automatic checkpoint back', async () => {
  const h = await openDb(`sqlite:${join(dir, 'c.db')}`);
  const conn = h.sqlite!;
  const c = startCheckpointer(conn, join(dir, 'missing', 'nowhere.db'), 20, 0);
  assert.equal(conn.pragma('wal_autocheckpoint', { simple: true }), 0);
  await c.stop();
  assert.equal(conn.pragma('wal_autocheckpoint', { simple: true }), 1000);
  await h.close();
});
