/**
 * Connections to the remote MCP servers: one client of the official MCP SDK per server (streamable
 * HTTP), made when first needed and kept while the server's row is unchanged, and each server's tool
 * list, kept for a minute. Every request goes through `core.outbound.content`, so a server's address
 * is decided by platform/ssrf.ts on each connection (public only, unless
 * CONTENT_ALLOW_PRIVATE_ADDRESSES=true); an answer body is cut past MAX_ANSWER_BYTES. The SDK's client is
 * loaded by the first connection.
 */
import { fetch as undiciFetch } from 'undici';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Core } from '../core.ts';
import type { McpServerSpec } from './servers.ts';

/** How long a server's tool list is reused before it is asked again. */
export const TOOLS_TTL_MS = 60_000;
/** An upstream answer larger than this is refused. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** Time limit of one upstream request (list or call). */
export const UPSTREAM_TIMEOUT_MS = 120_000;

interface Conn {
  version: number;
  client: Promise<Client>;
  tools: { at: number; list: Promise<Tool[]> } | null;
}

export class McpUpstreams {
  private readonly conns = new Map<string, Conn>();
  private readonly fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;

  constructor(private readonly core: Core) {
    const dispatcher = core.outbound.content;
    this.fetch = async (url, init) => {
      const res = (await undiciFetch(url as string, { ...(init as object), dispatcher } as never)) as unknown as Response;
      return capped(res);
    };
  }

  private conn(spec: McpServerSpec): Conn {
    const cur = this.conns.get(spec.name);
    if (cur && cur.version === spec.version) return cur;
    if (cur) void this.drop(spec.name, cur);
    const c: Conn = { version: spec.version, client: this.connect(spec), tools: null };
    c.client.catch(() => {
      if (this.conns.get(spec.name) === c) this.conns.delete(spec.name);
    });
    this.conns.set(spec.name, c);
    return c;
  }

  private async connect(spec: McpServerSpec): Promise<Client> {
    const [{ Client }, { StreamableHTTPClientTransport }, { ClientCredentialsProvider }] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/client/auth-extensions.js'),
    ]);
    const authProvider = spec.oauth
      ? new ClientCredentialsProvider({
          clientId: spec.oauth.client_id,
          clientSecret: spec.oauth.client_secret,
          ...(spec.oauth.scope ? { scope: spec.oauth.scope } : {}),
          ...(spec.oauth.issuer ? { expectedIssuer: spec.oauth.issuer } : {}),
        } as ConstructorParameters<typeof ClientCredentialsProvider>[0])
      : undefined;
    const transport = new StreamableHTTPClientTransport(new URL(spec.url), {
      requestInit: { headers: spec.headers },
      fetch: this.fetch,
      ...(authProvider ? { authProvider } : {}),
    });
    const client = new Client({ name: 'gatehouse', version: '1' });
    await client.connect(transport, { timeout: UPSTREAM_TIMEOUT_MS });
    return client;
  }

  private async drop(name: string, c: Conn): Promise<void> {
    if (this.conns.get(name) === c) this.conns.delete(name);
    try {
      await (await c.client).close();
    } catch {
      /* already gone */
    }
  }

  /** Runs `fn` on the server's client; after a failure the connection is made again once. */
  private async withClient<T>(spec: McpServerSpec, fn: (c: Client) => Promise<T>): Promise<T> {
    const c = this.conn(spec);
    try {
      return await fn(await c.client);
    } catch (e) {
      await this.drop(spec.name, c);
      if (isToolLevel(e)) throw e;
      return fn(await this.conn(spec).client);
    }
  }

  /** The server's tools (those its row serves), from the list kept for TOOLS_TTL_MS. */
  async tools(spec: McpServerSpec): Promise<Tool[]> {
    const c = this.conn(spec);
    if (!c.tools || Date.now() - c.tools.at > TOOLS_TTL_MS) {
      const list = this.withClient(spec, async (cl) => {
        const out: Tool[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 50; page++) {
          const r = await cl.listTools(cursor ? { cursor } : {}, { timeout: UPSTREAM_TIMEOUT_MS });
          out.push(...r.tools);
          cursor = r.nextCursor;
          if (!cursor) break;
        }
        return out.filter((t) => !spec.tools || spec.tools.has(t.name));
      });
      c.tools = { at: Date.now(), list };
      list.catch(() => {
        if (c.tools?.list === list) c.tools = null;
      });
    }
    return c.tools.list;
  }

  /** Calls one tool upstream. */
  call(spec: McpServerSpec, tool: string, args: Record<string, unknown> | undefined, signal?: AbortSignal): Promise<CallToolResult> {
    return this.withClient(
      spec,
      (cl) =>
        cl.callTool({ name: tool, arguments: args ?? {} }, undefined, { timeout: UPSTREAM_TIMEOUT_MS, signal }) as Promise<CallToolResult>,
    );
  }

  /** Forgets connections of servers not in `keep` (or changed since). */
  prune(keep: ReadonlyMap<string, McpServerSpec>): void {
    for (const [name, c] of this.conns) {
      const s = keep.get(name);
      if (!s || s.version !== c.version) void this.drop(name, c);
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.conns].map(([n, c]) => this.drop(n, c)));
  }
}

/** An error the server answered for the call itself (JSON-RPC error): the connection is fine. */
function isToolLevel(e: unknown): boolean {
  return typeof (e as { code?: unknown })?.code === 'number' && (e as { name?: string }).name === 'McpError';
}

/** The response with its body cut (an error) past MAX_ANSWER_BYTES. */
function capped(res: Response): Response {
  if (!res.body || res.status === 204 || res.status === 205 || res.status === 304) return res;
  const len = Number(res.headers.get('content-length') ?? 0);
  if (len > MAX_ANSWER_BYTES) {
    void res.body.cancel();
    throw new Error(`the MCP server's answer is larger than ${MAX_ANSWER_BYTES} bytes`);
  }
  let seen = 0;
  const body = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        seen += chunk.byteLength;
        if (seen > MAX_ANSWER_BYTES) ctl.error(new Error(`the MCP server's answer is larger than ${MAX_ANSWER_BYTES} bytes`));
        else ctl.enqueue(chunk);
      },
    }),
  );
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
