/**
 * Builds and runs one gateway process: core, areas, HTTP app.
 */
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from './platform/config.ts';
import type { Logger } from './platform/logger.ts';
import { createCore, version, type Core } from './core.ts';
import { startTracing, stopTracing } from './platform/tracing.ts';
import { buildApp } from './http/app.ts';
import { buildAreas, ROUTES, startAreas } from './areas.ts';
import type { Services } from './http/deps.ts';
import { DEFAULT_CONSOLE_DIR, loadConsoleSite } from './http/console-routes.ts';

/** Connections the kernel may queue for the gateway before it accepts them (capped by somaxconn). */
const LISTEN_BACKLOG = 4096;

export interface Gateway {
  core: Core;
  services: Services;
  app: FastifyInstance;
  /** http://host:port once listening. */
  url: string;
  close(): Promise<void>;
  /**
   * A graceful stop (SIGTERM): stop accepting connections and answer `/readyz` with 503, let the
   * requests and streams in flight finish (up to `timeoutMs`, SHUTDOWN_TIMEOUT_SECONDS by default; then
   * what is left is cut and charged for what it produced), then close: every reserve settled, the log
   * writer and quota holds flushed, leases given up.
   */
  shutdown(timeoutMs?: number): Promise<void>;
}

export interface StartOptions {
  config?: Partial<Config>;
  env?: NodeJS.ProcessEnv;
  log?: Logger;
  /** Listen on config.port (0 = a free port). Default true. */
  listen?: boolean;
}

export async function startGateway(opts: StartOptions = {}): Promise<Gateway> {
  const config = loadConfig(opts.env ?? process.env, opts.config);
  // A missing or broken console build stops the start here, before anything else is opened.
  const site = config.consoleEnabled ? loadConsoleSite(config.consoleDir ?? DEFAULT_CONSOLE_DIR) : null;
  const core = await createCore(config, opts.log);
  // Older names of settings still read (platform/config.ts): said once, at start.
  for (const w of config.warnings) core.log.warn({}, w);
  try {
    // OpenTelemetry (platform/tracing.ts), when the OTEL_* variables ask for it; flushed last at close.
    if (await startTracing(opts.env ?? process.env, { version, instance: config.nodeId })) core.onClose(stopTracing);
    const services = await buildAreas(core);
    const app = await buildApp({ core, services, console: site }, ROUTES);
    let url = '';
    if (opts.listen !== false) {
      // A queue of connections not yet accepted as long as the kernel allows (somaxconn, 4096 by default
      // on Linux), not Node's 511: thousands of streams opened within a second while the event loop is
      // busy would otherwise overflow it, and each dropped connect waits 1, 3, 7, 15… s for its retry.
      await app.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG });
      const addr = app.server.address() as AddressInfo;
      const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
      url = `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
    } else {
      await app.ready();
    }
    await startAreas(core, services);
    let closing: Promise<void> | null = null;
    const close = () => {
      closing ??= (async () => {
        await app.close();
        await core.close();
      })();
      return closing;
    };
    return {
      core,
      services,
      app,
      url,
      close,
      async shutdown(timeoutMs = config.shutdownTimeoutMs) {
        if (closing) return closing;
        app.draining = true;
        // Responses WebSockets close as soon as their turn in progress has ended.
        services.relay.sockets.drain();
        const server = app.server;
        // No new connections; the callback comes when every open one has ended.
        const drained = new Promise<void>((resolve) => server.close(() => resolve()));
        // Keep-alive connections are closed as soon as they have no request in progress.
        server.closeIdleConnections();
        const sweep = setInterval(() => server.closeIdleConnections(), 100);
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => {
          timer = setTimeout(() => resolve('late'), timeoutMs);
        });
        const outcome = await Promise.race([drained.then(() => 'drained' as const), late]);
        clearInterval(sweep);
        clearTimeout(timer);
        if (outcome === 'late') {
          core.log.warn({ timeoutMs }, 'shutdown: requests still in flight after the timeout are cut');
          server.closeAllConnections();
        }
        await close();
      },
    };
  } catch (e) {
    await core.close();
    throw e;
  }
}
