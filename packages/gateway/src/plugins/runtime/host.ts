/**
 * The plugin host: compiles plugin versions (once per source hash), builds and publishes
 * generations from the database, and keeps the last rebuild's outcome for the status endpoint.
 * A request keeps the generation it started with (`current()` returns an immutable object); a
 * failed build leaves the previous generation serving.
 */
import type { Core } from '../../core.ts';
import { withTx } from '../../store/db.ts';
import { loadPlugin, type LoadedPlugin, type LoadOptions } from './loader.ts';
import { GenerationBuilder, emptyGeneration, type Generation } from './generation.ts';
import { cleanMessage, PluginCallError } from './errors.ts';
import { isGuardrailMeta, loadGuardrail, type LoadedGuardrail } from './guardrail.ts';
import { isMcpToolMeta, loadMcpTool, type LoadedMcpTool } from './mcp-tool.ts';
import type { GuardrailContext, GuardrailRunner, GuardrailStage, GuardrailVerdict } from '../../relay/guardrail-types.ts';

/** Name of the database revision bumped on every change of the plugin tables. */
export const PLUGINS_REVISION = 'task_plugins';

export interface RebuildOutcome {
  status: 'success' | 'partial' | 'failed' | 'never';
  attempted_at: number | null;
  generation: number;
  database_revision: number;
  plugin_error_count: number;
  error?: string;
}

/** An enabled plugin's active version, as a rebuild loads it. */
export interface ActiveSource {
  plugin_key: string;
  version: string;
  source: string;
  sha256: string;
  /** The stored manifest (JSON text): tells guardrails from task plugins. */
  manifest?: string;
}

export class PluginHost implements GuardrailRunner {
  /** The enabled guardrail plugins by key (rebuilt with the generation). */
  private guardrailMap = new Map<string, LoadedGuardrail>();
  guardrailErrors: Record<string, string> = {};
  /** The enabled MCP tool plugins by key (docs/mcp.md), rebuilt with the generation. */
  private mcpToolMap = new Map<string, LoadedMcpTool>();
  mcpToolErrors: Record<string, string> = {};
  private gen: Generation = emptyGeneration();
  private counter = 0;
  /** Compiled plugins by source sha256 (the versions of the current generation). */
  private readonly compiled = new Map<string, LoadedPlugin>();
  private chain: Promise<unknown> = Promise.resolve();
  lastRebuild: RebuildOutcome = { status: 'never', attempted_at: null, generation: 0, database_revision: 0, plugin_error_count: 0 };
  databaseError: string | null = null;
  /**
   * The enabled plugins' active versions, read from the plugin tables; the plugin administration,
   * which owns them (plugins/admin/service.ts), installs the reader.
   */
  activeSources: () => Promise<ActiveSource[]> = async () => [];
  /** Number of unfinished tasks of a plugin; the task lifecycle installs the real counter. */
  inFlightCounter: (key: string) => Promise<number> = async () => 0;

  constructor(
    private readonly core: Core,
    readonly loadOptions: LoadOptions,
  ) {}

  /** The newest published generation (immutable; keep it for the whole request). */
  current(): Generation {
    return this.gen;
  }

  /** Loads a source with the host's limits, reusing the compiled plugin of the same hash. */
  async load(source: string, sha256?: string): Promise<LoadedPlugin> {
    const hit = sha256 ? this.compiled.get(sha256) : undefined;
    if (hit) return hit;
    return loadPlugin(source, this.loadOptions);
  }

  /** Loads a plugin for one-off use (validation, dry run); the caller disposes it. */
  loadDetached(source: string): Promise<LoadedPlugin> {
    return loadPlugin(source, { ...this.loadOptions, poolSize: 1 });
  }

  async databaseRevision(): Promise<number> {
    return this.core.cache.read(PLUGINS_REVISION);
  }

  /** Marks the plugin tables changed (inside `tx`), so every node rebuilds. */
  bump(tx: Parameters<Core['cache']['bump']>[1]): Promise<void> {
    return this.core.cache.bump(PLUGINS_REVISION, tx);
  }

