/**
 * The minimal forwarder: node:http in, undici `Pool.stream` out, connections unbounded, no parsing.
 * Nothing a Node gateway does can be cheaper, so it stands for the physical limit of Node on this
 * machine. `node --import tsx bench/forwarder.ts --upstream http://127.0.0.1:N [--port 0]`; prints
 * `READY {"port":N}`.
 */
import http from 'node:http';
import { Pool } from 'undici';

const opt = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const pool = new Pool(opt('upstream') ?? 'http://127.0.0.1:9300', { connections: null, pipelining: 1 });
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'host', 'expect']);
const strip = (h: Record<string, unknown>) => Object.fromEntries(Object.entries(h).filter(([k]) => !HOP.has(k))) as Record<string, string>;

const server = http.createServer((req, res) => {
  pool.stream(
    {
      path: req.url ?? '/',
      method: req.method as 'POST',
      headers: strip(req.headers),
      body: req.method === 'GET' || req.method === 'HEAD' ? null : req,
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
  process.stdout.write(`READY ${JSON.stringify({ port: typeof a === 'object' && a ? a.port : 0 })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
const parent = process.ppid; // do not outlive the bench if it is killed
setInterval(() => process.ppid !== parent && process.exit(0), 1000).unref();
