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
import { AREAS } from './areas.ts';
import type { Services } from './services.ts';
import { DEFAULT_CONSOLE_DIR, loadConsoleSite } from './http/console-routes.ts';

export interface Gateway {
  core: Core;
  services: Services;
  app: FastifyInstance;
  /** http://host:port once listening. */
  url: string;
  close(): Promise<void>;
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
  const services = {} as Services;
  try {
    // OpenTelemetry (platform/tracing.ts), when the OTEL_* variables ask for it; flushed last at close.
    if (await startTracing(opts.env ?? process.env, { version, instance: config.nodeId })) core.onClose(stopTracing);
    for (const area of AREAS) await area.init(core, services);
    const app = await buildApp({ core, services, console: site }, AREAS.flatMap((a) => (a.routes ? [a.routes] : [])));
    let url = '';
    if (opts.listen !== false) {
      await app.listen({ port: config.port, host: config.host });
      const addr = app.server.address() as AddressInfo;
      const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
      url = `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
    } else {
      await app.ready();
    }
    for (const area of AREAS) await area.start?.(core, services);
    let closing: Promise<void> | null = null;
    return {
      core, services, app, url,
      close() {
        closing ??= (async () => {
          await app.close();
          await core.close();
        })();
        return closing;
      },
    };
  } catch (e) {
    await core.close();
    throw e;
  }
}
