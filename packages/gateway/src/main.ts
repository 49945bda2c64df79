/**
 * The `gatehouse` command: `serve` (default) starts the gateway; other sub-commands are in cli/.
 */
import { readFileSync } from 'node:fs';
import { startGateway } from './gateway.ts';
import { runCli } from './cli/index.ts';

async function serve(argv: string[]): Promise<void> {
  const env = { ...process.env };
  const i = argv.indexOf('--config');
  if (i >= 0 && argv[i + 1]) env.GATEHOUSE_CONFIG = argv[i + 1];
  const gw = await startGateway({ env });
  const c = gw.core.config;
  gw.core.log.info({ url: gw.url, database: c.databaseUrl.replace(/\/\/[^@]*@/, '//***@') }, 'gatehouse listening');
  const port = new URL(gw.url).port;
  // Say what the socket is bound to: every interface (the default HOST) is not the same as loopback.
  const everywhere = c.host === '0.0.0.0' || c.host === '::';
  process.stdout.write(
    everywhere
      ? `Gatehouse listening on every interface, port ${port} (HOST=${c.host}); from this machine: ${gw.url}\n`
      : `Gatehouse listening on ${gw.url}\n`,
  );
  if (c.cryptoSecretFile) {
    process.stdout.write(`CRYPTO_SECRET is not set: using the one kept in ${c.cryptoSecretFile} (keep that file with the database).\n`);
  }
  // SIGTERM / SIGINT: a graceful stop (gateway.ts `shutdown`); a second signal cuts what is left at once.
  const stop = async (sig: string) => {
    gw.core.log.info({ sig, timeoutMs: c.shutdownTimeoutMs }, 'shutting down: finishing the requests in flight');
    const again = () => { gw.core.log.warn({}, 'shutting down now'); gw.app.server.closeAllConnections(); };
    process.once('SIGINT', again);
    process.once('SIGTERM', again);
    await gw.shutdown();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

const argv = process.argv.slice(2);
const first = argv[0] ?? '';
const wantsHelp = (a: string[]) => a.includes('--help') || a.includes('-h');
// `--help`, `-h` and `--version` answer and never start the server (`serve --help` too).
const cmd =
  first === '--version' || first === '-v' ? 'version'
  : first && !first.startsWith('-') ? (first === 'serve' && wantsHelp(argv) ? 'help' : first)
  : wantsHelp(argv) ? 'help'
  : 'serve';
const rest = cmd === first ? argv.slice(1) : cmd === 'serve' ? argv : [];
if (cmd === 'version') {
  process.stdout.write(`gatehouse ${version()}\n`);
  process.exit(0);
}
// A command leaves through process.exit() like the server does: letting the event loop drain would
// tear the main isolate down under isolated-vm, which can abort the process at exit.
(cmd === 'serve' ? serve(rest) : runCli(cmd, rest).then(() => process.exit())).catch((e) => {
  process.stderr.write(`gatehouse: ${(e as Error).message}\n`);
  process.exit(1);
});
