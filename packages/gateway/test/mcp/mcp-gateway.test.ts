/**
 * The MCP gateway end to end: a loopback MCP server of the official SDK (requiring a header) is
 * registered through the admin API; the SDK's own client connects to /mcp with an API key, sees only
 * the namespaced tools of its allow-list, calls one and is charged once; a tool outside the list is
 * neither listed nor callable; an empty balance refuses the call before it goes upstream; a wrong key
 * gets 401.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { startFakeMcp, type FakeMcp } from '../fakes/upstreams/mcp.ts';
import { balance, createCaller, logsFor, setPrice, waitFor } from '../relay-fixtures.ts';

let gw: TestGateway;
let up: FakeMcp;
let admin: AdminClient;

before(async () => {
  up = await startFakeMcp();
  gw = await startTestGateway({ env: { CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  admin = await AdminClient.login(gw.url);
  const made = await admin.ok('POST', '/api/mcp/servers', { name: 'calc', url: up.url, headers: { 'X-MCP-Token': up.token } });
  // The header's value is sealed and never shown.
  assert.deepEqual(made.header_names, ['x-mcp-token']);
  assert.ok(!JSON.stringify(made).includes(up.token));
  assert.ok(!JSON.stringify(await admin.ok('GET', '/api/mcp/servers')).includes(up.token));
  await setPrice(gw, 'mcp:calc/add', { per_request: 0.002 }); // 1000 units per call
  await setPrice(gw, 'mcp:calc/*', { per_request: 0 });
});

after(async () => {
  await gw?.stop();
  await up?.close();
});

/** A caller whose key may use `tools` (set through the admin API). */
async function caller(tools: string[] | null, quota = 1_000_000) {
  const c = await createCaller(gw, { quota });
  await admin.ok('PUT', `/api/token/${c.keyId}`, { mcp_tools: tools });
  return c;
}

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

test('the admin API lists the upstream tools of a server', async () => {
  const tools = await admin.ok<{ name: string }[]>('GET', '/api/mcp/servers/calc/tools');
  assert.deepEqual(tools.map((t) => t.name).sort(), ['add', 'echo', 'secret']);
  assert.equal(up.lastHeaders?.['x-mcp-token'], up.token);
});

test('a key lists and calls the tools of its allow-list, charged once', async () => {
  const c = await caller(['calc/add', 'calc/echo']);
  const client = await connect(c.key);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['calc__add', 'calc__echo']);
  assert.equal(tools.find((t) => t.name === 'calc__add')?.description, 'Adds two numbers');

  const before = await balance(gw, c.userId);
  const callsBefore = up.calls.add ?? 0;
  const r = await client.callTool({ name: 'calc__add', arguments: { a: 2, b: 40 } });
  assert.deepEqual(r.content, [{ type: 'text', text: '42' }]);
  assert.equal(up.calls.add, callsBefore + 1);
  assert.equal(await balance(gw, c.userId), before - 1000);

  await gw.services.mcp.gateway.flushLogs();
  const rows = await gw.core.h.db.selectFrom('logs').selectAll().where('key_id', '=', c.keyId).execute();
  assert.equal(rows.length, 1);
  assert.equal(rows[0].type, 'mcp');
  assert.equal(rows[0].model, 'mcp:calc/add');
  assert.equal(Number(rows[0].quota), 1000);
  assert.equal(rows[0].endpoint, '/mcp');
  const ledger = await gw.services.billing.ledger.movements(rows[0].request_id);
  assert.equal(ledger.reserve, 1000);
  assert.equal(await logsFor(gw, rows[0].request_id).then((l) => l.length), 1);

  // A tool priced at 0 (the server's `*` price) is free.
  const e = await client.callTool({ name: 'calc__echo', arguments: { text: 'hi' } });
  assert.deepEqual(e.content, [{ type: 'text', text: 'echo: hi' }]);
  assert.equal(await balance(gw, c.userId), before - 1000);
  await client.close();
});

