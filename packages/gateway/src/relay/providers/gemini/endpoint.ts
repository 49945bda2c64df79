/**
 * Where calls to Gemini API channels (type `gemini`) go (`{base}/v1beta/models/{model}:generateContent`,
 * `:streamGenerateContent?alt=sse`, or an embedding action) and how they authenticate (`x-goog-api-key`).
 */
import type { UpstreamChannel } from '../provider.ts';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';

/** `action` names the model action of embedding calls (`embedContent`, `batchEmbedContents`). */
export function geminiUrl(ch: UpstreamChannel, model: string, stream: boolean, action?: string): URL {
  const base = ch.baseUrl;
  const root = /\/v1(beta)?$/.test(base) ? base : `${base}/v1beta`;
  const m = encodeURIComponent(model.replace(/^models\//, ''));
  if (action) return new URL(`${root}/models/${m}:${action}`);
  return new URL(stream ? `${root}/models/${m}:streamGenerateContent?alt=sse` : `${root}/models/${m}:generateContent`);
}

export const geminiAuthHeaders = (key: string): Record<string, string> => ({ 'x-goog-api-key': key });
