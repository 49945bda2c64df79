/**
 * Anthropic Messages ⇄ canonical: the codec, in sections — requests (request.ts), usage and answers
 * (response.ts), event streams (stream.ts) — and the vendor's message in an error body.
 */
import { isObj } from '../canonical.ts';
export { DEFAULT_ANTHROPIC_MAX_TOKENS, decodeRequest, encodeRequest } from './request.ts';
export type { AnthropicEncodeOptions } from './request.ts';
export {
  decodeResponse,
  encodeResponse,
  finishFromAnthropic,
  usageFromAnthropic,
  usageFromResponse,
  usageFromStreamEvent,
  usageToAnthropic,
} from './response.ts';
export { createStreamDecoder, createStreamEncoder } from './stream.ts';

export function errorMessage(j: unknown): string | undefined {
  if (isObj(j) && j.type === 'error' && isObj(j.error) && typeof j.error.message === 'string') return j.error.message;
  return undefined;
}
