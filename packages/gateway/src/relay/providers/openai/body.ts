/**
 * OpenAI request and response bodies as the relay sends them on as received: the output-token fields
 * (`max_tokens`, `max_completion_tokens`), `stream_options.include_usage`, and the text of a body
 * (counted when the upstream reports no usage).
 */
import type { RelayKind, UpstreamChannel } from '../provider.ts';
import { isObj } from '../../../platform/validate.ts';

/** Whether an OpenAI stream request asks for usage in its last chunk. */
export function includeUsageAsked(body: Record<string, unknown>): boolean {
  return isObj(body.stream_options) && body.stream_options.include_usage === true;
}

/** Whether an OpenAI body already asks for exactly `max` output tokens. */
export function sendsMax(b: Record<string, unknown>, max: number): boolean {
  const mc = b.max_completion_tokens;
  const mt = b.max_tokens;
  if (mc === undefined && mt === undefined) return false;
  return (mc === undefined || mc === max) && (mt === undefined || mt === max);
}

/**
 * The field an OpenAI upstream reads max_tokens from when the caller named none: a channel's
 * `settings.max_tokens_field`, else `max_tokens` for completions and `max_completion_tokens` for chat
 * (every current OpenAI model takes it; reasoning models refuse `max_tokens`).
 */
export function openaiMaxField(ch: Pick<UpstreamChannel, 'settings'>, kind: RelayKind): 'max_tokens' | 'max_completion_tokens' {
  const f = ch.settings.max_tokens_field;
  if (f === 'max_tokens' || f === 'max_completion_tokens') return f;
  return kind === 'completions' ? 'max_tokens' : 'max_completion_tokens';
}

/** Sets the max of an OpenAI body to at most `max` (every max field it has; `field` when it has none). */
export function setOpenAIMax(b: Record<string, unknown>, max: number, field: 'max_tokens' | 'max_completion_tokens'): void {
  let any = false;
  for (const k of ['max_tokens', 'max_completion_tokens'] as const) {
    if (b[k] === undefined || b[k] === null) continue;
    any = true;
    b[k] = typeof b[k] === 'number' && (b[k] as number) < max ? b[k] : max;
  }
  if (!any) b[field] = max;
}

/** Text of an OpenAI content value: a string, an array of strings/parts, or token arrays (counted by length). */
export function textOfContent(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    let t = '';
    for (const p of c) {
      if (typeof p === 'string') t += p;
      else if (typeof p === 'number') t += 'xxx';
      else if (Array.isArray(p)) t += 'xxx'.repeat(p.length);
      else if (isObj(p) && typeof p.text === 'string') t += p.text;
    }
    return t;
  }
  return '';
}

/** Output text of an OpenAI chat or completions answer. */
export function responseText(json: unknown): string {
  if (!isObj(json) || !Array.isArray(json.choices)) return '';
  let t = '';
  for (const c of json.choices as any[]) {
    if (typeof c?.text === 'string') t += c.text;
    const m = c?.message;
    if (m) {
      if (typeof m.content === 'string') t += m.content;
      if (Array.isArray(m.tool_calls))
        for (const tc of m.tool_calls) t += String(tc?.function?.name ?? '') + String(tc?.function?.arguments ?? '');
    }
  }
  return t;
}
