/**
 * The minimal forwarder: node:http in, undici `Pool.stream` out, connections unbounded, no parsing.
 * Nothing a Node gateway does can be cheaper, so it stands for the physical limit of Node on this
 * machine. `node --import tsx bench/forwarder.ts --upstream http://127.0.0.1:N [--port 0] [--workers N]`;
 * prints `READY {"port":N}`.
 *
 * `--readable`: the upstream body read as undici's `Readable` (`Pool.request`, its `data` events written
 * to the answer with backpressure) instead of written to the answer by undici itself (`Pool.stream`):
 * what a proxy that reads its streams (as the gateway does) pays for the stream class alone
 * (bench/ladder-split.ts).
 *
 * `--workers N` (N ≥ 2): the same shape as the gateway's `WORKERS=N` (packages/gateway/src/workers.ts):
 * a node:cluster primary that serves nothing itself and N workers, each running the code below, on one
 * port (the primary accepts and hands the connections to the workers in turn, listening with the
 * workers' backlog). READY is printed once every worker listens; SIGTERM stops the workers, then the
 * primary.
 */
import cluster from 'node:cluster';
import http from 'node:http';
import { Pool } from 'undici';

const opt = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const workers = Number(opt('workers') ?? 1);
const parent = process.ppid; // do not outlive the bench (or the primary) if it is killed
setInterval(() => process.ppid !== parent && process.exit(0), 1000).unref();

if (workers > 1 && cluster.isPrimary) {
  const forked = Array.from({ length: workers }, () => cluster.fork());
  const ports = await Promise.all(
    forked.map(
      (w, n) =>
        new Promise<number>((resolve, reject) => {
          w.once('message', (m: { port?: number }) => resolve(m.port ?? 0));
          w.once('exit', (code) => reject(new Error(`forwarder worker ${n + 1} exited (code ${code}) before listening`)));
        }),
    ),
  ).catch((e: Error) => {
    process.stderr.write(`${e.message}\n`);
    for (const w of forked) w.process.kill('SIGKILL');
    process.exit(1);
  });
  if (new Set(ports).size !== 1) throw new Error(`the workers listen on different ports: ${ports.join(', ')}`);
  process.stdout.write(`READY ${JSON.stringify({ port: ports[0], workers: forked.map((w) => w.process.pid) })}\n`);
  let live = workers;
  cluster.on('exit', () => --live === 0 && process.exit(0));
  process.on('SIGTERM', () => {
    for (const w of forked) w.process.kill('SIGTERM');
  });
} else {
  const pool = new Pool(opt('upstream') ?? 'http://127.0.0.1:9300', { connections: null, pipelining: 1 });
  const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'host', 'expect']);
  const strip = (h: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(h).filter(([k]) => !HOP.has(k))) as Record<string, string>;

  const readable = process.argv.includes('--readable');
  const server = http.createServer((req, res) => {
    const body = req.method === 'GET' || req.method === 'HEAD' ? null : req;
    if (readable) {
      pool.request({ path: req.url ?? '/', method: req.method as 'POST', headers: strip(req.headers), body }).then(
        (up) => {
          res.writeHead(up.statusCode, strip(up.headers));
          up.body.on('data', (c: Buffer) => {
            if (!res.write(c)) {
              up.body.pause();
              res.once('drain', () => up.body.resume());
            }
          });
          up.body.on('end', () => res.end());
          up.body.on('error', () => res.destroy());
        },
        () => res.writeHead(502).end(),
      );
      return;
    }
    pool.stream(
      {
        path: req.url ?? '/',
        method: req.method as 'POST',
        headers: strip(req.headers),
        body,
      },
      ({ statusCode, headers }) => {
        res.writeHead(statusCode, strip(headers));
        return res;
      },
      (err) => {
        if (err && !res.headersSent) {
          res.writeHead(502).end();
        } else if (err) res.destroy();
      },
    );
  });
  server.keepAliveTimeout = 60_000;
  server.listen({ port: Number(opt('port') ?? 0), host: '127.0.0.1', backlog: 4096 }, () => {
    const a = server.address();
    const port = typeof a === 'object' && a ? a.port : 0;
    if (cluster.isWorker) process.send!({ port });
    else process.stdout.write(`READY ${JSON.stringify({ port })}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}
