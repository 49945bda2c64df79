/**
 * Running a coding-agent command line in a test: a folder of its own (a note for the agent to read, a
 * temporary home), the process run to its end with a time limit, a way to skip with the reason when the
 * command line cannot run on this machine, and the configuration snippets of docs/clients.md, which the
 * tests use as they are written there (so the page and the command lines cannot drift apart). `agentRig` and
 * `agentLoopCase` put these together: a gateway with channels to a loopback tool vendor, and one whole agent loop
 * run through it and checked.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { agentCommand, type AgentCommand, type AgentName } from './clis.ts';
import { ensureAgents } from './install.mjs';
import { refused, startTap, type Tap } from './tap.ts';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { assertAgentLoop, startToolVendor, type ToolVendor } from '../fakes/upstreams/tool-vendor.ts';
import { balance, createCaller, createChannel, setPrice, waitFor, type ChannelOpts } from '../relay-fixtures.ts';

export interface Run {
  code: number | null;
  out: string;
  err: string;
}

/**
 * The command of an agent, or why it cannot run here (its package has no build for this platform, or its
 * binary does not start): the test is then skipped with that reason.
 */
export function agentOrSkip(name: AgentName): { cmd: AgentCommand; skip: false } | { cmd: null; skip: string } {
  ensureAgents(); // a failed install fails the test: it is not a reason to skip
  let cmd: AgentCommand;
  try {
    cmd = agentCommand(name);
  } catch (e) {
    return { cmd: null, skip: `${name} has no build for ${process.platform}-${process.arch}: ${(e as Error).message}` };
  }
  try {
    execFileSync(cmd.file, [...cmd.args, '--version'], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  } catch (e) {
    return { cmd: null, skip: `${name} does not start on this machine: ${(e as Error).message.split('\n')[0]}` };
  }
  return { cmd, skip: false };
}

/** Runs an agent to its end with only the given environment (and PATH); one that hangs is killed after `timeoutMs` (a run takes seconds, more on a busy machine). */
export function runAgent(cmd: AgentCommand, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<Run> {
  return new Promise((resolve) => {
    const p = spawn(cmd.file, [...cmd.args, ...args], { cwd, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    p.stderr.on('data', (c: Buffer) => {
      err += c.toString();
    });
    const t = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, out, err });
    });
  });
}

export interface Workspace {
  /** The folder the agent works in; holds `note.txt`. */
  dir: string;
  /** The absolute path of `note.txt`. */
  note: string;
  /** A home of its own for the agent's settings and state. */
  home: string;
  /** What `note.txt` says: a value no one could guess, so only the tool's output can carry it. */
  token: string;
  /** Writes a file under the home (its folders made). */
  writeHome(path: string, text: string): string;
  remove(): void;
}

