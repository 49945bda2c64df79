/**
 * A loopback pass-through in front of the gateway that notes every request a client sent and the status the
 * gateway answered, so a test can tell that nothing a coding agent sent was refused (an agent may swallow a
 * refusal and go on, or retry it). Bodies and answers are piped through as they come, streams included.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TappedCall {
  method: string;
  path: string;
  status: number;
}

export interface Tap {
  url: string;
  calls: TappedCall[];
  close(): Promise<void>;
}

export async function startTap(target: string): Promise<Tap> {
  const to = new URL(target);
  const calls: TappedCall[] = [];
  const server = createServer((req, res) => {
    const up = request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } },
      (answer) => {
        calls.push({ method: req.method ?? '', path: req.url ?? '', status: answer.statusCode ?? 0 });
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The calls the gateway refused (a status of 400 or more), as `METHOD path → status` lines. */
export const refused = (tap: Tap, from = 0) =>
  tap.calls
    .slice(from)
    .filter((c) => c.status >= 400)
    .map((c) => `${c.method} ${c.path} → ${c.status}`);
