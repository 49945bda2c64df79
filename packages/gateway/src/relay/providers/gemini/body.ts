/**
 * Gemini request bodies as the relay sends them on (the output-token limit, `generationConfig` or
 * `generation_config`), and the JSON-array stream `:streamGenerateContent` answers without `alt=sse`.
 */
import { SseFramer } from '../../sse.ts';
import { isObj } from '../../../platform/validate.ts';

/** The output-token limit of a Gemini body. */
export function geminiMax(b: Record<string, unknown>): unknown {
  const g = b.generationConfig ?? b.generation_config;
  return isObj(g) ? g.maxOutputTokens : undefined;
}

/** Sets generationConfig.maxOutputTokens of a Gemini body to at most `max`. */
export function setGeminiMax(b: Record<string, unknown>, max: number): void {
  const key = b.generationConfig === undefined && b.generation_config !== undefined ? 'generation_config' : 'generationConfig';
  const g = isObj(b[key]) ? { ...(b[key] as Record<string, unknown>) } : {};
  g.maxOutputTokens = typeof g.maxOutputTokens === 'number' && g.maxOutputTokens < max ? g.maxOutputTokens : max;
  b[key] = g;
}

/**
 * Re-frames SSE text as the JSON array Gemini's `:streamGenerateContent` answers without `alt=sse`:
 * `[` + each event's data joined by `,` + `]`, written as events complete.
 */
export class JsonArrayStream {
  private readonly framer = new SseFramer();
  private first = true;

  push(chunk: string | Buffer): string {
    if (chunk.length === 0) return '';
    let out = '';
    for (const ev of this.framer.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) out += this.item(ev.data);
    return out;
  }

  end(): string {
    let out = '';
    for (const ev of this.framer.end()) out += this.item(ev.data);
    return out + (this.first ? '[]' : '\n]');
  }

  private item(data: string): string {
    const d = data.trim();
    if (!d || d === '[DONE]') return '';
    const s = (this.first ? '[' : ',\r\n') + d;
    this.first = false;
    return s;
  }
}
