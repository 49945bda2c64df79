/**
 * The model list and model detail in the three shapes callers expect (docs/relay.md): OpenAI
 * (default), messages-style (when `anthropic-version` is sent) and Gemini-style (when the key came in
 * `x-goog-api-key` or `?key=`, and always under /v1beta/models). Each shape is its provider's
 * (relay/providers/<vendor>/models.ts).
 */
import type { FastifyRequest } from 'fastify';
import type { WireFormat } from '../relay/providers/canonical.ts';
import { formatProvider } from '../relay/providers/registry.ts';

/** Which shape a request to /v1/models expects. */
export function listFamily(req: FastifyRequest): 'openai' | 'anthropic' | 'gemini' {
  const h = req.headers;
  if (h['anthropic-version'] !== undefined) return 'anthropic';
  const q = (req.query as Record<string, unknown> | undefined)?.key;
  if (h['x-goog-api-key'] !== undefined || (typeof q === 'string' && q)) return 'gemini';
  return 'openai';
}

/** The model list in a family's shape (its provider's, relay/providers/<vendor>/models.ts). */
export function modelList(family: WireFormat, models: string[], query: Record<string, unknown>): unknown {
  return formatProvider(family).models!.list(models, query);
}

/** The model detail in a family's shape. */
export function modelDetail(family: WireFormat, id: string): unknown {
  return formatProvider(family).models!.model(id);
}
