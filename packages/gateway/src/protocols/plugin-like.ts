/**
 * The part of a loaded plugin the protocol and native-route hosts use, and the protocol-claim
 * lookups over its normalised manifest.
 */
import { PROTOCOL_ALIASES, type ResponsesMode } from '@gatehouse/plugin-sdk';
import type { LoadedPlugin } from '../plugins/runtime/loader.ts';
import type { NormalisedClaim, NormalisedManifest } from '../plugins/runtime/manifest.ts';

export { foldModel } from '../plugins/runtime/manifest.ts';
export type { ResponsesMode };

/** What the hosts call on a plugin (test doubles implement just this part of LoadedPlugin). */
export type PluginLike = Pick<LoadedPlugin, 'key' | 'version' | 'manifest' | 'call' | 'has'>;

export type ProtocolKind = 'image' | 'video' | 'responses';

/** Every spelling of a protocol's claim, the internal one first (`compat_image`, `openai_image`). */
export function protocolSpellings(protocol: ProtocolKind): string[] {
  const name = `compat_${protocol}`;
  return [name, ...Object.keys(PROTOCOL_ALIASES).filter((a) => PROTOCOL_ALIASES[a] === name)];
}

/** The plugin's claim of `protocol`, or null. */
export function claimOf(manifest: NormalisedManifest, protocol: ProtocolKind): NormalisedClaim | null {
  return manifest.protocols.find((c) => c.name === `compat_${protocol}`) ?? null;
}

/** The hook path of a protocol member, in whichever spelling the plugin exports. */
export function protocolHook(plugin: PluginLike, protocol: ProtocolKind, member: string): string {
  const claim = claimOf(plugin.manifest, protocol);
  const all = protocolSpellings(protocol);
  const names = claim ? [claim.name, ...all.filter((n) => n !== claim.name)] : all;
  for (const n of names) if (plugin.has(`protocols.${n}.${member}`)) return `protocols.${n}.${member}`;
  return `protocols.${names[0]}.${member}`;
}
