/** A plugin stand-in for unit tests of the pure protocol code: hooks are plain functions. */
import type { Manifest } from '@gatehouse/plugin-sdk';
import { validateManifest } from '../plugins/runtime/manifest.ts';
import type { PluginLike } from './plugin-like.ts';

/** `manifest`: the fields a test cares about; the rest gets valid defaults and the host's normalisation. */
export function fakePlugin(
  manifest: Partial<Manifest> & { key: string },
  hooks: Record<string, (...a: unknown[]) => unknown>,
): PluginLike & { calls: string[] } {
  const calls: string[] = [];
  const normalised = validateManifest({
    apiVersion: 1,
    name: manifest.key,
    version: '1.0.0',
    author: { name: 'test' },
    models: [],
    fetchMode: 'per_task',
    ...manifest,
  });
  return {
    key: normalised.key,
    version: normalised.version,
    manifest: normalised,
    calls,
    has: (h) => typeof hooks[h] === 'function',
    async call(h, ...args) {
      calls.push(h);
      const f = hooks[h];
      if (!f) throw new Error(`hook ${h} not found`);
      return f(...args);
    },
  };
}