  /** Rebuilds from the database and publishes (serialised; concurrent calls queue). */
  rebuild(): Promise<Generation> {
    const run = this.chain.then(
      () => this.rebuildNow(),
      () => this.rebuildNow(),
    );
    this.chain = run.catch(() => {});
    return run;
  }

  private async rebuildNow(): Promise<Generation> {
    const attempted = Date.now();
    let rows: ActiveSource[];
    let dbRev: number;
    try {
      dbRev = await this.databaseRevision();
      rows = await this.activeSources();
      this.databaseError = null;
    } catch (e) {
      this.databaseError = cleanMessage((e as Error).message);
      this.lastRebuild = { ...this.lastRebuild, status: 'failed', attempted_at: attempted, error: `database: ${this.databaseError}` };
      this.core.log.warn({ err: this.databaseError }, 'plugin rebuild failed; the previous generation keeps serving');
      return this.gen;
    }
    const guardRows = rows.filter((r) => r.manifest && isGuardrailMeta(safeJson(r.manifest)));
    const toolRows = rows.filter((r) => r.manifest && isMcpToolMeta(safeJson(r.manifest)));
    rows = rows.filter((r) => !guardRows.includes(r) && !toolRows.includes(r));
    await this.rebuildGuardrails(guardRows);
    await this.rebuildMcpTools(toolRows);
    const old = this.gen;
    // Admission order: unchanged, then changed, then new plugins; each is tried against those before it.
    const rank = (r: { plugin_key: string; sha256: string }) => {
      const inc = old.plugins.get(r.plugin_key);
      return inc ? (inc.sha256 === r.sha256 ? 0 : 1) : 2;
    };
    rows.sort((a, b) => rank(a) - rank(b) || (a.plugin_key < b.plugin_key ? -1 : 1));
    const builder = new GenerationBuilder();
    const errors: Record<string, string> = {};
    for (const r of rows) {
      const incumbent = old.plugins.get(r.plugin_key);
      let p: LoadedPlugin | null = null;
      try {
        p = await this.load(r.source, r.sha256);
        if (p.key !== r.plugin_key) throw new Error(`the stored source declares key "${p.key}"`);
      } catch (e) {
        errors[r.plugin_key] = `version ${r.version}: ${cleanMessage((e as Error).message)}`;
        p = null;
      }
      if (p) {
        const c = builder.tryAdd(p);
        if (c) {
          errors[r.plugin_key] = `version ${r.version}: ${c}`;
          p = null;
        }
      }
      if (!p && incumbent && incumbent.sha256 !== r.sha256) {
        // A rejected update keeps the incumbent version serving.
        if (!builder.tryAdd(incumbent)) p = incumbent;
      }
      if (p) this.compiled.set(p.sha256, p);
    }
    const gen = builder.build(++this.counter, dbRev, errors);
    this.gen = gen;
    const live = new Set([...gen.plugins.values()].map((p) => p.sha256));
    for (const [sha, p] of this.compiled) {
      if (!live.has(sha)) {
        this.compiled.delete(sha);
        p.retire();
      }
    }
    const errCount = Object.keys(errors).length;
    this.lastRebuild = {
      status: errCount ? 'partial' : 'success',
      attempted_at: attempted,
      generation: gen.revision,
      database_revision: dbRev,
      plugin_error_count: errCount,
    };
    if (errCount) this.core.log.warn({ errors }, 'some task plugins were not loaded');
    return gen;
  }

  private async rebuildGuardrails(rows: ActiveSource[]): Promise<void> {
    const next = new Map<string, LoadedGuardrail>();
    const errors: Record<string, string> = {};
    for (const r of rows) {
      const old = this.guardrailMap.get(r.plugin_key);
      try {
        const g = old && old.sha256 === r.sha256 ? old : await loadGuardrail(r.source, this.loadOptions);
        if (g.key !== r.plugin_key) throw new Error(`the stored source declares key "${g.key}"`);
        next.set(g.key, g);
      } catch (e) {
        errors[r.plugin_key] = `version ${r.version}: ${cleanMessage((e as Error).message)}`;
        if (old) next.set(old.key, old);
      }
    }
    for (const [k, g] of this.guardrailMap) if (next.get(k) !== g) g.retire();
    this.guardrailMap = next;
    this.guardrailErrors = errors;
  }

