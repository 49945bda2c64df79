/**
 * The model list and model detail in the three shapes callers expect (docs/relay.md): OpenAI
 * (default), messages-style (when `anthropic-version` is sent) and Gemini-style (when the key came in
 * `x-goog-api-key` or `?key=`, and always under /v1beta/models).
 */
import type { FastifyRequest } from 'fastify';
import { fail } from '../platform/errors.ts';

/** Which shape a request to /v1/models expects. */
export function listFamily(req: FastifyRequest): 'openai' | 'anthropic' | 'gemini' {
  const h = req.headers;
  if (h['anthropic-version'] !== undefined) return 'anthropic';
  const q = (req.query as Record<string, unknown> | undefined)?.key;
  if (h['x-goog-api-key'] !== undefined || (typeof q === 'string' && q)) return 'gemini';
  return 'openai';
}

export const openaiModel = (id: string) => ({ id, object: 'model', created: 0, owned_by: 'gatehouse' });

export function openaiModelList(models: string[]) {
  return { object: 'list', data: models.map(openaiModel) };
}

const EPOCH = new Date(0).toISOString();

export const anthropicModel = (id: string) => ({ type: 'model', id, display_name: id, created_at: EPOCH });

/** Messages-style list: `limit` (1–1000, default 20), `after_id` / `before_id` cursors. */
export function anthropicModelList(models: string[], q: Record<string, unknown>) {
  const limit = pageSize(q.limit, 20, 'limit');
  let start = 0;
  let end = models.length;
  if (typeof q.after_id === 'string' && q.after_id) start = models.indexOf(q.after_id) + 1;
  if (typeof q.before_id === 'string' && q.before_id) {
    end = Math.max(0, models.indexOf(q.before_id));
    start = Math.max(start, end - limit);
  }
  const page = models.slice(start, Math.min(end, start + limit));
  return {
    data: page.map(anthropicModel),
    has_more: start + page.length < end,
    first_id: page[0] ?? null,
    last_id: page[page.length - 1] ?? null,
  };
}

const isEmbedding = (id: string) => /embed/i.test(id);

export function geminiModel(id: string) {
  return {
    name: `models/${id}`,
    baseModelId: id,
    version: '001',
    displayName: id,
    description: '',
    supportedGenerationMethods: isEmbedding(id)
      ? ['embedContent', 'batchEmbedContents', 'countTokens']
      : ['generateContent', 'streamGenerateContent', 'countTokens'],
  };
}

/**
 * Gemini-style list: `pageSize` (1–1000, default 50) and an opaque `pageToken`. `nextPageToken` is
 * present only when another page follows (clients stop when it is absent).
 */
export function geminiModelList(models: string[], q: Record<string, unknown>) {
  const size = pageSize(q.pageSize, 50, 'pageSize');
  let offset = 0;
  if (typeof q.pageToken === 'string' && q.pageToken) {
    const m = /^o(\d+)$/.exec(Buffer.from(q.pageToken, 'base64url').toString('utf8'));
    if (!m) throw fail('invalid_request', 'pageToken is not valid');
    offset = Number(m[1]);
  }
  const page = models.slice(offset, offset + size);
  const out: { models: ReturnType<typeof geminiModel>[]; nextPageToken?: string } = { models: page.map(geminiModel) };
  if (offset + size < models.length) out.nextPageToken = Buffer.from(`o${offset + size}`).toString('base64url');
  return out;
}

function pageSize(v: unknown, dflt: number, name: string): number {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw fail('invalid_request', `${name} must be a non-negative integer`);
  return n === 0 ? dflt : Math.min(n, 1000);
}
