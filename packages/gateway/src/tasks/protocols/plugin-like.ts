/**
 * The part of a loaded plugin the protocol and native-route hosts use. Structural, so it matches the
 * runtime's LoadedPlugin without importing its internals.
 */

/** The manifest fields read here (a loose view of the SDK's Manifest). */
export interface ManifestLike {
  key: string;
  version: string;
  models: string[];
  upstreams?: readonly string[];
  routes?: readonly unknown[];
  protocols?: readonly unknown[];
  channelTypes?: readonly number[];
}
type Manifest = ManifestLike;

export interface PluginLike {
  key: string;
  version: string;
  manifest: ManifestLike;
  /** Calls a hook by dotted name (`protocols.compat_image.render`, `native.decodeSubmit`). */
  call(hook: string, ...args: unknown[]): Promise<unknown>;
  has(hook: string): boolean;
}

export type ProtocolKind = 'image' | 'video' | 'responses';
export type ResponsesMode = 'stream' | 'sync' | 'background';

export const PROTOCOL_SPELLINGS: Record<ProtocolKind, readonly [string, string]> = {
  image: ['compat_image', 'openai_image'],
  video: ['compat_video', 'openai_video'],
  responses: ['compat_responses', 'openai_responses'],
};

/** ASCII case fold used for model names. */
export const foldModel = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

export interface ProtocolClaimInfo {
  /** The spelling the plugin used (`compat_image` or `openai_image`); hooks live under it. */
  name: string;
  /** Models the claim covers (the claim's `models`, else every manifest model). */
  models: string[];
  /** Responses only; a bare `openai_responses` string supports every mode. */
  supports: ResponsesMode[];
}

/** The plugin's claim of `protocol`, or null. Accepts both spellings and string/object forms. */
export function claimOf(manifest: Manifest, protocol: ProtocolKind): ProtocolClaimInfo | null {
  const names = PROTOCOL_SPELLINGS[protocol];
  for (const c of (manifest.protocols ?? []) as unknown[]) {
    const name = typeof c === 'string' ? c : (c && typeof c === 'object' ? (c as { name?: unknown }).name : undefined);
    if (typeof name !== 'string' || !names.includes(name)) continue;
    const obj = typeof c === 'object' ? (c as { models?: unknown; supports?: unknown }) : {};
    const models = Array.isArray(obj.models) && obj.models.length ? (obj.models as string[]) : manifest.models;
    const supports = Array.isArray(obj.supports) ? (obj.supports as ResponsesMode[]) : (['stream', 'sync', 'background'] as ResponsesMode[]);
    return { name, models, supports: protocol === 'responses' ? supports : [] };
  }
  return null;
}

/** The hook path of a protocol member, in whichever spelling the plugin exports. */
export function protocolHook(plugin: PluginLike, protocol: ProtocolKind, member: string): string {
  const claim = claimOf(plugin.manifest, protocol);
  const names = claim ? [claim.name, ...PROTOCOL_SPELLINGS[protocol].filter((n) => n !== claim.name)] : [...PROTOCOL_SPELLINGS[protocol]];
  for (const n of names) if (plugin.has(`protocols.${n}.${member}`)) return `protocols.${n}.${member}`;
  return `protocols.${names[0]}.${member}`;
}
