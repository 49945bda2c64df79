/** OpenAI-format thinking blocks ⇄ canonical thinking parts: what the codec's request, answer and stream sections share (codec.ts). */
import type { ContentPart } from '../canonical.ts';
import { bad, isObj } from '../canonical.ts';

//
// Anthropic thinking comes with a signature (and sometimes as encrypted redacted_thinking), which the
// vendor wants back with the next turn when tools are in play. The OpenAI format has no field for it,
// so, as LiteLLM does, messages carry `thinking_blocks` beside `reasoning_content`:
// `[{ type: 'thinking', thinking, signature } | { type: 'redacted_thinking', data }]`. In a stream,
// each `thinking_blocks` entry of a delta is one whole block, sent when its signature arrives (the
// text also streams as `reasoning_content`).

type ThinkingOut = { type: 'thinking'; thinking: string; signature: string } | { type: 'redacted_thinking'; data: string };

/** `thinking_blocks` of a message as thinking parts; `field` set: a malformed entry is a 400. */
export function decodeThinkingBlocks(v: unknown, field?: string): ContentPart[] {
  if (!Array.isArray(v)) {
    if (field && v !== undefined && v !== null) throw bad(field, 'must be an array of thinking blocks');
    return [];
  }
  const out: ContentPart[] = [];
  v.forEach((b, i) => {
    if (
      isObj(b) &&
      b.type === 'thinking' &&
      typeof b.thinking === 'string' &&
      (b.signature === undefined || typeof b.signature === 'string')
    ) {
      out.push({ type: 'thinking', text: b.thinking, ...(b.signature ? { signature: b.signature } : {}), from: 'anthropic' });
    } else if (isObj(b) && b.type === 'redacted_thinking' && typeof b.data === 'string') {
      out.push({ type: 'thinking', text: '', redacted: b.data, from: 'anthropic' });
    } else if (field) {
      throw bad(`${field}[${i}]`, 'must be {type: "thinking", thinking, signature} or {type: "redacted_thinking", data}');
    }
  });
  return out;
}

/** The thinking parts that carry an Anthropic signature or redacted data, as `thinking_blocks`. */
export function thinkingBlocksOut(parts: readonly ContentPart[]): ThinkingOut[] {
  const out: ThinkingOut[] = [];
  for (const p of parts) {
    if (p.type !== 'thinking' || p.from === 'gemini') continue;
    if (p.redacted) out.push({ type: 'redacted_thinking', data: p.redacted });
    else if (p.signature) out.push({ type: 'thinking', thinking: p.text, signature: p.signature });
  }
  return out;
}

/** Thinking of an assistant message or response: the blocks when given (they hold the text too), else the reasoning text. */
export function thinkingParts(m: Record<string, any>, field?: string): ContentPart[] {
  const blocks = decodeThinkingBlocks(m.thinking_blocks, field);
  if (blocks.length) return blocks;
  const reasoning = typeof m.reasoning_content === 'string' ? m.reasoning_content : typeof m.reasoning === 'string' ? m.reasoning : '';
  return reasoning ? [{ type: 'thinking', text: reasoning }] : [];
}
