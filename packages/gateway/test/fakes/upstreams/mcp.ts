/**
 * A loopback MCP server built with the official SDK (McpServer over streamable HTTP, stateless): the
 * remote server the MCP gateway's tests register. Every request must carry `x-mcp-token: <token>`
 * (401 otherwise); it counts the calls of each tool and keeps the headers of the last request.
 * With `oauth`, it is instead an OAuth-protected resource and its own authorization server: requests
 * need a bearer token, which `POST /token` gives for the `client_credentials` grant to the client
 * (HTTP Basic authentication) — discovered through the protected-resource and authorization-server
 * metadata, as the MCP specification describes.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface FakeMcp {
  url: string;
  token: string;
  /** Calls of each tool. */
  calls: Record<string, number>;
  /** Requests refused for a missing or wrong token. */
  refused: number;
  lastHeaders: IncomingHttpHeaders | null;
  /** Access tokens given by `/token` (OAuth mode). */
  tokensIssued: number;
  close(): Promise<void>;
}

function build(fake: FakeMcp): McpServer {
  const s = new McpServer({ name: 'fake-calc', version: '1.0.0' });
  const count = (n: string) => (fake.calls[n] = (fake.calls[n] ?? 0) + 1);
  s.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
    count('add');
    return { content: [{ type: 'text', text: String(a + b) }] };
  });
  s.registerTool('echo', { description: 'Echoes a text', inputSchema: { text: z.string() } }, async ({ text }) => {
    count('echo');
    return { content: [{ type: 'text', text: `echo: ${text}` }] };
  });
  s.registerTool('secret', { description: 'A tool no key is given', inputSchema: {} }, async () => {
    count('secret');
    return { content: [{ type: 'text', text: 'the secret' }] };
  });
  return s;
}

export async function startFakeMcp(token = 'mcp-upstream-token-123', oauth?: { clientId: string; clientSecret: string }): Promise<FakeMcp> {
  const fake: FakeMcp = { url: '', token, calls: {}, refused: 0, lastHeaders: null, tokensIssued: 0, close: async () => {} };
  let base = '';
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    fake.lastHeaders = req.headers;
    const path = (req.url ?? '').split('?')[0];
    if (oauth && path.startsWith('/.well-known/oauth-protected-resource')) {
      return json(res, 200, { resource: `${base}/mcp`, authorization_servers: [base] });
    }
    if (oauth && path === '/.well-known/oauth-authorization-server') {
      return json(res, 200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        response_types_supported: ['code'],
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
    }
    if (oauth && path === '/token') {
      const parts: Buffer[] = [];
      for await (const c of req) parts.push(c as Buffer);
      const form = new URLSearchParams(Buffer.concat(parts).toString('utf8'));
      const basic = `Basic ${Buffer.from(`${encodeURIComponent(oauth.clientId)}:${encodeURIComponent(oauth.clientSecret)}`).toString('base64')}`;
      if (form.get('grant_type') !== 'client_credentials' || req.headers.authorization !== basic) {
        return json(res, 401, { error: 'invalid_client' });
      }
      fake.tokensIssued++;
      return json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
    }
    const presented = oauth ? req.headers.authorization === `Bearer ${token}` : req.headers['x-mcp-token'] === token;
    if (!presented) {
      if (oauth) {
        fake.refused++;
        return json(
          res,
          401,
          { error: 'invalid_token' },
          {
            'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
          },
        );
      }
      fake.refused++;
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'missing token' }, id: null }));
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
    const mcp = build(fake);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.url = `${base}/mcp`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
