/**
 * `gatehouse <command>`: administration without a browser. Each command group lives in its own file
 * and registers itself in COMMANDS.
 */
import { ADMIN_COMMANDS } from './admin-commands.ts';
import type { Command } from './command.ts';
import { pluginCommand } from './plugin.ts';

export type { Command } from './command.ts';

export const COMMANDS: Record<string, { summary: string; run: Command }> = {
  ...ADMIN_COMMANDS,
  plugin: pluginCommand,
};

export async function runCli(cmd: string, args: string[]): Promise<void> {
  const c = COMMANDS[cmd];
  if (!c || cmd === 'help') {
    const lines = Object.entries(COMMANDS).map(([n, v]) => `  ${n.padEnd(10)} ${v.summary}`);
    process.stdout.write(
      `usage: gatehouse [serve] [--config FILE]\n       gatehouse <command> ...\n       gatehouse --version\n\n` +
        `commands:\n  serve      start the gateway (default; HOST and PORT choose the address, default 0.0.0.0:3000)\n${lines.join('\n')}\n`,
    );
    if (!c && cmd !== 'help') throw new Error(`unknown command "${cmd}"`);
    return;
  }
  // `-h` is `--help` for every command.
  await c.run(args.map((a) => (a === '-h' ? '--help' : a)));
}
