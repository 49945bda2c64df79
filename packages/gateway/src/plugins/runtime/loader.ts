/**
 * Loading a plugin: syntax pre-check, sandbox, manifest and export validation. The result is a
 * LoadedPlugin: immutable facts about one version plus `call()` into its isolate pool.
 */
import { sha256Hex } from '../../platform/crypto.ts';
import { inSpan, tracer } from '../../platform/tracing.ts';
import { CAPABILITIES, PROTOCOL_ALIASES, type ProtocolName } from '@gatehouse/plugin-sdk';
import { PluginSandbox, type Describe, type SandboxOptions } from './sandbox.ts';
import { validateManifest, usageSchemaFor, type NormalisedClaim, type NormalisedManifest } from './manifest.ts';
import { PluginCallError, PluginLoadError } from './errors.ts';
import { checkHookResult } from './results.ts';

export const MAX_SOURCE_BYTES = 1024 * 1024;

export const DRIVER_HOOKS = [
  'buildSubmitRequest',
  'parseSubmitResponse',
  'buildQueryRequest',
  'parseTaskResult',
  'buildBatchQueryRequest',
  'parseBatchResult',
  'extractUsage',
  'extractUsageOnSubmit',
  'extractUsageOnComplete',
  'listArtifacts',
  'buildContentRequest',
  'parseSubmitEvent',
  'parseSubmitEventDelta',
] as const;
const FORBIDDEN_EXPORTS: Record<string, string> = {
  resolveRequest: 'declare routes and protocols instead',
  renderError: 'export native.error instead',
  renderers: 'name presenters in routes[].render instead',
};
const PROTOCOL_MEMBERS: Record<ProtocolName, string[]> = {
  compat_image: ['decodeRequest', 'render'],
  compat_video: ['decodeRequest', 'render'],
  compat_responses: ['decodeRequest', 'renderEvents', 'renderFinal'],
};

/**
 * Rejects `async`, `await`, `import` (and so `export … from`) outside comments and string/template
 * literals: plugins are synchronous and cannot import modules.
 */
export function precheckSyntax(src: string): void {
  let out = '';
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i];
    const d = src[i + 1];
    if (c === '/' && d === '/') {
      while (i < n && src[i] !== '\n') i++;
      out += ' ';
      continue;
    }
    if (c === '/' && d === '*') {
      const e = src.indexOf('*/', i + 2);
      i = e < 0 ? n : e + 2;
      out += ' ';
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      i++;
      while (i < n && src[i] !== c) {
        if (src[i] === '\\') i++;
        i++;
      }
      i++;
      out += ' "" ';
      continue;
    }
    out += c;
    i++;
  }
  const m = /(^|[^A-Za-z0-9_$])(async|await|import)([^A-Za-z0-9_$]|$)/.exec(out);
  if (m) throw new PluginLoadError(`unsupported plugin syntax "${m[2]}": plugins must be synchronous and cannot import modules`, 'source');
  if (/\bexport\b[^;]*\bfrom\s*""/.test(out))
    throw new PluginLoadError('unsupported plugin syntax "export … from": plugins cannot import modules', 'source');
}

export interface ExportShape {
  exports: Set<string>;
  /** Exported spelling of each claimed protocol (`openai_image` or `compat_image`). */
  protocolSpelling: Partial<Record<ProtocolName, string>>;
  batchStyle: 'contexts' | 'ids';
}