test('a tool outside the allow-list is neither listed nor callable', async () => {
  const c = await caller(['calc/add']);
  const client = await connect(c.key);
  assert.deepEqual(
    (await client.listTools()).tools.map((t) => t.name),
    ['calc__add'],
  );
  await assert.rejects(client.callTool({ name: 'calc__secret', arguments: {} }), /unknown tool: calc__secret/);
  await assert.rejects(client.callTool({ name: 'calc__echo', arguments: { text: 'x' } }), /unknown tool: calc__echo/);
  assert.equal(up.calls.secret ?? 0, 0);
  await client.close();

  // A key without an allow-list sees nothing.
  const none = await caller(null);
  const c2 = await connect(none.key);
  assert.deepEqual((await c2.listTools()).tools, []);
  await c2.close();
});

test('a call the balance cannot cover is refused before it goes upstream', async () => {
  const c = await caller(['calc/*'], 0);
  const client = await connect(c.key);
  const callsBefore = up.calls.add ?? 0;
  await assert.rejects(client.callTool({ name: 'calc__add', arguments: { a: 1, b: 1 } }), /quota/i);
  assert.equal(up.calls.add ?? 0, callsBefore);
  assert.equal(await balance(gw, c.userId), 0);
  await client.close();
});

test('a wrong key gets 401', async () => {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
    requestInit: { headers: { authorization: 'Bearer sk-wrong' } },
  });
  await assert.rejects(client.connect(transport), (e: unknown) => e instanceof StreamableHTTPError && e.code === 401);
  const res = await fetch(`${gw.url}/mcp`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk-wrong', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  assert.equal(res.status, 401);
  const body = (await res.json()) as { jsonrpc: string; error: { message: string } };
  assert.equal(body.jsonrpc, '2.0');
  assert.match(body.error.message, /key/i);
});

test('a server whose header is wrong shows its tools as unreachable; a private address is refused by default', async () => {
  await admin.ok('POST', '/api/mcp/servers', { name: 'nohdr', url: up.url });
  const refusedBefore = up.refused;
  const r = await admin.call('GET', '/api/mcp/servers/nohdr/tools');
  assert.equal(r.status, 502);
  assert.ok(up.refused > refusedBefore);
  // Editing the headers reconnects with them.
  await admin.ok('PUT', '/api/mcp/servers/nohdr', { headers: { 'x-mcp-token': up.token } });
  await waitFor(
    async () => (await admin.call('GET', '/api/mcp/servers/nohdr/tools')).status === 200,
    5000,
    'tools after the header change',
  );
  await admin.ok('DELETE', '/api/mcp/servers/nohdr');
  await admin.fails(404, 'GET', '/api/mcp/servers/nohdr');
  await admin.fails(400, 'POST', '/api/mcp/servers', { name: 'Bad_Name', url: up.url });

  // Without CONTENT_ALLOW_PRIVATE_ADDRESSES a loopback server is refused when registered.
  const strict = await startTestGateway();
  try {
    const a = await AdminClient.login(strict.url);
    const refused = await a.fails(400, 'POST', '/api/mcp/servers', { name: 'calc', url: up.url });
    assert.match(refused.body.message, /public address/);
  } finally {
    await strict.stop();
  }
});

test('a server behind OAuth client credentials: the gateway takes a token and calls through', async () => {
  const secured = await startFakeMcp('oauth-access-token-456', { clientId: 'gatehouse', clientSecret: 'oauth-client-secret-789' });
  try {
    const issuer = secured.url.replace(/\/mcp$/, '');
    const made = await admin.ok('POST', '/api/mcp/servers', {
      name: 'secured',
      url: secured.url,
      oauth: { client_id: 'gatehouse', client_secret: 'oauth-client-secret-789', issuer },
    });
    assert.deepEqual(made.oauth, { client_id: 'gatehouse', scope: null, issuer, client_secret_set: true });
    assert.ok(!JSON.stringify(made).includes('oauth-client-secret-789'));
    await setPrice(gw, 'mcp:secured/*', { per_request: 0.001 });
    const c = await caller(['secured/add']);
    const client = await connect(c.key);
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['secured__add'],
    );
    const r = await client.callTool({ name: 'secured__add', arguments: { a: 1, b: 2 } });
    assert.deepEqual(r.content, [{ type: 'text', text: '3' }]);
    assert.ok(secured.tokensIssued >= 1, 'a token was taken with the client credentials');
    assert.equal(secured.calls.add, 1);
    await client.close();
  } finally {
    await admin.call('DELETE', '/api/mcp/servers/secured');
    await secured.close();
  }
});

