/**
 * The upstream side of a converted call, for any channel: which wire format it speaks, whether it
 * serves a kind of call, its URL and headers (each from the channel type's provider, registry.ts), the
 * model name sent and the channel's body override.
 */
import { endpointOf } from './registry.ts';
import type { WireFormat } from './canonical.ts';
import type { RelayKind, UpstreamChannel, UpstreamRequest, UpstreamRequestContext } from './provider.ts';
import type { GoogleTokens } from '../../platform/google-token.ts';
import { isObj } from '../../platform/validate.ts';

export type { RelayKind } from './provider.ts';
export { channelFormat } from './registry.ts';
export { ANTHROPIC_CALLER_HEADERS, ANTHROPIC_VERSION } from './anthropic/endpoint.ts';
export { OPENAI_CALLER_HEADERS } from './openai/endpoint.ts';

/** What this module reads of a channel (relay/channels.ts RuntimeChannel has all of it). */
interface Channel extends UpstreamChannel {
  modelMapping: Record<string, string>;
  headerOverride: Record<string, string>;
  paramOverride: Record<string, unknown>;
}

/**
 * Whether a channel can serve a kind of call for a caller speaking `inbound`: chat on every channel;
 * completions and embeddings on OpenAI-format channels; Gemini embedding actions also on Gemini channels.
 */
export function supportsKind(ch: Pick<Channel, 'type'>, kind: RelayKind, inbound: WireFormat = 'openai'): boolean {
  return endpointOf(ch.type).supportsKind(kind, inbound);
}

/** The model name sent upstream: the channel's mapping of the client's model, else the same name. */
export function upstreamModel(ch: Pick<Channel, 'modelMapping'>, model: string): string {
  const m = ch.modelMapping[model];
  return typeof m === 'string' && m ? m : model;
}

/**
 * Upstream URLs by channel (a reloaded channel is a new object), then model, then call shape (kind,
 * streaming, Gemini action): parsed once, found without building a key per call.
 */
const urlCache = new WeakMap<UpstreamChannel, Map<string, Map<string, URL>>>();
/** The most models a channel's URLs are kept for (the cache is emptied beyond it). */
const URL_MODELS = 1000;

/**
 * The upstream URL of a call (the same object for the same call shape: read it, do not change it).
 * `geminiAction` names the Gemini model action of embedding calls (`embedContent`, `batchEmbedContents`).
 */
export function upstreamUrl(ch: UpstreamChannel, kind: RelayKind, model: string, stream: boolean, geminiAction?: string): Readonly<URL> {
  let byModel = urlCache.get(ch);
  if (!byModel) {
    byModel = new Map();
    urlCache.set(ch, byModel);
  }
  let shapes = byModel.get(model);
  if (!shapes) {
    if (byModel.size >= URL_MODELS) byModel.clear();
    shapes = new Map();
    byModel.set(model, shapes);
  }
  // The usual shapes are constant strings (kind, stream): no string is built for them.
  const k = geminiAction === undefined ? (stream ? STREAM_SHAPE[kind] : kind) : `${kind}\n${stream ? 1 : 0}\n${geminiAction}`;
  let u = shapes.get(k);
  if (!u) {
    u = endpointOf(ch.type).url(ch, kind, model, stream, geminiAction);
    shapes.set(k, u);
  }
  return u;
}

/** The cache key of a streamed call of each kind. */
const STREAM_SHAPE: Record<RelayKind, string> = {
  chat: 'chat stream',
  completions: 'completions stream',
  embeddings: 'embeddings stream',
};

/** Picks the caller's vendor headers of a same-family call (empty: nothing to forward). */
export function callerVendorHeaders(
  headers: Record<string, string | string[] | undefined>,
  names: readonly string[],
): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const n of names) {
    const v = headers[n];
    const s = Array.isArray(v) ? v.join(',') : v;
    if (s) (out ??= {})[n] = s;
  }
  return out;
}

/**
 * The upstream request headers: content type, the channel's auth, `caller` (the caller's own vendor
 * headers on a call in the upstream's format), then the channel's header override.
 */
export function upstreamHeaders(
  ch: Pick<Channel, 'type' | 'headerOverride'>,
  key: string,
  stream: boolean,
  caller?: Record<string, string>,
): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' };
  Object.assign(h, endpointOf(ch.type).authHeaders(key));
  if (caller) Object.assign(h, caller);
  for (const [k, v] of Object.entries(ch.headerOverride)) {
    if (typeof v === 'string') h[k.toLowerCase()] = v.replaceAll('{api_key}', key);
  }
  return h;
}

/**
 * The URL, headers and body of one upstream request with one key: the endpoint's own `prepare` when it
 * has one (Bedrock, Vertex), else `upstreamUrl` and `upstreamHeaders` with the key. Throws
 * UnusableKeyError (provider.ts) when the key cannot be used at all.
 */
export function prepareUpstream(ctx: Omit<UpstreamRequestContext, 'standard'>): Promise<UpstreamRequest> {
  const { channel: ch, kind, model, stream } = ctx;
  const standard = (credential: string) => ({
    url: upstreamUrl(ch, kind, model, stream, ctx.geminiAction),
    headers: upstreamHeaders(ch, credential, stream, ctx.callerHeaders),
  });
  const prepare = endpointOf(ch.type).prepare;
  if (prepare) return prepare({ ...ctx, standard });
  return Promise.resolve({ ...standard(ctx.key), body: ctx.body, secrets: [ctx.key] });
}

/** The upstream refused the credential (401) of a request prepared with `key`. */
export function upstreamAuthFailed(ch: Pick<UpstreamChannel, 'type'>, key: string, google?: GoogleTokens): void {
  endpointOf(ch.type).onAuthFailure?.(key, google);
}

/**
 * Applies a channel's body-parameter override to the upstream JSON body (after model mapping and
 * conversion): top-level keys are set, a null value removes the key, and an object value given
 * under a key that holds an object is merged one level deep.
 */
export function applyParamOverride(body: Record<string, unknown>, override: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(override)) {
    if (v === null) delete body[k];
    else if (isObj(v) && isObj(body[k])) body[k] = { ...(body[k] as object), ...v };
    else body[k] = v;
  }
}

export const hasOverride = (ch: Pick<Channel, 'paramOverride'>): boolean => Object.keys(ch.paramOverride).length > 0;
