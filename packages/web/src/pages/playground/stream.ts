/**
 * One playground call: POST /pg/chat/completions (session cookie, billed to the user) with
 * stream: true, read as server-sent events; each content delta is handed to `onDelta`.
 */
import { createParser } from 'eventsource-parser';
import { ApiError, client } from '../../api/client';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}
export interface ChatParams {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  max_tokens?: number;
}
export interface StreamUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

function errorMessage(body: unknown, fallback: string): string {
  const b = body as { error?: { message?: string }; message?: string } | undefined;
  return b?.error?.message ?? b?.message ?? (typeof body === 'string' && body ? body : fallback);
}

/** A refused or failed call, with the error code of the OpenAI-format answer (`insufficient_quota` …) when it had one. */
export class ChatError extends ApiError {
  constructor(status: number, message: string, code: string | null) {
    super(status, message, code ?? undefined);
  }
}

const codeOf = (body: unknown): string | null => {
  const c = (body as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof c === 'string' ? c : null;
};

export async function streamChat(p: ChatParams, onDelta: (text: string) => void, signal: AbortSignal): Promise<StreamUsage | null> {
  let r;
  try {
    r = await client.POST('/pg/chat/completions', {
      body: { ...p, stream: true, stream_options: { include_usage: true } },
      parseAs: 'stream',
      signal,
    });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError(0, (e as Error).message);
  }
  if (!r.response.ok || !r.data)
    throw new ChatError(r.response.status, errorMessage(r.error, `HTTP ${r.response.status}`), codeOf(r.error));
  let usage: StreamUsage | null = null;
  let failure: { message: string; code: string | null } | null = null;
  const parser = createParser({
    onEvent(ev) {
      if (ev.data === '[DONE]') return;
      try {
        const chunk = JSON.parse(ev.data) as {
          choices?: { delta?: { content?: string | null } }[];
          usage?: StreamUsage | null;
          error?: { message?: string; code?: string };
        };
        if (chunk.error) failure = { message: chunk.error.message ?? 'stream error', code: chunk.error.code ?? null };
        const text = chunk.choices?.[0]?.delta?.content;
        if (text) onDelta(text);
        if (chunk.usage) usage = chunk.usage;
      } catch {}
    },
  });
  const reader = (r.data as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  const f = failure as { message: string; code: string | null } | null;
  if (f) throw new ChatError(502, f.message, f.code);
  return usage;
}
