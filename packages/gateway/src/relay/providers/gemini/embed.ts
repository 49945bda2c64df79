import { isObj } from '../canonical.ts';
/**
 * Gemini embedding actions (`:embedContent`, `:batchEmbedContents`) and their mapping to the OpenAI
 * embeddings call, for Gemini callers served by OpenAI-format channels.
 */
export type GeminiEmbedAction = 'embedContent' | 'batchEmbedContents';

function contentText(c: unknown): string | null {
  if (!isObj(c) || !Array.isArray(c.parts)) return null;
  let t = '';
  for (const p of c.parts) if (isObj(p) && typeof p.text === 'string') t += p.text;
  return t;
}

/** The texts to embed, or null when the body is not a valid request of that action. */
export function embedTexts(body: Record<string, unknown>, action: GeminiEmbedAction): string[] | null {
  if (action === 'embedContent') {
    const t = contentText(body.content);
    return t === null ? null : [t];
  }
  if (!Array.isArray(body.requests) || body.requests.length === 0) return null;
  const out: string[] = [];
  for (const r of body.requests) {
    const t = isObj(r) ? contentText(r.content) : null;
    if (t === null) return null;
    out.push(t);
  }
  return out;
}

/**
 * The body for a Gemini channel: null (send as received) unless the channel maps the model, in which
 * case batch requests name the upstream model.
 */
export function geminiEmbedPassBody(
  body: Record<string, unknown>,
  action: GeminiEmbedAction,
  upModel: string,
  model: string,
): Record<string, unknown> | null {
  if (upModel === model) return null;
  const b: Record<string, unknown> = { ...body };
  if (action === 'batchEmbedContents' && Array.isArray(b.requests)) {
    b.requests = b.requests.map((r: unknown) => (isObj(r) ? { ...r, model: `models/${upModel}` } : r));
  } else if (typeof b.model === 'string') b.model = `models/${upModel}`;
  return b;
}

/** The OpenAI embeddings body for a Gemini embedding request. */
export function openaiEmbedFromGemini(body: Record<string, unknown>, action: GeminiEmbedAction, upModel: string): Record<string, unknown> {
  const texts = embedTexts(body, action) ?? [];
  const out: Record<string, unknown> = { model: upModel, input: action === 'embedContent' ? texts[0] : texts };
  const dims =
    action === 'embedContent'
      ? body.outputDimensionality
      : Array.isArray(body.requests) && isObj(body.requests[0])
        ? body.requests[0].outputDimensionality
        : undefined;
  if (typeof dims === 'number') out.dimensions = dims;
  return out;
}

/** The Gemini answer for an OpenAI embeddings response; null when it has no float vectors. */
export function geminiEmbedFromOpenAI(json: unknown, action: GeminiEmbedAction): Record<string, unknown> | null {
  if (!isObj(json) || !Array.isArray(json.data)) return null;
  const rows = [...json.data].filter(isObj).sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0));
  const values: number[][] = [];
  for (const r of rows) {
    if (!Array.isArray(r.embedding)) return null;
    values.push(r.embedding as number[]);
  }
  if (action === 'embedContent') return values.length ? { embedding: { values: values[0] } } : null;
  return { embeddings: values.map((v) => ({ values: v })) };
}
