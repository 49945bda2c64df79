/** A plugin stand-in for unit tests of the pure protocol code: hooks are plain functions. */
import type { ManifestLike, PluginLike } from './plugin-like.ts';

export function fakePlugin(manifest: Partial<ManifestLike> & { key: string }, hooks: Record<string, (...a: unknown[]) => unknown>): PluginLike & { calls: string[] } {
  const calls: string[] = [];
  return {
    key: manifest.key,
    version: manifest.version ?? '1.0.0',
    manifest: { version: '1.0.0', models: [], ...manifest },
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