  private async rebuildMcpTools(rows: ActiveSource[]): Promise<void> {
    const next = new Map<string, LoadedMcpTool>();
    const errors: Record<string, string> = {};
    for (const r of rows) {
      const old = this.mcpToolMap.get(r.plugin_key);
      try {
        const t = old && old.sha256 === r.sha256 ? old : await loadMcpTool(r.source, this.loadOptions);
        if (t.key !== r.plugin_key) throw new Error(`the stored source declares key "${t.key}"`);
        next.set(t.key, t);
      } catch (e) {
        errors[r.plugin_key] = `version ${r.version}: ${cleanMessage((e as Error).message)}`;
        if (old) next.set(old.key, old);
      }
    }
    for (const [k, t] of this.mcpToolMap) if (next.get(k) !== t) t.retire();
    this.mcpToolMap = next;
    this.mcpToolErrors = errors;
  }

  /** Loads an MCP tool plugin for one-off use (validation); the caller disposes it. */
  loadMcpToolDetached(source: string): Promise<LoadedMcpTool> {
    return loadMcpTool(source, { ...this.loadOptions, poolSize: 1 });
  }

  /** An enabled MCP tool plugin by key. */
  mcpTool(key: string): LoadedMcpTool | undefined {
    return this.mcpToolMap.get(key);
  }

  /** The enabled MCP tool plugins. */
  mcpTools(): LoadedMcpTool[] {
    return [...this.mcpToolMap.values()];
  }

  /** Loads a guardrail for one-off use (validation, tests against a sample); the caller disposes it. */
  loadGuardrailDetached(source: string): Promise<LoadedGuardrail> {
    return loadGuardrail(source, { ...this.loadOptions, poolSize: 1 });
  }

  guardrail(key: string): LoadedGuardrail | undefined {
    return this.guardrailMap.get(key);
  }

  has(key: string): boolean {
    return this.guardrailMap.has(key);
  }

  check(key: string, ctx: GuardrailContext, stage: GuardrailStage, texts: string[]): Promise<GuardrailVerdict> {
    const g = this.guardrailMap.get(key);
    if (!g) return Promise.reject(new PluginCallError(key, 'check', 'not_found', 'no enabled guardrail plugin has this key'));
    return g.check(ctx, stage, texts);
  }

  /** Runs `fn` in a transaction that bumps the plugin revision, then rebuilds this node. */
  async write<T>(fn: (tx: Parameters<Parameters<typeof withTx>[1]>[0]) => Promise<T>): Promise<T> {
    const out = await withTx(this.core.h, async (tx) => {
      const r = await fn(tx);
      await this.core.cache.bump(PLUGINS_REVISION, tx);
      return r;
    });
    await this.core.cache.afterCommit(PLUGINS_REVISION);
    return out;
  }

  async runtimeStatus() {
    let dbRev: number | null = null;
    try {
      dbRev = await this.databaseRevision();
      this.databaseError = null;
    } catch (e) {
      this.databaseError = cleanMessage((e as Error).message);
    }
    return {
      current_generation: this.gen.revision,
      generation_published_at: this.gen.revision ? Math.floor(this.gen.publishedAt / 1000) : null,
      database_revision: dbRev,
      ...(this.databaseError ? { database_error: this.databaseError } : {}),
      last_rebuild: {
        ...this.lastRebuild,
        attempted_at: this.lastRebuild.attempted_at ? Math.floor(this.lastRebuild.attempted_at / 1000) : null,
      },
      plugin_errors: { ...this.gen.errors },
      plugins: Object.fromEntries(
        [...this.gen.plugins.values()].map((p) => [p.key, { version: p.version, sha256: p.sha256, pool: p.poolStats }]),
      ),
    };
  }

  shutdown(): void {
    for (const g of this.guardrailMap.values()) g.dispose();
    this.guardrailMap.clear();
    for (const t of this.mcpToolMap.values()) t.dispose();
    this.mcpToolMap.clear();
    for (const p of this.compiled.values()) p.dispose();
    this.compiled.clear();
  }
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}
