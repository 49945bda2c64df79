/** Anthropic usage and Messages answers ⇄ canonical: the codec's usage and response sections (codec.ts). */
import type { CanonicalChoice, CanonicalResponse, ContentPart, FinishReason, ToolCall, Usage } from '../canonical.ts';
import { GEMINI_SIG_PREFIX, argsObject, argsText, bad, emptyUsage, idWithSignature, isObj, n0, newToolCallId } from '../canonical.ts';

export function usageFromAnthropic(u: unknown): Usage | null {
  if (!isObj(u)) return null;
  const read = n0(u.cache_read_input_tokens);
  const write = n0(u.cache_creation_input_tokens);
  const out: Usage = {
    inputTokens: n0(u.input_tokens) + read + write,
    outputTokens: n0(u.output_tokens),
    cachedInputTokens: read,
    cacheWriteTokens: write,
    reasoningTokens: 0,
  };
  const w1h = writes1h(u, write);
  if (w1h > 0) out.cacheWrite1hTokens = w1h;
  return billedExtras(u, out);
}

/** Server-tool calls (`server_tool_use.web_search_requests` → `web_search`) and the service tier of a usage. */
function billedExtras<T extends Partial<Usage>>(u: Record<string, unknown>, out: T): T {
  const st = u.server_tool_use;
  if (isObj(st)) {
    const tools: Record<string, number> = {};
    for (const [k, v] of Object.entries(st)) if (k.endsWith('_requests') && n0(v) > 0) tools[k.slice(0, -9)] = n0(v);
    if (Object.keys(tools).length) out.serverTools = tools;
  }
  if (typeof u.service_tier === 'string') out.serviceTier = u.service_tier;
  return out;
}

/** The 1-hour part of the cache writes (`cache_creation.ephemeral_1h_input_tokens`), at most `write`. */
function writes1h(u: Record<string, unknown>, write: number): number {
  const c = u.cache_creation;
  return isObj(c) ? Math.min(write, n0(c.ephemeral_1h_input_tokens)) : 0;
}

export function usageToAnthropic(u: Usage): Record<string, number> {
  return {
    input_tokens: Math.max(0, u.inputTokens - u.cachedInputTokens - u.cacheWriteTokens),
    output_tokens: u.outputTokens,
    cache_creation_input_tokens: u.cacheWriteTokens,
    cache_read_input_tokens: u.cachedInputTokens,
  };
}

export function usageFromResponse(body: unknown): Usage | null {
  return isObj(body) ? usageFromAnthropic(body.usage) : null;
}

/** Partial usage of one SSE event; message_delta usage may carry only output_tokens. */
export function partialUsage(u: unknown): Partial<Usage> | null {
  if (!isObj(u)) return null;
  const out: Partial<Usage> = {};
  if (typeof u.output_tokens === 'number') out.outputTokens = u.output_tokens;
  if (typeof u.input_tokens === 'number') {
    const read = n0(u.cache_read_input_tokens);
    const write = n0(u.cache_creation_input_tokens);
    out.inputTokens = u.input_tokens + read + write;
    out.cachedInputTokens = read;
    out.cacheWriteTokens = write;
    const w1h = writes1h(u, write);
    if (w1h > 0) out.cacheWrite1hTokens = w1h;
  }
  billedExtras(u, out);
  return Object.keys(out).length ? out : null;
}

export function usageFromStreamEvent(ev: { event?: string; data: string }): Partial<Usage> | null {
  if (!ev.data.includes('"usage"')) return null;
  try {
    const j = JSON.parse(ev.data);
    if (j?.type === 'message_start') return partialUsage(j.message?.usage);
    if (j?.type === 'message_delta') return partialUsage(j.usage);
  } catch {}
  return null;
}

const STOP_IN: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};
export const finishFromAnthropic = (r: unknown): FinishReason => (typeof r === 'string' && STOP_IN[r]) || 'stop';
export const STOP_OUT: Record<FinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
  error: 'end_turn',
};

export function decodeResponse(body: unknown): CanonicalResponse {
  if (!isObj(body)) throw bad('upstream response', 'is not a JSON object');
  const parts: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  const dropped: string[] = [];
  for (const b of Array.isArray(body.content) ? body.content : []) {
    if (!isObj(b)) continue;
    if (b.type === 'tool_use')
      toolCalls.push({ id: String(b.id ?? newToolCallId()), name: String(b.name ?? ''), arguments: argsText(b.input ?? {}) });
    else if (b.type === 'text') parts.push({ type: 'text', text: String(b.text ?? '') });
    else if (b.type === 'thinking')
      parts.push({
        type: 'thinking',
        text: String(b.thinking ?? ''),
        ...(b.signature ? { signature: String(b.signature) } : {}),
        from: 'anthropic',
      });
    else if (b.type === 'redacted_thinking') parts.push({ type: 'thinking', text: '', redacted: String(b.data ?? ''), from: 'anthropic' });
    else dropped.push(`content block ${String(b.type)}`);
  }
  const choice: CanonicalChoice = { index: 0, parts, toolCalls, finishReason: finishFromAnthropic(body.stop_reason) };
  return {
    id: typeof body.id === 'string' ? body.id : '',
    model: typeof body.model === 'string' ? body.model : undefined,
    choices: [choice],
    usage: usageFromAnthropic(body.usage) ?? emptyUsage(),
    dropped,
  };
}

function thinkingBlock(p: { text?: string; signature?: string; redacted?: string; from?: string }): Record<string, unknown> {
  if (p.redacted) return { type: 'redacted_thinking', data: p.redacted };
  const sig = p.signature ? (p.from === 'gemini' ? GEMINI_SIG_PREFIX + p.signature : p.signature) : '';
  return { type: 'thinking', thinking: p.text ?? '', signature: sig };
}

export function encodeResponse(res: CanonicalResponse, clientModel: string, requestId: string): Record<string, unknown> {
  const c = res.choices[0] ?? { index: 0, parts: [], toolCalls: [], finishReason: 'stop' as FinishReason };
  const content: Record<string, unknown>[] = [];
  for (const p of c.parts) {
    if (p.type === 'thinking') content.push(thinkingBlock(p));
    else if (p.type === 'text' && p.text) content.push({ type: 'text', text: p.text });
    else if (p.type === 'image') {
      content.push({
        type: 'text',
        text: p.source.kind === 'url' ? `![image](${p.source.url})` : `![image](data:${p.source.mediaType};base64,${p.source.data})`,
      });
    }
  }
  for (const t of c.toolCalls)
    content.push({
      type: 'tool_use',
      id: idWithSignature(t.id, t.thoughtSignature),
      name: t.name,
      input: argsObject(t.arguments, undefined, ''),
    });
  return {
    id: res.id && res.id.startsWith('msg_') ? res.id : `msg_${requestId}`,
    type: 'message',
    role: 'assistant',
    model: clientModel,
    content,
    stop_reason: STOP_OUT[c.finishReason],
    stop_sequence: null,
    usage: usageToAnthropic(res.usage),
  };
}
