/** Gateway processes for tests of what happens across processes (SIGKILL, two nodes on one database). */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestGateway, TEST_CRYPTO_SECRET, TEST_ROOT_PASSWORD, type TestDatabase } from './harness.ts';
import { AdminClient } from './admin-client.ts';
import { createChannel, setPrice } from './relay-fixtures.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const START_LIMIT_MS = 120_000;

export interface Child {
  proc: ChildProcess;
  url: string;
}

/** Starts `gatehouse serve` on `db` as a child process; resolves when it listens. */
export function startChild(db: TestDatabase, nodeId: string, extra: Record<string, string> = {}): Promise<Child> {
  const proc = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', 'packages/gateway/src/main.ts', 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      CRYPTO_SECRET: TEST_CRYPTO_SECRET,
      GATEHOUSE_ROOT_PASSWORD: TEST_ROOT_PASSWORD,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      NODE_ID: nodeId,
      CACHE_SYNC_INTERVAL_SECONDS: '0.2',
      CONSOLE_ENABLED: 'false',
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    // A guard against a process that never listens, not a measure of its start: a gateway run from
    // source transpiles its modules on a cold start, which takes tens of seconds of a CPU the test
    // suite's other files share (30 s was passed on a busy two-CPU machine).
    const t = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`gateway did not start: ${out}${err}`));
    }, START_LIMIT_MS);
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve({ proc, url: m[1] });
      }
    });
    proc.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
    });
    proc.on('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`gateway exited (${code}): ${err.slice(0, 2000)}`));
    });
  });
}

/** Stops a child (SIGTERM: a graceful stop; SIGKILL: a crash) and waits for it to exit. */
export async function stopChild(c: Child | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!c || c.proc.exitCode !== null || c.proc.signalCode !== null) return;
  const exited = new Promise((r) => c.proc.once('exit', r));
  c.proc.kill(signal);
  await exited;
}

/**
 * Prepares `db` in-process for tests of streams across processes, then stops: a channel at `upstream`
 * serving `slow-model` at $1 per million tokens, and a user `streamer` with $100 and a key.
 */
export async function prepareStreamingDb(db: TestDatabase, upstream: string): Promise<{ userId: number; key: string }> {
  const setup = await startTestGateway({ db });
  const root = await AdminClient.login(setup.url);
  await createChannel(setup, { baseUrl: upstream, models: ['slow-model'] });
  await setPrice(setup, 'slow-model', { input: 1, output: 1 });
  const user = await root.ok('POST', '/api/user', { username: 'streamer', password: 'streamer-password', quota_usd: 100 });
  const { key } = await root.ok('POST', '/api/token', { user_id: user.id, name: 'k' });
  await setup.stop({ keepDb: true });
  return { userId: user.id, key };
}

/**
 * The address a gateway process prints once it listens (`listening on http://…`); rejects with what it
 * printed when it exits first or does not listen within `limitMs`.
 */
export function listeningUrl(proc: ChildProcess, limitMs = 60_000): Promise<string> {
  let out = '';
  proc.stderr?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  return new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`did not start: ${out}`)), limitMs);
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`the gateway exited (${code}): ${out}`));
    });
  });
}
