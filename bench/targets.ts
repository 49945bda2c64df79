/**
 * The systems under test. Each `Target` starts its proxy pinned to CPU_PROXY, in front of the loopback
 * upstream, and is verified with one JSON and one streamed request before it is measured. A target that
 * cannot start is reported as unavailable; the run goes on with the others.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { spawnSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { BENCH, CPU_PROXY, ROOT, freePort, lastLines, spawnProc, startService, waitForLine, type Proc } from './proc.ts';

export const CHAT_PATH = '/v1/chat/completions';
export const BENCH_MODEL = 'bench-model';
/** Served by an OpenAI channel without the Responses API, and by an Anthropic channel (the stream phases' conversions). */
export const BENCH_CHAT_ONLY_MODEL = 'bench-chat-only';
export const BENCH_CLAUDE_MODEL = 'bench-claude';
/** The API key clients present; the gateway's config gives it this fixed value. */
export const BENCH_KEY = 'sk-bench-0000000000000000000000000000000000000000';

export interface TargetContext {
  /** Origin of the loopback upstream, e.g. http://127.0.0.1:9300 */
  upstream: string;
  /** Install Portkey into bench/portkey when it is missing. */
  installPortkey: boolean;
  /** Open files each proxy may have (two sockets per stream it relays); unset: the inherited limit. */
  nofile?: number;
  log(msg: string): void;
}

export interface RunningTarget {
  /** Origin clients send to. */
  url: string;
  /** Headers every request carries (auth, routing). */
  headers: Record<string, string>;
  /** The proxy process whose memory is reported; null for the direct path. */
  pid: number | null;
  stop(): Promise<void>;
}

export interface Target {
  name: string;
  start(ctx: TargetContext): Promise<RunningTarget>;
}

const json = { 'content-type': 'application/json' };

export const direct: Target = {
  name: 'direct',
  async start(ctx) {
    return { url: ctx.upstream, headers: { ...json, authorization: `Bearer ${BENCH_KEY}` }, pid: null, stop: async () => {} };
  },
};

export const forwarder: Target = {
  name: 'forwarder',
  async start(ctx) {
    const { proc, port } = await startService('forwarder', 'forwarder.ts', ['--upstream', ctx.upstream], CPU_PROXY, ctx.nofile);
    return {
      url: `http://127.0.0.1:${port}`,
      headers: { ...json, authorization: `Bearer ${BENCH_KEY}` },
      pid: proc.pid,
      stop: () => proc.stop(),
    };
  },
};

/**
 * The forwarder as `workers` processes on one port (`bench/forwarder.ts --workers N`: a node:cluster
 * primary and N workers running the forwarder's code), unpinned: the shape of `gatehouse-workers`.
 */
export function forwarderWorkersTarget(workers: number, name = 'forwarder-workers'): Target {
  return {
    name,
    async start(ctx) {
      const args = ['--upstream', ctx.upstream, '--workers', String(workers)];
      const { proc, port } = await startService(name, 'forwarder.ts', args, undefined, ctx.nofile);
      return {
        url: `http://127.0.0.1:${port}`,
        headers: { ...json, authorization: `Bearer ${BENCH_KEY}` },
        pid: proc.pid,
        stop: () => proc.stop(),
      };
    },
  };
}

/** The forwarder with two workers (the shape of `gatehouse-workers`). */
export const forwarderWorkers = forwarderWorkersTarget(2);

export const PORTKEY_DIR = join(BENCH, 'portkey');
const PORTKEY_ENTRY = join(PORTKEY_DIR, 'node_modules/@portkey-ai/gateway/build/start-server.js');

export function portkeyInstalled(): boolean {
  return existsSync(PORTKEY_ENTRY);
}

