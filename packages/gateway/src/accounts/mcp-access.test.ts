/** The MCP allow-lists of keys: what they accept and which tools they let through. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileMcpAllow, mcpAllowed, mcpServerAllowed, parseMcpAllowList } from './mcp-access.ts';

test('allow-list entries are server/tool or server/*', () => {
  assert.deepEqual(parseMcpAllowList(['github/*', 'docs/search', 'docs/search'], 'mcp_tools'), ['github/*', 'docs/search']);
  for (const bad of ['github', '/tool', 'Git_Hub/x', 'github/', 'github/a b', 'github/**'])
    assert.throws(() => parseMcpAllowList([bad], 'mcp_tools'), /mcp_tools/, bad);
});

test('a key sees the tools its list names, and nothing without a list', () => {
  const allow = compileMcpAllow(['github/*', 'docs/search']);
  assert.equal(mcpAllowed(allow, 'github', 'get_issue'), true);
  assert.equal(mcpAllowed(allow, 'docs', 'search'), true);
  assert.equal(mcpAllowed(allow, 'docs', 'delete'), false);
  assert.equal(mcpAllowed(allow, 'other', 'search'), false);
  assert.equal(mcpServerAllowed(allow, 'docs'), true);
  assert.equal(mcpServerAllowed(allow, 'doc'), false);
  assert.equal(compileMcpAllow(null), null);
  assert.equal(compileMcpAllow([]), null);
  assert.equal(mcpAllowed(null, 'github', 'get_issue'), false);
  assert.equal(mcpServerAllowed(undefined, 'github'), false);
});