/** Checks required, paired, forbidden and unknown exports against the manifest. */
export function validateExports(man: NormalisedManifest, d: Describe): ExportShape {
  const err = (field: string, msg: string): never => {
    throw new PluginLoadError(`export ${field}: ${msg}`, field);
  };
  const present = (k: string) => d.exports[k] !== undefined && d.exports[k] !== 'undefined';
  const fn = (k: string) => d.exports[k] === 'function';
  const exports = new Set<string>();
  for (const [k, t] of Object.entries(d.exports)) {
    if (t === 'undefined') continue;
    if (k in FORBIDDEN_EXPORTS) err(k, `is no longer supported; ${FORBIDDEN_EXPORTS[k]}`);
    if (k === 'meta' || k === 'native' || k === 'protocols') continue;
    if (!(DRIVER_HOOKS as readonly string[]).includes(k)) err(k, 'is not a hook of the contract (unknown export)');
    if (t !== 'function') err(k, `must be a function, got ${t}`);
    exports.add(k);
  }
  for (const k of ['buildSubmitRequest', 'parseSubmitResponse', 'parseTaskResult']) if (!fn(k)) err(k, 'is required');
  if (man.fetchMode === 'per_task' && !fn('buildQueryRequest')) err('buildQueryRequest', 'is required for fetchMode "per_task"');
  if (man.fetchMode === 'batch')
    for (const k of ['buildBatchQueryRequest', 'parseBatchResult']) if (!fn(k)) err(k, 'is required for fetchMode "batch"');
  if (present('listArtifacts') !== present('buildContentRequest'))
    err(
      present('listArtifacts') ? 'buildContentRequest' : 'listArtifacts',
      'listArtifacts and buildContentRequest must be exported together',
    );
  const sse = man.submitResponseTypes.includes('sse');
  const delta = man.requiredCapabilities.includes('submit-sse-delta@1');
  if (sse && delta && !fn('parseSubmitEventDelta')) err('parseSubmitEventDelta', 'is required with submit-sse-delta@1');
  if (sse && !delta && !fn('parseSubmitEvent')) err('parseSubmitEvent', 'is required when submitResponseTypes includes "sse"');
  if (present('parseSubmitEvent') && !(sse && !delta))
    err(
      'parseSubmitEvent',
      sse
        ? 'is unused with submit-sse-delta@1 (export parseSubmitEventDelta only)'
        : 'is unused: add "sse" to submitResponseTypes or remove the hook',
    );
  if (present('parseSubmitEventDelta') && !(sse && delta))
    err(
      'parseSubmitEventDelta',
      'is unused: declare requiredCapabilities ["submit-sse-delta@1"] and submitResponseTypes ["json","sse"], or remove the hook',
    );

  // native
  if (present('native')) {
    if (d.exports.native !== 'object' || !d.native) err('native', 'must be an object of functions');
    for (const [k, t] of Object.entries(d.native ?? {})) {
      if (t !== 'function' && t !== 'undefined') err(`native.${k}`, `must be a function, got ${t}`);
      if (t === 'function') exports.add(`native.${k}`);
    }
  }
  man.routes.forEach((r, i) => {
    for (const f of ['decode', 'render'] as const) {
      const name = r[f];
      if (name && d.native?.[name] !== 'function')
        err(`native.${name}`, `is named by meta.routes[${i}].${f} but is not a function of the native export`);
    }
  });

  // protocols
  const protocolSpelling: Partial<Record<ProtocolName, string>> = {};
  if (present('protocols')) {
    if (d.exports.protocols !== 'object' || !d.protocols) err('protocols', 'must be an object');
    for (const [spelling, members] of Object.entries(d.protocols ?? {})) {
      if (members === 'undefined') continue;
      const name = (PROTOCOL_ALIASES[spelling] ?? spelling) as ProtocolName;
      if (!(name in PROTOCOL_MEMBERS)) err(`protocols.${spelling}`, 'is not a host protocol');
      const claim = man.protocols.find((p) => p.name === name);
      if (!claim) err(`protocols.${spelling}`, `implements ${name} but meta.protocols does not claim it`);
      if (protocolSpelling[name]) err(`protocols.${spelling}`, `implements ${name} twice (as ${protocolSpelling[name]} and ${spelling})`);
      if (typeof members !== 'object') err(`protocols.${spelling}`, 'must be an object of functions');
      protocolSpelling[name] = spelling;
      for (const [k, t] of Object.entries(members as Record<string, string>)) {
        if (t === 'undefined') continue;
        if (!PROTOCOL_MEMBERS[name].includes(k)) err(`protocols.${spelling}.${k}`, `is not a member of ${name} (unsupported member)`);
        if (t !== 'function') err(`protocols.${spelling}.${k}`, `must be a function, got ${t}`);
        exports.add(`protocols.${name}.${k}`);
      }
    }
  }
  for (const c of man.protocols) {
    const sp = protocolSpelling[c.name] ?? c.spelling;
    const has = (k: string) => exports.has(`protocols.${c.name}.${k}`);
    if (!has('decodeRequest')) err(`protocols.${sp}.decodeRequest`, `is required by the ${c.name} claim`);
    if (c.name !== 'compat_responses' && !has('render')) err(`protocols.${sp}.render`, `is required by the ${c.name} claim`);
    if (c.name === 'compat_responses') {
      const needEvents = c.supports.includes('stream');
      const needFinal = c.supports.includes('sync') || c.supports.includes('background');
      if (needEvents && !has('renderEvents')) err(`protocols.${sp}.renderEvents`, 'is required by supports "stream"');
      if (!needEvents && has('renderEvents')) err(`protocols.${sp}.renderEvents`, 'is unused: add "stream" to supports or remove the hook');
      if (needFinal && !has('renderFinal')) err(`protocols.${sp}.renderFinal`, 'is required by supports "sync"/"background"');
      if (!needFinal && has('renderFinal'))
        err(`protocols.${sp}.renderFinal`, 'is unused: add "sync" or "background" to supports or remove the hook');
    }
    if (c.name === 'compat_video' && !(exports.has('listArtifacts') && exports.has('buildContentRequest')))
      err('listArtifacts', 'compat_video needs listArtifacts and buildContentRequest (video content)');
  }
  const second = (d.batchParams[1] ?? '').trim();
  const batchStyle = /ids$/i.test(second) ? 'ids' : 'contexts';
  return { exports, protocolSpelling, batchStyle };
}

