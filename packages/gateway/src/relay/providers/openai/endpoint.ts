/**
 * Where calls to OpenAI and OpenAI-compatible channels go (type `openai`: a base URL, or a preset's API
 * root from presets.ts) and how they authenticate (`Authorization: Bearer`): chat, completions and
 * embeddings, the pass-through calls (images, audio, Responses …), reads of stored responses and the
 * realtime WebSocket.
 */
import type { RelayKind, UpstreamChannel } from '../provider.ts';
import { OPENAI_COMPATIBLE_PRESETS } from './presets.ts';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com';

/** The OpenAI API path of each converted call kind. */
export const OPENAI_PATH: Record<RelayKind, string> = { chat: 'chat/completions', completions: 'completions', embeddings: 'embeddings' };

/**
 * The URL of an OpenAI API path (`chat/completions`, `responses/{id}` …) on an OpenAI-compatible
 * channel: appended to a preset's API root or to a base URL that ends in a version (`…/v1`, `…/v4`),
 * else after `/v1`.
 */
export function openaiPathUrl(ch: { baseUrl: string; apiRoot: boolean }, path: string): string {
  const base = ch.baseUrl;
  return ch.apiRoot || /\/v\d+$/.test(base) ? `${base}/${path}` : `${base}/v1/${path}`;
}

export const openaiAuthHeaders = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

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

/**
 * Whether an OpenAI-compatible channel's upstream has the Responses API: `settings.responses_api`, else
 * its preset's answer (true without a preset: an own base URL is taken to be OpenAI's API).
 */
export function hasResponsesApi(ch: UpstreamChannel): boolean {
  if (typeof ch.settings.responses_api === 'boolean') return ch.settings.responses_api;
  const preset = typeof ch.settings.preset === 'string' ? OPENAI_COMPATIBLE_PRESETS[ch.settings.preset] : undefined;
  return preset ? preset.responses === true : true;
}

export function supportsAlphaSearch(ch: UpstreamChannel): boolean {
  const s = ch.settings.supports;
  return Array.isArray(s) && s.includes('alpha_search');
}

/** Pass-through kinds: all of them (Responses when the upstream has it, alpha search only when declared). */
export function openaiServesPass(ch: UpstreamChannel, kind: string): boolean {
  if (kind === 'responses' || kind === 'responses_compact') return hasResponsesApi(ch);
  return kind !== 'alpha_search' || supportsAlphaSearch(ch);
}

export const openaiPassUrl = (ch: UpstreamChannel, path: string): URL => new URL(openaiPathUrl(ch, path));

/** Where a read of a stored response goes (`suffix` '' | '/cancel' | '/input_items'). */
export function openaiResponseUrl(ch: UpstreamChannel, id: string, suffix: string, query: string): URL {
  const q = query ? query.replace(/^\?/, '') : '';
  const u = openaiPassUrl(ch, `responses/${encodeURIComponent(id)}${suffix}`);
  if (q) u.search = q;
  return u;
}

export function openaiRealtimeUrl(ch: UpstreamChannel, model: string): string {
  const base = ch.baseUrl.replace(/^http/, 'ws');
  return openaiPathUrl({ baseUrl: base, apiRoot: ch.apiRoot }, `realtime?model=${encodeURIComponent(model)}`);
}