export function workspace(prefix: string): Workspace {
  const root = mkdtempSync(join(tmpdir(), `gatehouse-${prefix}-`));
  const dir = join(root, 'work');
  const home = join(root, 'home');
  mkdirSync(dir);
  mkdirSync(home);
  const token = `note-${randomBytes(6).toString('hex')}`;
  writeFileSync(join(dir, 'note.txt'), `${token}\n`);
  return {
    dir,
    note: join(dir, 'note.txt'),
    home,
    token,
    writeHome(path, text) {
      const file = join(home, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      return file;
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

// ---------- docs/clients.md ----------

/** The address and key the page writes, replaced by the test gateway's and the caller's. */
export const DOC_URL = 'https://gatehouse.example.com';
export const DOC_KEY = 'sk-your-gatehouse-key';

const DOC = join(dirname(fileURLToPath(import.meta.url)), '../../../../docs/clients.md');

/**
 * The fenced blocks of docs/clients.md that carry a name after their language (```sh gemini-cli), by name,
 * with the page's address and key replaced.
 */
export function clientSnippets(url: string, key: string): Map<string, string> {
  const text = readFileSync(DOC, 'utf8');
  const blocks = new Map<string, string>();
  for (const m of text.matchAll(/^```(\w+) ([\w.-]+)\n([\s\S]*?)^```$/gm)) {
    if (blocks.has(m[2]!)) throw new Error(`docs/clients.md names two blocks ${m[2]}`);
    blocks.set(m[2]!, m[3]!.replaceAll(DOC_URL, url).replaceAll(DOC_KEY, key));
  }
  return blocks;
}

/** One named block; fails when the page has none of that name. */
export function snippet(blocks: Map<string, string>, name: string): string {
  const s = blocks.get(name);
  if (s === undefined) throw new Error(`docs/clients.md has no block named ${name}`);
  return s;
}

/** The variables of a block of `export NAME=value` lines (quotes removed; other lines ignored). */
export function exportsOf(block: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of block.matchAll(/^export (\w+)=(.*)$/gm)) env[m[1]!] = m[2]!.trim().replace(/^(["'])(.*)\1$/, '$2');
  if (!Object.keys(env).length) throw new Error(`no export lines in:\n${block}`);
  return env;
}

// ---------- one agent loop through a channel ----------

/** A gateway whose channels all lead to one loopback tool vendor, with a tap in front of it; set in `before`. */
export interface AgentRig {
  gw: TestGateway;
  vendor: ToolVendor;
  tap: Tap;
}

/**
 * Registers the `before` and `after` of a file of agent tests: the tool vendor, the gateway, the tap, and the
 * channels (their base URL the vendor's), each of their models priced at 1 in and 2 out. Nothing starts when
 * `skip` is set (the agents cannot run here).
 */
export function agentRig(skip: string | boolean, channels: Omit<ChannelOpts, 'baseUrl'>[]): AgentRig {
  const rig = {} as AgentRig;
  before(async () => {
    if (skip) return;
    rig.vendor = await startToolVendor();
    rig.gw = await startTestGateway();
    rig.tap = await startTap(rig.gw.url);
    for (const c of channels) await createChannel(rig.gw, { ...c, baseUrl: rig.vendor.url });
    for (const m of channels.flatMap((c) => c.models)) await setPrice(rig.gw, m, { input: 1, output: 2 });
  });
  after(async () => {
    await rig.tap?.close();
    await rig.gw?.stop();
    await rig.vendor?.close();
  });
  return rig;
}

export interface AgentLoopCase {
  /** The test's name. */
  name: string;
  agent: ReturnType<typeof agentOrSkip>;
  /** The agent's name in messages (`Gemini CLI`). */
  what: string;
  /** The prefix of its workspace folder. */
  folder: string;
  /** The paths every turn must reach the vendor at (the channel's own format). */
  path: RegExp;
  /** Writes the agent's settings under the workspace's home; returns its environment besides HOME. */
  env(ws: Workspace, doc: Map<string, string>): NodeJS.ProcessEnv;
  args: string[];
  /** More checks of the run, after the loop's own. */
  check?(run: Run, at: { sent: number; tapped: number }): void;
}

/**
 * A test of one whole agent loop through the rig: a new caller, the page's snippets for it, the agent run in a
 * workspace of its own; it must exit 0, the loop must pass `assertAgentLoop`, and the caller must be charged.
 */
export function agentLoopCase(rig: AgentRig, o: AgentLoopCase): void {
  test(o.name, { skip: o.agent.skip }, async () => {
    const { gw, vendor, tap } = rig;
    const caller = await createCaller(gw, { quota: 50_000_000 });
    const before = await balance(gw, caller.userId);
    const ws = workspace(o.folder);
    vendor.notePath = ws.note;
    try {
      const env = { HOME: ws.home, ...o.env(ws, clientSnippets(tap.url, caller.key)) };
      const sentBefore = vendor.requests.length;
      const tappedBefore = tap.calls.length;
      const r = await runAgent(o.agent.cmd!, o.args, ws.dir, env);
      assert.equal(r.code, 0, `${o.what} failed: ${r.out}\n${r.err}`);
      assertAgentLoop(vendor, {
        what: o.what,
        refused: refused(tap, tappedBefore),
        callerKey: caller.key,
        sent: vendor.requests.slice(sentBefore),
        path: o.path,
        token: ws.token,
        out: r.out,
        err: r.err,
      });
      o.check?.(r, { sent: sentBefore, tapped: tappedBefore });
      await waitFor(async () => (await balance(gw, caller.userId)) < before, 15_000, 'the charge');
    } finally {
      ws.remove();
    }
  });
}
