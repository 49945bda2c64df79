/**
 * Gemini-native embeddings (`:embedContent`, `:batchEmbedContents`) as the chat family (relay.ts) serves
 * them: the check of the request, its body for a channel (a Gemini channel's body as received with the
 * channel's model, an OpenAI channel's converted) and the answer in the caller's format, with the
 * converters of providers/gemini/embed.ts.
 */
import { fail } from '../platform/errors.ts';
import type { RuntimeChannel } from './channels.ts';
import { applyParamOverride } from './providers/endpoint.ts';
import { usageFromResponse, type Usage, type WireFormat } from './providers/index.ts';
import { embedTexts, geminiEmbedFromOpenAI, geminiEmbedPassBody, openaiEmbedFromGemini } from './providers/gemini/embed.ts';
import type { Ctx, RelayCall } from './chat-call.ts';

/** Whether the call is a Gemini-native embedding call. */
export const isGeminiEmbed = (kind: RelayCall['kind'], cf: WireFormat): boolean => kind === 'embeddings' && cf === 'gemini';

/** Refuses a Gemini embedding request without its texts (400). */
export function checkGeminiEmbed(call: RelayCall): void {
  if (embedTexts(call.body, call.geminiAction ?? 'embedContent') === null) {
    throw fail(
      'invalid_request',
      call.geminiAction === 'batchEmbedContents'
        ? '"requests" must be a list of {content:{parts:[{text}]}}'
        : '"content" must be {parts:[{text}]}',
    );
  }
}

/** The body of a Gemini embedding call for a channel of format `fmt` (as received when nothing can be made of it). */
export function geminiEmbedBody(ctx: Ctx, ch: RuntimeChannel, fmt: WireFormat, upModel: string): string | Buffer {
  const { call } = ctx;
  const action = call.geminiAction ?? 'embedContent';
  const b =
    fmt === 'gemini' ? geminiEmbedPassBody(call.body, action, upModel, ctx.model) : openaiEmbedFromGemini(call.body, action, upModel);
  if (b === null) return call.raw;
  applyParamOverride(b, ch.paramOverride);
  return JSON.stringify(b);
}

/** The caller's answer to a Gemini embedding call and the usage the upstream reported; null when it cannot be read. */
export function geminiEmbedAnswer(ctx: Ctx, fmt: WireFormat, text: string, json: unknown): { out: string; usage: Usage | null } | null {
  // Gemini reports no usage for embeddings: the input is counted
  if (fmt === 'gemini') return { out: text, usage: null };
  const conv = geminiEmbedFromOpenAI(json, ctx.call.geminiAction ?? 'embedContent');
  if (!conv) return null;
  return { out: JSON.stringify(conv), usage: usageFromResponse('openai', json) };
}
