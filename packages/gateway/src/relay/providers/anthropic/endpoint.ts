/**
 * Where calls to Anthropic channels (type `anthropic`) go (`{base}/v1/messages`) and how they
 * authenticate (`x-api-key` with `anthropic-version`).
 */
import type { UpstreamChannel } from '../provider.ts';

export const ANTHROPIC_VERSION = '2023-06-01';
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/**
 * The caller's headers that mean something to an Anthropic upstream: `anthropic-version` and
 * `anthropic-beta` (1M context, interleaved thinking, context management … are turned on by betas).
 */
export const ANTHROPIC_CALLER_HEADERS = ['anthropic-version', 'anthropic-beta'] as const;

export function anthropicUrl(ch: UpstreamChannel): URL {
  const base = ch.baseUrl;
  return new URL(/\/v1$/.test(base) ? `${base}/messages` : `${base}/v1/messages`);
}

export const anthropicAuthHeaders = (key: string): Record<string, string> => ({ 'x-api-key': key, 'anthropic-version': ANTHROPIC_VERSION });
