/**
 * The MCP servers page: root registers a loopback MCP server (of the official SDK, needing a header)
 * with its header, sees its tools under their /mcp names, and gives a key an allow-list; the header's
 * value is never shown again. An installed MCP tool plugin is listed beside the servers.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import {
  Api,
  assertAccessible,
  expectPage,
  expectText,
  launchBrowser,
  navLink,
  label,
  rootSession,
  screenshot,
  startConsoleGateway,
  tr,
  eventually,
  type ConsoleGateway,
} from './support.ts';
import { startFakeMcp, type FakeMcp } from '../../gateway/test/fakes/upstreams/mcp.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const L = 'en';
const WORDCOUNT = fileURLToPath(new URL('../../../examples/mcp-tools/wordcount.js', import.meta.url));

let gw: ConsoleGateway;
let up: FakeMcp;
let browser: Browser;

before(async () => {
  gw = await startConsoleGateway();
  up = await startFakeMcp();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await gw?.close();
  await up?.close();
});

test('root registers an MCP server, sees its tools and sets a key allow-list', async () => {
  const api = await Api.login(gw.url);
  const key = await api.ok<{ id: number; key: string }>('POST', '/api/token', { name: 'agent-key' });
  await api.ok('PUT', '/api/price', { model: 'mcp:calc/add', per_request: 0.002 });
  const me = await api.ok<{ id: number }>('GET', '/api/user/self');
  await api.ok('POST', `/api/user/${me.id}/quota`, { mode: 'add', amount_usd: 1 });

  const { ctx, page, problems } = await rootSession(browser, gw.url, L);
  await navLink(page, L, 'nav.mcp').click();
  await expectPage(page, L, 'nav.mcp');
  await page.getByRole('button', { name: tr(L, 'mcp.create') }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel(label(L, 'mcp.name')).fill('calc');
  await dialog.getByLabel(label(L, 'mcp.url')).fill(up.url);
  await dialog.getByLabel(label(L, 'mcp.headers')).fill(`x-mcp-token: ${up.token}`);
  await dialog.getByRole('button', { name: tr(L, 'common.save') }).click();
  await dialog.waitFor({ state: 'detached' });
  const table = page.getByRole('table', { name: tr(L, 'mcp.tableLabel') });
  await expectText(table, up.url);
  await expectText(table, 'x-mcp-token');
  await page.reload();
  await expectText(table, up.url);
  assert.ok(!(await page.content()).includes(up.token), 'the header value is never shown');

  // The server's tools, under the names keys see.
  await page.getByRole('button', { name: tr(L, 'mcp.toolsTitle', { name: 'calc' }) }).click();
  const tools = page.getByRole('table', { name: tr(L, 'mcp.toolsTableLabel') });
  await expectText(tools, 'calc__add');
  await expectText(tools, 'Adds two numbers');
  await assertAccessible(page, 'MCP tools dialog');
  await page.keyboard.press('Escape');
  await tools.waitFor({ state: 'detached' });

  // The key's allow-list.
  await page.getByLabel(label(L, 'mcp.key')).first().click();
  await page.getByRole('option', { name: /agent-key/ }).click();
  const allow = page.getByLabel(label(L, 'mcp.allowList')).first();
  await allow.fill('calc/add');
  await allow.press('Enter');
  await page.getByRole('button', { name: tr(L, 'mcp.saveAllowList') }).click();
  await eventually(
    async () => {
      const k = await api.ok<{ mcp_tools: string[] | null }>('GET', `/api/token/${key.id}`);
      assert.deepEqual(k.mcp_tools, ['calc/add']);
    },
    undefined,
    'the allow-list saved',
  );
  // An MCP tool plugin is listed beside the servers, its tools under their /mcp names.
  await api.ok('POST', '/api/plugin/mcp_tool', { source: readFileSync(WORDCOUNT, 'utf8') });
  // Afresh, without the "saved" notification.
  await page.reload();
  await expectText(table, up.url);
  const plugins = page.getByRole('table', { name: tr(L, 'mcp.pluginsTableLabel') });
  await expectText(plugins, 'wordcount__count, wordcount__top_words');
  await expectText(plugins, 'Word counter 1.0.0');
  await assertAccessible(page, 'MCP servers page');
  await screenshot(page, 'en-mcp-servers');
  problems.assertNone('MCP servers page');

  // A call through /mcp with the key shows on the Logs page as an MCP tool call.
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key.key}` } } }),
  );
  const result = await client.callTool({ name: 'calc__add', arguments: { a: 1, b: 2 } });
  assert.notEqual(result.isError, true, JSON.stringify(result));
  await client.close();
  // The page reads the logs once: it opens after the call's row is written (rows are written in batches).
  await eventually(
    async () => {
      const rows = await api.ok<{ items: { model: string | null }[] }>('GET', '/api/log');
      assert.ok(
        rows.items.some((r) => r.model === 'mcp:calc/add'),
        JSON.stringify(rows),
      );
    },
    15_000,
    'the tool call on the logs',
  );
  await navLink(page, L, 'nav.logs').click();
  await expectPage(page, L, 'nav.logs');
  await expectText(page.getByRole('table').first(), 'mcp:calc/add');
  await expectText(page.getByRole('table').first(), tr(L, 'status.mcp'));
  problems.assertNone('Logs page with an MCP call');
  await ctx.close();
});
