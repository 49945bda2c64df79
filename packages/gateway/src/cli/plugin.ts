/**
 * `gatehouse plugin validate FILE` — the load-time validation, offline.
 * `gatehouse plugin test FILE --fixture F` — runs hooks against recorded cases.
 */
import { readFileSync } from 'node:fs';
import type { Command } from './command.ts';
import { loadPlugin } from '../plugins/runtime/loader.ts';
import { loadGuardrail } from '../plugins/runtime/guardrail.ts';
import { loadMcpTool } from '../plugins/runtime/mcp-tool.ts';
import { PluginLoadError } from '../plugins/runtime/errors.ts';
import { fixtureCases, runFixtureCases, type HookCaller } from '../plugins/runtime/fixtures.ts';

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
  const source = readFileSync(file, 'utf8');
  const p = await loadPlugin(source).catch(async (e: unknown) => {
    // Guardrail (docs/guardrails.md) and MCP tool (docs/mcp.md) plugins are validated by their own rules.
    const opts = { timeoutMs: 5000, memoryMb: 64, poolSize: 1 };
    if (e instanceof PluginLoadError && e.message.startsWith('this is a guardrail plugin')) return loadGuardrail(source, opts);
    if (e instanceof PluginLoadError && e.message.startsWith('this is an MCP tool plugin')) return loadMcpTool(source, opts);
    throw e;
  });
  try {
    if (!('fetchMode' in p.manifest)) {
      if (sub === 'test') return await runFixture(p, args);
      const what = 'tools' in p ? `mcp_tool; tools ${p.tools.map((t) => t.name).join(', ')}` : 'guardrail';
      process.stdout.write(`ok ${p.key}@${p.version} (${what}; sha256 ${p.sha256})\n`);
      return;
    }
    if (sub !== 'test') {
      const m = p.manifest;
      process.stdout.write(
        `ok ${m.key}@${m.version} (${m.fetchMode}; models ${m.models.join(', ')}; ${m.routes.length} route(s); protocols ${m.protocols.map((c) => c.name).join(', ') || 'none'}; sha256 ${p.sha256})\n`,
      );
      return;
    }
    await runFixture(p, args);
  } finally {
    p.dispose();
  }
}

async function runFixture(p: HookCaller, args: string[]): Promise<void> {
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
}

export const pluginCommand: { summary: string; run: Command } = {
  summary: 'validate a task, guardrail or MCP tool plugin file, or run its hooks against a fixture',
  run,
};