test('a server limited to user groups is reached only by keys of those groups', async () => {
  await admin.ok('POST', '/api/mcp/servers', { name: 'vipcalc', url: up.url, headers: { 'x-mcp-token': up.token }, groups: ['vip'] });
  try {
    await setPrice(gw, 'mcp:vipcalc/*', { per_request: 0 });
    const plain = await caller(['vipcalc/*']);
    const c1 = await connect(plain.key);
    assert.deepEqual((await c1.listTools()).tools, []);
    await assert.rejects(c1.callTool({ name: 'vipcalc__add', arguments: { a: 1, b: 1 } }), /unknown tool/);
    await c1.close();
    const vip = await createCaller(gw, { quota: 1_000_000, group: 'vip' });
    await admin.ok('PUT', `/api/token/${vip.keyId}`, { mcp_tools: ['vipcalc/*'] });
    const c2 = await connect(vip.key);
    assert.deepEqual((await c2.listTools()).tools.map((t) => t.name).sort(), ['vipcalc__add', 'vipcalc__echo', 'vipcalc__secret']);
    await c2.close();
  } finally {
    await admin.call('DELETE', '/api/mcp/servers/vipcalc');
  }
});

test("a key's rate limit admits tool calls like model calls", async () => {
  const c = await caller(['calc/echo']);
  await admin.ok('PUT', `/api/token/${c.keyId}`, { rpm: 1 });
  const client = await connect(c.key);
  await client.callTool({ name: 'calc__echo', arguments: { text: 'one' } });
  const before = up.calls.echo;
  await assert.rejects(client.callTool({ name: 'calc__echo', arguments: { text: 'two' } }), /rate limit|requests per minute/i);
  assert.equal(up.calls.echo, before);
  await client.close();
});

test('the configuration file declares MCP servers and keys with MCP tools', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gh-mcp-yaml-'));
  const file = join(dir, 'gatehouse.yaml');
  writeFileSync(
    file,
    [
      'users:',
      '  - username: yaml-mcp',
      '    password: yaml-mcp-password',
      '    quota_usd: 1',
      'keys:',
      '  - user: yaml-mcp',
      '    name: agents',
      `    key: sk-yamlmcp${'x'.repeat(30)}`,
      '    mcp_tools: [calc/add]',
      'prices:',
      '  "mcp:calc/*": { per_request: 0 }',
      'mcp_servers:',
      '  - name: calc',
      `    url: ${up.url}`,
      '    headers: { X-MCP-Token: "${CALC_MCP_TOKEN}" }',
    ].join('\n'),
  );
  // The file's ${…} come from the process's environment.
  process.env.CALC_MCP_TOKEN = up.token;
  const fromFile = await startTestGateway({ env: { CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true', GATEHOUSE_CONFIG: file } });
  try {
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${fromFile.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer sk-yamlmcp${'x'.repeat(30)}` } },
      }),
    );
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['calc__add'],
    );
    assert.deepEqual((await client.callTool({ name: 'calc__add', arguments: { a: 5, b: 5 } })).content, [{ type: 'text', text: '10' }]);
    await client.close();
  } finally {
    await fromFile.stop();
    delete process.env.CALC_MCP_TOKEN;
    rmSync(dir, { recursive: true, force: true });
  }
});
