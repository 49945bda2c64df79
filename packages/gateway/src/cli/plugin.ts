/**
 * `gatehouse plugin validate FILE` — the load-time validation, offline.
 * `gatehouse plugin test FILE --fixture F` — runs hooks against recorded cases.
 */
import { readFileSync } from 'node:fs';
import type { Command } from './command.ts';
import { loadPlugin } from '../tasks/runtime/loader.ts';
import { fixtureCases, runFixtureCases } from '../tasks/runtime/fixtures.ts';

const USAGE = 'usage: gatehouse plugin validate FILE\n       gatehouse plugin test FILE --fixture FIXTURE.json\n';

async function run(args: string[]): Promise<void> {
  const [sub, file] = args;
  if (sub === 'help' || args.includes('--help')) {
    process.stdout.write(USAGE);
    return;
  }
  if ((sub !== 'validate' && sub !== 'lint' && sub !== 'test') || !file) {
    process.stdout.write(USAGE);
    throw new Error('missing arguments');
  }
  const p = await loadPlugin(readFileSync(file, 'utf8'));
  try {
    if (sub !== 'test') {
      const m = p.manifest;
      process.stdout.write(
        `ok ${m.key}@${m.version} (${m.fetchMode}; models ${m.models.join(', ')}; ${m.routes.length} route(s); protocols ${m.protocols.map((c) => c.name).join(', ') || 'none'}; sha256 ${p.sha256})\n`,
      );
      return;
    }
    const fi = args.indexOf('--fixture');
    if (fi < 0 || !args[fi + 1]) {
      process.stdout.write(USAGE);
      throw new Error('--fixture is required');
    }
    const results = await runFixtureCases(p, fixtureCases(JSON.parse(readFileSync(args[fi + 1], 'utf8'))));
    for (const r of results) process.stdout.write(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name}${r.ok ? '' : `\n     ${r.detail}`}\n`);
    const failed = results.filter((r) => !r.ok).length;
    process.stdout.write(`${results.length - failed} passed, ${failed} failed\n`);
    if (failed) throw new Error(`${failed} case(s) failed`);
  } finally {
    p.dispose();
  }
}

export const pluginCommand: { summary: string; run: Command } = {
  summary: 'validate a task plugin file, or run its hooks against a fixture',
  run,
};
