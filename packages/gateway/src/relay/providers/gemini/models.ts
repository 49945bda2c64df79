/** The Gemini-style model list (`pageSize`, an opaque `pageToken`) and model detail. */
import { fail } from '../../../platform/errors.ts';
import { pageSize } from '../model-page.ts';

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
