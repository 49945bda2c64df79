/**
 * Upstream adaptors: where a channel's request goes, how it authenticates and which wire format it
 * speaks. OpenAI-compatible vendors are configuration of one adaptor (base URL or `settings.preset`);
 * Azure OpenAI differs only in URL and auth header; Anthropic and Gemini speak their own formats and
 * are reached through the converters; Vertex AI speaks Anthropic's or Gemini's by model; Bedrock speaks
 * Converse (relay/providers/bedrock/endpoint.ts: its URL and signed headers depend on the key, so the relay asks it directly).
 */
import { ChannelType } from '../channel-types.ts';
import { openaiPathUrl, type RuntimeChannel } from '../channels.ts';
import type { WireFormat } from './index.ts';
import { isVertexAnthropic, vertexUrl } from './vertex/endpoint.ts';

export type RelayKind = 'chat' | 'completions' | 'embeddings';

export const ANTHROPIC_VERSION = '2023-06-01';
export const DEFAULT_AZURE_API_VERSION = '2024-10-21';

/** The wire format of a channel; on Vertex it depends on the (upstream) model: Anthropic's or Google's. */
export function channelFormat(type: number, model = ''): WireFormat {
  if (type === ChannelType.anthropic) return 'anthropic';
  if (type === ChannelType.gemini) return 'gemini';
  if (type === ChannelType.vertex) return isVertexAnthropic(model) ? 'anthropic' : 'gemini';
  if (type === ChannelType.bedrock) return 'bedrock';
  return 'openai';
}

/**
 * Whether a channel can serve a kind of call for a caller speaking `inbound`: chat on every channel;
 * completions and embeddings on OpenAI-format channels; Gemini embedding actions also on Gemini channels.
 */
export function supportsKind(ch: RuntimeChannel, kind: RelayKind, inbound: WireFormat = 'openai'): boolean {
  if (kind === 'chat') return true;
  if (ch.type === ChannelType.vertex || ch.type === ChannelType.bedrock) return false;
  const f = channelFormat(ch.type);
  return f === 'openai' || (kind === 'embeddings' && inbound === 'gemini' && f === 'gemini');
}

const OPENAI_PATH: Record<RelayKind, string> = { chat: 'chat/completions', completions: 'completions', embeddings: 'embeddings' };

/** The model name sent upstream: the channel's mapping of the client's model, else the same name. */
export function upstreamModel(ch: RuntimeChannel, model: string): string {
  const m = ch.modelMapping[model];
  return typeof m === 'string' && m ? m : model;
}

/** `geminiAction` names the Gemini model action for embedding calls (`embedContent`, `batchEmbedContents`). */
/** Upstream URLs by channel (a reloaded channel is a new object) and call shape: parsed once. */
const urlCache = new WeakMap<RuntimeChannel, Map<string, URL>>();

/** The upstream URL of a call (the same object for the same call shape: read it, do not change it). */
export function upstreamUrl(ch: RuntimeChannel, kind: RelayKind, model: string, stream: boolean, geminiAction?: string): Readonly<URL> {
  let m = urlCache.get(ch);
  if (!m) {
    m = new Map();
    urlCache.set(ch, m);
  }
  const k = `${kind}\n${model}\n${stream ? 1 : 0}\n${geminiAction ?? ''}`;
  let u = m.get(k);
  if (!u) {
    u = buildUrl(ch, kind, model, stream, geminiAction);
    if (m.size >= 1000) m.clear();
    m.set(k, u);
  }
  return u;
}

function buildUrl(ch: RuntimeChannel, kind: RelayKind, model: string, stream: boolean, geminiAction?: string): URL {
  const base = ch.baseUrl;
  switch (ch.type) {
    case ChannelType.azure: {
      const deployments = (ch.settings.deployments ?? {}) as Record<string, string>;
      const dep = deployments[model] ?? model;
      const ver =
        typeof ch.settings.api_version === 'string' && ch.settings.api_version ? ch.settings.api_version : DEFAULT_AZURE_API_VERSION;
      return new URL(`${base}/openai/deployments/${encodeURIComponent(dep)}/${OPENAI_PATH[kind]}?api-version=${encodeURIComponent(ver)}`);
    }
    case ChannelType.anthropic:
      return new URL(/\/v1$/.test(base) ? `${base}/messages` : `${base}/v1/messages`);
    case ChannelType.vertex:
      return vertexUrl(ch, model, stream, geminiAction);
    case ChannelType.bedrock:
      // The key's region picks the endpoint: the relay and the channel test use bedrockUrl with the key.
      throw new Error('bedrock URLs depend on the key: use bedrockUrl');
    case ChannelType.gemini: {
      const root = /\/v1(beta)?$/.test(base) ? base : `${base}/v1beta`;
      const m = encodeURIComponent(model.replace(/^models\//, ''));
      if (geminiAction) return new URL(`${root}/models/${m}:${geminiAction}`);
      return new URL(stream ? `${root}/models/${m}:streamGenerateContent?alt=sse` : `${root}/models/${m}:generateContent`);
    }
    default:
      return new URL(openaiPathUrl(ch, OPENAI_PATH[kind]));
  }
}

/**
 * The caller's headers that mean something to an Anthropic upstream: `anthropic-version` and
 * `anthropic-beta` (1M context, interleaved thinking, context management … are turned on by betas).
 */
export const ANTHROPIC_CALLER_HEADERS = ['anthropic-version', 'anthropic-beta'] as const;

/**
 * The caller's headers that mean something to an OpenAI upstream: `OpenAI-Beta`, and the session and
 * client request ids (OpenAI routes prompt-cache hits by them; Codex sends them on every turn).
 */
export const OPENAI_CALLER_HEADERS = [
  'openai-beta',
  'session_id',
  'session-id',
  'thread-id',
  'x-client-request-id',
  'conversation_id',
] as const;

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
export function upstreamHeaders(ch: RuntimeChannel, key: string, stream: boolean, caller?: Record<string, string>): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' };
  switch (ch.type) {
    case ChannelType.azure:
      h['api-key'] = key;
      break;
    case ChannelType.anthropic:
      h['x-api-key'] = key;
      h['anthropic-version'] = ANTHROPIC_VERSION;
      break;
    case ChannelType.gemini:
      h['x-goog-api-key'] = key;
      break;
    default:
      h.authorization = `Bearer ${key}`;
  }
  if (caller) Object.assign(h, caller);
  for (const [k, v] of Object.entries(ch.headerOverride)) {
    if (typeof v === 'string') h[k.toLowerCase()] = v.replaceAll('{api_key}', key);
  }
  return h;
}

/**
 * Applies a channel's body-parameter override to the upstream JSON body (after model mapping and
 * conversion): top-level keys are set, a null value removes the key, and an object value given
 * under a key that holds an object is merged one level deep.
 */
export function applyParamOverride(body: Record<string, unknown>, override: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(override)) {
    if (v === null) delete body[k];
    else if (isPlain(v) && isPlain(body[k])) body[k] = { ...(body[k] as object), ...v };
    else body[k] = v;
  }
}

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const hasOverride = (ch: RuntimeChannel): boolean => Object.keys(ch.paramOverride).length > 0;
