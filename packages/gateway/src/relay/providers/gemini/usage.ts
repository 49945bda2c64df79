/** Gemini usage metadata, finish reasons and function-call parts ⇄ canonical: what the codec's answers and streams share (codec.ts). */
import type { FinishReason, ToolCall, Usage } from '../canonical.ts';
import { argsObject, isObj, n0 } from '../canonical.ts';

export function usageFromGemini(u: unknown): Usage | null {
  if (!isObj(u)) return null;
  const thoughts = n0(u.thoughtsTokenCount);
  const out: Usage = {
    inputTokens: n0(u.promptTokenCount) + n0(u.toolUsePromptTokenCount),
    outputTokens: n0(u.candidatesTokenCount) + thoughts,
    cachedInputTokens: n0(u.cachedContentTokenCount),
    cacheWriteTokens: 0,
    reasoningTokens: thoughts,
  };
  // Tokens by modality (`promptTokensDetails`, `candidatesTokensDetails`): audio and image priced apart.
  const modality = (details: unknown, m: string) =>
    Array.isArray(details) ? details.reduce((s: number, d) => s + (isObj(d) && d.modality === m ? n0(d.tokenCount) : 0), 0) : 0;
  const extra: Array<[keyof Usage, number]> = [
    ['audioInputTokens', modality(u.promptTokensDetails, 'AUDIO')],
    ['imageInputTokens', modality(u.promptTokensDetails, 'IMAGE')],
    ['audioOutputTokens', modality(u.candidatesTokensDetails, 'AUDIO')],
    ['imageOutputTokens', modality(u.candidatesTokensDetails, 'IMAGE')],
  ];
  for (const [k, v] of extra) if (v > 0) (out as unknown as Record<string, number>)[k] = v;
  return out;
}

/** Google Search grounding of an answer or chunk: the search queries it reports, as `web_search` calls. */
function withGrounding(b: Record<string, unknown>, u: Usage | null): Usage | null {
  if (!u || !Array.isArray(b.candidates)) return u;
  let n = 0;
  for (const c of b.candidates) {
    const g = isObj(c) ? c.groundingMetadata : null;
    if (isObj(g) && Array.isArray(g.webSearchQueries)) n += g.webSearchQueries.length;
  }
  if (n > 0) u.serverTools = { web_search: n };
  return u;
}

export function usageToGemini(u: Usage): Record<string, number> {
  const out: Record<string, number> = {
    promptTokenCount: u.inputTokens,
    candidatesTokenCount: Math.max(0, u.outputTokens - u.reasoningTokens),
    totalTokenCount: u.inputTokens + u.outputTokens,
  };
  if (u.cachedInputTokens) out.cachedContentTokenCount = u.cachedInputTokens;
  if (u.reasoningTokens) out.thoughtsTokenCount = u.reasoningTokens;
  return out;
}

export function usageFromResponse(body: unknown): Usage | null {
  const b = Array.isArray(body) ? body[body.length - 1] : body;
  return isObj(b) ? withGrounding(b, usageFromGemini(b.usageMetadata)) : null;
}

export function usageFromStreamEvent(ev: { event?: string; data: string }): Partial<Usage> | null {
  if (!ev.data.includes('usageMetadata')) return null;
  try {
    const j = JSON.parse(ev.data);
    return isObj(j) ? withGrounding(j, usageFromGemini(j.usageMetadata)) : null;
  } catch {
    return null;
  }
}

const FINISH_IN: Record<string, FinishReason> = {
  STOP: 'stop',
  FINISH_REASON_UNSPECIFIED: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  LANGUAGE: 'content_filter',
  MALFORMED_FUNCTION_CALL: 'error',
  UNEXPECTED_TOOL_CALL: 'error',
  OTHER: 'error',
};
export const finishFromGemini = (r: unknown, hasCalls: boolean): FinishReason => {
  const f = (typeof r === 'string' && FINISH_IN[r]) || 'stop';
  return f === 'stop' && hasCalls ? 'tool_calls' : f;
};
export const FINISH_OUT: Record<FinishReason, string> = {
  stop: 'STOP',
  tool_calls: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
  error: 'OTHER',
};
export function functionCallPart(t: ToolCall): Record<string, unknown> {
  const part: Record<string, unknown> = { functionCall: { id: t.id, name: t.name, args: argsObject(t.arguments, undefined, '') } };
  if (t.thoughtSignature) part.thoughtSignature = t.thoughtSignature;
  return part;
}
