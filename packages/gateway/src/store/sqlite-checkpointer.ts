/**
 * SQLite's WAL checkpoints off the event loop. By default the connection whose commit takes the
 * write-ahead log past 1,000 pages copies the log into the database file and syncs it, inside that
 * commit: on the gateway's one connection that is a call's reserve or settlement, or a log batch, and
 * it holds the event loop (and every stream on it) for the copy and the file's fsync, 10–25 ms here,
 * every 4 MB written. A retention's deletes write pages fast and made it several times a second
 * (docs/benchmarks.md, Big tables).
 *
 * The gateway's connection turns the automatic checkpoint off and a worker thread with a connection of
 * its own runs `PRAGMA wal_checkpoint(PASSIVE)` every `everyMs`: a passive checkpoint copies what no
 * reader still needs and waits for nobody, and writers keep appending to the log meanwhile. The worker
 * (about 10 MB of memory) starts once the log first holds SQLite's threshold of pages, looked at every
 * `watchMs`: a node nobody writes to does not pay for it. When the worker stops or fails, the
 * connection checkpoints automatically again, as before.
 */
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';

/** SQLite's own threshold (pages), restored when the worker is not there. */
const AUTO_PAGES = 1000;

// The worker: its own connection to the file, a passive checkpoint on every tick and on 'stop', after
// which it ends.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Sqlite = require(workerData.driver);
const db = new Sqlite(workerData.file);
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 0');
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {}
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Whether the worker has started (the log reached SQLite's threshold). */
  readonly started: boolean;
  /** Stops the worker after a last checkpoint; the connection checkpoints automatically again. */
  stop(): Promise<void>;
}

/**
 * Turns `conn`'s automatic checkpoints off and checkpoints `file` from a worker thread, started when
 * the log first holds AUTO_PAGES pages (looked at every `watchMs`; 0: at once).
 */
export function startCheckpointer(conn: Database, file: string, everyMs = 200, watchMs = 1000): Checkpointer {
  let worker: Worker | null = null;
  let exited: Promise<void> = Promise.resolve();
  let live = true;
  const restore = () => {
    if (!live) return;
    live = false;
    clearInterval(watch);
    if (conn.open) conn.pragma(`wal_autocheckpoint = ${AUTO_PAGES}`);
  };
  const start = () => {
    clearInterval(watch);
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver: fileURLToPath(import.meta.resolve('better-sqlite3')), file, everyMs },
      // The thread needs little: a connection and a timer.
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
    });
    w.unref();
    w.on('error', restore);
    exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
    void exited.then(restore);
    worker = w;
  };
  const threshold = AUTO_PAGES * Number(conn.pragma('page_size', { simple: true }));
  const logBytes = () => {
    try {
      return statSync(`${file}-wal`).size;
    } catch {
      return 0;
    }
  };
  const watch = setInterval(() => {
    if (live && worker === null && logBytes() >= threshold) start();
  }, watchMs || 1000);
  watch.unref();
  conn.pragma('wal_autocheckpoint = 0');
  if (watchMs === 0) start();
  return {
    get started() {
      return worker !== null;
    },
    async stop() {
      if (worker === null) return restore();
      // The worker is unreferenced so that it never keeps a node running; a node that is stopping
      // waits for its last checkpoint and its exit.
      worker.ref();
      if (live) worker.postMessage('stop');
      await exited;
    },
  };
}