async function installPortkey(ctx: TargetContext): Promise<void> {
  ctx.log('installing @portkey-ai/gateway@1.15.2 into bench/portkey (first use)...');
  const p = spawnProc('npm install', 'npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: PORTKEY_DIR });
  const t = setTimeout(() => void p.stop(), 300_000);
  const code = await p.exited;
  clearTimeout(t);
  if (code !== 0 || !portkeyInstalled()) throw new Error(`npm install in bench/portkey failed: ${lastLines(p.output())}`);
}

/** Polls until something answers HTTP on `url` (any status). */
async function waitHttp(url: string, proc: Proc, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited (code ${proc.child.exitCode}): ${lastLines(proc.output())}`);
    try {
      const r = await request(url, { headersTimeout: 1000, bodyTimeout: 1000 });
      await r.body.dump();
      return;
    } catch {}
    if (Date.now() > end) throw new Error(`${proc.name} did not answer on ${url} within ${timeoutMs} ms: ${lastLines(proc.output())}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export const portkey: Target = {
  name: 'portkey',
  async start(ctx) {
    if (!portkeyInstalled()) {
      if (!ctx.installPortkey)
        throw new Error('not installed (bench/portkey/node_modules missing; run without --quick, or with --portkey)');
      await installPortkey(ctx);
    }
    const port = await freePort();
    const proc = spawnProc('portkey', process.execPath, [PORTKEY_ENTRY, `--port=${port}`, '--headless'], {
      cpu: CPU_PROXY,
      nofile: ctx.nofile,
      cwd: PORTKEY_DIR,
      env: { NODE_ENV: 'production' },
    });
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitHttp(url, proc, 30_000);
    } catch (e) {
      await proc.stop();
      throw e;
    }
    return {
      url,
      headers: {
        ...json,
        authorization: `Bearer ${BENCH_KEY}`,
        'x-portkey-provider': 'openai',
        'x-portkey-custom-host': `${ctx.upstream}/v1`,
      },
      pid: proc.pid,
      stop: () => proc.stop(),
    };
  },
};

/**
 * The YAML the gateway is seeded with: one user, one key with the fixed value, one channel, one price;
 * `options` are added as given (the `gatehouse-allowance` target turns on QuotaAllowanceEnabled).
 */
export function gatehouseConfigYaml(upstream: string, options: Record<string, string | boolean> = {}): string {
  const opts = Object.entries(options);
  const models = [BENCH_MODEL, BENCH_CHAT_ONLY_MODEL, BENCH_CLAUDE_MODEL];
  return [
    'users:',
    '  - { username: bench, password: bench-password-1, role: user, group: default, quota_usd: 1000000 }',
    'keys:',
    `  - { user: bench, name: bench, key: ${BENCH_KEY}, models: [${models.join(', ')}], quota_usd: 1000000 }`,
    'channels:',
    `  - { name: bench-upstream, type: openai, base_url: "${upstream}", keys: [sk-upstream-bench], models: [${BENCH_MODEL}], groups: [default], priority: 0, weight: 1 }`,
    // The stream phases' other formats: a model whose channel has no Responses API (Responses calls are
    // converted to chat completions), and an Anthropic channel.
    `  - { name: bench-chat-only, type: openai, base_url: "${upstream}", keys: [sk-upstream-bench], models: [${BENCH_CHAT_ONLY_MODEL}], groups: [default], settings: { responses_api: false } }`,
    `  - { name: bench-anthropic, type: anthropic, base_url: "${upstream}", keys: [sk-upstream-bench], models: [${BENCH_CLAUDE_MODEL}], groups: [default] }`,
    'prices:',
    ...models.map((m) => `  ${m}: { input: 0.15, output: 0.6 }`),
    ...(opts.length ? ['options:', ...opts.map(([k, v]) => `  ${k}: ${v}`)] : []),
    '',
  ].join('\n');
}

let built = false;
/** Compiles the gateway once per run (`npm start` serves the same file). */
export function buildGateway(): void {
  if (built) return;
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build-gateway.mjs')], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('scripts/build-gateway.mjs failed');
  built = true;
}

/**
 * Gatehouse itself, as `npm start` runs it: `node --no-node-snapshot packages/gateway/bin/start.mjs serve`
 * (compiled) on a fresh SQLite database, seeded from the YAML above with `options`. `workers` sets
 * WORKERS (that many serving processes) and leaves the gateway on every CPU instead of pinning it to
 * CPU_PROXY. `databaseUrl` serves from that (empty) database instead of a fresh SQLite file.
 */
export function gatehouseTarget(
  name: string,
  options: Record<string, string | boolean>,
  o: { traced?: boolean; workers?: number; databaseUrl?: string } = {},
): Target {
  const traced = o.traced ?? false;
  return {
    name,
    async start(ctx) {
      // BENCH_GATEHOUSE_MAIN=<file>: serve another compiled build (comparing two builds side by side).
      const main = process.env.BENCH_GATEHOUSE_MAIN || join(ROOT, 'packages/gateway/bin/start.mjs');
      if (!process.env.BENCH_GATEHOUSE_MAIN) buildGateway();
      // The traced target exports every span (OTLP/HTTP) to a loopback sink that drops them.
      const sink = traced ? await startOtlpSink() : null;
      const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
      const config = join(dir, 'gatehouse.yaml');
      writeFileSync(config, gatehouseConfigYaml(ctx.upstream, options));
      const port = await freePort();
      // BENCH_CPU_PROF=<dir>: write a V8 CPU profile of the gateway there when it stops (open it in Chrome
      // DevTools or summarise it with `node bench/profile-summary.mjs <file>`).
      const profDir = process.env.BENCH_CPU_PROF;
      const interval = process.env.BENCH_CPU_PROF_INTERVAL;
      const prof = profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, ...(interval ? [`--cpu-prof-interval=${interval}`] : [])] : [];
      const entry = ['--no-node-snapshot', main, 'serve'];
      const proc = spawnProc(name, process.execPath, [...prof, ...entry], {
        cpu: o.workers ? undefined : CPU_PROXY,
        nofile: ctx.nofile,
        stopTimeoutMs: profDir ? 60_000 : 5000,
        env: {
          PORT: String(port),
          HOST: '127.0.0.1',
          DATABASE_URL: o.databaseUrl ?? `sqlite:${join(dir, 'bench.db')}`,
          CRYPTO_SECRET: randomBytes(32).toString('hex'),
          GATEHOUSE_ROOT_PASSWORD: randomBytes(12).toString('hex'),
          GATEHOUSE_CONFIG: config,
          LOG_LEVEL: process.env.BENCH_GATEHOUSE_LOG_LEVEL || 'warn',
          NODE_ENV: 'production',
          // The gateway's own speed is measured: no console build needed.
          CONSOLE_ENABLED: 'false',
          ...(o.workers ? { WORKERS: String(o.workers) } : {}),
          ...(sink ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'gatehouse-bench' } : {}),
        },
      });
      const cleanup = async () => {
        await proc.stop();
        await sink?.close();
        rmSync(dir, { recursive: true, force: true });
      };
      let url: string;
      try {
        url = (await waitForLine(proc, /listening on (http:\/\/\S+)/, 60_000))[1];
      } catch (e) {
        await cleanup();
        throw e;
      }
      return { url, headers: { ...json, authorization: `Bearer ${BENCH_KEY}` }, pid: proc.pid, stop: cleanup };
    },
  };
}

