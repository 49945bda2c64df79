/**
 * What the lifecycle needs from the plugin runtime, stated structurally so the lifecycle depends on
 * the shape only: the current generation and, in it, loaded plugins whose hooks run in the sandbox.
 */
export interface UsageFieldLike {
  type?: 'number' | 'boolean';
  unit?: 'second' | 'count' | 'token' | 'credit';
  enum?: string[];
}
export type UsageSchemaLike = Record<string, UsageFieldLike>;

export interface ManifestLike {
  key: string;
  version: string;
  models: string[];
  fetchMode: 'per_task' | 'batch';
  baseUrl?: string;
  allowedHosts?: string[];
  upstreams?: string[];
  auth?: string | { type?: string };
  submitResponseTypes?: string[];
  requiredCapabilities?: string[];
}

export interface PluginLike {
  key: string;
  version: string;
  manifest: ManifestLike;
  call(hook: string, ...args: unknown[]): Promise<unknown>;
  has(hook: string): boolean;
  /** The runtime returns `{ schema, examples, profile }`; a bare schema is accepted too. */
  usageSchemaFor?(model: string, upstreamModel?: string): unknown;
}

export interface GenerationLike {
  revision: number | string;
  plugins: Map<string, PluginLike>;
}

export interface PluginSource {
  current(): GenerationLike;
}
