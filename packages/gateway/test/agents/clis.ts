/**
 * The coding-agent command lines that tests drive through the gateway, found in this folder's own package
 * (package.json and package-lock.json beside this file), which a plain `npm install` of the repository leaves
 * out. `scripts/test.mjs` installs it (npm ci) before a run that selects a test importing this module;
 * `agentCommand` installs it itself when such a test runs on its own.
 *
 * To add a command line: `npm install --save-exact <package>@<version>` in this folder, then an entry in
 * AGENTS saying which file runs it. `npm ci` refuses a lock file that misses an optional dependency of a
 * package (the builds for other platforms of opencode and of Qwen Code's clipboard module): when a registry
 * did not list one, its entry (version, os, cpu, libc, optional) belongs in package-lock.json all the same.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { AGENTS_DIR, ensureAgents } from './install.mjs';

export interface AgentCommand {
  /** What to spawn. */
  file: string;
  /** Arguments that come before the command line's own (the script, for one that runs on Node.js). */
  args: string[];
}

interface Agent {
  /** The npm package, a dependency in this folder's package.json. */
  package: string;
  /** The command, from the folder of `package` and a way to resolve other packages from there. */
  command: (dir: string, resolve: (spec: string) => string) => AgentCommand;
}

/** The folder of a package installed here (its package.json resolved). */
const packageDir = (resolve: (spec: string) => string, name: string) => dirname(resolve(`${name}/package.json`));

const AGENTS = {
  /** Claude Code: its native binary, from the package for this platform (an optional dependency of the CLI's package). */
  claude: {
    package: '@anthropic-ai/claude-code',
    command: (_dir, resolve) => ({
      file: join(packageDir(resolve, `@anthropic-ai/claude-code-${process.platform}-${process.arch}`), 'claude'),
      args: [],
    }),
  },
  /** Codex: its native binary, from the package for this platform. */
  codex: {
    package: '@openai/codex',
    command: (_dir, resolve) => {
      const triple = process.arch === 'arm64' ? 'aarch64-unknown-linux-musl' : 'x86_64-unknown-linux-musl';
      return {
        file: join(packageDir(resolve, `@openai/codex-${process.platform}-${process.arch}`), 'vendor', triple, 'bin', 'codex'),
        args: [],
      };
    },
  },
  /** Gemini CLI: one bundled script, run by this Node.js. */
  gemini: {
    package: '@google/gemini-cli',
    command: (dir) => ({ file: process.execPath, args: [join(dir, 'bundle', 'gemini.js')] }),
  },
  /** Qwen Code: one bundled script, run by this Node.js. */
  qwen: {
    package: '@qwen-code/qwen-code',
    command: (dir) => ({ file: process.execPath, args: [join(dir, 'cli-entry.js')] }),
  },
  /**
   * opencode: its native binary, from the package for this platform (the launcher of `opencode-ai` is only
   * written by an install script); on an x64 Linux processor without AVX2, the `-baseline` build.
   */
  opencode: {
    package: 'opencode-ai',
    command: (_dir, resolve) => {
      const baseline = process.platform === 'linux' && process.arch === 'x64' && !/\bavx2\b/.test(readFileSync('/proc/cpuinfo', 'utf8'));
      return {
        file: join(packageDir(resolve, `opencode-${process.platform}-${process.arch}${baseline ? '-baseline' : ''}`), 'bin', 'opencode'),
        args: [],
      };
    },
  },
} satisfies Record<string, Agent>;

export type AgentName = keyof typeof AGENTS;

/** How to run one coding agent: installs this folder's packages first when they are missing or stale. */
export function agentCommand(name: AgentName): AgentCommand {
  ensureAgents();
  const agent: Agent = AGENTS[name];
  const require = createRequire(join(AGENTS_DIR, 'package.json'));
  const resolve = (spec: string) => require.resolve(spec);
  return agent.command(packageDir(resolve, agent.package), resolve);
}