/** Gatehouse as installed: every call reserves and settles through the ledger. */
export const gatehouse = gatehouseTarget('gatehouse', {});
/** Gatehouse with node-local quota allowances (billing/allowance.ts). */
export const gatehouseAllowance = gatehouseTarget('gatehouse-allowance', { QuotaAllowanceEnabled: true });

/** Gatehouse as installed with OpenTelemetry traces on (platform/tracing.ts): what tracing costs per call. */
export const gatehouseTraced = gatehouseTarget('gatehouse-traced', {}, { traced: true });

/** Gatehouse as installed with WORKERS=2, unpinned: how serving scales with a second process. */
export const gatehouseWorkers = gatehouseTarget('gatehouse-workers', {}, { workers: 2 });

export const ALL_TARGETS: Target[] = [
  direct,
  forwarder,
  forwarderWorkers,
  portkey,
  gatehouse,
  gatehouseAllowance,
  gatehouseTraced,
  gatehouseWorkers,
];

/** A target by name; the two `-workers` targets with `workers` processes instead of two. */
export function targetNamed(name: string, workers = 2): Target | undefined {
  if (name === 'forwarder-workers') return forwarderWorkersTarget(workers);
  if (name === 'gatehouse-workers') return gatehouseTarget(name, {}, { workers });
  return ALL_TARGETS.find((t) => t.name === name);
}

/** An OTLP/HTTP receiver that accepts and drops what it is sent. */
async function startOtlpSink(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The request body every measurement sends (about 1 KB, like a short chat turn). */
export function chatBody(stream: boolean): string {
  const content = 'Summarise the following paragraph in one sentence. '.repeat(18).trim();
  const body: Record<string, unknown> = {
    model: BENCH_MODEL,
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content },
    ],
    // A stream's output bound covers the upstream's 64 events (about 500 tokens), as a client's would:
    // the stream phases measure relaying, not reserve extensions.
    max_tokens: stream ? 4096 : 64,
  };
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return JSON.stringify(body);
}

async function upstreamCount(upstream: string): Promise<number> {
  const r = await request(`${upstream}/__bench/stats`);
  return ((await r.body.json()) as { requests: number }).requests;
}

/**
 * Checks that a started target really relays: one JSON request and one short stream must succeed and
 * reach the upstream. Throws with the reason otherwise.
 */
export async function verifyTarget(t: RunningTarget, upstream: string): Promise<void> {
  const before = await upstreamCount(upstream);
  const r = await request(`${t.url}${CHAT_PATH}`, {
    method: 'POST',
    headers: t.headers,
    body: chatBody(false),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await r.body.text();
  if (r.statusCode !== 200) throw new Error(`probe: HTTP ${r.statusCode} ${text.slice(0, 200)}`);
  let parsed: { choices?: { message?: { content?: string } }[] };
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`probe: response is not JSON: ${text.slice(0, 120)}`);
  }
  if (!parsed.choices?.[0]?.message?.content) throw new Error(`probe: no choices in ${text.slice(0, 120)}`);
  const s = await request(`${t.url}${CHAT_PATH}`, {
    method: 'POST',
    headers: { ...t.headers, 'x-bench-chunks': '4', 'x-bench-gap-ms': '1' },
    body: chatBody(true),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const stext = await s.body.text();
  if (s.statusCode !== 200) throw new Error(`stream probe: HTTP ${s.statusCode} ${stext.slice(0, 200)}`);
  if (!stext.includes('data: [DONE]') && !stext.includes('data:[DONE]'))
    throw new Error(`stream probe: no [DONE] in ${stext.slice(0, 200)}`);
  const after = await upstreamCount(upstream);
  if (t.pid !== null && after - before < 2)
    throw new Error(`probe: the upstream saw ${after - before} of 2 requests (answered without relaying?)`);
}
