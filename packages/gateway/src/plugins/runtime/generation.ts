/**
 * A generation: the active version of every enabled plugin plus its native-route, protocol-claim and
 * channel-type indexes, built and checked as a whole and then published at once. Immutable.
 */
import { NativeRouteIndex } from './routes.ts';
import { foldModel, type NormalisedRoute } from './manifest.ts';
import type { LoadedPlugin } from './loader.ts';

export interface Generation {
  /** Local publish counter (increments on every publish on this node). */
  revision: number;
  /** The database revision of the plugin tables this generation was built from. */
  databaseRevision: number;
  publishedAt: number;
  plugins: Map<string, LoadedPlugin>;
  byChannelType: Map<number, LoadedPlugin>;
  routes: NativeRouteIndex<LoadedPlugin, NormalisedRoute>;
  /** Claiming plugins per protocol, in ascending key order; per-claim models on `plugin.claims`. */
  protocolClaims: { image: LoadedPlugin[]; video: LoadedPlugin[]; responses: LoadedPlugin[] };
  /** Folded model name → plugins that list it (shared models are allowed). */
  models: Map<string, LoadedPlugin[]>;
  /** Plugins that could not join this generation, by key. */
  errors: Record<string, string>;
}

/** Accumulates plugins, refusing one that conflicts with those already added. */
export class GenerationBuilder {
  readonly plugins = new Map<string, LoadedPlugin>();
  readonly byChannelType = new Map<number, LoadedPlugin>();
  readonly routes = new NativeRouteIndex<LoadedPlugin, NormalisedRoute>();
  private readonly spellings = new Map<string, { spelling: string; plugin: LoadedPlugin }>();

  /** Why `p` cannot join (naming the counterpart), or null. */
  conflict(p: LoadedPlugin): string | null {
    const other = this.plugins.get(p.key);
    if (other) return `plugin key "${p.key}" is already loaded (version ${other.version})`;
    for (const t of p.manifest.channelTypes) {
      const o = this.byChannelType.get(t);
      if (o) return `channel type ${t} is already owned by plugin "${o.key}"`;
    }
    for (const r of p.manifest.routes) {
      const o = this.routes.conflict(r.method, r.parsed.shape);
      if (o) return `route ${r.method} ${r.path} has the same shape as ${o.method} ${o.route.path} of plugin "${o.plugin.key}"`;
    }
    for (const m of p.manifest.models) {
      const o = this.spellings.get(foldModel(m));
      if (o && o.spelling !== m) return `model "${m}" differs only in case from "${o.spelling}" of plugin "${o.plugin.key}"`;
    }
    return null;
  }

  add(p: LoadedPlugin): void {
    this.plugins.set(p.key, p);
    for (const t of p.manifest.channelTypes) this.byChannelType.set(t, p);
    for (const r of p.manifest.routes) this.routes.add({ plugin: p, route: r, parsed: r.parsed, method: r.method });
    for (const m of p.manifest.models) if (!this.spellings.has(foldModel(m))) this.spellings.set(foldModel(m), { spelling: m, plugin: p });
  }

  tryAdd(p: LoadedPlugin): string | null {
    const c = this.conflict(p);
    if (!c) this.add(p);
    return c;
  }

  build(revision: number, databaseRevision: number, errors: Record<string, string>): Generation {
    const sorted = [...this.plugins.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
    const claims = (n: 'image' | 'video' | 'responses') => sorted.filter((p) => p.claims[n]);
    const models = new Map<string, LoadedPlugin[]>();
    for (const p of sorted)
      for (const m of p.manifest.models) {
        const f = foldModel(m);
        models.set(f, [...(models.get(f) ?? []), p]);
      }
    return Object.freeze({
      revision,
      databaseRevision,
      publishedAt: Date.now(),
      plugins: this.plugins,
      byChannelType: this.byChannelType,
      routes: this.routes,
      protocolClaims: { image: claims('image'), video: claims('video'), responses: claims('responses') },
      models,
      errors,
    });
  }

  /** A builder holding every plugin of `gen` except `exceptKey` (for upload preflight). */
  static from(gen: Generation, exceptKey?: string): GenerationBuilder {
    const b = new GenerationBuilder();
    for (const p of gen.plugins.values()) if (p.key !== exceptKey) b.add(p);
    return b;
  }
}

export function emptyGeneration(): Generation {
  return new GenerationBuilder().build(0, 0, {});
}
