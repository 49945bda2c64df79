/**
 * MCP tool plugins end to end: the example word counter is installed with POST /api/plugin/mcp_tool;
 * the official SDK's client lists and calls its tools through /mcp (namespaced by the plugin key),
 * charged once at the price of `mcp:<key>/<tool>` and logged; a key whose allow-list lacks the plugin
 * does not see it; a plugin that throws, loops forever or exhausts its memory answers a tool error result and is not
 * charged, and keeps serving afterwards. `gatehouse plugin validate` and `plugin test` check such a file.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { balance, createCaller, setPrice } from '../relay-fixtures.ts';

const BIN = fileURLToPath(new URL('../../bin/gatehouse.mjs', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../../../examples/mcp-tools/wordcount.js', import.meta.url));
const WORDCOUNT = readFileSync(EXAMPLE, 'utf8');
const HOSTILE = `export const meta = { apiVersion: 1, kind: 'mcp_tool', key: 'hostile', name: 'Hostile', version: '1.0.0', author: { name: 't' } };
export const tools = [
  { name: 'boom', inputSchema: { type: 'object' } },
  { name: 'loop', inputSchema: { type: 'object' } },
  { name: 'fine', inputSchema: { type: 'object' } },
  { name: 'hog', inputSchema: { type: 'object' } },
];
export function call(ctx, input) {
  if (input.name === 'boom') throw new Error('kaput');
  if (input.name === 'loop') for (;;) {}
  if (input.name === 'hog') { const a = []; for (;;) a.push(new Array(1e7).fill(1.5)); }
  return 'still here, ' + ctx.caller.key_name;
}`;

let gw: TestGateway;
let admin: AdminClient;

before(async () => {
  gw = await startTestGateway({ env: { PLUGIN_CALL_TIMEOUT_MS: '500' } });
  admin = await AdminClient.login(gw.url);
  const up = await admin.ok('POST', '/api/plugin/mcp_tool', { source: WORDCOUNT });
  assert.equal(up.plugin, 'wordcount');
  assert.deepEqual(up.meta.tools, ['count', 'top_words']);
  await admin.ok('POST', '/api/plugin/mcp_tool', { source: HOSTILE });
  await setPrice(gw, 'mcp:wordcount/count', { per_request: 0.002 }); // 1000 units per call
  await setPrice(gw, 'mcp:wordcount/*', { per_request: 0 });
  await setPrice(gw, 'mcp:hostile/*', { per_request: 0.004 }); // 2000 units per call
});

after(async () => {
  await gw?.stop();
});

function cli(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

test('plugin validate accepts the example and runs its fixture; it rejects a broken tool plugin naming the fault', async () => {
  const v = await cli(['plugin', 'validate', EXAMPLE]);
  assert.equal(v.code, 0, v.out);
  assert.match(v.out, /^ok wordcount@1\.0\.0 \(mcp_tool; tools count, top_words; sha256 [0-9a-f]{64}\)/);
  const t = await cli(['plugin', 'test', EXAMPLE, '--fixture', EXAMPLE.replace(/\.js$/, '.fixture.json')]);
  assert.equal(t.code, 0, t.out);
  assert.match(t.out, /4 passed, 0 failed/);
  const dir = mkdtempSync(join(tmpdir(), 'mcp-tool-'));
  try {
    const bad = join(dir, 'bad.js');
    writeFileSync(bad, HOSTILE.replace('export function call', 'export function run'));
    const r = await cli(['plugin', 'validate', bad]);
    assert.notEqual(r.code, 0);
    assert.match(r.out, /export run: an MCP tool plugin exports only meta, tools and call/);
    writeFileSync(bad, HOSTILE.replace("key: 'hostile'", "key: 'my_tools'"));
    assert.match((await cli(['plugin', 'validate', bad])).out, /meta\.key: must match .*no "_"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

async function caller(tools: string[] | null, quota = 1_000_000) {
  const c = await createCaller(gw, { quota });
  await admin.ok('PUT', `/api/token/${c.keyId}`, { mcp_tools: tools });
  return c;
}

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  return client;
}

async function logRows(keyId: number) {
  await gw.services.mcp.gateway.flushLogs();
  return gw.core.h.db.selectFrom('logs').selectAll().where('key_id', '=', keyId).orderBy('id').execute();
}

test('the admin API lists the installed MCP tool plugins; the task plugin endpoint refuses them', async () => {
  const list = await admin.ok<{ key: string; runtime_status: string }[]>('GET', '/api/plugin/mcp_tool');
  assert.deepEqual(
    list.map((p) => [p.key, p.runtime_status]),
    [
      ['hostile', 'registered'],
      ['wordcount', 'registered'],
    ],
  );
  const r = await admin.call('POST', '/api/plugin/task', { source: WORDCOUNT });
  assert.equal(r.body.success, false);
  assert.match(r.text, /MCP tool plugin: install it with POST \/api\/plugin\/mcp_tool/);
  // A tool list that is not valid is refused with the field named.
  const bad = await admin.call('POST', '/api/plugin/mcp_tool', {
    source: HOSTILE.replace("type: 'object' } },\n  { name: 'loop'", "type: 'array' } },\n  { name: 'loop'"),
  });
  assert.equal(bad.body.success, false);
  assert.match(bad.text, /tools\[0\]\.inputSchema: must be a JSON Schema of type \\"object\\"/);
});

test('the SDK client lists and calls a plugin tool through /mcp, charged once', async () => {
  const c = await caller(['wordcount/*']);
  const client = await connect(c.key);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['wordcount__count', 'wordcount__top_words']);
  const count = tools.find((t) => t.name === 'wordcount__count')!;
  assert.equal(count.description, 'Counts the words, characters and lines of a text.');
  assert.deepEqual(count.inputSchema.required, ['text']);

  const before = await balance(gw, c.userId);
  const r = await client.callTool({ name: 'wordcount__count', arguments: { text: 'one two three\nfour' } });
  assert.deepEqual(r.content, [{ type: 'text', text: '{"words":4,"characters":18,"lines":2}' }]);
  assert.ok(!r.isError);
  assert.equal(await balance(gw, c.userId), before - 1000);

  // A plain string answer is wrapped as text; this tool's price (the plugin's `*`) is 0.
  const top = await client.callTool({ name: 'wordcount__top_words', arguments: { text: 'b a b c b a', n: 2 } });
  assert.deepEqual(top.content, [{ type: 'text', text: 'b 3\na 2' }]);
  assert.equal(await balance(gw, c.userId), before - 1000);

  const rows = await logRows(c.keyId);
  assert.deepEqual(
    rows.map((x) => [x.type, x.model, Number(x.quota), x.endpoint]),
    [
      ['mcp', 'mcp:wordcount/count', 1000, '/mcp'],
      ['mcp', 'mcp:wordcount/top_words', 0, '/mcp'],
    ],
  );
  const moves = await gw.services.billing.ledger.movements(rows[0].request_id);
  assert.equal(moves.reserve, 1000);
  await client.close();
});

test('a key whose allow-list lacks the plugin neither sees nor calls its tools', async () => {
  const c = await caller(['wordcount/count']);
  const client = await connect(c.key);
  assert.deepEqual(
    (await client.listTools()).tools.map((t) => t.name),
    ['wordcount__count'],
  );
  await assert.rejects(client.callTool({ name: 'hostile__fine', arguments: {} }), /unknown tool: hostile__fine/);
  await assert.rejects(client.callTool({ name: 'wordcount__top_words', arguments: { text: 'x' } }), /unknown tool/);
  await client.close();

  const none = await caller(null);
  const c2 = await connect(none.key);
  assert.deepEqual((await c2.listTools()).tools, []);
  await c2.close();
});

test('a plugin that throws, loops forever or exhausts its memory answers a tool error result, uncharged, and keeps serving', async () => {
  const c = await caller(['hostile/*']);
  const client = await connect(c.key);
  const before = await balance(gw, c.userId);

  const boom = await client.callTool({ name: 'hostile__boom', arguments: {} });
  assert.equal(boom.isError, true);
  assert.match((boom.content as { text: string }[])[0].text, /the tool plugin "hostile" failed: .*kaput/);

  const loop = await client.callTool({ name: 'hostile__loop', arguments: {} });
  assert.equal(loop.isError, true);
  assert.match((loop.content as { text: string }[])[0].text, /the tool plugin "hostile" failed: .*timed out after 500 ms/);
  const hog = await client.callTool({ name: 'hostile__hog', arguments: {} });
  assert.equal(hog.isError, true);
  assert.match((hog.content as { text: string }[])[0].text, /the tool plugin "hostile" failed: .*memory limit/);
  assert.equal(await balance(gw, c.userId), before);

  const fine = await client.callTool({ name: 'hostile__fine', arguments: {} });
  assert.deepEqual(fine.content, [{ type: 'text', text: `still here, ${(await logRows(c.keyId))[0].key_name}` }]);
  assert.equal(await balance(gw, c.userId), before - 2000);

  const rows = await logRows(c.keyId);
  assert.deepEqual(
    rows.map((x) => [x.type, Number(x.quota)]),
    [
      ['error', 0],
      ['error', 0],
      ['error', 0],
      ['mcp', 2000],
    ],
  );
  await client.close();
});

test('a disabled tool plugin is neither listed nor callable; enabled again, it serves', async () => {
  const c = await caller(['wordcount/*']);
  const client = await connect(c.key);
  await admin.ok('POST', '/api/plugin/mcp_tool/wordcount/status', { enabled: false });
  assert.deepEqual((await client.listTools()).tools, []);
  await assert.rejects(client.callTool({ name: 'wordcount__count', arguments: { text: 'a' } }), /unknown tool: wordcount__count/);
  await admin.ok('POST', '/api/plugin/mcp_tool/wordcount/status', { enabled: true });
  const r = await client.callTool({ name: 'wordcount__count', arguments: { text: 'a b' } });
  assert.deepEqual(r.content, [{ type: 'text', text: '{"words":2,"characters":3,"lines":1}' }]);
  await client.close();
});
