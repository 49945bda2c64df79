/**
 * The `gatehouse` command: `serve` (default) starts the gateway; other sub-commands are in cli/.
 */
import { startGateway } from './gateway.ts';
import { runCli } from './cli/index.ts';

async function serve(argv: string[]): Promise<void> {
  const env = { ...process.env };
  const i = argv.indexOf('--config');
  if (i >= 0 && argv[i + 1]) env.GATEHOUSE_CONFIG = argv[i + 1];
  const gw = await startGateway({ env });
  const c = gw.core.config;
  gw.core.log.info({ url: gw.url, database: c.databaseUrl.replace(/\/\/[^@]*@/, '//***@') }, 'gatehouse listening');
  process.stdout.write(`Gatehouse listening on ${gw.url}\n`);
  if (c.cryptoSecretFile) {
    process.stdout.write(`CRYPTO_SECRET is not set: using the one kept in ${c.cryptoSecretFile} (keep that file with the database).\n`);
  }
  const stop = async (sig: string) => {
    gw.core.log.info({ sig }, 'shutting down');
    await gw.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

const argv = process.argv.slice(2);
const cmd = argv[0] && !argv[0].startsWith('-') ? argv[0] : 'serve';
const rest = cmd === argv[0] ? argv.slice(1) : argv;
// A command leaves through process.exit() like the server does: letting the event loop drain would
// tear the main isolate down under isolated-vm, which can abort the process at exit.
(cmd === 'serve' ? serve(rest) : runCli(cmd, rest).then(() => process.exit())).catch((e) => {
  process.stderr.write(`gatehouse: ${(e as Error).message}\n`);
  process.exit(1);
});
