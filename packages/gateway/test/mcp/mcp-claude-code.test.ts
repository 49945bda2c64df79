/**
 * Claude Code (`claude -p`, offline) with its MCP configuration pointed at the gateway's /mcp (an
 * http server with the key in its headers): the loopback Anthropic vendor asks for the gateway's tool,
 * Claude Code calls it through /mcp, the loopback MCP server answers, and the vendor's second turn
 * reads the result. The tool call is logged and charged once to the key. The same with a tool of an
 * MCP tool plugin (the example word counter), answered from the plugin sandbox.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { agentCommand } from '../agents/clis.ts';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { sse, startFake, type FakeUpstream, type Recorded } from '../fakes/upstreams/common.ts';
import { startFakeMcp, type FakeMcp } from '../fakes/upstreams/mcp.ts';
import { createCaller, createChannel, setPrice } from '../relay-fixtures.ts';
import { AdminClient } from '../admin-client.ts';

const CLAUDE = agentCommand('claude');
/** Claude Code's name of the gateway's `calc__add` under the MCP server it calls `gh`. */
const CALC = { name: 'mcp__gh__calc__add', input: '{"a": 20, "b": 22}' };
/** The tool the loopback vendor asks for (the test sets it). */
let TOOL = CALC;

let gw: TestGateway;
let anthropic: FakeUpstream;
let up: FakeMcp;
let home: string;

const ev = (event: string, data: Record<string, unknown>) => ({ event, data: { type: event, ...data } });

function start(r: Recorded) {
  return ev('message_start', {
    message: {
      id: 'msg_mcp',
      type: 'message',
      role: 'assistant',
      model: r.body.model,
      content: [],
      stop_reason: null,
      usage: { input_tokens: 100, output_tokens: 1 },
    },
  });
}

/** The first turn that offers the tool asks for it; the turn carrying its result answers with that result. */
function vendor(r: Recorded, res: ServerResponse) {
  const offers = Array.isArray(r.body.tools) && r.body.tools.some((t: { name: string }) => t.name === TOOL.name);
  const results = (r.body.messages as { role: string; content: unknown }[])
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b: { type: string }) => b.type === 'tool_result') as { content: unknown }[];
  if (offers && results.length === 0) {
    return sse(
      res,
      [
        start(r),
        ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_mcp1', name: TOOL.name, input: {} } }),
        ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: TOOL.input } }),
        ev('content_block_stop', { index: 0 }),
        ev('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 10 } }),
        ev('message_stop', {}),
      ],
      0,
    );
  }
  const text = results.length ? `The tool said ${JSON.stringify(results.at(-1)!.content)}` : 'Nothing to do.';
  return sse(
    res,
    [
      start(r),
      ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
      ev('content_block_stop', { index: 0 }),
      ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 8 } }),
      ev('message_stop', {}),
    ],
    0,
  );
}

before(async () => {
  anthropic = await startFake((r, res) => {
    if (!r.path.startsWith('/v1/messages')) {
      res.writeHead(404).end();
      return;
    }
    return vendor(r, res);
  });
  up = await startFakeMcp();
  gw = await startTestGateway({ env: { CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  await createChannel(gw, {
    type: 14,
    baseUrl: anthropic.url,
    keys: ['sk-ant'],
    models: ['claude-sonnet-5', 'claude-haiku-4-5-20251001'],
    name: 'anthropic',
  });
  await setPrice(gw, 'claude-sonnet-5', { input: 3, output: 15 });
  await setPrice(gw, 'claude-haiku-4-5-20251001', { input: 1, output: 5 });
  await setPrice(gw, 'mcp:calc/add', { per_request: 0.002 });
  const admin = await AdminClient.login(gw.url);
  await admin.ok('POST', '/api/mcp/servers', { name: 'calc', url: up.url, headers: { 'x-mcp-token': up.token } });
  const wordcount = readFileSync(new URL('../../../../examples/mcp-tools/wordcount.js', import.meta.url), 'utf8');
  await admin.ok('POST', '/api/plugin/mcp_tool', { source: wordcount });
  await setPrice(gw, 'mcp:wordcount/count', { per_request: 0.004 });
  home = mkdtempSync(join(tmpdir(), 'gatehouse-claude-mcp-'));
});

after(async () => {
  await gw?.stop();
  await anthropic?.close();
  await up?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(CLAUDE.file, [...CLAUDE.args, ...args], {
      cwd: home,
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const t = setTimeout(() => p.kill('SIGKILL'), 90_000);
    p.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, out, err });
    });
  });
}

