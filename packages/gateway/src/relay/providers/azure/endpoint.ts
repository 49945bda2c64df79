/**
 * Azure OpenAI channels (type `azure`): the OpenAI wire format at deployment URLs
 * (`{base}/openai/deployments/{deployment}/{path}?api-version=…`; the deployment is
 * `settings.deployments[model]`, else the model), Responses at `/openai/responses`, the realtime
 * WebSocket at `/openai/realtime`, and the key in `api-key`.
 */
import type { UpstreamChannel } from '../provider.ts';

export const DEFAULT_AZURE_API_VERSION = '2024-10-21';
export const DEFAULT_AZURE_RESPONSES_API_VERSION = '2025-04-01-preview';

/** Pass-through kinds Azure OpenAI serves (deployment URLs; Responses at `/openai/responses`). */
const AZURE_PASS_KINDS = new Set<string>([
  'images',
  'image_edits',
  'audio_transcriptions',
  'audio_translations',
  'audio_speech',
  'responses',
  'moderations',
]);

export const azureServesPass = (_ch: UpstreamChannel, kind: string): boolean => AZURE_PASS_KINDS.has(kind);

export const azureAuthHeaders = (key: string): Record<string, string> => ({ 'api-key': key });

/** The API version of a channel's calls: `settings.api_version`, or `settings.responses_api_version` for Responses. */
export function azureApiVersion(ch: UpstreamChannel, responses = false): string {
  const v = ch.settings[responses ? 'responses_api_version' : 'api_version'];
  return typeof v === 'string' && v ? v : responses ? DEFAULT_AZURE_RESPONSES_API_VERSION : DEFAULT_AZURE_API_VERSION;
}

/** The API version of the realtime WebSocket: `settings.realtime_api_version`, else `settings.api_version`. */
export function azureRealtimeApiVersion(ch: UpstreamChannel): string {
  const s = ch.settings;
  return typeof s.realtime_api_version === 'string'
    ? s.realtime_api_version
    : typeof s.api_version === 'string'
      ? s.api_version
      : DEFAULT_AZURE_API_VERSION;
}

/** The deployment that serves a model. */
export function azureDeployment(ch: UpstreamChannel, model: string): string {
  const deployments = (ch.settings.deployments ?? {}) as Record<string, string>;
  return deployments[model] ?? model;
}

/** The URL of an OpenAI API path (`chat/completions`, `images/generations` …) on a model's deployment. */
export function azureDeploymentUrl(ch: UpstreamChannel, model: string, path: string): URL {
  const dep = encodeURIComponent(azureDeployment(ch, model));
  return new URL(`${ch.baseUrl}/openai/deployments/${dep}/${path}?api-version=${encodeURIComponent(azureApiVersion(ch))}`);
}

/** A pass-through call: Responses creates at `/openai/responses`, everything else on the deployment. */
export function azurePassUrl(ch: UpstreamChannel, path: string, model: string, responses: boolean): URL {
  if (responses) return new URL(`${ch.baseUrl}/openai/responses?api-version=${encodeURIComponent(azureApiVersion(ch, true))}`);
  return azureDeploymentUrl(ch, model, path);
}

/** Where a read of a stored response goes (`suffix` '' | '/cancel' | '/input_items'). */
export function azureResponseUrl(ch: UpstreamChannel, id: string, suffix: string, query: string): URL {
  const q = query ? query.replace(/^\?/, '') : '';
  return new URL(
    `${ch.baseUrl}/openai/responses/${encodeURIComponent(id)}${suffix}?api-version=${encodeURIComponent(azureApiVersion(ch, true))}${q ? `&${q}` : ''}`,
  );
}

export function azureRealtimeUrl(ch: UpstreamChannel, model: string): string {
  const base = ch.baseUrl.replace(/^http/, 'ws');
  const ver = azureRealtimeApiVersion(ch);
  return `${base}/openai/realtime?api-version=${encodeURIComponent(ver)}&deployment=${encodeURIComponent(azureDeployment(ch, model))}`;
}