export interface LoadOptions extends Omit<SandboxOptions, 'label' | 'key' | 'capabilities'> {
  /** Calls whose result shape is not checked (dry runs). */
  skipResultChecks?: boolean;
}

/** One validated plugin version. Immutable apart from its isolate pool. */
export class LoadedPlugin {
  readonly claims: Partial<Record<'image' | 'video' | 'responses', NormalisedClaim>> = {};
  private readonly routeDecoders: Set<string>;

  constructor(
    readonly key: string,
    readonly version: string,
    readonly sha256: string,
    readonly manifest: NormalisedManifest,
    /** The manifest as the plugin wrote it (original spellings). */
    readonly rawManifest: Record<string, unknown>,
    readonly exports: Set<string>,
    readonly source: string,
    private readonly shape: ExportShape,
    private readonly sandbox: PluginSandbox,
  ) {
    for (const c of manifest.protocols) this.claims[c.name.slice('compat_'.length) as 'image' | 'video' | 'responses'] = c;
    this.routeDecoders = new Set(manifest.routes.flatMap((r) => (r.decode ? [r.decode] : [])));
  }

  /** `protocols.openai_image.render` → `protocols.compat_image.render`. */
  private canonical(hook: string): string {
    const p = hook.split('.');
    if (p[0] === 'protocols' && p[1] && PROTOCOL_ALIASES[p[1]]) p[1] = PROTOCOL_ALIASES[p[1]];
    return p.join('.');
  }

  has(hook: string): boolean {
    return this.exports.has(this.canonical(hook));
  }

  /** The batch argument style the plugin expects: TaskQueryContext objects or (older plugins) id strings. */
  get batchStyle(): 'contexts' | 'ids' {
    return this.shape.batchStyle;
  }

  /**
   * Calls a hook with JSON arguments (copied in) and returns its JSON result (copied out).
   * Rejects with PluginCallError: unknown hook, timeout, memory, thrown error, invalid result.
   */
  call(hook: string, ...args: unknown[]): Promise<unknown> {
    // A span per hook call when tracing is on (platform/tracing.ts).
    if (tracer)
      return inSpan(tracer, 'gatehouse.plugin_hook', { 'gatehouse.plugin': this.key, 'gatehouse.plugin.hook': hook }, () =>
        this.callHook(hook, args),
      );
    return this.callHook(hook, args);
  }

  private async callHook(hook: string, args: unknown[]): Promise<unknown> {
    const canon = this.canonical(hook);
    if (!this.exports.has(canon)) throw new PluginCallError(this.key, hook, 'not_found', 'the plugin does not export this hook');
    let target = canon;
    const p = canon.split('.');
    if (p[0] === 'protocols') target = ['protocols', this.shape.protocolSpelling[p[1] as ProtocolName] ?? p[1], ...p.slice(2)].join('.');
    if (canon === 'buildBatchQueryRequest' && this.shape.batchStyle === 'ids' && Array.isArray(args[1])) {
      args = [
        args[0],
        (args[1] as unknown[]).map((t) => (t && typeof t === 'object' ? String((t as { taskId?: unknown }).taskId ?? '') : t)),
        ...args.slice(2),
      ];
    }
    let argsJson: string;
    try {
      argsJson = JSON.stringify(args.map((a) => (a === undefined ? null : a)));
    } catch (e) {
      throw new PluginCallError(this.key, hook, 'runtime', `the hook arguments are not JSON: ${(e as Error).message}`);
    }
    const out = await this.sandbox.call(target, argsJson);
    if (out === undefined) throw new PluginCallError(this.key, hook, 'not_found', 'the plugin does not export this hook');
    const value = JSON.parse(out) as unknown;
    const bad = checkHookResult(canon, value, this.routeDecoders);
    if (bad) throw new PluginCallError(this.key, hook, 'invalid_result', `invalid return value: ${bad}`);
    return value;
  }

