/** OpenAI usage and Chat Completions answers ⇄ canonical: the codec's usage and response sections (codec.ts). */
import type { CanonicalChoice, CanonicalResponse, ContentPart, FinishReason, ToolCall, Usage } from '../canonical.ts';
import { bad, emptyUsage, idWithSignature, imageUrlOf, isObj, n0 } from '../canonical.ts';
import { thinkingBlocksOut, thinkingParts } from './thinking.ts';
import { decodeContent, decodeToolCalls } from './request.ts';

export function usageFromOpenAI(u: unknown): Usage | null {
  if (!isObj(u)) return null;
  const out: Usage = {
    inputTokens: n0(u.prompt_tokens),
    outputTokens: n0(u.completion_tokens),
    cachedInputTokens: n0(u.prompt_tokens_details?.cached_tokens ?? u.prompt_cache_hit_tokens),
    cacheWriteTokens: n0(u.prompt_tokens_details?.cache_write_tokens ?? u.cache_creation_input_tokens),
    reasoningTokens: n0(u.completion_tokens_details?.reasoning_tokens),
  };
  // Audio and image tokens, priced apart (billing/price-rules.ts).
  const extra: Array<[keyof Usage, unknown]> = [
    ['audioInputTokens', u.prompt_tokens_details?.audio_tokens],
    ['imageInputTokens', u.prompt_tokens_details?.image_tokens],
    ['audioOutputTokens', u.completion_tokens_details?.audio_tokens],
    ['imageOutputTokens', u.completion_tokens_details?.image_tokens],
  ];
  for (const [k, v] of extra) if (n0(v) > 0) (out as unknown as Record<string, number>)[k] = n0(v);
  return out;
}

/** The usage of an answer or chunk with the service tier it was served at (`service_tier`, top level; `default` is none). */
function withServiceTier(body: Record<string, unknown>, u: Usage | null): Usage | null {
  if (u && typeof body.service_tier === 'string' && body.service_tier !== 'default') u.serviceTier = body.service_tier;
  return u;
}

export function usageToOpenAI(u: Usage): Record<string, unknown> {
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cachedInputTokens },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}

export function usageFromResponse(body: unknown): Usage | null {
  return isObj(body) ? withServiceTier(body, usageFromOpenAI(body.usage)) : null;
}

export function usageFromStreamEvent(ev: { event?: string; data: string }): Partial<Usage> | null {
  if (!ev.data.includes('"usage"')) return null;
  try {
    const j = JSON.parse(ev.data);
    return isObj(j) ? withServiceTier(j, usageFromOpenAI(j.usage)) : null;
  } catch {
    return null;
  }
}

const FINISH_IN: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  content_filter: 'content_filter',
};

export const finishFromOpenAI = (r: unknown): FinishReason => (typeof r === 'string' && FINISH_IN[r]) || 'stop';
export const finishToOpenAI = (r: FinishReason): string => (r === 'error' ? 'stop' : r);

export function decodeResponse(body: unknown): CanonicalResponse {
  if (!isObj(body)) throw bad('upstream response', 'is not a JSON object');
  const dropped: string[] = [];
  const choices: CanonicalChoice[] = (Array.isArray(body.choices) ? body.choices : []).map((c: any, i: number): CanonicalChoice => {
    const m = isObj(c?.message) ? c.message : {};
    const parts: ContentPart[] = thinkingParts(m);
    if (typeof m.content === 'string' && m.content) parts.push({ type: 'text', text: m.content });
    else if (Array.isArray(m.content)) parts.push(...decodeContent(m.content, 'content'));
    if (typeof m.refusal === 'string' && m.refusal) parts.push({ type: 'text', text: m.refusal });
    if (c?.logprobs) dropped.push('logprobs');
    let toolCalls: ToolCall[] = [];
    try {
      toolCalls = decodeToolCalls(m.tool_calls, 'tool_calls');
    } catch {
      toolCalls = [];
    }
    return { index: typeof c?.index === 'number' ? c.index : i, parts, toolCalls, finishReason: finishFromOpenAI(c?.finish_reason) };
  });
  return {
    id: typeof body.id === 'string' ? body.id : '',
    model: typeof body.model === 'string' ? body.model : undefined,
    created: typeof body.created === 'number' ? body.created : undefined,
    choices,
    usage: usageFromOpenAI(body.usage) ?? emptyUsage(),
    dropped,
  };
}

export function toolCallOut(c: ToolCall, index?: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (index !== undefined) out.index = index;
  out.id = idWithSignature(c.id, c.thoughtSignature);
  out.type = 'function';
  out.function = { name: c.name, arguments: c.arguments };
  if (c.thoughtSignature) out.extra_content = { google: { thought_signature: c.thoughtSignature } };
  return out;
}

function visibleText(parts: ContentPart[]): string {
  let s = '';
  for (const p of parts) {
    if (p.type === 'text') s += p.text;
    else if (p.type === 'image') s += `![image](${imageUrlOf(p.source)})`;
  }
  return s;
}

export function encodeResponse(res: CanonicalResponse, clientModel: string, requestId: string): Record<string, unknown> {
  return {
    id: res.id && res.id.startsWith('chatcmpl') ? res.id : `chatcmpl-${requestId}`,
    object: 'chat.completion',
    created: res.created ?? Math.floor(Date.now() / 1000),
    model: clientModel,
    choices: res.choices.map((c) => {
      const message: Record<string, unknown> = { role: 'assistant', content: null };
      const text = visibleText(c.parts);
      const thinking = c.parts
        .filter((p) => p.type === 'thinking')
        .map((p) => (p as { text: string }).text)
        .join('');
      message.content = text || (c.toolCalls.length ? null : '');
      if (thinking) message.reasoning_content = thinking;
      const blocks = thinkingBlocksOut(c.parts);
      if (blocks.length) message.thinking_blocks = blocks;
      if (c.toolCalls.length) message.tool_calls = c.toolCalls.map((t) => toolCallOut(t));
      return { index: c.index, message, logprobs: null, finish_reason: finishToOpenAI(c.finishReason) };
    }),
    usage: usageToOpenAI(res.usage),
  };
}
