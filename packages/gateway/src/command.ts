/**
 * The `gatehouse` command, run by main.ts once the Node.js version is known to fit: `serve` (default) starts
 * the gateway; other sub-commands are in cli/.
 */
import { readFileSync } from 'node:fs';
import { nativeModuleProblem } from './platform/node-version.ts';
import { startGateway } from './gateway.ts';
import { runCli } from './cli/index.ts';
import { isWorker, onPrimaryStop, reportListening, runPrimary, workerCount } from './workers.ts';
import { isolatesTornDown } from './plugins/runtime/teardown.ts';

async function serve(argv: string[]): Promise<void> {
  const env = { ...process.env };
  const i = argv.indexOf('--config');
  if (i >= 0 && argv[i + 1]) env.GATEHOUSE_CONFIG = argv[i + 1];
  const workers = isWorker() ? 1 : workerCount(env.WORKERS);
  if (workers > 1) {
    const url = await runPrimary({ workers, env, say: (line) => process.stdout.write(`${line}\n`) });
    process.stdout.write(`${listeningLine(url, env.HOST || '0.0.0.0')} (${workers} workers)\n`);
    return;
  }
  const gw = await startGateway({ env });
  const c = gw.core.config;
  gw.core.log.info({ url: gw.url, database: c.databaseUrl.replace(/\/\/[^@]*@/, '//***@') }, 'gatehouse listening');
  if (isWorker()) reportListening(gw.url);
  else process.stdout.write(`${listeningLine(gw.url, c.host)}\n`);
  if (c.cryptoSecretFile && !isWorker()) {
    process.stdout.write(`CRYPTO_SECRET is not set: using the one kept in ${c.cryptoSecretFile} (keep that file with the database).\n`);
  }
  // SIGTERM / SIGINT (or, in a worker, the primary's request): a graceful stop (gateway.ts `shutdown`);
  // a second signal cuts what is left at once.
  let stopping = false;
  const now = () => {
    gw.core.log.warn({}, 'shutting down now');
    gw.app.server.closeAllConnections();
  };
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    gw.core.log.info({ why, timeoutMs: c.shutdownTimeoutMs }, 'shutting down: finishing the requests in flight');
    await gw.shutdown();
    // The plugins' isolates were disposed: their teardown must end before the process does.
    await isolatesTornDown();
    process.exit(0);
  };
  const onSignal = (sig: string) => (stopping ? now() : void stop(sig));
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  if (isWorker()) onPrimaryStop(() => void stop('primary'), now);
}

/** Says what the socket is bound to: every interface (the default HOST) is not the same as loopback. */
function listeningLine(url: string, host: string): string {
  const port = new URL(url).port;
  return host === '0.0.0.0' || host === '::'
    ? `Gatehouse listening on every interface, port ${port} (HOST=${host}); from this machine: ${url}`
    : `Gatehouse listening on ${url}`;
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
  first === '--version' || first === '-v'
    ? 'version'
    : first && !first.startsWith('-')
      ? first === 'serve' && wantsHelp(argv)
        ? 'help'
        : first
      : wantsHelp(argv)
        ? 'help'
        : 'serve';
const rest = cmd === first ? argv.slice(1) : cmd === 'serve' ? argv : [];
if (cmd === 'version') {
  process.stdout.write(`gatehouse ${version()}\n`);
  process.exit(0);
}
// A command leaves through process.exit() like the server does: letting the event loop drain would
// tear the main isolate down under isolated-vm, which can abort the process at exit. It leaves once the
// isolates it disposed (a plugin validated or tested) are torn down (plugins/runtime/teardown.ts).
(cmd === 'serve'
  ? serve(rest)
  : runCli(cmd, rest)
      .then(() => isolatesTornDown())
      .then(() => process.exit())
).catch(async (e) => {
  // A native module loads when first used (the database driver at start): one built for another Node.js gets advice.
  process.stderr.write(nativeModuleProblem(e, process.version, process.versions.modules) ?? `gatehouse: ${(e as Error).message}\n`);
  await isolatesTornDown();
  process.exit(1);
});