  /** Dry runs: any exported function by path, result not shape-checked. */
  async callRaw(hook: string, args: unknown[]): Promise<unknown> {
    const out = await this.sandbox.call(hook, JSON.stringify(args));
    if (out === undefined) throw new PluginCallError(this.key, hook, 'not_found', 'the plugin does not export this hook');
    return JSON.parse(out) as unknown;
  }

  usageSchemaFor(model: string, upstreamModel?: string) {
    return usageSchemaFor(this.manifest, model, upstreamModel);
  }

  /** Models served through a protocol claim (empty when not claimed). */
  claimModels(protocol: 'image' | 'video' | 'responses'): string[] {
    return this.claims[protocol]?.models ?? [];
  }

  retire(): void {
    this.sandbox.retire();
  }
  dispose(): void {
    this.sandbox.dispose();
  }
  get poolStats() {
    return this.sandbox.stats;
  }
}

export const DEFAULT_LOAD: LoadOptions = { timeoutMs: 5000, memoryMb: 64, poolSize: 2 };

/**
 * The first steps of loading any plugin kind: the source's size and syntax checked, then a sandbox made
 * from it (its module described). Throws PluginLoadError with a readable message.
 */
export async function openSandbox(
  source: string,
  opts: LoadOptions,
  kind: string,
): Promise<{ sandbox: PluginSandbox; describe: Describe; sha: string }> {
  if (typeof source !== 'string' || !source.trim()) throw new PluginLoadError('the plugin source is empty', 'source');
  if (Buffer.byteLength(source, 'utf8') > MAX_SOURCE_BYTES) throw new PluginLoadError('the plugin source is larger than 1 MiB', 'source');
  precheckSyntax(source);
  const sha = sha256Hex(source);
  try {
    const { sandbox, describe } = await PluginSandbox.create(source, {
      ...opts,
      label: `${kind}-${sha.slice(0, 8)}`,
      key: '(loading)',
      capabilities: CAPABILITIES,
    });
    return { sandbox, describe, sha };
  } catch (e) {
    throw new PluginLoadError(`the plugin module failed to load: ${(e as Error).message}`, 'source');
  }
}

/** Validates and loads a plugin source. Throws PluginLoadError with a readable message. */
export async function loadPlugin(source: string, opts: LoadOptions = DEFAULT_LOAD): Promise<LoadedPlugin> {
  const { sandbox, describe, sha } = await openSandbox(source, opts, 'plugin');
  try {
    if (describe.metaError) throw new PluginLoadError(`meta must be JSON: ${describe.metaError}`, 'meta');
    if (describe.exports.meta === undefined || describe.exports.meta === 'undefined')
      throw new PluginLoadError('the plugin must export `meta`', 'meta');
    if ((describe.meta as { kind?: unknown } | null)?.kind === 'guardrail')
      throw new PluginLoadError('this is a guardrail plugin: install it with POST /api/plugin/guardrail', 'meta');
    if ((describe.meta as { kind?: unknown } | null)?.kind === 'mcp_tool')
      throw new PluginLoadError('this is an MCP tool plugin: install it with POST /api/plugin/mcp_tool', 'meta');
    const manifest = validateManifest(describe.meta);
    const shape = validateExports(manifest, describe);
    // The sandbox was created before the key was known; later isolates use the real label.
    Object.assign((sandbox as unknown as { opts: SandboxOptions }).opts, {
      label: `${manifest.key}@${manifest.version}`,
      key: manifest.key,
    });
    return new LoadedPlugin(
      manifest.key,
      manifest.version,
      sha,
      manifest,
      describe.meta as Record<string, unknown>,
      shape.exports,
      source,
      shape,
      sandbox,
    );
  } catch (e) {
    sandbox.dispose();
    throw e;
  }
}
