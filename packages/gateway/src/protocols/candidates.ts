/**
 * Candidate selection on a protocol path (docs/protocols.md): every plugin that claims the
 * model is a candidate; a Responses mode a candidate did not declare removes it before any hook runs;
 * each remaining candidate's `decodeRequest` runs, and only those returning a valid submit intent stay.
 * When every candidate refuses, the failures are reported grouped with their plugin keys.
 */
import { GatewayError, fail } from '../platform/errors.ts';
import { sanitizeHookText } from './hook-text.ts';
import { claimOf, foldModel, protocolHook, type PluginLike, type ProtocolKind, type ResponsesMode } from './plugin-like.ts';

export interface SubmitIntent {
  kind: 'submit';
  model: string;
  action?: string;
  requestBody?: unknown;
  originTaskIds?: string[];
}

export interface Candidate<P extends PluginLike = PluginLike> {
  plugin: P;
  intent: SubmitIntent;
}

/** Plugins of a generation that claim `model` under `protocol`, in ascending key order. */
export function claimants<P extends PluginLike>(plugins: Iterable<P>, protocol: ProtocolKind, model: string): P[] {
  const m = foldModel(model);
  const out: P[] = [];
  for (const p of plugins) {
    const claim = claimOf(p.manifest, protocol);
    if (claim && claim.models.some((x) => foldModel(x) === m)) out.push(p);
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** The canonical spelling of `model` among the claimants' declared models (first match). */
export function canonicalModel(plugins: PluginLike[], protocol: ProtocolKind, model: string): string {
  const m = foldModel(model);
  for (const p of plugins) {
    const hit = claimOf(p.manifest, protocol)?.models.find((x) => foldModel(x) === m);
    if (hit) return hit;
  }
  return model;
}

export function responsesMode(body: { stream?: unknown; background?: unknown }): ResponsesMode {
  if (body.stream !== undefined && typeof body.stream !== 'boolean') throw fail('invalid_request_error', 'stream must be a boolean');
  if (body.background !== undefined && typeof body.background !== 'boolean')
    throw fail('invalid_request_error', 'background must be a boolean');
  if (body.stream === true) return 'stream';
  if (body.background === true) return 'background';
  return 'sync';
}

const MODE_REFUSAL: Record<ResponsesMode, string> = {
  stream: 'Streaming is not supported for this model. Set "stream": false, or use "background": true and retrieve the response later.',
  background: 'Background mode is not supported for this model. Remove "background": true.',
  sync: 'Synchronous non-streaming requests are not supported for this model. Set "stream": true or "background": true.',
};

/** Keeps the claimants that declared `mode`; refuses with 400 (before any hook or billing) when none did. */
export function filterByMode<P extends PluginLike>(plugins: P[], mode: ResponsesMode): P[] {
  const kept = plugins.filter((p) => claimOf(p.manifest, 'responses')?.supports.includes(mode));
  if (kept.length === 0) throw fail('mode_not_supported', MODE_REFUSAL[mode]);
  return kept;
}

/** Checks a decoder's return value; returns the intent or a reason it is refused. */
export function checkSubmitIntent(value: unknown, plugin: PluginLike, pinnedModel: string): SubmitIntent | string {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'plugin returned an invalid request intent';
  const v = value as Record<string, unknown>;
  if ('renderer' in v) return 'plugin returned an invalid request intent (renderer is not allowed)';
  if (v.kind !== 'submit') return 'plugin returned an invalid request intent (kind must be "submit")';
  if (typeof v.model !== 'string' || !v.model.trim()) return 'plugin returned an intent without a model';
  if (foldModel(v.model) !== foldModel(pinnedModel)) return `plugin resolved model "${v.model}", not the requested "${pinnedModel}"`;
  if (!plugin.manifest.models.some((m) => foldModel(m) === foldModel(v.model as string)))
    return `model "${v.model}" is not declared by the plugin`;
  if (v.action !== undefined && (typeof v.action !== 'string' || v.action !== v.action.trim())) return 'plugin returned an invalid action';
  if (v.originTaskIds !== undefined && (!Array.isArray(v.originTaskIds) || v.originTaskIds.some((x) => typeof x !== 'string'))) {
    return 'originTaskIds must be an array of strings';
  }
  return {
    kind: 'submit',
    model: pinnedModel,
    ...(typeof v.action === 'string' && v.action ? { action: v.action } : {}),
    ...(v.requestBody !== undefined ? { requestBody: v.requestBody } : {}),
    ...(Array.isArray(v.originTaskIds) ? { originTaskIds: v.originTaskIds as string[] } : {}),
  };
}

/** Runs one plugin's decodeRequest and checks the intent; throws a 400 with the plugin's reason. */
export async function decodeWith(plugin: PluginLike, protocol: ProtocolKind, ctx: { model: string }): Promise<SubmitIntent> {
  let out: unknown;
  try {
    out = await plugin.call(protocolHook(plugin, protocol, 'decodeRequest'), ctx);
  } catch (e) {
    throw fail('plugin_request_invalid', sanitizeHookText(e));
  }
  const r = checkSubmitIntent(out, plugin, ctx.model);
  if (typeof r === 'string') throw fail('plugin_request_invalid', r);
  return r;
}

/** Groups refusals: `k1, k2: msg; k3: msg2` (a single candidate keeps its own message). */
export function groupRefusals(fails: Array<{ key: string; message: string }>): string {
  if (fails.length === 1) return fails[0].message;
  const byMsg = new Map<string, string[]>();
  for (const f of fails) byMsg.set(f.message, [...(byMsg.get(f.message) ?? []), f.key]);
  return [...byMsg].map(([msg, keys]) => `${keys.join(', ')}: ${msg}`).join('; ');
}

/**
 * Runs every candidate's decoder (they must be deterministic: the executing plugin decodes again after
 * channel choice). Returns the accepted candidates in key order; 400 with grouped reasons when none.
 */
export async function decodeCandidates<P extends PluginLike>(
  plugins: P[],
  protocol: ProtocolKind,
  ctx: { model: string } | ((p: P) => { model: string }),
): Promise<Candidate<P>[]> {
  const accepted: Candidate<P>[] = [];
  const fails: Array<{ key: string; message: string }> = [];
  for (const plugin of plugins) {
    try {
      accepted.push({ plugin, intent: await decodeWith(plugin, protocol, typeof ctx === 'function' ? ctx(plugin) : ctx) });
    } catch (e) {
      fails.push({ key: plugin.key, message: e instanceof GatewayError ? e.message : sanitizeHookText(e) });
    }
  }
  if (accepted.length === 0) throw fail('plugin_request_invalid', groupRefusals(fails));
  return accepted;
}
