/**
 * Guardrail plugins (docs/guardrails.md): a single-file plugin of kind `guardrail` exporting `meta`
 * and one hook, `check(ctx, {stage, texts})`, run in the same sandbox as task plugins. This file
 * validates such a file and calls its hook, checking the verdict it returns.
 */
import { isObj } from '../../platform/validate.ts';
import { checkVerdict, type GuardrailContext, type GuardrailStage, type GuardrailVerdict } from '../../relay/guardrail-types.ts';
import { PluginSandbox, type Describe, type SandboxOptions } from './sandbox.ts';
import { PluginCallError, PluginLoadError } from './errors.ts';
import { openSandbox, type LoadOptions } from './loader.ts';

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
const META_FIELDS = new Set(['apiVersion', 'kind', 'key', 'name', 'version', 'author', 'description', 'config']);

export interface GuardrailManifest {
  apiVersion: 1;
  kind: 'guardrail';
  key: string;
  name: string;
  version: string;
  author: { name: string; url?: string };
  description?: string;
  /** Settings the plugin reads from `ctx.config` (keywords, patterns, a schema …). */
  config: Record<string, unknown>;
}

/** Whether a plugin's `meta` declares the guardrail kind. */
export function isGuardrailMeta(meta: unknown): boolean {
  return isObj(meta) && meta.kind === 'guardrail';
}

export function validateGuardrailManifest(raw: unknown): GuardrailManifest {
  const err = (field: string, msg: string): never => {
    throw new PluginLoadError(`meta.${field}: ${msg}`, field);
  };
  if (!isObj(raw)) throw new PluginLoadError('meta must be an object', 'meta');
  for (const k of Object.keys(raw)) if (!META_FIELDS.has(k)) err(k, 'is not a field of a guardrail manifest');
  if (raw.apiVersion !== 1) err('apiVersion', 'must be 1');
  if (raw.kind !== 'guardrail') err('kind', 'must be "guardrail"');
  if (typeof raw.key !== 'string' || !/^[a-z0-9][a-z0-9_-]*$/.test(raw.key) || raw.key.length > 30)
    err('key', 'must match ^[a-z0-9][a-z0-9_-]*$ and be at most 30 characters');
  if (typeof raw.name !== 'string' || !raw.name.trim()) err('name', 'must be a non-blank string');
  if (typeof raw.version !== 'string' || !SEMVER.test(raw.version)) err('version', 'must be a semantic version such as 1.0.0');
  const a = raw.author;
  if (!isObj(a) || typeof a.name !== 'string' || !a.name.trim()) err('author', 'must be {name, url?}');
  const author = a as { name: string; url?: unknown };
  if (author.url !== undefined && (typeof author.url !== 'string' || !/^https?:\/\/\S+$/.test(author.url)))
    err('author.url', 'must be an absolute http(s) URL');
  if (raw.description !== undefined && (typeof raw.description !== 'string' || raw.description.length > 512))
    err('description', 'must be a string of at most 512 characters');
  if (raw.config !== undefined && !isObj(raw.config)) err('config', 'must be an object (the default settings)');
  return {
    apiVersion: 1,
    kind: 'guardrail',
    key: raw.key as string,
    name: raw.name as string,
    version: raw.version as string,
    author: { name: author.name, ...(typeof author.url === 'string' ? { url: author.url } : {}) },
    ...(typeof raw.description === 'string' ? { description: raw.description } : {}),
    config: (raw.config as Record<string, unknown> | undefined) ?? {},
  };
}

function validateGuardrailExports(d: Describe): void {
  for (const [k, t] of Object.entries(d.exports)) {
    if (t === 'undefined' || k === 'meta') continue;
    if (k !== 'check') throw new PluginLoadError(`export ${k}: a guardrail exports only meta and check`, k);
  }
  if (d.exports.check !== 'function') throw new PluginLoadError('export check: is required (a function)', 'check');
}

/** One validated guardrail version: its manifest and `check()` into its isolate pool. */
export class LoadedGuardrail {
  constructor(
    readonly manifest: GuardrailManifest,
    readonly sha256: string,
    readonly source: string,
    private readonly sandbox: PluginSandbox,
  ) {}

  get rawManifest(): Record<string, unknown> {
    return { ...this.manifest };
  }
  get key(): string {
    return this.manifest.key;
  }
  get version(): string {
    return this.manifest.version;
  }

  /** Calls `check`; rejects with PluginCallError (timeout, memory, thrown, invalid verdict). */
  async check(ctx: GuardrailContext, stage: GuardrailStage, texts: string[]): Promise<GuardrailVerdict> {
    const config = ctx.config ? { ...this.manifest.config, ...ctx.config } : this.manifest.config;
    const args = JSON.stringify([
      { ...ctx, config },
      { stage, texts },
    ]);
    const out = await this.sandbox.call('check', args);
    if (out === undefined) throw new PluginCallError(this.key, 'check', 'not_found', 'the plugin does not export check');
    const v = JSON.parse(out) as unknown;
    const bad = checkVerdict(v, texts);
    if (bad) throw new PluginCallError(this.key, 'check', 'invalid_result', `invalid verdict: ${bad}`);
    return v as GuardrailVerdict;
  }

  /** `check` called as fixtures name it: `call('check', ctx, {stage, texts})` (the manifest's config unless ctx has one). */
  async call(hook: string, ...args: unknown[]): Promise<unknown> {
    if (hook !== 'check') throw new PluginCallError(this.key, hook, 'not_found', 'a guardrail exports only check');
    const ctx = isObj(args[0]) ? args[0] : {};
    const input = isObj(args[1]) ? args[1] : {};
    const texts = Array.isArray(input.texts) ? (input.texts as unknown[]).map(String) : [];
    const out = await this.sandbox.call(
      'check',
      JSON.stringify([
        { config: this.manifest.config, ...ctx },
        { stage: input.stage, texts },
      ]),
    );
    const v = JSON.parse(out ?? 'null') as unknown;
    const bad = checkVerdict(v, texts);
    if (bad) throw new PluginCallError(this.key, 'check', 'invalid_result', `invalid verdict: ${bad}`);
    return v;
  }

  get poolStats() {
    return this.sandbox.stats;
  }
  retire(): void {
    this.sandbox.retire();
  }
  dispose(): void {
    this.sandbox.dispose();
  }
}

/** Validates and loads a guardrail source. Throws PluginLoadError with a readable message. */
export async function loadGuardrail(source: string, opts: LoadOptions): Promise<LoadedGuardrail> {
  const { sandbox, describe, sha } = await openSandbox(source, opts, 'guardrail');
  try {
    if (describe.metaError) throw new PluginLoadError(`meta must be JSON: ${describe.metaError}`, 'meta');
    const manifest = validateGuardrailManifest(describe.meta);
    validateGuardrailExports(describe);
    Object.assign((sandbox as unknown as { opts: SandboxOptions }).opts, {
      label: `${manifest.key}@${manifest.version}`,
      key: manifest.key,
    });
    return new LoadedGuardrail(manifest, sha, source, sandbox);
  } catch (e) {
    sandbox.dispose();
    throw e;
  }
}
