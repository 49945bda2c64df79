/**
 * Gemini generateContent / streamGenerateContent ⇄ canonical: the codec, in sections — requests
 * (request.ts), usage and finish reasons (usage.ts), event streams (stream.ts), answers
 * (response.ts) — and the vendor's message in an error body.
 */
import { isObj } from '../canonical.ts';
export { decodeRequest, encodeRequest } from './request.ts';
export { finishFromGemini, usageFromGemini, usageFromResponse, usageFromStreamEvent, usageToGemini } from './usage.ts';
export { createStreamDecoder, createStreamEncoder } from './stream.ts';
export { decodeResponse, encodeResponse, responseFromEvents } from './response.ts';

export function errorMessage(j: unknown): string | undefined {
  const e = Array.isArray(j) ? j[0] : j;
  if (isObj(e) && isObj(e.error) && typeof e.error.message === 'string') return e.error.message;
  return undefined;
}