/** `claude -p prompt` with the gateway's /mcp as its MCP server `gh`, authenticated with `key`. */
function claude(key: string, prompt: string) {
  const config = join(home, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { gh: { type: 'http', url: `${gw.url}/mcp`, headers: { Authorization: `Bearer ${key}` } } } }),
  );
  return run(['-p', prompt, '--model', 'sonnet', '--mcp-config', config, '--strict-mcp-config', '--allowedTools', TOOL.name], {
    HOME: home,
    ANTHROPIC_BASE_URL: gw.url,
    ANTHROPIC_API_KEY: key,
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    CI: 'true',
    // The MCP tools are offered with the first request (not deferred behind tool search), and a
    // busy machine gets time to connect.
    ENABLE_TOOL_SEARCH: 'false',
    MCP_TIMEOUT: '60000',
  });
}

test('Claude Code calls a tool of the MCP gateway: answered by the MCP server, logged and charged once', async () => {
  const caller = await createCaller(gw, { quota: 50_000_000 });
  await gw.services.admin.keys.update(caller.keyId, gw.services.admin.keys.parse({ mcp_tools: ['calc/add'] }, 'update'), null);
  // The key sees the tool before Claude Code starts.
  const sdk = new Client({ name: 'check', version: '1.0.0' });
  await sdk.connect(
    new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${caller.key}` } } }),
  );
  assert.deepEqual(
    (await sdk.listTools()).tools.map((t) => t.name),
    ['calc__add'],
  );
  await sdk.close();
  const r = await claude(caller.key, 'Add 20 and 22 with the calc tool.');
  assert.equal(r.code, 0, `claude failed: ${r.out}\n${r.err}`);
  const offered = anthropic.requests.map((q) => (Array.isArray(q.body?.tools) ? q.body.tools.map((t: { name: string }) => t.name) : []));
  assert.match(r.out, /The tool said .*42/, `tools offered per request: ${JSON.stringify(offered)}\n${r.err}`);
  assert.equal(up.calls.add, 1);
  await gw.services.mcp.gateway.flushLogs();
  const rows = await gw.core.h.db.selectFrom('logs').selectAll().where('key_id', '=', caller.keyId).where('type', '=', 'mcp').execute();
  assert.equal(rows.length, 1);
  assert.equal(rows[0].model, 'mcp:calc/add');
  assert.equal(Number(rows[0].quota), 1000);
  const moved = await gw.services.billing.ledger.movements(rows[0].request_id);
  assert.equal(moved.reserve, 1000);
});

test('Claude Code calls a tool of an MCP tool plugin through the gateway, logged and charged once', async () => {
  TOOL = { name: 'mcp__gh__wordcount__count', input: '{"text": "one two three"}' };
  const caller = await createCaller(gw, { quota: 50_000_000 });
  await gw.services.admin.keys.update(caller.keyId, gw.services.admin.keys.parse({ mcp_tools: ['wordcount/count'] }, 'update'), null);
  try {
    const r = await claude(caller.key, 'Count the words of "one two three" with the wordcount tool.');
    assert.equal(r.code, 0, `claude failed: ${r.out}\n${r.err}`);
    assert.match(r.out, /The tool said .*words.*3/, r.err);
  } finally {
    TOOL = CALC;
  }
  await gw.services.mcp.gateway.flushLogs();
  const rows = await gw.core.h.db.selectFrom('logs').selectAll().where('key_id', '=', caller.keyId).where('type', '=', 'mcp').execute();
  assert.deepEqual(
    rows.map((x) => [x.model, Number(x.quota)]),
    [['mcp:wordcount/count', 2000]],
  );
});
