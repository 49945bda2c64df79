/**
 * Google Vertex AI channels (type `vertex`): Gemini models through the publisher `google`
 * (`generateContent`, `streamGenerateContent?alt=sse`: the Gemini wire format) and Anthropic models —
 * every model whose name starts with `claude` — through the publisher `anthropic` (`rawPredict`,
 * `streamRawPredict`: the Anthropic wire format, with the model in the URL and `anthropic_version` in
 * the body). The channel's key is a service-account JSON key, exchanged for an access token
 * (platform/google-token.ts); the project is `settings.project_id`, else the key's `project_id`; the
 * location is `settings.region` (default `global`); `base_url`, when set, replaces
 * `https://{region}-aiplatform.googleapis.com`.
 */
import type { UpstreamChannel } from '../provider.ts';
import { parseServiceAccount } from '../../../platform/google-token.ts';

export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/** Anthropic's models on Vertex are named `claude-…`; every other model is Google's. */
export const isVertexAnthropic = (model: string): boolean => /^claude/i.test(model);

export function vertexRegion(ch: UpstreamChannel): string {
  const r = ch.settings.region;
  return typeof r === 'string' && r.trim() ? r.trim() : 'global';
}

/** The project of the channel: `settings.project_id`, else the `project_id` of its first key. */
export function vertexProject(ch: UpstreamChannel): string {
  const p = ch.settings.project_id;
  if (typeof p === 'string' && p.trim()) return p.trim();
  try {
    return parseServiceAccount(ch.keys[0] ?? '').projectId;
  } catch {
    return '';
  }
}

/** The model action URL of a Vertex call. */
export function vertexUrl(ch: UpstreamChannel, model: string, stream: boolean, geminiAction?: string): URL {
  const region = vertexRegion(ch);
  const host = ch.baseUrl || (region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`);
  const anthropic = isVertexAnthropic(model);
  const action = anthropic
    ? stream
      ? 'streamRawPredict'
      : 'rawPredict'
    : (geminiAction ?? (stream ? 'streamGenerateContent?alt=sse' : 'generateContent'));
  const m = encodeURIComponent(model.replace(/^models\//, ''));
  const path = `/v1/projects/${encodeURIComponent(vertexProject(ch))}/locations/${encodeURIComponent(region)}/publishers/${anthropic ? 'anthropic' : 'google'}/models/${m}`;
  return new URL(`${host.replace(/\/+$/, '')}${path}:${action}`);
}

/** An Anthropic body for Vertex: the model is in the URL, the API version in the body. */
export function toVertexAnthropicBody(b: Record<string, unknown>): void {
  delete b.model;
  b.anthropic_version = VERTEX_ANTHROPIC_VERSION;
}

/** An Anthropic body (its JSON text) for Vertex. */
export function vertexAnthropicBody(body: string | Buffer): string {
  const b = JSON.parse(typeof body === 'string' ? body : body.toString('utf8')) as Record<string, unknown>;
  toVertexAnthropicBody(b);
  return JSON.stringify(b);
}
