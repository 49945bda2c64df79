/**
 * OpenAI Chat Completions ⇄ canonical: the codec, in sections — thinking blocks (thinking.ts),
 * requests (request.ts), usage and answers (response.ts), chunk streams (stream.ts) — and the vendor's
 * message in an error body.
 */
import { isObj } from '../canonical.ts';
export { decodeRequest, encodeRequest } from './request.ts';
export {
  decodeResponse,
  encodeResponse,
  finishFromOpenAI,
  usageFromOpenAI,
  usageFromResponse,
  usageFromStreamEvent,
  usageToOpenAI,
} from './response.ts';
export { createStreamDecoder, createStreamEncoder } from './stream.ts';

export function errorMessage(j: unknown): string | undefined {
  if (!isObj(j)) return undefined;
  if (isObj(j.error) && typeof j.error.message === 'string') return j.error.message;
  if (typeof j.error === 'string') return j.error;
  if (typeof j.message === 'string') return j.message;
  return undefined;
}
