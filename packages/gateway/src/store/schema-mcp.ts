/** Tables of the MCP gateway (migration 030). */

export interface McpServerRow {
  /** The namespace of the server's tools: letters, digits, `-`; the primary key. */
  name: string;
  /** The server's streamable HTTP endpoint. */
  url: string;
  /** SecretBox-sealed JSON object of headers sent upstream; null: none. */
  headers_sealed: string | null;
  /** SecretBox-sealed JSON OAuth client credentials; null: none. */
  oauth_sealed: string | null;
  /** JSON list of upstream tool names served; null: every tool the server lists. */
  tools: string | null;
  /** JSON list of user groups whose keys may reach the server; null: every group. */
  groups: string | null;
  description: string | null;
  enabled: number;
  created_at: number;
  updated_at: number;
}

export interface McpTables {
  mcp_servers: McpServerRow;
}
